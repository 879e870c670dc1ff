/**
 * The real Gemini CLI (gemini-cli.ts: 0.61.0, installed on first use) recorded live through
 * entity-memory's hooks: the CLI runs offline against a scripted Gemini API (scripted-gemini.ts)
 * in a user's repo bound as a project, with our hook command in the repo's .gemini/settings.json,
 * sending to a real test server. What the CLI really sends (payload shapes without tool call ids,
 * the order of events, a resumed session) is what is recorded.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';
import { CreateProject, DirtyWarnings } from '../projects/operations.js';
import { agentCommits, expectSnapshot, FAST_COMMITTER, outcome, userGit, userRepo } from '../projects/project-turns.js';
import { geminiCli } from './gemini-cli.js';
import { installHooks, SHARED_FILES } from './install-hooks.js';
import { expectTurnShown, openRecordedTurn, SHOWN_TURN, WAIT } from './session-page.js';
import type { CliCommand } from './pinned-cli.js';
import { png } from './png.js';
import { runGemini, type GeminiRun } from './run-gemini.js';
import { startScriptedGemini } from './scripted-gemini.js';
import { Hold, type Script } from './scripted-model.js';

let cli: CliCommand;

// A clean clone installs the CLI here once (about 15 s with a cold npm cache), whichever file asks first.
beforeAll(async () => {
  cli = await geminiCli();
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

async function setUp(script: Script, options: { context?: boolean } = {}) {
  const root = tempDir('em-gemini-');
  const api = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
  const repo = userRepo(root);
  await installHooks('gemini', repo, api.dataDir, {}, options.context ? ['--context'] : []);
  // Committed, the team's hook settings are not the user's uncommitted work (which would keep
  // every turn from committing, as any uncommitted file does).
  userGit(repo, 'add', ...SHARED_FILES['gemini']);
  userGit(repo, 'commit', '-q', '-m', 'Record our Gemini CLI sessions');
  const { createProject } = await api.ok(CreateProject, { input: { name: 'App', workdir: repo } });
  const model = await startScriptedGemini(script, repo);
  onCleanup(model.close);
  const home = join(root, 'home');
  const gemini = async (prompt: string, resume = false): Promise<GeminiRun> => {
    const run = await runGemini({ cli, repo, home, modelUrl: model.url, prompt, resume });
    process.stderr.write(`[agents] gemini -p${resume ? ' --resume latest' : ''}: ${(run.ms / 1000).toFixed(1)} s\n`);
    expect(run.code, `gemini exited ${run.code}\n${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
    expect(run.sessionId).toBeTruthy();
    expect(model.requests.filter((r) => r.kind === 'unknown')).toEqual([]);
    return run;
  };
  return { api, root, repo, model, gemini, projectId: createProject.projectId };
}

async function read(api: TestServer, sessionId: string): Promise<HookedSession | null> {
  const result = await api.raw(SESSION, { sessionId });
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
  return (result.data as { session: HookedSession | null }).session;
}

/** The session once its hooks' events are all recorded: `turns` turns, all closed, and no spool left. */
async function recorded(api: TestServer, sessionId: string, turns: number): Promise<HookedSession> {
  const hooks = join(api.dataDir, 'hooks');
  return eventually(async () => {
    if (existsSync(hooks) && readdirSync(hooks).some((name) => name.startsWith('spool'))) return false;
    const session = await read(api, sessionId);
    const edges = session?.turns.edges ?? [];
    return session !== null && edges.length === turns && edges.every((e) => !e.node.open) ? session : false;
  });
}

/** Role and tool of each message, and whether a TOOL message's caller is the message just before it. */
function shape(session: HookedSession): [string, string | null, boolean | null][] {
  const nodes = session.messages.edges.map((e) => e.node);
  return nodes.map((node, at) => [node.role, node.toolName, node.caller ? node.caller.messageId === nodes[at - 1]?.messageId : null]);
}

