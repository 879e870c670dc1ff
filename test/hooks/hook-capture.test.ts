/**
 * Live capture through the agents' hooks, end to end short of the agent itself: the hook command
 * (bin/entity-memory-hook.cjs) run once per event as the agent runs it, a real server, a real
 * user's repo bound as a project. A turn's events become the session's turn and messages, and
 * the files the agent's tools edited (named by Write/Edit, or changed while its shell command
 * ran) become the agent's project commit; the user's own work is never taken. The real Claude
 * Code CLI drives the same path in test/agents.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/logger.js';
import { eventually, git } from '../helpers/git.js';
import { capturedLogger } from '../helpers/logger.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { CreateProject } from '../projects/operations.js';
import { agentCommits, FAST_COMMITTER, outcome, userGit, userRepo } from '../projects/project-turns.js';
import { claudeEvents, OLDER_HOOK_BIN, runHook } from './hook-events.js';

const SESSION = `
  query Hooked($sessionId: String!) {
    session(sessionId: $sessionId) {
      title
      agentId
      source
      project { projectId }
      turns(first: 10) { edges { node { number open } } }
      messages(first: 50) { edges { node { messageId role content toolName toolCallId caller { messageId } } } }
    }
  }`;

interface HookedSession {
  title: string | null;
  agentId: string | null;
  source: string | null;
  project: { projectId: string } | null;
  turns: { edges: { node: { number: number; open: boolean } }[] };
  messages: { edges: { node: { messageId: string; role: string; content: string; toolName: string | null; toolCallId: string | null; caller: { messageId: string } | null } }[] };
}

async function setUp() {
  const root = tempDir('em-hooks-');
  const api = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
  const dir = userRepo(root);
  await api.ok(CreateProject, { input: { name: 'App', workdir: dir } });
  const send = async (event: object) => {
    const run = await runHook('claude-code', api.dataDir, event);
    expect(run).toEqual({ code: 0, stdout: '', stderr: '' });
  };
  const read = async (sessionId: string) => {
    const result = await api.raw(SESSION, { sessionId });
    if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
    return (result.data as { session: HookedSession }).session;
  };
  return { api, root, dir, send, read };
}

describe('capture through the hook command', () => {
  it("records a Claude Code turn from its events and commits exactly the files the agent's tools edited", async () => {
    const { api, dir, send, read } = await setUp();
    const c = claudeEvents('cc-1', join(dir, 'src', '..'));
    await send(c.sessionStart());
    await send(c.prompt('p1', 'create a.txt and run the generator'));
    // Write names its file; the shell command's file is found by looking before and after it.
    const write = { file_path: join(dir, 'a.txt'), content: 'hello\n' };
    await send(c.preTool('p1', 'toolu_1', 'Write', write));
    writeFileSync(join(dir, 'a.txt'), 'hello\n');
    await send(c.postTool('p1', 'toolu_1', 'Write', write, { type: 'create', filePath: write.file_path }));
    const bash = { command: 'echo generated > gen.txt' };
    await send(c.preTool('p1', 'toolu_2', 'Bash', bash));
    writeFileSync(join(dir, 'gen.txt'), 'generated\n');
    await send(c.postTool('p1', 'toolu_2', 'Bash', bash, { stdout: '', stderr: '', interrupted: false }));
    await send(c.stop('p1', 'Created a.txt and gen.txt.'));

    const session = await read('cc-1');
    // Named after its first prompt, as an import of its transcript would be.
    expect(session).toMatchObject({ title: 'create a.txt and run the generator', agentId: 'claude-code', source: null, project: { projectId: expect.any(String) } });
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    expect(session.messages.edges.map((e) => [e.node.role, e.node.toolName, e.node.caller?.messageId ?? null])).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'Write', null],
      ['TOOL', 'Write', 'call-toolu_1'],
      ['ASSISTANT', 'Bash', null],
      ['TOOL', 'Bash', 'call-toolu_2'],
      ['ASSISTANT', null, null],
    ]);
    expect(session.messages.edges.at(-1)!.node.content).toBe('Created a.txt and gen.txt.');

    const result = await outcome(api, 'cc-1', 1);
    expect(result).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'gen.txt'] });
    expect(agentCommits(dir)).toHaveLength(1);
    expect(git(dir, 'show', '--format=', '--name-only', 'HEAD').trim().split('\n')).toEqual(['a.txt', 'gen.txt']);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  }, 60_000);

  it('names an untitled session after its first prompt, without its secrets, and keeps a title it has', async () => {
    const { api, dir, send, read } = await setUp();
    const token = ['ghp_', 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx'].join('');
    const c = claudeEvents('cc-title', dir);
    await send(c.sessionStart());
    await send(c.prompt('p1', `\n  push with GITHUB_TOKEN=${token} then open the PR, and after that ${'x'.repeat(100)}\nsecond line`));
    await send(c.stop('p1', 'Pushed.'));
    const titled = (await read('cc-title')).title!;
    expect(titled).toMatch(/^push with GITHUB_TOKEN=\[redacted:[a-z-]+\] then open the PR/);
    expect(titled).not.toContain(token);
    expect(titled.length).toBeLessThanOrEqual(80);
    // Later prompts leave it.
    await send(c.prompt('p2', 'now the changelog'));
    await send(c.stop('p2', 'Done.'));
    expect((await read('cc-title')).title).toBe(titled);

    // A session that has a title keeps it.
    const created = await api.raw('mutation ($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }', { input: { sessionId: 'cc-named', title: 'Named by me' } });
    expect(created.errors).toBeUndefined();
    const n = claudeEvents('cc-named', dir);
    await send(n.sessionStart());
    await send(n.prompt('p1', 'fix the login bug'));
    await send(n.stop('p1', 'Fixed.'));
    const named = await read('cc-named');
    expect(named.turns.edges).toHaveLength(1);
    expect(named.title).toBe('Named by me');
  }, 60_000);

  it('records each event once when the agent sends it twice, and a Stop after the turn closed changes nothing', async () => {
    const { api, dir, send, read } = await setUp();
    const c = claudeEvents('cc-2', dir);
    const edit = { file_path: join(dir, 'notes.txt'), old_string: 'v1', new_string: 'v2' };
    for (const event of [c.sessionStart(), c.prompt('p1', 'bump the notes')]) {
      await send(event);
      await send(event);
    }
    writeFileSync(join(dir, 'notes.txt'), 'v2\n');
    for (let i = 0; i < 2; i++) await send(c.postTool('p1', 'toolu_e', 'Edit', edit, { filePath: edit.file_path }));
    await send(c.stop('p1', 'Bumped.'));
    await send(c.stop('p1', 'Bumped.', true));

    const session = await read('cc-2');
    expect(session.turns.edges).toHaveLength(1);
    expect(session.messages.edges.map((e) => e.node.role)).toEqual(['USER', 'ASSISTANT', 'TOOL', 'ASSISTANT']);
    expect(await outcome(api, 'cc-2', 1)).toMatchObject({ result: 'COMMITTED', paths: ['notes.txt'] });
  }, 60_000);

  it("leaves the user's own edit alone: a file the user changed is not the agent's, and their work stays as they left it", async () => {
    const { api, dir, send } = await setUp();
    const c = claudeEvents('cc-3', dir);
    // The user has work in progress when the turn starts.
    writeFileSync(join(dir, 'notes.txt'), 'mine, not committed\n');
    await send(c.sessionStart());
    await send(c.prompt('p1', 'add a.txt'));
    const write = { file_path: join(dir, 'a.txt'), content: 'agent\n' };
    writeFileSync(join(dir, 'a.txt'), 'agent\n');
    await send(c.postTool('p1', 'toolu_w', 'Write', write, {}));
    await send(c.stop('p1', 'Added a.txt.'));

    const result = await outcome(api, 'cc-3', 1);
    expect(result.result).not.toBe('COMMITTED');
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine, not committed\n');
    expect(agentCommits(dir)).toEqual([]);
    expect(userGit(dir, 'status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual([' M notes.txt', '?? a.txt']);
  }, 60_000);

  it("records a subagent's tool calls in its parent's open turn, and its own prompt and stop close nothing", async () => {
    const { api, dir, send, read } = await setUp();
    const c = claudeEvents('cc-sub', dir);
    const sub = { agent_id: 'agent-7' };
    await send(c.prompt('p1', 'delegate the file'));
    // As Codex sends a child's events: its prompt and stop under the parent's session id, marked with agent_id.
    await send({ ...c.prompt('child-turn', 'write sub.txt'), ...sub });
    const write = { file_path: join(dir, 'sub.txt'), content: 'from subagent\n' };
    writeFileSync(write.file_path, write.content);
    await send({ ...c.postTool('child-turn', 'toolu_sub', 'Write', write, {}), ...sub });
    await send({ ...c.stop('child-turn', 'Wrote sub.txt.'), ...sub });
    await send(c.stop('p1', 'The subagent wrote sub.txt.'));
    const session = await read('cc-sub');
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    expect(session.messages.edges.map((e) => e.node.content)).toEqual(['delegate the file', '', '{}', 'The subagent wrote sub.txt.']);
    expect(await outcome(api, 'cc-sub', 1)).toMatchObject({ result: 'COMMITTED', paths: ['sub.txt'] });
  }, 60_000);

  it('cuts a 50 MB tool output to what fits, records the call, and the agent sees nothing', async () => {
    const { dir, send, read } = await setUp();
    const c = claudeEvents('cc-big', dir);
    await send(c.prompt('p1', 'print a lot'));
    const bash = { command: 'yes | head -c 50000000' };
    await send(c.preTool('p1', 'toolu_big', 'Bash', bash));
    await send(c.postTool('p1', 'toolu_big', 'Bash', bash, { stdout: 'y\n'.repeat(25_000_000), stderr: '' }));
    await send(c.stop('p1', 'Printed.'));
    const session = await read('cc-big');
    const result = session.messages.edges[2]!.node;
    expect(result.role).toBe('TOOL');
    expect(result.content.length).toBeLessThan(1_100_000);
    expect(result.content).toContain("[cut by entity-memory's hook: ");
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
  }, 60_000);

  it('keeps a path outside the project in the message and never commits it', async () => {
    const { api, root, dir, send, read } = await setUp();
    const c = claudeEvents('cc-4', dir);
    await send(c.prompt('p1', 'write outside'));
    const outside = { file_path: join(root, 'elsewhere.txt'), content: 'x\n' };
    writeFileSync(outside.file_path, 'x\n');
    await send(c.postTool('p1', 'toolu_o', 'Write', outside, {}));
    await send(c.stop('p1', 'Done.'));
    const session = await read('cc-4');
    expect(session.messages.edges[1]!.node.content).toBe('');
    const result = await outcome(api, 'cc-4', 1);
    expect(result.paths).toEqual([]);
    expect(agentCommits(dir)).toEqual([]);
  }, 60_000);
});

/** A two-record Claude Code transcript of session `sessionId` (one prompt, one reply). */
function transcript(path: string, sessionId: string, cwd: string): void {
  const records = [
    { type: 'user', uuid: 'u-1', parentUuid: null, sessionId, cwd, timestamp: '2026-12-01T10:00:00.000Z', message: { role: 'user', content: 'add a.txt' } },
    {
      type: 'assistant',
      uuid: 'a-1',
      parentUuid: 'u-1',
      sessionId,
      cwd,
      timestamp: '2026-12-01T10:00:01.000Z',
      message: { id: 'msg_1', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'Added.' }], stop_reason: 'end_turn' },
    },
  ];
  writeFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

