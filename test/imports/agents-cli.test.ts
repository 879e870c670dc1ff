/**
 * `entity-memory import codex` and `import gemini` as processes, on the fixtures copied where
 * each agent keeps its transcripts (the default paths: $CODEX_HOME/sessions, ~/.gemini/tmp):
 * sessions, turns and branches, errors as file:line with the exit status, the session repos in
 * sync when it exits, importing again adding nothing, and a session recorded live through the
 * agent's hooks (same session id, no source) left as its hooks made it.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { git } from '../helpers/git.js';
import { EMBEDDED } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { runHook } from '../hooks/hook-events.js';

const fixtures = join(import.meta.dirname, '..', 'importers', 'fixtures');
const CODEX_THREAD = '01a241e6-968d-7220-bfa2-5111bc4f04a1';
const CODEX_CHILD = '01a241e8-ac9c-7ab2-968e-762f064bef29';
const GEMINI_SESSION = '7a1b7ca5-dad9-4864-96c9-c2febb528024';


function field(stdout: string, name: string): string | undefined {
  return new RegExp(`^${name}\\t(.*)$`, 'm').exec(stdout)?.[1];
}

/** A Codex home whose sessions folder holds the fixtures' rollouts, the older one (with its bad line) among them. */
function codexHome(): string {
  const home = join(tempDir(), '.codex');
  cpSync(join(fixtures, 'codex'), join(home, 'sessions'), { recursive: true });
  cpSync(join(fixtures, 'codex-legacy'), join(home, 'sessions', '2025', '10', '29'), { recursive: true });
  return home;
}

/** A home whose ~/.gemini/tmp holds the fixtures' chats (and a file Gemini CLI keeps beside them, not a chat). */
function geminiHome(): string {
  const home = tempDir();
  const tmp = join(home, '.gemini', 'tmp');
  cpSync(join(fixtures, 'gemini'), tmp, { recursive: true });
  cpSync(join(fixtures, 'gemini-legacy'), join(tmp, 'legacy'), { recursive: true });
  cpSync(join(fixtures, 'chat', 'linear.jsonl'), join(tmp, 'shop', 'logs.jsonl'));
  return home;
}

describe('entity-memory import codex', () => {
  it('imports $CODEX_HOME/sessions: a session per rollout, the rollback a branch, the bad line as file:line (exit 1); the repos in sync; again adds nothing', async () => {
    const home = codexHome();
    const dataDir = tempDir();
    const first = await cli(['import', 'codex', '--data-dir', dataDir], { CODEX_HOME: home });
    expect(first.status, first.stderr).toBe(1);
    expect(field(first.stdout, 'files')).toBe('3');
    expect(field(first.stdout, 'sessions')).toBe('3');
    // 3 turns in the main rollout (one on the fork), 1 in the sub-agent's, 2 in the older one.
    expect(field(first.stdout, 'turns')).toBe('6');
    expect(field(first.stdout, 'messages')).toBe('21');
    expect(field(first.stdout, 'branches')).toBe('1');
    expect(field(first.stdout, 'skipped')).toMatch(/token_count \d+/);
    expect(first.stdout).toMatch(/2025\/10\/29\/rollout-2025-10-29T00-59-38-5973b6c0-94b8-487b-a530-2aeb6098ae0e\.jsonl:13: not valid JSON/);
    expect(first.stdout).toContain('3 files imported, 1 with errors');

    const verified = await cli(['verify', '--data-dir', dataDir]);
    expect(verified.status, verified.stdout).toBe(0);
    expect(verified.stdout).toContain('3 sessions, 0 mismatched');
    const repo = join(dataDir, 'sessions', CODEX_THREAD);
    expect(git(repo, 'branch', '--format=%(refname:short)').trim().split('\n')).toHaveLength(2);
    expect(git(repo, 'log', '--format=%s', 'main')).toMatch(/turn 2: Add a test for it\.\n.*turn 1: Why is the total off by a cent\?/);

    const again = await cli(['import', 'codex', join(home, 'sessions'), '--data-dir', dataDir]);
    expect(again.status).toBe(1);
    expect([field(again.stdout, 'messages'), field(again.stdout, 'turns'), field(again.stdout, 'branches')]).toEqual(['0', '0', '0']);
    expect(field(again.stdout, 'sessions')).toBe('3');
  }, 120_000);
});

