/**
 * `entity-memory rewind` as a process: through the server that holds the data dir (its
 * server.json), and in-process when none does; the dry run's lines, the refusal over a path the
 * user changed (exit 1, the path on stderr, nothing written), the run and the undo it prints.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { eventually } from '../helpers/git.js';
import { EMBEDDED } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { expectUntouched, FAST_COMMITTER, outcome, picture, projectSession, recordTurn, userRepo } from './project-turns.js';


async function agentTurn(api: TestServer, dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  const { number } = await recordTurn(api, { sessionId: 's', touchedPaths: Object.keys(files) });
  expect((await outcome(api, 's', number)).result).toBe('COMMITTED');
}

const read = (dir: string, path: string) => (existsSync(join(dir, path)) ? readFileSync(join(dir, path), 'utf8') : null);

/** Resolves once session s's repo holds every turn. */
function inSync(api: TestServer): Promise<true> {
  return eventually(async () => {
    const result = await api.raw('{ session(sessionId: "s") { mirror { inSync } } }');
    return (result.data as { session: { mirror: { inSync: boolean } } }).session.mirror.inSync || undefined;
  });
}

async function detached(api: TestServer): Promise<boolean> {
  const result = await api.raw('{ session(sessionId: "s") { detached mirror { inSync } } }');
  return (result.data as { session: { detached: boolean } }).session.detached;
}

describe('entity-memory rewind', () => {
  it('through the running server: dry run, refusal over the user’s change, the run and its undo', async () => {
    const root = tempDir('em-rewind-');
    const dataDir = tempDir();
    const api = await startTestServer({ dataDir, allowedRoots: [root], ...EMBEDDED }, { projectCommitter: FAST_COMMITTER });
    const dir = userRepo(root);
    await projectSession(api, dir, 's');
    await agentTurn(api, dir, { 'a.txt': 'a1\n' });
    await agentTurn(api, dir, { 'a.txt': 'a2\n', 'b.txt': 'b2\n' });
    await agentTurn(api, dir, { 'c.txt': 'c3\n' });
    await inSync(api);

    const before = picture(dir);
    const dry = await cli(['rewind', 's', '1', '--dry-run', '--data-dir', dataDir]);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n').slice(0, 4)).toEqual(['M a.txt', 'D b.txt', 'D c.txt', 'fork from turn 1; turns 2-3 stay on main']);
    expect(dry.stdout).not.toContain('undo:');
    expectUntouched(dir, before);
    expect(await detached(api)).toBe(false);

    writeFileSync(join(dir, 'b.txt'), 'mine\n');
    const edited = picture(dir);
    const refused = await cli(['rewind', 's', '1', '--data-dir', dataDir]);
    expect(refused.status).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^entity-memory: Not rewound: b\.txt changed since the agent/);
    expect(refused.stderr).toContain('\n  b.txt\n');
    expectUntouched(dir, edited);

    writeFileSync(join(dir, 'b.txt'), 'b2\n');
    const code = await cli(['rewind', 's', '1', '--code', '--data-dir', dataDir]);
    expect(code.status, code.stderr).toBe(0);
    expect(code.stdout).toMatch(/Restored 3 paths to their state after turn 1 and committed them\./);
    expect(code.stdout).toContain('undo: entity-memory rewind s 3 --code\n');
    expect([read(dir, 'a.txt'), read(dir, 'b.txt'), read(dir, 'c.txt')]).toEqual(['a1\n', null, null]);
    // The conversation was not asked for.
    expect(await detached(api)).toBe(false);

    const undo = await cli(['rewind', 's', '3', '--code', '--data-dir', dataDir]);
    expect(undo.status, undo.stderr).toBe(0);
    expect([read(dir, 'a.txt'), read(dir, 'b.txt'), read(dir, 'c.txt')]).toEqual(['a2\n', 'b2\n', 'c3\n']);

    const bad = await cli(['rewind', 's', 'two', '--data-dir', dataDir]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/the turn must be a number/);
    const unknown = await cli(['rewind', 'nobody', '1', '--data-dir', dataDir]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/^entity-memory: .*nobody/);
  });

  it('with a server that wants a token: exits 2 in one line without it, as import does, and rewinds with it', async () => {
    const dataDir = tempDir();
    const token = 'rewind-test-token-0123456789';
    const api = await startTestServer({ dataDir, token, ...EMBEDDED });
    await api.raw('mutation { createSession(input: { sessionId: "s" }) { sessionId } }');
    for (let i = 0; i < 2; i++) await recordTurn(api, { sessionId: 's' });
    await inSync(api);
    // The server keeps its configured token in <data-dir>/token, where the command finds it.
    const fromFile = await cli(['rewind', 's', '1', '--conversation', '--dry-run', '--data-dir', dataDir]);
    expect(fromFile.status, fromFile.stderr).toBe(0);
    rmSync(join(dataDir, 'token'));
    const refused = await cli(['rewind', 's', '1', '--conversation', '--dry-run', '--data-dir', dataDir]);
    expect(refused.status).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/wants its token \(none was sent\); set ENTITY_MEMORY_TOKEN/);
    const accepted = await cli(['rewind', 's', '1', '--conversation', '--dry-run', '--data-dir', dataDir], { ENTITY_MEMORY_TOKEN: token });
    expect(accepted.status, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain('fork from turn 1; turn 2 stays on main');
  });

  it('without a server: opens the data dir itself and moves the conversation', async () => {
    const dataDir = tempDir();
    const api = await startTestServer({ dataDir, ...EMBEDDED });
    await api.raw('mutation { createSession(input: { sessionId: "s" }) { sessionId } }');
    for (let i = 0; i < 2; i++) await recordTurn(api, { sessionId: 's' });
    await inSync(api);
    await api.server.stop();

    const done = await cli(['rewind', 's', '1', '--conversation', '--data-dir', dataDir]);
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toContain('fork from turn 1; turn 2 stays on main');
    expect(done.stdout).toContain('undo: entity-memory rewind s 2 --conversation');

    const again = await startTestServer({ dataDir, ...EMBEDDED });
    expect(await detached(again)).toBe(true);
  });
});