const IMPORT = `mutation($paths: [String!]!) { importClaudeCode(input: { paths: $paths }) { sessions messages errors { message } } }`;

describe('a transcript of a session made another way', () => {
  it('adds nothing to a session recorded through hooks, which keeps committing in its project', async () => {
    const { api, root, dir, send, read } = await setUp();
    const c = claudeEvents('cc-imp', dir);
    await send(c.prompt('p1', 'add a.txt'));
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    await send(c.postTool('p1', 'toolu_a', 'Write', { file_path: join(dir, 'a.txt'), content: 'a\n' }, {}));
    await send(c.stop('p1', 'Added.'));
    const file = join(root, 'cc-imp.jsonl');
    transcript(file, 'cc-imp', dir);
    const imported = await api.raw(IMPORT, { paths: [file] });
    expect(imported.data).toEqual({ importClaudeCode: { sessions: 1, messages: 0, errors: [] } });
    const session = await read('cc-imp');
    expect(session.source).toBeNull();
    expect(session.messages.edges).toHaveLength(4);
    // Its next turn still commits.
    await send(c.prompt('p2', 'add b.txt'));
    writeFileSync(join(dir, 'b.txt'), 'b\n');
    await send(c.postTool('p2', 'toolu_b', 'Write', { file_path: join(dir, 'b.txt'), content: 'b\n' }, {}));
    await send(c.stop('p2', 'Added.'));
    expect(await outcome(api, 'cc-imp', 2)).toMatchObject({ result: 'COMMITTED', paths: ['b.txt'] });
  }, 60_000);

  it('is refused, as an error naming the session, for a session made through the API', async () => {
    const { api, root } = await setUp();
    await api.raw(`mutation { createSession(input: { sessionId: "api-made" }) { sessionId } }`);
    const file = join(root, 'api-made.jsonl');
    transcript(file, 'api-made', root);
    const imported = await api.raw(IMPORT, { paths: [file] });
    const summary = (imported.data as { importClaudeCode: { messages: number; errors: { message: string }[] } }).importClaudeCode;
    expect(summary.messages).toBe(0);
    expect(summary.errors.map((e) => e.message)).toEqual(['session api-made was made through the API; a transcript is never merged into it (nothing imported)']);
    const source = await api.raw(`{ session(sessionId: "api-made") { source messages(first: 5) { totalCount } } }`);
    expect(source.data).toEqual({ session: { source: null, messages: { totalCount: 0 } } });
  }, 60_000);
});

