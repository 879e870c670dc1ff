/**
 * The real Claude Code CLI (claude-cli.ts: 2.1.197, installed on first use) recorded live through
 * entity-memory's hooks: the CLI runs offline against a scripted model (scripted-model.ts) in a
 * user's repo bound as a project, with our hook command in the repo's .claude/settings.json,
 * sending to a real test server. What the CLI really sends (payload shapes, the order of events,
 * a resumed session, a subagent's events) is what is recorded.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';
import { CreateProject, DirtyWarnings } from '../projects/operations.js';
import { agentCommits, expectSnapshot, FAST_COMMITTER, outcome, userGit, userRepo } from '../projects/project-turns.js';
import { claudeCodeBinary } from './claude-cli.js';
import { SHARED_FILES } from './install-hooks.js';
import { expectTurnShown, openRecordedTurn, WAIT } from './session-page.js';
import { png } from './png.js';
import { installClaudeHooks, runClaude, type ClaudeRun } from './run-claude.js';
import { Hold, startScriptedModel, type Script, type ScriptedModel } from './scripted-model.js';

let binary: string;

// A clean clone installs the CLI here once (about 10 s with a cold npm cache), whichever file asks first.
beforeAll(async () => {
  binary = await claudeCodeBinary();
}, 600_000);

const SESSION = `
  query Hooked($sessionId: String!) {
    session(sessionId: $sessionId) {
      agentId
      source
      project { projectId }
      turns(first: 10) { edges { node { number open } } }
      messages(first: 100) { edges { node { messageId role content toolName toolCallId caller { messageId } metadata } } }
    }
  }`;

interface HookedMessage {
  messageId: string;
  role: string;
  content: string;
  toolName: string | null;
  toolCallId: string | null;
  caller: { messageId: string } | null;
  metadata: unknown;
}

interface HookedSession {
  agentId: string | null;
  source: string | null;
  project: { projectId: string } | null;
  turns: { edges: { node: { number: number; open: boolean } }[] };
  messages: { edges: { node: HookedMessage }[] };
}

const AGENT_EMAIL = 'agent@openprogram.invalid';

async function setUp(script: Script, options: { http?: boolean; context?: boolean } = {}) {
  const root = tempDir('em-agents-');
  const api = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
  const repo = userRepo(root);
  await installClaudeHooks(repo, api.dataDir, [...(options.http ? ['--http'] : []), ...(options.context ? ['--context'] : [])]);
  // The team shares its hook settings: committed, they are not the user's uncommitted work (which
  // would keep every turn from committing, as any uncommitted file does).
  userGit(repo, 'add', ...SHARED_FILES['claude-code']);
  userGit(repo, 'commit', '-q', '-m', 'Record our Claude Code sessions');
  const { createProject } = await api.ok(CreateProject, { input: { name: 'App', workdir: repo } });
  const model = await startScriptedModel(script, repo);
  onCleanup(model.close);
  const home = join(root, 'home');
  const claude = async (prompt: string, resume = false, allowedTools: string[] = []): Promise<ClaudeRun> => {
    const run = await runClaude({ binary, repo, home, modelUrl: model.url, prompt, resume, allowedTools });
    expect(run.code, `claude exited ${run.code}\n${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
    expect(run.sessionId).toBeTruthy();
    expect(model.requests.filter((r) => r.kind === 'unknown')).toEqual([]);
    return run;
  };
  return { api, root, repo, model, home, claude, projectId: createProject.projectId };
}

async function read(api: TestServer, sessionId: string): Promise<HookedSession | null> {
  const result = await api.raw(SESSION, { sessionId });
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
  return (result.data as { session: HookedSession | null }).session;
}

/**
 * The session once its hooks' events are all recorded: `turns` turns, all closed, and no spool
 * left (an event the server did not take within the hook's second is spooled, and recorded by the
 * server within 2 s; a server started again replays it in the background).
 */
async function recorded(api: TestServer, sessionId: string, turns: number): Promise<HookedSession> {
  const hooks = join(api.dataDir, 'hooks');
  return eventually(async () => {
    if (existsSync(hooks) && readdirSync(hooks).some((name) => name.startsWith('spool'))) return false;
    const session = await read(api, sessionId);
    const edges = session?.turns.edges ?? [];
    return session !== null && edges.length === turns && edges.every((e) => !e.node.open) ? session : false;
  });
}