describe('entity-memory import gemini', () => {
  it('imports ~/.gemini/tmp: only the chat files, the rewind a branch, a sub-agent linked to its parent (exit 0); again adds nothing', async () => {
    const home = geminiHome();
    const dataDir = tempDir();
    const first = await cli(['import', 'gemini', '--data-dir', dataDir], { HOME: home });
    expect(first.status, first.stdout + first.stderr).toBe(0);
    expect(field(first.stdout, 'files')).toBe('3');
    expect(field(first.stdout, 'sessions')).toBe('3');
    // 3 turns in the main chat (one on the fork), 1 in the sub-agent's, 1 in the older JSON chat.
    expect(field(first.stdout, 'turns')).toBe('5');
    expect(field(first.stdout, 'messages')).toBe('20');
    expect(field(first.stdout, 'branches')).toBe('1');
    expect(field(first.stdout, 'skipped')).toContain('tool-response 4');

    const verified = await cli(['verify', '--data-dir', dataDir]);
    expect(verified.status, verified.stdout).toBe(0);
    expect(git(join(dataDir, 'sessions', GEMINI_SESSION), 'branch', '--format=%(refname:short)').trim().split('\n')).toHaveLength(2);

    const again = await cli(['import', 'gemini', join(home, '.gemini', 'tmp'), '--data-dir', dataDir]);
    expect(again.status, again.stdout).toBe(0);
    expect([field(again.stdout, 'messages'), field(again.stdout, 'turns'), field(again.stdout, 'branches')]).toEqual(['0', '0', '0']);
  }, 120_000);
});

describe('a transcript of a session recorded live through hooks', () => {
  it('adds nothing to it, for Codex and for Gemini, and is no error; another session of the same import is imported', async () => {
    const dataDir = tempDir();
    const api = await startTestServer({ dataDir, ...EMBEDDED });
    const cwd = tempDir();
    mkdirSync(cwd, { recursive: true });
    const send = async (agent: string, event: object) => expect(await runHook(agent, dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });
    const codex = { session_id: CODEX_THREAD, transcript_path: join(cwd, 'none.jsonl'), cwd, model: 'gpt-5.5' };
    await send('codex', { ...codex, hook_event_name: 'UserPromptSubmit', turn_id: 't1', prompt: 'Why is the total off by a cent?' });
    await send('codex', { ...codex, hook_event_name: 'Stop', turn_id: 't1', stop_hook_active: false, last_assistant_message: 'Rounded.' });
    const gemini = { session_id: GEMINI_SESSION, transcript_path: join(cwd, 'none.jsonl'), cwd, timestamp: '2026-12-04T16:39:11.732Z' };
    await send('gemini', { ...gemini, hook_event_name: 'BeforeAgent', prompt: 'Create a.txt saying hello' });
    await send('gemini', { ...gemini, hook_event_name: 'AfterAgent', prompt: 'Create a.txt saying hello', prompt_response: 'Done.', stop_hook_active: false });

    const codexImport = await cli(['import', 'codex', join(fixtures, 'codex'), '--data-dir', dataDir]);
    expect(codexImport.status, codexImport.stdout + codexImport.stderr).toBe(0);
    // The sub-agent's rollout is a session of its own, imported; the hooked thread gets nothing.
    expect(field(codexImport.stdout, 'sessions')).toBe('2');
    expect(field(codexImport.stdout, 'messages')).toBe('4');
    const geminiImport = await cli(['import', 'gemini', join(fixtures, 'gemini'), '--data-dir', dataDir]);
    expect(geminiImport.status, geminiImport.stdout + geminiImport.stderr).toBe(0);
    expect(field(geminiImport.stdout, 'messages')).toBe('5');

    const query = `query($id: String!) { session(sessionId: $id) { agentId source messages(first: 50) { totalCount } } }`;
    for (const [id, agentId] of [[CODEX_THREAD, 'codex'], [GEMINI_SESSION, 'gemini']] as const) {
      const session = await api.raw(query, { id });
      expect(session.data, id).toEqual({ session: { agentId, source: null, messages: { totalCount: 2 } } });
    }
    const child = await api.raw(query, { id: CODEX_CHILD });
    expect(child.data).toEqual({ session: { agentId: 'codex', source: 'codex', messages: { totalCount: 4 } } });
    await api.server.stop();
  }, 120_000);
});