describe('the hook command on its own', () => {
  it('records an event sent by the command hooks installed before it became .cjs name (bin/entity-memory-hook.js)', async () => {
    const { api, dir, read } = await setUp();
    const c = claudeEvents('cc-older', dir);
    expect(await runHook('claude-code', api.dataDir, c.sessionStart(), OLDER_HOOK_BIN)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await runHook('claude-code', api.dataDir, c.prompt('p1', 'hello'), OLDER_HOOK_BIN)).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await read('cc-older')).messages.edges.map((e) => e.node.content)).toEqual(['hello']);
    expect(existsSync(join(api.dataDir, 'hooks', 'spool.jsonl'))).toBe(false);
  }, 60_000);

  it("sends the token of a server started with one (which keeps it in the data dir: hooks run without ENTITY_MEMORY_TOKEN); with a wrong one the event is spooled, said in its log, and still recorded", async () => {
    const root = tempDir('em-hooks-token-');
    const token = 'hook-test-token-0123456789abcdef';
    const api = await startTestServer({ allowedRoots: [root], token });
    const dir = userRepo(root);
    const c = claudeEvents('cc-token', dir);
    expect(readFileSync(join(api.dataDir, 'token'), 'utf8')).toBe(`${token}\n`);
    expect(statSync(join(api.dataDir, 'token')).mode & 0o777).toBe(0o600);
    expect(await runHook('claude-code', api.dataDir, c.sessionStart())).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await runHook('claude-code', api.dataDir, c.prompt('p1', 'with the token'))).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(join(api.dataDir, 'hooks', 'hook.log'))).toBe(false);

    writeFileSync(join(api.dataDir, 'token'), 'not-the-token-0123456789abcdef\n');
    expect(await runHook('claude-code', api.dataDir, c.postTool('p1', 'toolu_t', 'Read', { file_path: join(dir, 'a.txt') }, 'a'))).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(join(api.dataDir, 'hooks', 'hook.log'), 'utf8')).toMatch(/claude-code: HTTP 401 from http:\/\/.*; spooled/);
    const messages = await eventually(async () => {
      const result = await api.raw(SESSION, { sessionId: 'cc-token' });
      const edges = (result.data as { session: HookedSession } | null)?.session.messages.edges ?? [];
      return edges.length > 1 && edges;
    });
    expect(messages.map((e) => [e.node.role, e.node.toolName])).toEqual([['USER', null], ['ASSISTANT', 'Read'], ['TOOL', 'Read']]);
  }, 60_000);

  it('exits 0 and prints nothing for malformed input, an unknown agent or no data dir, and says why in its log', async () => {
    const dataDir = tempDir('em-hook-alone-');
    expect(await runHook('claude-code', dataDir, '{not json')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await runHook('cursor', dataDir, '{}')).toEqual({ code: 0, stdout: '', stderr: '' });
    const log = readFileSync(join(dataDir, 'hooks', 'hook.log'), 'utf8');
    expect(log).toContain('stdin was not JSON');
    expect(log).toContain('unknown agent "cursor"');
    expect(existsSync(join(dataDir, 'hooks', 'spool.jsonl'))).toBe(false);
  });

  it('spools the events while no server runs; the server records them at start, in order, and reports a torn last line', async () => {
    const root = tempDir('em-hooks-spool-');
    const dataDir = tempDir('em-data-');
    const dir = userRepo(root);
    const c = claudeEvents('cc-spool', dir);
    const write = { file_path: join(dir, 'a.txt'), content: 'offline\n' };
    for (const event of [c.sessionStart(), c.prompt('p1', 'write while the server is down')]) {
      expect(await runHook('claude-code', dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    writeFileSync(join(dir, 'a.txt'), 'offline\n');
    await runHook('claude-code', dataDir, c.postTool('p1', 'toolu_s', 'Write', write, {}));
    await runHook('claude-code', dataDir, c.stop('p1', 'Written.'));
    const spool = join(dataDir, 'hooks', 'spool.jsonl');
    expect(readFileSync(spool, 'utf8').trim().split('\n')).toHaveLength(4);
    writeFileSync(spool, `${readFileSync(spool, 'utf8')}{"v":1,"agent":"claude-co`);

    const serverStarted = Date.now();
    const { logger, lines } = capturedLogger();
    const api = await startTestServer({ dataDir, allowedRoots: [root, dataDir], logLevel: 'info' }, { projectCommitter: FAST_COMMITTER }, { logger: logger as Logger });
    // Replayed once the turn is closed (its Stop was the last whole line) and no spool is left.
    await eventually(async () => {
      const turns = await api.raw(`{ session(sessionId: "cc-spool") { turns(first: 5) { edges { node { open } } } } }`);
      const session = turns.data?.session as { turns: { edges: { node: { open: boolean } }[] } } | null | undefined;
      return session?.turns.edges[0]?.node.open === false && readdirSync(join(dataDir, 'hooks')).every((name) => !name.startsWith('spool'));
    });
    const read = await api.raw(`{ session(sessionId: "cc-spool") { agentId messages(first: 10) { edges { node { role content } } } turns(first: 5) { edges { node { number open } } } } }`);
    const session = read.data!.session as { agentId: string; messages: { edges: { node: { role: string; content: string } }[] }; turns: { edges: { node: { number: number; open: boolean } }[] } };
    expect(session.agentId).toBe('claude-code');
    expect(session.messages.edges.map((e) => e.node.role)).toEqual(['USER', 'ASSISTANT', 'TOOL', 'ASSISTANT']);
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    expect(lines.some((line) => line.msg === 'the hooks spool ends in a torn line (a hook stopped mid-write); it is dropped')).toBe(true);
    // Each message carries the time its hook received the event, not the replay's.
    const spooledAt = (await api.raw(`{ session(sessionId: "cc-spool") { messages(first: 10) { edges { node { createdAt } } } } }`)).data!.session as {
      messages: { edges: { node: { createdAt: string } }[] };
    };
    for (const { node } of spooledAt.messages.edges) expect(new Date(node.createdAt).getTime()).toBeLessThan(serverStarted);
  }, 60_000);
});

describe('an event spooled while the server runs', () => {
  it('is recorded before the next event a hook sends: a Stop never closes a turn before its spooled tool call', async () => {
    const root = tempDir('em-hooks-');
    // No periodic replay: only the next event can bring the spooled one in first.
    const api = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER, hooks: { spoolCheckMs: 0 } });
    const dir = userRepo(root);
    await api.ok(CreateProject, { input: { name: 'App', workdir: dir } });
    const c = claudeEvents('slow', dir);
    const send = async (event: object) => expect(await runHook('claude-code', api.dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });
    await send(c.prompt('p1', 'write a.txt'));
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    // The PostToolUse hook found the server too slow and spooled its event, as the hook command does.
    const write = { file_path: join(dir, 'a.txt'), content: 'a\n' };
    const line = { v: 1, agent: 'claude-code', receivedAt: new Date().toISOString(), payload: c.postTool('p1', 'toolu_a', 'Write', write, { type: 'create', filePath: write.file_path }) };
    appendFileSync(join(api.dataDir, 'hooks', 'spool.jsonl'), `${JSON.stringify(line)}\n`);
    await send(c.stop('p1', 'Wrote a.txt.'));
    expect(await outcome(api, 'slow', 1)).toMatchObject({ result: 'COMMITTED', paths: ['a.txt'] });
    expect(existsSync(join(api.dataDir, 'hooks', 'spool.jsonl'))).toBe(false);
  }, 60_000);
});