/** Role, tool and caller of each message, in order. */
function shape(session: HookedSession): [string, string | null, string | null][] {
  return session.messages.edges.map(({ node }) => [node.role, node.toolName, node.caller?.messageId ?? null]);
}

/**
 * Lets a held step go once Claude Code's transcript holds the result of the call the model made
 * before it. Claude Code writes its transcript every 100 ms: a real model takes longer than that
 * to answer, the scripted one does not, and what the hooks do not carry is read from there.
 */
async function releaseOnceWritten(hold: Hold, model: ScriptedModel, home: string): Promise<void> {
  await hold.reached;
  const id = model.requests.filter((r) => r.toolUseId !== undefined).at(-1)!.toolUseId!;
  const projects = join(home, '.claude', 'projects');
  await eventually(async () =>
    readdirSync(projects, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.jsonl'))
      .some((name) => readFileSync(join(projects, name), 'utf8').includes(`"tool_use_id":"${id}"`)),
  );
  hold.release();
}

/** The ids of the tool calls the model made, in order. */
function toolCalls(model: ScriptedModel, name: string): string[] {
  return model.requests.filter((r) => r.answer === name).map((r) => r.toolUseId!);
}

describe('the real Claude Code CLI, recorded through its hooks', () => {
  it("records a turn that writes, edits and runs a command, and commits exactly the agent's files as the agent", async () => {
    const { api, repo, model, claude } = await setUp({
      turns: [
        {
          match: /TURN1/,
          steps: [
            { write: 'a.txt', content: 'one\ntwo\nthree\n' },
            { edit: 'a.txt', old: 'one', new: 'uno' },
            { bash: 'echo generated > gen.txt' },
            { text: 'Wrote a.txt and gen.txt.' },
          ],
        },
      ],
    });
    const initial = git(repo, 'rev-parse', 'HEAD').trim();
    const run = await claude('TURN1: write a.txt, edit it, generate gen.txt');
    const sessionId = run.sessionId!;

    const session = await recorded(api, sessionId, 1);
    expect(session).toMatchObject({ agentId: 'claude-code', source: null, project: { projectId: expect.any(String) } });
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    const [write] = toolCalls(model, 'Write');
    const [edit] = toolCalls(model, 'Edit');
    const [bash] = toolCalls(model, 'Bash');
    expect(shape(session)).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'Write', null],
      ['TOOL', 'Write', `call-${write}`],
      ['ASSISTANT', 'Edit', null],
      ['TOOL', 'Edit', `call-${edit}`],
      ['ASSISTANT', 'Bash', null],
      ['TOOL', 'Bash', `call-${bash}`],
      ['ASSISTANT', null, null],
    ]);
    const messages = session.messages.edges.map((e) => e.node);
    expect(messages[0]!.content).toBe('TURN1: write a.txt, edit it, generate gen.txt');
    expect(messages.filter((m) => m.role === 'ASSISTANT' && m.toolName).map((m) => [m.toolCallId, (m.metadata as { touchedPaths: string[] }).touchedPaths])).toEqual([
      [write, ['a.txt']],
      [edit, ['a.txt']],
      [bash, ['gen.txt']],
    ]);
    expect(JSON.parse(messages[4]!.content)).toMatchObject({ oldString: 'one', newString: 'uno' });
    // The reply, from the Stop payload's last_assistant_message.
    expect(messages.at(-1)!.content).toBe('Wrote a.txt and gen.txt.');

    const result = await outcome(api, sessionId, 1);
    expect(result).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'gen.txt'], dirtyPaths: [] });
    expect(agentCommits(repo)).toEqual([result.commit!.sha]);
    expect(git(repo, 'rev-parse', 'HEAD^').trim()).toBe(initial);
    expect(git(repo, 'show', '--format=', '--name-only', 'HEAD').trim().split('\n')).toEqual(['a.txt', 'gen.txt']);
    expect(git(repo, 'show', 'HEAD:a.txt')).toBe('uno\ntwo\nthree\n');
    expect(git(repo, 'show', 'HEAD:gen.txt')).toBe('generated\n');
    expect(git(repo, 'log', '-1', '--format=%ae|%ce').trim()).toBe(`${AGENT_EMAIL}|${AGENT_EMAIL}`);
    expect(git(repo, 'log', '-1', '--format=%B').trimEnd()).toMatch(new RegExp(`^\\[agent ${sessionId}\\] turn 1: TURN1: write a\\.txt, edit it, generate gen\\.txt\n\nSession-Id: ${sessionId}\nTurn: 1$`));
    expect(git(repo, 'status', '--porcelain')).toBe('');
  }, 120_000);

  it("shows the real agent's turn in the web UI as Claude Code shows it: the Edit as a diff, the Bash call as its command, and beside them the files it committed", async () => {
    const { api, claude } = await setUp({
      turns: [
        {
          match: /TURN1/,
          steps: [
            { write: 'a.txt', content: 'one\ntwo\nthree\n' },
            { edit: 'a.txt', old: 'one', new: 'uno' },
            { bash: 'echo generated | tee gen.txt' },
            { text: 'Wrote **a.txt** and gen.txt.' },
          ],
        },
      ],
    });
    const sessionId = (await claude('TURN1: write a.txt, edit it, generate gen.txt')).sessionId!;
    await recorded(api, sessionId, 1);
    expect((await outcome(api, sessionId, 1)).result).toBe('COMMITTED');

    const opened = await openRecordedTurn(api, sessionId);
    const { main } = opened;
    const edit = main.getByRole('group', { name: 'Tool call: Edit' });
    await edit.waitFor(WAIT);
    await expect.poll(async () => (await edit.locator('pre .diff-del').allInnerTexts()).join(''), WAIT).toContain('one');
    await expect.poll(async () => (await edit.locator('pre .diff-add').allInnerTexts()).join(''), WAIT).toContain('uno');
    expect(await main.getByRole('group', { name: 'Tool call: Bash' }).locator('.shell-command').innerText()).toBe('$ echo generated | tee gen.txt');
    await expectTurnShown(opened, 'Wrote a.txt and gen.txt.', ['added a.txt +3 −0', 'added gen.txt +1 −0']);
    // Its results read as Claude Code shows them, not as the JSON its hook sent (kept under them).
    const results: Record<string, string> = {};
    for (const name of ['Write', 'Edit', 'Bash']) {
      const result = main.getByRole('article').filter({ hasText: `Tool result: ${name}` });
      await result.locator('summary').first().click();
      results[name] = await result.locator('pre.tool-output').innerText();
    }
    expect(results).toEqual({ Write: 'Wrote a.txt', Edit: 'Edited a.txt', Bash: expect.stringMatching(/^generated\n?$/) });
    const raw = main.getByRole('article').filter({ hasText: 'Tool result: Bash' }).locator('details.tool-output-raw');
    await raw.locator('summary').click();
    expect(JSON.parse(await raw.locator('pre').innerText())).toMatchObject({ stdout: expect.stringMatching(/^generated/), stderr: '', interrupted: false });
  }, 180_000);

  it('records the same turn through http hooks (install --http): Claude Code posts each event but SessionStart itself, and the agent\'s files are committed', async () => {
    const { api, repo, model, claude } = await setUp(
      { turns: [{ match: /TURN1/, steps: [{ write: 'a.txt', content: 'one\n' }, { bash: 'echo generated > gen.txt' }, { text: 'Wrote a.txt and gen.txt.' }] }] },
      { http: true },
    );
    const settings = JSON.parse(readFileSync(join(repo, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, { hooks: { type: string; url?: string }[] }[]> };
    expect(Object.fromEntries(Object.entries(settings.hooks).map(([event, groups]) => [event, groups[0]!.hooks[0]!.type]))).toMatchObject({
      SessionStart: 'command',
      UserPromptSubmit: 'http',
      PreToolUse: 'http',
      PostToolUse: 'http',
      Stop: 'http',
    });
    expect(settings.hooks.Stop![0]!.hooks[0]!.url).toBe(`${api.url}/hooks/claude-code`);
    const run = await claude('TURN1: write a.txt, generate gen.txt');
    const session = await recorded(api, run.sessionId!, 1);
    const [write] = toolCalls(model, 'Write');
    const [bash] = toolCalls(model, 'Bash');
    expect(shape(session)).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'Write', null],
      ['TOOL', 'Write', `call-${write}`],
      ['ASSISTANT', 'Bash', null],
      ['TOOL', 'Bash', `call-${bash}`],
      ['ASSISTANT', null, null],
    ]);
    const result = await outcome(api, run.sessionId!, 1);
    expect(result).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'gen.txt'], dirtyPaths: [] });
    expect(git(repo, 'show', '--format=', '--name-only', 'HEAD').trim().split('\n')).toEqual(['a.txt', 'gen.txt']);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  }, 120_000);

  it("leaves the user's edit made while the agent's turn is in flight byte for byte: the turn is skipped, with a snapshot and a warning", async () => {
    const userStep = new Hold();
    const { api, repo, claude, projectId } = await setUp({
      turns: [
        {
          match: /TURN1/,
          steps: [
            { write: 'a.txt', content: 'agent\n' },
            // Asked for once the Write has run: the user saves notes.txt before the agent goes on.
            { edit: 'a.txt', old: 'agent', new: 'agent, edited', hold: userStep },
            { text: 'Wrote a.txt.' },
          ],
        },
      ],
    });
    const warnings = wsSubscribe(wsClient(api.url), DirtyWarnings, { projectId });
    await warnings.ready();
    const initial = git(repo, 'rev-parse', 'HEAD').trim();
    const running = claude('TURN1: write a.txt');
    await userStep.reached;
    writeFileSync(join(repo, 'notes.txt'), 'the user, mid-turn\n');
    userStep.release();
    const run = await running;
    const sessionId = run.sessionId!;

    const result = await outcome(api, sessionId, 1);
    expect(result).toMatchObject({ result: 'SKIPPED_DIRTY', paths: ['a.txt'], dirtyPaths: ['notes.txt'], commit: null });
    expect(result.reason).toContain('notes.txt');
    expectSnapshot(repo, result, sessionId, 1, initial, { 'a.txt': 'agent, edited\n', 'notes.txt': 'v1\n' });
    const [warning] = await warnings.next(1);
    expect(warning?.data?.dirtyTreeWarning).toMatchObject({ project: { projectId }, session: { sessionId }, turnNumber: 1, dirtyPaths: ['notes.txt'], message: result.message });
    // The user's work as they left it, the agent's file where the agent left it, nothing committed.
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('the user, mid-turn\n');
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('agent, edited\n');
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(initial);
    expect(agentCommits(repo)).toEqual([]);
    expect(userGit(repo, 'status', '--porcelain').split('\n').filter(Boolean)).toEqual([' M notes.txt', '?? a.txt']);
  }, 120_000);

  it('records a second prompt with --continue as the same session’s second turn', async () => {
    const { api, repo, claude } = await setUp({
      turns: [
        { match: /TURN1/, steps: [{ write: 'a.txt', content: 'first\n' }, { text: 'First done.' }] },
        { match: /TURN2/, steps: [{ bash: 'echo second >> a.txt' }, { text: 'Second done.' }] },
      ],
    });
    const first = await claude('TURN1: write a.txt');
    expect((await outcome(api, first.sessionId!, 1)).result).toBe('COMMITTED');
    const second = await claude('TURN2: append to a.txt', true);
    expect(second.sessionId).toBe(first.sessionId);
    const sessionId = first.sessionId!;

    const session = await recorded(api, sessionId, 2);
    expect(session.turns.edges.map((e) => e.node)).toEqual([
      { number: 1, open: false },
      { number: 2, open: false },
    ]);
    expect(shape(session).map(([role, tool]) => [role, tool])).toEqual([
      ['USER', null],
      ['ASSISTANT', 'Write'],
      ['TOOL', 'Write'],
      ['ASSISTANT', null],
      ['USER', null],
      ['ASSISTANT', 'Bash'],
      ['TOOL', 'Bash'],
      ['ASSISTANT', null],
    ]);
    expect([0, 3, 4, 7].map((i) => session.messages.edges[i]!.node.content)).toEqual([
      'TURN1: write a.txt',
      'First done.',
      'TURN2: append to a.txt',
      'Second done.',
    ]);
    expect(await outcome(api, sessionId, 2)).toMatchObject({ result: 'COMMITTED', paths: ['a.txt'] });
    expect(agentCommits(repo)).toHaveLength(2);
    expect(git(repo, 'log', '-1', '--format=%B').trimEnd()).toMatch(/\n\nSession-Id: .+\nTurn: 2$/);
    expect(git(repo, 'show', 'HEAD:a.txt')).toBe('first\nsecond\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  }, 180_000);

  it("records a subagent's tool calls in its parent's turn, and commits its files with the turn", async () => {
    const { api, repo, model, claude } = await setUp({
      turns: [
        { match: /SUBAGENT_TASK/, steps: [{ write: 'sub.txt', content: 'from the subagent\n' }, { text: 'Subagent wrote sub.txt.' }] },
        { match: /TURN1/, steps: [{ subagent: 'SUBAGENT_TASK: write sub.txt', description: 'write sub.txt' }, { text: 'The subagent wrote sub.txt.' }] },
      ],
    });
    const run = await claude('TURN1: delegate sub.txt');
    const sessionId = run.sessionId!;
    const session = await recorded(api, sessionId, 1);
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    const [agent] = toolCalls(model, 'Agent');
    const [write] = toolCalls(model, 'Write');
    expect(shape(session)).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'Write', null],
      ['TOOL', 'Write', `call-${write}`],
      ['ASSISTANT', 'Agent', null],
      ['TOOL', 'Agent', `call-${agent}`],
      ['ASSISTANT', null, null],
    ]);
    const messages = session.messages.edges.map((e) => e.node);
    expect(messages[1]!.metadata).toMatchObject({ touchedPaths: ['sub.txt'], subagent: expect.any(String) });
    expect(messages[3]!.metadata).not.toHaveProperty('subagent');
    expect(messages.at(-1)!.content).toBe('The subagent wrote sub.txt.');
    expect(await outcome(api, sessionId, 1)).toMatchObject({ result: 'COMMITTED', paths: ['sub.txt'] });
    expect(git(repo, 'show', '--format=', '--name-only', 'HEAD').trim()).toBe('sub.txt');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  }, 120_000);

  it('spools the events while the server is down, and records and commits the turn when it is back', async () => {
    const { api, root, repo, claude } = await setUp({
      turns: [{ match: /TURN1/, steps: [{ write: 'a.txt', content: 'offline\n' }, { bash: 'echo generated > gen.txt' }, { text: 'Done offline.' }] }],
    });
    await api.server.stop();
    const run = await claude('TURN1: write while no server runs');
    const sessionId = run.sessionId!;
    const spool = readFileSync(join(api.dataDir, 'hooks', 'spool.jsonl'), 'utf8').trim().split('\n');
    const spooled = spool.map((line) => JSON.parse(line) as { payload: { hook_event_name: string; tool_name?: string } });
    // PreToolUse is installed for Bash only (a command's start is all it notes).
    expect(spooled.map(({ payload }) => payload.hook_event_name + (payload.tool_name ? `(${payload.tool_name})` : ''))).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PostToolUse(Write)',
      'PreToolUse(Bash)',
      'PostToolUse(Bash)',
      'Stop',
      'SessionEnd',
    ]);

    const again = await startTestServer({ dataDir: api.dataDir, allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
    const session = await recorded(again, sessionId, 1);
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    expect(shape(session).map(([role, tool]) => [role, tool])).toEqual([
      ['USER', null],
      ['ASSISTANT', 'Write'],
      ['TOOL', 'Write'],
      ['ASSISTANT', 'Bash'],
      ['TOOL', 'Bash'],
      ['ASSISTANT', null],
    ]);
    expect(session.messages.edges.at(-1)!.node.content).toBe('Done offline.');
    // The command's file is the agent's as when the server was up: found by what changed while it ran.
    expect(session.messages.edges[3]!.node.metadata).toMatchObject({ touchedPaths: ['gen.txt'] });
    expect(await outcome(again, sessionId, 1)).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'gen.txt'], dirtyPaths: [] });
    expect(git(repo, 'show', '--format=', '--name-only', 'HEAD').trim().split('\n')).toEqual(['a.txt', 'gen.txt']);
    expect(existsSync(join(api.dataDir, 'hooks', 'spool.jsonl'))).toBe(false);
  }, 120_000);
  it("answers the agent's own calls to entity-memory's MCP server, registered by hooks install: search and get_turn_diff, the answers in its transcript; with --context the next session starts knowing the last", async () => {
    let earlier = '';
    const { api, repo, model, claude, home } = await setUp({
      turns: [
        { match: /TURN1/, steps: [{ write: 'plan.md', content: 'Retries: exponential backoff, capped at 30 s.\n' }, { text: 'Wrote the plan.' }] },
        {
          match: /TURN2/,
          steps: [
            { tool: 'mcp__entity-memory__search', input: () => ({ query: 'exponential backoff', role: 'user' }) },
            { tool: 'mcp__entity-memory__get_turn_diff', input: () => ({ session: earlier, turn: 1 }) },
            { text: 'We chose exponential backoff, capped at 30 s.' },
          ],
        },
      ],
    }, { context: true });
    expect(JSON.parse(readFileSync(join(repo, '.mcp.json'), 'utf8'))).toMatchObject({ mcpServers: { 'entity-memory': { args: [expect.stringMatching(/bin\/entity-memory-mcp\.cjs$/), '--data-dir', api.dataDir] } } });
    earlier = (await claude('TURN1: write down the retry plan: exponential backoff')).sessionId!;
    await recorded(api, earlier, 1);
    expect((await outcome(api, earlier, 1)).result).toBe('COMMITTED');

    const run = await claude('TURN2: what did we decide about retries?', false, ['mcp__entity-memory']);
    // The SessionStart hook (--context) gave Claude Code the first session, which it passed on to the model.
    const second = model.requests.filter((r) => r.turn === 1);
    expect(second[0]?.body).toContain('Recent sessions of this project (App), newest first:');
    expect(second[0]?.body).toContain(`(session ${earlier}, turn 1): last asked \\"TURN1: write down the retry plan: exponential backoff\\"; files: plan.md`);
    expect(model.requests.filter((r) => r.turn === 0).some((r) => r.body?.includes('Recent sessions of this project'))).toBe(false);
    // Claude Code offered our tools, and the model's calls were answered by them.
    expect(model.requests.find((r) => r.turn === 1)?.tools).toEqual(expect.arrayContaining(['mcp__entity-memory__search', 'mcp__entity-memory__get_turn_diff']));
    const transcript = readFileSync(join(home, '.claude', 'projects', readdirSync(join(home, '.claude', 'projects'))[0]!, `${run.sessionId!}.jsonl`), 'utf8');
    // Claude Code 2.1.197 gives the model a tool's structuredContent (as JSON) when it has one.
    const results = transcript
      .split('\n')
      .filter((line) => line.includes('"tool_result"'))
      .map((line) => {
        const [block] = (JSON.parse(line) as { message: { content: { content: string | { text: string }[]; is_error?: boolean }[] } }).message.content;
        expect(block!.is_error ?? false).toBe(false);
        const text = typeof block!.content === 'string' ? block!.content : block!.content.map((part) => part.text).join('');
        return JSON.parse(text) as Record<string, unknown>;
      });
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({ totalCount: 1, hits: [{ session: earlier, turn: 1, role: 'user', uri: `entity-memory://session/${earlier}/turn/1` }] });
    expect(results[1]).toMatchObject({ session: earlier, turn: 1, kind: 'commit', files: [{ path: 'plan.md', status: 'added' }] });
    expect(results[1]!.patch).toContain('+Retries: exponential backoff, capped at 30 s.');
    // The calls are recorded as the second session's tool calls, like any other.
    const session = await recorded(api, run.sessionId!, 1);
    expect(shape(session).map(([role, tool]) => [role, tool])).toEqual([
      ['USER', null],
      ['ASSISTANT', 'mcp__entity-memory__search'],
      ['TOOL', 'mcp__entity-memory__search'],
      ['ASSISTANT', 'mcp__entity-memory__get_turn_diff'],
      ['TOOL', 'mcp__entity-memory__get_turn_diff'],
      ['ASSISTANT', null],
    ]);
  }, 120_000);

  it("records a call that failed (PostToolUseFailure): a command's non-zero exit is its result, marked an error, and the files it wrote are the turn's", async () => {
    const { api, repo, model, claude } = await setUp({
      turns: [{ match: /TURN1/, steps: [{ bash: 'echo "1 failing" | tee report.txt; exit 3' }, { text: 'The test failed.' }] }],
    });
    const sessionId = (await claude('TURN1: run the tests')).sessionId!;
    const session = await recorded(api, sessionId, 1);
    const [bash] = toolCalls(model, 'Bash');
    expect(shape(session)).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'Bash', null],
      ['TOOL', 'Bash', `call-${bash}`],
      ['ASSISTANT', null, null],
    ]);
    const [, call, result] = session.messages.edges.map((e) => e.node);
    expect(result!.content).toMatch(/^Exit code 3\b/);
    expect(result!.content).toContain('1 failing');
    expect(result!.metadata).toEqual({ isError: true });
    expect((call!.metadata as { touchedPaths: string[] }).touchedPaths).toEqual(['report.txt']);
    expect(await outcome(api, sessionId, 1)).toMatchObject({ result: 'COMMITTED', paths: ['report.txt'] });
    expect(git(repo, 'show', 'HEAD:report.txt')).toBe('1 failing\n');
    // On the page: the result says it failed, and what the command printed.
    const { main } = await openRecordedTurn(api, sessionId);
    const shown = main.getByRole('article').filter({ hasText: 'Tool result: Bash' });
    await expect.poll(() => shown.locator('summary').first().innerText(), WAIT).toMatch(/^Tool result: Bash .* failed: Exit code 3$/);
    await shown.locator('summary').first().click();
    expect(await shown.locator('pre.tool-output').innerText()).toContain('1 failing');
  }, 120_000);

  it('keeps a screenshot the agent reads out of the record: its Read result names the image and its size, not its base64', async () => {
    const { api, repo, model, claude } = await setUp({
      turns: [{ match: /TURN1/, steps: [{ tool: 'Read', input: () => ({ file_path: join(repo, 'shot.png') }) }, { text: 'A screenshot of noise.' }] }],
    });
    const image = png(600, 400);
    writeFileSync(join(repo, 'shot.png'), image);
    userGit(repo, 'add', 'shot.png');
    userGit(repo, 'commit', '-q', '-m', 'A screenshot');
    const sessionId = (await claude('TURN1: what is in shot.png?')).sessionId!;
    const session = await recorded(api, sessionId, 1);
    const [read] = toolCalls(model, 'Read');
    expect(shape(session)).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'Read', null],
      ['TOOL', 'Read', `call-${read}`],
      ['ASSISTANT', null, null],
    ]);
    // Claude Code answered the Read with the image (its base64 went to the model), and our hook got it too.
    const result = session.messages.edges[2]!.node.content;
    expect(JSON.parse(result)).toMatchObject({
      type: 'image',
      file: { base64: `[image/png, ${image.length.toLocaleString('en-US')} bytes of base64: not kept]`, type: 'image/png', originalSize: image.length },
    });
    expect(result).not.toContain(image.toString('base64').slice(0, 100));
    // Nor is it in the session's repo.
    await eventually(async () => git(join(api.dataDir, 'sessions', sessionId), 'log', '--format=%s', 'main').includes('turn 1'));
    const history = git(join(api.dataDir, 'sessions', sessionId), 'log', '-p', 'main');
    expect(history).toContain('bytes of base64: not kept');
    expect(history).not.toContain(image.toString('base64').slice(0, 100));
    // The page shows the note as the Read's output.
    const { main } = await openRecordedTurn(api, sessionId);
    const shown = main.getByRole('article').filter({ hasText: 'Tool result: Read' });
    await shown.locator('summary').first().click();
    expect(await shown.locator('pre.tool-output').innerText()).toBe(`[image/png, ${image.length.toLocaleString('en-US')} bytes of base64: not kept]`);
  }, 120_000);

  it('records the calls Claude Code refuses before running them (no hook fires for them) from its transcript, where they were made, as failed', async () => {
    const holds = [new Hold(), new Hold(), new Hold()];
    const { api, repo, model, claude, home } = await setUp({
      turns: [
        {
          match: /TURN1/,
          steps: [
            { write: 'a.txt', content: 'one\n' },
            // The text is not in the file.
            { edit: 'a.txt', old: 'two', new: '2' },
            { edit: 'a.txt', old: 'one', new: 'uno', hold: holds[0] },
            // A tool 2.1.197 does not have.
            { multiEdit: 'a.txt', edits: [{ old: 'uno', new: 'dos' }] },
            // A tool its permissions (-p, not allowed) deny.
            { tool: 'WebFetch', input: () => ({ url: 'http://127.0.0.1:9/', prompt: 'read it' }), hold: holds[1] },
            { text: 'a.txt says uno.', hold: holds[2] },
          ],
        },
      ],
    });
    const [run] = await Promise.all([claude('TURN1: fix a.txt'), ...holds.map((hold) => releaseOnceWritten(hold, model, home))]);
    const session = await recorded(api, run.sessionId!, 1);
    const [write] = toolCalls(model, 'Write');
    const [refused, edit] = toolCalls(model, 'Edit');
    const [multiEdit] = toolCalls(model, 'MultiEdit');
    const [webFetch] = toolCalls(model, 'WebFetch');
    expect(shape(session)).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'Write', null],
      ['TOOL', 'Write', `call-${write}`],
      ['ASSISTANT', 'Edit', null],
      ['TOOL', 'Edit', `call-${refused}`],
      ['ASSISTANT', 'Edit', null],
      ['TOOL', 'Edit', `call-${edit}`],
      ['ASSISTANT', 'MultiEdit', null],
      ['TOOL', 'MultiEdit', `call-${multiEdit}`],
      ['ASSISTANT', 'WebFetch', null],
      ['TOOL', 'WebFetch', `call-${webFetch}`],
      ['ASSISTANT', null, null],
    ]);
    const messages = session.messages.edges.map((e) => e.node);
    expect(messages[3]!.metadata).toMatchObject({ toolCalls: [{ id: refused, name: 'Edit', input: { file_path: join(repo, 'a.txt'), old_string: 'two', new_string: '2' } }], touchedPaths: [] });
    expect(messages[4]).toMatchObject({ content: 'String to replace not found in file.\nString: two', metadata: { isError: true } });
    expect(messages[6]!.metadata).toBeNull();
    expect(messages[8]).toMatchObject({ content: 'Error: No such tool available: MultiEdit', metadata: { isError: true } });
    expect(messages[10]).toMatchObject({ content: expect.stringContaining('permissions to use WebFetch'), metadata: { isError: true } });
    expect(await outcome(api, run.sessionId!, 1)).toMatchObject({ result: 'COMMITTED', paths: ['a.txt'] });
    expect(git(repo, 'show', 'HEAD:a.txt')).toBe('uno\n');
    // On the page: the refused Edit, failed, and why.
    const { main } = await openRecordedTurn(api, run.sessionId!);
    const results = main.getByRole('article').filter({ hasText: 'Tool result: Edit' });
    await expect.poll(() => results.count(), WAIT).toBe(2);
    await expect.poll(() => results.first().locator('summary').first().innerText(), WAIT).toMatch(/^Tool result: Edit .* failed: String to replace not found in file\.$/);
    // Its call, whose diff was never applied, is marked so.
    const calls = main.getByRole('group', { name: 'Tool call: Edit' });
    expect(await calls.first().locator('.tool-call-name').innerText()).toBe('Edit failed');
    expect(await calls.nth(1).locator('.tool-call-name').innerText()).toBe('Edit');
    await results.first().locator('summary').first().click();
    expect(await results.first().locator('pre.tool-output').innerText()).toContain('String to replace not found in file.');
  }, 120_000);
});