describe('the real Gemini CLI, recorded through its hooks', () => {
  it("records a turn that writes, edits and runs a command, and commits exactly the agent's files as the agent", async () => {
    const { api, repo, model, gemini } = await setUp({
      turns: [
        {
          match: /TURN1/,
          steps: [
            { write: 'a.txt', content: 'one\ntwo\n' },
            { edit: 'a.txt', old: 'one', new: 'uno' },
            { bash: 'echo generated > gen.txt' },
            { text: 'Wrote a.txt and gen.txt.' },
          ],
        },
      ],
    });
    const initial = git(repo, 'rev-parse', 'HEAD').trim();
    const run = await gemini('TURN1: write a.txt, edit it, generate gen.txt');
    const sessionId = run.sessionId!;
    expect(run.messages.filter((m) => m.type === 'tool_result').map((m) => m.status)).toEqual(['success', 'success', 'success']);
    expect(model.requests.filter((r) => r.kind === 'step').map((r) => r.answer)).toEqual(['write_file', 'replace', 'run_shell_command', 'text']);

    const session = await recorded(api, sessionId, 1);
    expect(session).toMatchObject({ agentId: 'gemini', source: null, project: { projectId: expect.any(String) } });
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    expect(shape(session)).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'write_file', null],
      ['TOOL', 'write_file', true],
      ['ASSISTANT', 'replace', null],
      ['TOOL', 'replace', true],
      ['ASSISTANT', 'run_shell_command', null],
      ['TOOL', 'run_shell_command', true],
      ['ASSISTANT', null, null],
    ]);
    const messages = session.messages.edges.map((e) => e.node);
    expect(messages[0]!.content).toBe('TURN1: write a.txt, edit it, generate gen.txt');
    // Gemini's hooks carry no tool call id: the calls are told apart by what they were.
    expect(messages.filter((m) => m.role === 'ASSISTANT' && m.toolName).map((m) => [m.toolCallId, (m.metadata as { touchedPaths: string[] }).touchedPaths])).toEqual([
      [null, ['a.txt']],
      [null, ['a.txt']],
      [null, ['gen.txt']],
    ]);
    // The reply, from the AfterAgent payload's prompt_response.
    expect(messages.at(-1)!.content).toBe('Wrote a.txt and gen.txt.');

    const result = await outcome(api, sessionId, 1);
    expect(result).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'gen.txt'], dirtyPaths: [] });
    expect(agentCommits(repo)).toEqual([result.commit!.sha]);
    expect(git(repo, 'rev-parse', 'HEAD^').trim()).toBe(initial);
    expect(git(repo, 'show', '--format=', '--name-only', 'HEAD').trim().split('\n')).toEqual(['a.txt', 'gen.txt']);
    expect(git(repo, 'show', 'HEAD:a.txt')).toBe('uno\ntwo\n');
    expect(git(repo, 'show', 'HEAD:gen.txt')).toBe('generated\n');
    expect(git(repo, 'log', '-1', '--format=%ae|%ce').trim()).toBe(`${AGENT_EMAIL}|${AGENT_EMAIL}`);
    expect(git(repo, 'log', '-1', '--format=%B').trimEnd()).toMatch(new RegExp(`^\\[agent ${sessionId}\\] turn 1: TURN1: write a\\.txt, edit it, generate gen\\.txt\n\nSession-Id: ${sessionId}\nTurn: 1$`));
    expect(git(repo, 'status', '--porcelain')).toBe('');
  }, 120_000);

  it("shows the real agent's turn in the web UI: write_file and replace as diffs, the command as its command line, and beside them the files it committed", async () => {
    const { api, repo, gemini } = await setUp(SHOWN_TURN.script);
    const sessionId = (await gemini(SHOWN_TURN.prompt)).sessionId!;
    await recorded(api, sessionId, 1);
    expect((await outcome(api, sessionId, 1)).result).toBe('COMMITTED');

    const opened = await openRecordedTurn(api, sessionId);
    const { main } = opened;
    const lines = async (name: string, kind: 'add' | 'del') =>
      (await main.getByRole('group', { name: `Tool call: ${name}` }).locator(`pre .diff-${kind}`).allInnerTexts()).map((line) => line.trim());
    await main.getByRole('group', { name: 'Tool call: write_file' }).waitFor(WAIT);
    // Gemini CLI sends absolute paths: shown relative to the project's folder, the full path in the title.
    const written = main.getByRole('group', { name: 'Tool call: write_file' }).locator('summary');
    expect(await written.innerText()).toBe('a.txt +2 −0');
    expect(await written.locator('code.path').getAttribute('title')).toBe(join(realpathSync(repo), 'a.txt'));
    expect((await main.locator('.call-summary').allInnerTexts()).map((text) => text.trim())).toEqual(['a.txt', 'a.txt', 'echo generated > gen.txt']);
    expect(await lines('write_file', 'add')).toEqual(['+one', '+two']);
    expect(await lines('replace', 'del')).toEqual(['-one']);
    expect(await lines('replace', 'add')).toEqual(['+uno']);
    expect(await main.getByRole('group', { name: 'Tool call: run_shell_command' }).locator('.shell-command').innerText()).toBe('$ echo generated > gen.txt');
    expect(await main.locator('pre.tool-input').count()).toBe(0);
    await expectTurnShown(opened, 'Wrote a.txt and gen.txt.', ['added a.txt +2 −0', 'added gen.txt +1 −0']);
  }, 180_000);

  it("leaves the user's edit made while the agent's turn is in flight byte for byte: the turn is skipped, with a snapshot and a warning", async () => {
    const userStep = new Hold();
    const { api, repo, gemini, projectId } = await setUp({
      turns: [
        {
          match: /TURN1/,
          steps: [
            { write: 'a.txt', content: 'agent\n' },
            // Asked for once the write has run: the user saves notes.txt before the agent goes on.
            { edit: 'a.txt', old: 'agent', new: 'agent, edited', hold: userStep },
            { text: 'Wrote a.txt.' },
          ],
        },
      ],
    });
    const warnings = wsSubscribe(wsClient(api.url), DirtyWarnings, { projectId });
    await warnings.ready();
    const initial = git(repo, 'rev-parse', 'HEAD').trim();
    const running = gemini('TURN1: write a.txt');
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

  it('records a second prompt with --resume latest as the same session’s second turn', async () => {
    const { api, repo, gemini } = await setUp({
      turns: [
        { match: /TURN1/, steps: [{ write: 'a.txt', content: 'first\n' }, { text: 'First done.' }] },
        { match: /TURN2/, steps: [{ bash: 'echo second >> a.txt' }, { text: 'Second done.' }] },
      ],
    });
    const first = await gemini('TURN1: write a.txt');
    expect((await outcome(api, first.sessionId!, 1)).result).toBe('COMMITTED');
    const second = await gemini('TURN2: append to a.txt', true);
    expect(second.sessionId).toBe(first.sessionId);
    const sessionId = first.sessionId!;

    const session = await recorded(api, sessionId, 2);
    expect(session.turns.edges.map((e) => e.node)).toEqual([
      { number: 1, open: false },
      { number: 2, open: false },
    ]);
    expect(shape(session).map(([role, tool]) => [role, tool])).toEqual([
      ['USER', null],
      ['ASSISTANT', 'write_file'],
      ['TOOL', 'write_file'],
      ['ASSISTANT', null],
      ['USER', null],
      ['ASSISTANT', 'run_shell_command'],
      ['TOOL', 'run_shell_command'],
      ['ASSISTANT', null],
    ]);
    expect([0, 3, 4, 7].map((i) => session.messages.edges[i]!.node.content)).toEqual(['TURN1: write a.txt', 'First done.', 'TURN2: append to a.txt', 'Second done.']);
    expect(await outcome(api, sessionId, 2)).toMatchObject({ result: 'COMMITTED', paths: ['a.txt'] });
    expect(agentCommits(repo)).toHaveLength(2);
    expect(git(repo, 'log', '-1', '--format=%B').trimEnd()).toMatch(/\n\nSession-Id: .+\nTurn: 2$/);
    expect(git(repo, 'show', 'HEAD:a.txt')).toBe('first\nsecond\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  }, 180_000);
  it("records a subagent's tool calls in its parent's turn, as the parent's (its hooks carry no marker), and commits its files with the turn", async () => {
    const { api, repo, model, gemini } = await setUp({
      turns: [
        { match: /SUBAGENT_TASK/, steps: [{ write: 'sub.txt', content: 'from the subagent\n' }, { text: 'Subagent wrote sub.txt.' }] },
        { match: /TURN1/, steps: [{ subagent: 'SUBAGENT_TASK: write sub.txt' }, { text: 'The subagent wrote sub.txt.' }] },
      ],
    });
    const run = await gemini('TURN1: delegate sub.txt');
    const sessionId = run.sessionId!;
    expect(model.requests.filter((r) => r.kind === 'step').map((r) => r.answer)).toEqual(['invoke_agent', 'write_file', 'complete_task', 'text']);
    const session = await recorded(api, sessionId, 1);
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    expect(shape(session)).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'write_file', null],
      ['TOOL', 'write_file', true],
      ['ASSISTANT', 'complete_task', null],
      ['TOOL', 'complete_task', true],
      ['ASSISTANT', 'invoke_agent', null],
      ['TOOL', 'invoke_agent', true],
      ['ASSISTANT', null, null],
    ]);
    const messages = session.messages.edges.map((e) => e.node);
    expect(messages[1]!.metadata).toMatchObject({ touchedPaths: ['sub.txt'] });
    expect(messages.at(-1)!.content).toBe('The subagent wrote sub.txt.');
    expect(await outcome(api, sessionId, 1)).toMatchObject({ result: 'COMMITTED', paths: ['sub.txt'] });
    expect(git(repo, 'show', '--format=', '--name-only', 'HEAD').trim()).toBe('sub.txt');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  }, 120_000);
  it('spools the events while the server is down, and records and commits the turn when it is back', async () => {
    const { api, root, repo, gemini } = await setUp({
      turns: [{ match: /TURN1/, steps: [{ write: 'a.txt', content: 'offline\n' }, { bash: 'echo generated > gen.txt' }, { text: 'Done offline.' }] }],
    });
    await api.server.stop();
    const run = await gemini('TURN1: write while no server runs');
    const sessionId = run.sessionId!;
    const spool = readFileSync(join(api.dataDir, 'hooks', 'spool.jsonl'), 'utf8').trim().split('\n');
    const spooled = spool.map((line) => JSON.parse(line) as { payload: { hook_event_name: string; tool_name?: string } });
    expect(spooled.map(({ payload }) => payload.hook_event_name + (payload.tool_name ? `(${payload.tool_name})` : ''))).toEqual([
      'SessionStart',
      'BeforeAgent',
      'AfterTool(write_file)',
      'BeforeTool(run_shell_command)',
      'AfterTool(run_shell_command)',
      'AfterAgent',
      'SessionEnd',
    ]);

    const again = await startTestServer({ dataDir: api.dataDir, allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
    const session = await recorded(again, sessionId, 1);
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    expect(shape(session).map(([role, tool]) => [role, tool])).toEqual([
      ['USER', null],
      ['ASSISTANT', 'write_file'],
      ['TOOL', 'write_file'],
      ['ASSISTANT', 'run_shell_command'],
      ['TOOL', 'run_shell_command'],
      ['ASSISTANT', null],
    ]);
    expect(session.messages.edges.at(-1)!.node.content).toBe('Done offline.');
    // The command's file is the agent's as when the server was up: found by what changed while it ran.
    expect(session.messages.edges[3]!.node.metadata).toMatchObject({ touchedPaths: ['gen.txt'] });
    expect(await outcome(again, sessionId, 1)).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'gen.txt'], dirtyPaths: [] });
    expect(git(repo, 'show', '--format=', '--name-only', 'HEAD').trim().split('\n')).toEqual(['a.txt', 'gen.txt']);
    expect(existsSync(join(api.dataDir, 'hooks', 'spool.jsonl'))).toBe(false);
  }, 120_000);
  it('gives the next session the last one at its start when the hooks are installed with --context', async () => {
    const { api, model, gemini } = await setUp(
      {
        turns: [
          { match: /^TURN1/m, steps: [{ write: 'plan.md', content: 'Retries: exponential backoff.\\n' }, { text: 'Wrote the plan.' }] },
          { match: /^TURN2/m, steps: [{ text: 'Noted.' }] },
        ],
      },
      { context: true },
    );
    // Anchored: Gemini CLI puts the context in the same user message as the prompt, and it quotes TURN1's prompt.
    const first = (await gemini('TURN1: write down the retry plan')).sessionId!;
    await recorded(api, first, 1);
    await gemini('TURN2: what did we plan?');
    const [request] = model.requests.filter((r) => r.turn === 1);
    expect(request?.body).toContain('Recent sessions of this project (App), newest first:');
    expect(request?.body).toContain(`(session ${first}, turn 1): last asked`);
    expect(model.requests.filter((r) => r.turn === 0).some((r) => r.body?.includes('Recent sessions of this project'))).toBe(false);
  }, 120_000);

  it("keeps a picture the agent reads out of the record: read_file's inline data names the image and its size, not its base64", async () => {
    const { api, repo, gemini } = await setUp({
      turns: [{ match: /TURN1/, steps: [{ tool: 'read_file', input: () => ({ file_path: join(repo, 'shot.png') }) }, { text: 'A picture of noise.' }] }],
    });
    const image = png(300, 200);
    writeFileSync(join(repo, 'shot.png'), image);
    userGit(repo, 'add', 'shot.png');
    userGit(repo, 'commit', '-q', '-m', 'A picture');
    const session = await recorded(api, (await gemini('TURN1: what is in shot.png?')).sessionId!, 1);
    const result = session.messages.edges.map((e) => e.node).find((m) => m.role === 'TOOL' && m.toolName === 'read_file')!;
    expect(JSON.parse(result.content)).toEqual({
      llmContent: { inlineData: { data: `[image/png, ${image.length.toLocaleString('en-US')} bytes of base64: not kept]`, mimeType: 'image/png' } },
      returnDisplay: 'Read image file: shot.png',
    });
  }, 120_000);

  it("records a failed call as failed: a replace whose text is not there claims no file (the user's edit to it is theirs), a command's exit code marks it", async () => {
    const userStep = new Hold();
    const { api, repo, gemini } = await setUp({
      turns: [
        {
          match: /TURN1/,
          steps: [
            { edit: 'notes.txt', old: 'not in the file', new: 'x' },
            // Asked for once the replace has failed: the user saves notes.txt before the agent goes on.
            { bash: 'echo "1 failing" | tee report.txt; exit 3', hold: userStep },
            { text: 'The test failed.' },
          ],
        },
      ],
    });
    const initial = git(repo, 'rev-parse', 'HEAD').trim();
    const running = gemini('TURN1: fix notes.txt and run the tests');
    await userStep.reached;
    writeFileSync(join(repo, 'notes.txt'), 'the user, mid-turn\n');
    userStep.release();
    const sessionId = (await running).sessionId!;
    const session = await recorded(api, sessionId, 1);
    const messages = session.messages.edges.map((e) => e.node);
    expect(messages.map((m) => [m.role, m.toolName, m.metadata && (m.role === 'TOOL' ? m.metadata : (m.metadata as { touchedPaths?: string[] }).touchedPaths)])).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'replace', []],
      ['TOOL', 'replace', { isError: true }],
      ['ASSISTANT', 'run_shell_command', ['report.txt']],
      ['TOOL', 'run_shell_command', { isError: true, exitCode: 3 }],
      ['ASSISTANT', null, null],
    ]);
    expect(JSON.parse(messages[4]!.content).llmContent).toContain('Exit Code: 3');
    // notes.txt is the user's change, not the agent's: the turn touches nothing.
    const result = await outcome(api, sessionId, 1);
    expect(result).toMatchObject({ result: 'SKIPPED_DIRTY', paths: ['report.txt'], dirtyPaths: ['notes.txt'], commit: null });
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('the user, mid-turn\n');
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(initial);
    expect(agentCommits(repo)).toEqual([]);
  }, 120_000);
});