describe('a transcript that grew', () => {
  it('adds only its new turns, the same turns and messages as one import of the whole file, for Codex and for Gemini', async () => {
    const cases = [
      {
        kind: 'codex',
        file: join(fixtures, 'codex', '2026', '12', '04', `rollout-2026-12-04T16-32-40-${CODEX_THREAD}.jsonl`),
        name: `rollout-2026-12-04T16-32-40-${CODEX_THREAD}.jsonl`,
        // Through turn 1's task_complete.
        cut: (lines: string[]) => lines.findIndex((line) => line.includes('"task_complete"')) + 1,
        first: ['6', '1'],
        rest: ['6', '2', '1'],
      },
      {
        kind: 'gemini',
        file: join(fixtures, 'gemini', 'shop', 'chats', 'session-2026-12-04T16-39-7a1b7ca5.jsonl'),
        name: join('chats', 'session-2026-12-04T16-39-7a1b7ca5.jsonl'),
        // Through turn 1, before --resume writes its header and the history again.
        cut: (lines: string[]) => lines.findIndex((line, i) => i > 0 && line.startsWith('{"sessionId"')),
        first: ['4', '1'],
        rest: ['7', '2', '1'],
      },
    ];
    for (const c of cases) {
      const dataDir = tempDir();
      const file = join(tempDir(), c.name);
      mkdirSync(join(file, '..'), { recursive: true });
      const lines = readFileSync(c.file, 'utf8').split(/(?<=\n)/);
      writeFileSync(file, lines.slice(0, c.cut(lines)).join(''));
      const first = await cli(['import', c.kind, file, '--data-dir', dataDir]);
      expect(first.status, first.stdout).toBe(0);
      expect([field(first.stdout, 'messages'), field(first.stdout, 'turns')], c.kind).toEqual(c.first);
      writeFileSync(file, lines.join(''));
      const grown = await cli(['import', c.kind, file, '--data-dir', dataDir]);
      expect(grown.status, grown.stdout).toBe(0);
      expect([field(grown.stdout, 'messages'), field(grown.stdout, 'turns'), field(grown.stdout, 'branches')], c.kind).toEqual(c.rest);
      const verified = await cli(['verify', '--data-dir', dataDir]);
      expect(verified.status, verified.stdout).toBe(0);
    }
  }, 120_000);
});

describe('refusals', () => {
  it.each([
    [['import', 'chat', 'log.jsonl', '--follow'], {}, /--follow is for claude-code, codex and gemini/],
    [['import', 'codex'], { CODEX_HOME: '/nonexistent/codex-home' }, /no Codex CLI rollouts at \/nonexistent\/codex-home\/sessions; name the files or folders/],
    [['import', 'gemini'], { HOME: '/nonexistent/home' }, /no Gemini CLI chats at \/nonexistent\/home\/\.gemini\/tmp/],
  ])('exits 2 with one line for %j', async (args, env, text) => {
    const result = await cli([...args, '--data-dir', tempDir()], env);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(text);
  });
});
