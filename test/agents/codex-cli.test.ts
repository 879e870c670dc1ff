/**
 * The real Codex CLI (codex-cli.ts: 0.171.0, installed on first use) recorded live through
 * entity-memory's hooks: the CLI runs offline against a scripted Responses API (scripted-codex.ts)
 * in a user's repo bound as a project, with our hook command in the repo's .codex/hooks.json,
 * sending to a real test server. What the CLI really sends (apply_patch calls, commands as Bash,
 * no SessionEnd, a resumed session) is what is recorded.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';
import { CreateProject, DirtyWarnings } from '../projects/operations.js';
import { agentCommits, expectSnapshot, FAST_COMMITTER, outcome, userGit, userRepo } from '../projects/project-turns.js';
import { codexCli } from './codex-cli.js';
import { installHooks, SHARED_FILES } from './install-hooks.js';
import { expectTurnShown, openRecordedTurn, SHOWN_TURN, WAIT } from './session-page.js';
import type { CliCommand } from './pinned-cli.js';
import { codexHome, runCodex, writeCodexConfig, type CodexRun } from './run-codex.js';
import { startScriptedCodex } from './scripted-codex.js';
import { Hold, type Script, type ScriptedModel } from './scripted-model.js';

let cli: CliCommand;

// A clean clone installs the CLI here once (about 12 s, 315 MB), whichever file asks first.
beforeAll(async () => {
  cli = await codexCli();
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
  const root = tempDir('em-codex-');
  const api = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
  const repo = userRepo(root);
  const model = await startScriptedCodex(script);
  onCleanup(model.close);
  const home = join(root, 'home');
  writeCodexConfig(home, repo, model.url);
  await installHooks('codex', repo, api.dataDir, { HOME: home, CODEX_HOME: codexHome(home) }, options.context ? ['--context'] : []);
  // Committed, the team's hook settings are not the user's uncommitted work (which would keep
  // every turn from committing, as any uncommitted file does).
  userGit(repo, 'add', ...SHARED_FILES['codex']);
  userGit(repo, 'commit', '-q', '-m', 'Record our Codex sessions');
  const { createProject } = await api.ok(CreateProject, { input: { name: 'App', workdir: repo } });
  const codex = async (prompt: string, resume = false): Promise<CodexRun> => {
    const run = await runCodex({ cli, repo, home, prompt, resume });
    process.stderr.write(`[agents] codex exec${resume ? ' resume --last' : ''}: ${(run.ms / 1000).toFixed(1)} s\n`);
    expect(run.code, `codex exited ${run.code}\n${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
    expect(run.sessionId).toBeTruthy();
    expect(model.requests.filter((r) => r.kind === 'unknown')).toEqual([]);
    return run;
  };
  return { api, root, repo, model, codex, projectId: createProject.projectId };
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

/** Role, tool and caller of each message, in order. */
function shape(session: HookedSession): [string, string | null, string | null][] {
  return session.messages.edges.map(({ node }) => [node.role, node.toolName, node.caller?.messageId ?? null]);
}

/** The ids of the tool calls the model made, in order. */
function toolCalls(model: ScriptedModel, name: string): string[] {
  return model.requests.filter((r) => r.answer === name).map((r) => r.toolUseId!);
}

