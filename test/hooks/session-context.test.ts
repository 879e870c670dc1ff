/**
 * Issue 29 item 5: `hooks install --context`. The SessionStart hook, run as the agent runs it,
 * answers with the project's last sessions (title, when, the last prompt, the files touched) and a
 * line about the MCP tools, at most 1,500 characters, in the shape the agents take
 * (`hookSpecificOutput.additionalContext`); nothing for a project without history, for another
 * event, or without --context; never a file's content or a secret.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runProcess } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';
import { outcome, projectServer, projectSession, recordTurn, userRepo } from '../projects/project-turns.js';
import { claudeEvents, HOOK_BIN, runHook } from './hook-events.js';

// A GitHub token's shape, in two pieces so that no scanner takes this file for a leak (as test/redaction does).
const SECRET = ['ghp_', 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx'].join('');

function contextOf(stdout: string): string {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0]!) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  expect(parsed.hookSpecificOutput.hookEventName).toBe('SessionStart');
  return parsed.hookSpecificOutput.additionalContext;
}

describe('the session-start context', () => {
  it("gives a new session the project's last sessions, bounded, without file contents or secrets", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    const projectId = await projectSession(api, dir, 'earlier');
    writeFileSync(join(dir, 'retry.ts'), 'export const CAP_MS = 30_000; // the file content itself\n');
    await recordTurn(api, { sessionId: 'earlier', content: 'make the retry backoff exponential', touchedPaths: ['retry.ts'] });
    expect((await outcome(api, 'earlier', 1)).result).toBe('COMMITTED');
    writeFileSync(join(dir, 'retry.ts'), 'export const CAP_MS = 60_000; // the file content itself\n');
    await recordTurn(api, { sessionId: 'earlier', content: `cap it at 60 s; the key is ${SECRET}`, touchedPaths: ['retry.ts'] });
    expect((await outcome(api, 'earlier', 2)).result).toBe('COMMITTED');
    // Many more sessions than fit: the newest first, the whole within the bound.
    for (let n = 0; n < 8; n++) {
      await api.raw('mutation($i: CreateSessionInput!) { createSession(input: $i) { sessionId } }', { i: { sessionId: `other-${n}`, projectId } });
      // The newest one's prompt held a secret: it was taken out before it was stored.
      await recordTurn(api, { sessionId: `other-${n}`, content: `task ${n}: ${n === 7 ? `export GITHUB_TOKEN=${SECRET} ` : ''}${'a long prompt '.repeat(20)}` });
    }

    const events = claudeEvents('fresh', dir);
    const run = await runHook('claude-code', api.dataDir, events.sessionStart(), HOOK_BIN, ['--context']);
    expect(run.code).toBe(0);
    const context = contextOf(run.stdout);
    expect(context.length).toBeLessThanOrEqual(1500);
    expect(context).toMatch(/^Recent sessions of this project \(App\), newest first:\n- /);
    expect(context).toContain("entity-memory's MCP tools (search, list_sessions, get_turn");
    expect(context).toContain('(session other-7, turn 1)');
    expect(context).toMatch(/\(session other-7, turn 1\): last asked "task 7: export GITHUB_TOKEN=\S+/);
    expect(context).not.toContain(SECRET);
    expect(context).not.toContain('the file content itself');
    // The newest five sessions, newest first; the earlier one is past them.
    expect(context.match(/^- /gm)).toHaveLength(5);
    expect(context.indexOf('other-7')).toBeLessThan(context.indexOf('other-6'));

    // The event itself was recorded, as without --context.
    const session = await api.raw('{ session(sessionId: "fresh") { project { projectId } } }');
    expect(session.data).toEqual({ session: { project: { projectId } } });
    // Another event, or no --context: nothing on stdout.
    expect((await runHook('claude-code', api.dataDir, events.prompt('p1', 'hello'), HOOK_BIN, ['--context'])).stdout).toBe('');
    expect((await runHook('claude-code', api.dataDir, claudeEvents('plain', dir).sessionStart())).stdout).toBe('');
  });

  it('names the last prompt and the files of a session, and says nothing for a project without history', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir, 'earlier');
    const alone = await runHook('claude-code', api.dataDir, claudeEvents('first', dir).sessionStart(), HOOK_BIN, ['--context']);
    expect(alone).toMatchObject({ code: 0, stdout: '' });
    writeFileSync(join(dir, 'retry.ts'), 'x\n');
    await recordTurn(api, { sessionId: 'earlier', content: 'make the retry backoff exponential', touchedPaths: ['retry.ts'] });
    const run = await runHook('claude-code', api.dataDir, claudeEvents('second', dir).sessionStart(), HOOK_BIN, ['--context']);
    expect(contextOf(run.stdout)).toMatch(/\n- \d{4}-\d\d-\d\d \d\d:\d\d UTC, untitled \(session earlier, turn 1\): last asked "make the retry backoff exponential"; files: retry\.ts\n/);
    // Outside every project: nothing.
    const elsewhere = await runHook('claude-code', api.dataDir, claudeEvents('third', tempDir('em-nowhere-')).sessionStart(), HOOK_BIN, ['--context']);
    expect(elsewhere.stdout).toBe('');
  });

  it('hooks install --context puts --context on the SessionStart hook only', async () => {
    const home = tempDir('em-home-');
    const dataDir = tempDir('em-data-');
    const env = { ...process.env, HOME: home, LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '', OPENPROGRAM_HOME: '' };
    const result = await runProcess(process.execPath, [BIN, 'hooks', 'install', 'claude-code', '--context', '--data-dir', dataDir], env);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("note: at each session start the agent is given the project's last sessions");
    const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    for (const [event, groups] of Object.entries(settings.hooks)) {
      const command = groups[0]!.hooks[0]!.command;
      expect(command.endsWith(' --context'), event).toBe(event === 'SessionStart');
    }
    const status = await runProcess(process.execPath, [BIN, 'hooks', 'status', '--data-dir', dataDir], env);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain('claude-code');
    const refused = await runProcess(process.execPath, [BIN, 'hooks', 'uninstall', 'claude-code', '--context'], env);
    expect(refused.status).toBe(2);
  });
});