describe('the real Codex CLI, recorded through its hooks', () => {
  it("records a turn that writes, edits and runs a command, and commits exactly the agent's files as the agent", async () => {
    const { api, repo, model, codex } = await setUp({
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
    const run = await codex('TURN1: write a.txt, edit it, generate gen.txt');
    const sessionId = run.sessionId!;
    expect(run.messages.filter((m) => m.type === 'item.completed' && m.item?.type !== 'error').map((m) => [m.item?.type, m.item?.status])).toEqual([
      ['file_change', 'completed'],
      ['file_change', 'completed'],
      ['command_execution', 'completed'],
      ['agent_message', undefined],
    ]);
    expect(model.requests.filter((r) => r.kind === 'step').map((r) => r.answer)).toEqual(['apply_patch', 'apply_patch', 'exec_command', 'text']);

    const session = await recorded(api, sessionId, 1);
    expect(session).toMatchObject({ agentId: 'codex', source: null, project: { projectId: expect.any(String) } });
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    const [write, edit] = toolCalls(model, 'apply_patch');
    const [command] = toolCalls(model, 'exec_command');
    // Codex names its command tool Bash in its hooks.
    expect(shape(session)).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'apply_patch', null],
      ['TOOL', 'apply_patch', `call-${write}`],
      ['ASSISTANT', 'apply_patch', null],
      ['TOOL', 'apply_patch', `call-${edit}`],
      ['ASSISTANT', 'Bash', null],
      ['TOOL', 'Bash', `call-${command}`],
      ['ASSISTANT', null, null],
    ]);
    const messages = session.messages.edges.map((e) => e.node);
    expect(messages[0]!.content).toBe('TURN1: write a.txt, edit it, generate gen.txt');
    expect(messages.filter((m) => m.role === 'ASSISTANT' && m.toolName).map((m) => [m.toolCallId, (m.metadata as { touchedPaths: string[] }).touchedPaths])).toEqual([
      [write, ['a.txt']],
      [edit, ['a.txt']],
      [command, ['gen.txt']],
    ]);
    // The reply, from the Stop payload's last_assistant_message.
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

  it("shows the real agent's turn in the web UI: each apply_patch as a diff of its file, the command as its command line, and beside them the files it committed", async () => {
    const { api, codex } = await setUp(SHOWN_TURN.script);
    const sessionId = (await codex(SHOWN_TURN.prompt)).sessionId!;
    await recorded(api, sessionId, 1);
    expect((await outcome(api, sessionId, 1)).result).toBe('COMMITTED');

    const opened = await openRecordedTurn(api, sessionId);
    const { main } = opened;
    // Codex's hooks send each patch as tool_input.command: shown as the patch it is, not as JSON.
    const patches = main.getByRole('group', { name: 'Tool call: apply_patch' });
    await expect.poll(() => patches.count(), WAIT).toBe(2);
    const lines = async (i: number, kind: 'add' | 'del') => (await patches.nth(i).locator(`pre .diff-${kind}`).allInnerTexts()).map((line) => line.trim());
    expect(await lines(0, 'add')).toEqual(['+one', '+two']);
    expect(await lines(1, 'del')).toEqual(['-one']);
    expect(await lines(1, 'add')).toEqual(['+uno']);
    expect(await patches.nth(1).locator('summary').innerText()).toBe('a.txt +1 −1');
    expect(await main.locator('pre.tool-input').count()).toBe(0);
    expect(await main.getByRole('group', { name: 'Tool call: Bash' }).locator('.shell-command').innerText()).toBe('$ echo generated > gen.txt');
    await expectTurnShown(opened, 'Wrote a.txt and gen.txt.', ['added a.txt +2 −0', 'added gen.txt +1 −0']);
  }, 180_000);

  it('commits a file Codex moves with apply_patch as the move it is, and the page names both paths', async () => {
    const patch = '*** Begin Patch\n*** Update File: src/old.ts\n*** Move to: src/new.ts\n@@\n-export const name = "old";\n+export const name = "new";\n*** End Patch\n';
    const { api, repo, codex } = await setUp({
      turns: [{ match: /TURN1/, steps: [{ tool: 'apply_patch', input: () => ({ patch }) }, { text: 'Moved it.' }] }],
    });
    mkdirSync(join(repo, 'src'));
    const rest = 'export const a = 1;\nexport const b = 2;\nexport const c = 3;\nexport const d = 4;\n';
    writeFileSync(join(repo, 'src', 'old.ts'), `export const name = "old";\n${rest}`);
    userGit(repo, 'add', 'src/old.ts');
    userGit(repo, 'commit', '-q', '-m', 'The old name');
    const sessionId = (await codex('TURN1: rename src/old.ts to src/new.ts')).sessionId!;
    const session = await recorded(api, sessionId, 1);
    const call = session.messages.edges.map((e) => e.node).find((m) => m.role === 'ASSISTANT' && m.toolName === 'apply_patch')!;
    expect((call.metadata as { touchedPaths: string[] }).touchedPaths).toEqual(['src/old.ts', 'src/new.ts']);

    const result = await outcome(api, sessionId, 1);
    expect(result).toMatchObject({ result: 'COMMITTED', paths: ['src/new.ts', 'src/old.ts'] });
    expect(git(repo, 'show', '--format=', '--name-status', '-M', 'HEAD').trim().split('\n')).toEqual([expect.stringMatching(/^R\d+\tsrc\/old\.ts\tsrc\/new\.ts$/)]);
    expect(git(repo, 'show', 'HEAD:src/new.ts')).toBe(`export const name = "new";\n${rest}`);
    expect(git(repo, 'status', '--porcelain')).toBe('');

    const { main, errors } = await openRecordedTurn(api, sessionId);
    const moved = main.getByRole('group', { name: 'Tool call: apply_patch' });
    await expect.poll(() => moved.locator('summary').innerText(), WAIT).toBe('src/old.ts → src/new.ts +1 −1');
    expect(errors).toEqual([]);
  }, 180_000);

  it("leaves the user's edit made while the agent's turn is in flight byte for byte: the turn is skipped, with a snapshot and a warning", async () => {
    const userStep = new Hold();
    const { api, repo, codex, projectId } = await setUp({
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
    const running = codex('TURN1: write a.txt');
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

  it('records a second prompt with exec resume --last as the same session’s second turn', async () => {
    const { api, repo, codex } = await setUp({
      turns: [
        { match: /TURN1/, steps: [{ write: 'a.txt', content: 'first\n' }, { text: 'First done.' }] },
        { match: /TURN2/, steps: [{ bash: 'echo second >> a.txt' }, { text: 'Second done.' }] },
      ],
    });
    const first = await codex('TURN1: write a.txt');
    expect((await outcome(api, first.sessionId!, 1)).result).toBe('COMMITTED');
    const second = await codex('TURN2: append to a.txt', true);
    expect(second.sessionId).toBe(first.sessionId);
    const sessionId = first.sessionId!;

    const session = await recorded(api, sessionId, 2);
    expect(session.turns.edges.map((e) => e.node)).toEqual([
      { number: 1, open: false },
      { number: 2, open: false },
    ]);
    expect(shape(session).map(([role, tool]) => [role, tool])).toEqual([
      ['USER', null],
      ['ASSISTANT', 'apply_patch'],
      ['TOOL', 'apply_patch'],
      ['ASSISTANT', null],
      ['USER', null],
      ['ASSISTANT', 'Bash'],
      ['TOOL', 'Bash'],
      ['ASSISTANT', null],
    ]);
    expect([0, 3, 4, 7].map((i) => session.messages.edges[i]!.node.content)).toEqual(['TURN1: write a.txt', 'First done.', 'TURN2: append to a.txt', 'Second done.']);
    expect(await outcome(api, sessionId, 2)).toMatchObject({ result: 'COMMITTED', paths: ['a.txt'] });
    expect(agentCommits(repo)).toHaveLength(2);
    expect(git(repo, 'log', '-1', '--format=%B').trimEnd()).toMatch(/\n\nSession-Id: .+\nTurn: 2$/);
    expect(git(repo, 'show', 'HEAD:a.txt')).toBe('first\nsecond\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  }, 180_000);
  it('spools the events while the server is down, and records and commits the turn when it is back', async () => {
    const { api, root, repo, codex } = await setUp({
      turns: [{ match: /TURN1/, steps: [{ write: 'a.txt', content: 'offline\n' }, { bash: 'echo generated > gen.txt' }, { text: 'Done offline.' }] }],
    });
    await api.server.stop();
    const run = await codex('TURN1: write while no server runs');
    const sessionId = run.sessionId!;
    const spool = readFileSync(join(api.dataDir, 'hooks', 'spool.jsonl'), 'utf8').trim().split('\n');
    const spooled = spool.map((line) => JSON.parse(line) as { payload: { hook_event_name: string; tool_name?: string } });
    // Codex has no SessionEnd: the turn closes with its Stop.
    expect(spooled.map(({ payload }) => payload.hook_event_name + (payload.tool_name ? `(${payload.tool_name})` : ''))).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse(apply_patch)',
      'PostToolUse(apply_patch)',
      'PreToolUse(Bash)',
      'PostToolUse(Bash)',
      'Stop',
    ]);

    const again = await startTestServer({ dataDir: api.dataDir, allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
    const session = await recorded(again, sessionId, 1);
    expect(session.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: false }]);
    expect(shape(session).map(([role, tool]) => [role, tool])).toEqual([
      ['USER', null],
      ['ASSISTANT', 'apply_patch'],
      ['TOOL', 'apply_patch'],
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
  it('gives the next session the last one at its start when the hooks are installed with --context', async () => {
    const { api, model, codex } = await setUp(
      {
        turns: [
          { match: /TURN1/, steps: [{ write: 'plan.md', content: 'Retries: exponential backoff.\\n' }, { text: 'Wrote the plan.' }] },
          { match: /TURN2/, steps: [{ text: 'Noted.' }] },
        ],
      },
      { context: true },
    );
    const first = (await codex('TURN1: write down the retry plan')).sessionId!;
    await recorded(api, first, 1);
    await codex('TURN2: what did we plan?');
    const [request] = model.requests.filter((r) => r.turn === 1);
    expect(request?.body).toContain('Recent sessions of this project (App), newest first:');
    expect(request?.body).toContain(`(session ${first}, turn 1): last asked`);
    expect(model.requests.filter((r) => r.turn === 0).some((r) => r.body?.includes('Recent sessions of this project'))).toBe(false);
  }, 120_000);

  it("records from its transcript what its hooks do not carry: the words before a call, a patch that did not apply (no hook fires for it) where it was made, a command's non-zero exit", async () => {
    const { api, repo, codex } = await setUp({
      turns: [
        {
          match: /TURN1/,
          steps: [
            { write: 'a.txt', content: 'one\n', say: 'I will write a.txt first.' },
            // The patch's context is not in the file: Codex answers the call itself.
            { edit: 'a.txt', old: 'not in the file', new: 'x', say: 'Now the fix.' },
            { bash: 'echo "1 failing" | tee report.txt; exit 3' },
            { text: 'The test failed.' },
          ],
        },
      ],
    });
    const sessionId = (await codex('TURN1: write a.txt, fix it, run the tests')).sessionId!;
    const session = await recorded(api, sessionId, 1);
    const messages = session.messages.edges.map((e) => e.node);
    expect(messages.map((m) => [m.role, m.toolName, m.role === 'TOOL' ? m.metadata : (m.metadata as { touchedPaths?: string[] } | null)?.touchedPaths ?? null])).toEqual([
      ['USER', null, null],
      ['ASSISTANT', 'apply_patch', ['a.txt']],
      ['TOOL', 'apply_patch', null],
      ['ASSISTANT', 'apply_patch', []],
      ['TOOL', 'apply_patch', { isError: true }],
      ['ASSISTANT', 'Bash', ['report.txt']],
      ['TOOL', 'Bash', { isError: true, exitCode: 3 }],
      ['ASSISTANT', null, null],
    ]);
    // What the model wrote before each call, from the transcript (the hooks do not carry it).
    expect(messages.map((m) => m.content).filter((_, i) => [1, 3, 5].includes(i))).toEqual(['I will write a.txt first.', 'Now the fix.', '']);
    expect(messages[3]!.metadata).toMatchObject({ toolCalls: [{ name: 'apply_patch', input: { command: expect.stringContaining('-not in the file') } }] });
    expect(messages[4]!.content).toMatch(/^apply_patch verification failed: Failed to find expected lines/);
    expect(messages[4]!.caller?.messageId).toBe(messages[3]!.messageId);
    expect(messages[6]!.content).toBe('1 failing\n');
    expect(await outcome(api, sessionId, 1)).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'report.txt'] });
    expect(git(repo, 'show', 'HEAD:a.txt')).toBe('one\n');
    // On the page: the command's result says it failed.
    const { main } = await openRecordedTurn(api, sessionId);
    const shown = main.getByRole('article').filter({ hasText: 'Tool result: Bash' });
    await expect.poll(() => shown.locator('summary').first().innerText(), WAIT).toMatch(/^Tool result: Bash .* failed: exit code 3$/);
  }, 120_000);
});
