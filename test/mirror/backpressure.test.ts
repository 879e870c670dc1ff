/**
 * Issue 31, backpressure: past `limit` turns acknowledged and not yet committed, a request's close
 * is answered once the mirror is back within it (the write durable before either), and never
 * later than `maxWaitMs`; a failing mirror is not waited for; imports and replayed hook events are
 * not paced and not counted (src/mirror/backlog.ts). The mirror is held back as a pass in flight
 * holds it: by the session's repo lock.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { eventually } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import { holdLock } from '../helpers/locks.js';
import { capturedLogger } from '../helpers/logger.js';
import type { Logger } from '../../src/logger.js';
import { claudeEvents, runHook } from '../hooks/hook-events.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

function turn(sessionId: string, n: number) {
  return { input: { sessionId, user: { content: `question ${n}` }, assistant: { content: `answer ${n}` } } };
}

async function states(api: TestServer, sessionId: string): Promise<string[]> {
  const rows = await api.server.app.db.turn.findMany({ where: { sessionId }, orderBy: { number: 'asc' }, select: { number: true, mirrorState: true } });
  return rows.map((r) => `${r.number}:${r.mirrorState}`);
}

/** Tracks a promise's settling without awaiting it. */
function watched<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  void promise.finally(() => (done = true)).catch(() => {});
  return { promise, settled: () => done };
}

describe('acknowledgements paced by the mirror', () => {
  it('answer at once within the limit; past it, once the mirror has caught up, the turn durable before', async () => {
    const { logger, lines } = capturedLogger();
    const api = await startTestServer({ logLevel: 'info' }, { backlog: { limit: 2, maxWaitMs: 120_000 } }, { logger: logger as Logger });
    const { deps, mirror, backlog } = api.server.app;
    const said = () => lines.map((line) => String(line.msg)).filter((msg) => msg.includes('backlog') || msg.includes('behind the requests'));
    await api.ok(CreateSession, { input: { sessionId: 'fast' } });
    await api.ok(RecordTurn, turn('fast', 1));
    await eventually(async () => backlog.size === 0);
    await mirror.idle();

    const release = await holdLock(deps.repoLocks, 'fast');
    // Two turns the mirror cannot commit yet: within the limit, answered at once.
    for (const n of [2, 3]) expect((await api.ok(RecordTurn, turn('fast', n))).recordTurn.number).toBe(n);
    expect(backlog.size).toBe(2);
    expect(backlog.paced).toBe(0);

    // The third is past it: written, and its answer held.
    const fourth = watched(api.ok(RecordTurn, turn('fast', 4)));
    await eventually(async () => backlog.waiting === 1);
    expect(await states(api, 'fast')).toEqual(['1:COMMITTED', '2:PENDING', '3:PENDING', '4:PENDING']);
    expect(fourth.settled()).toBe(false);
    expect(said()).toEqual(["the mirror is 3 turns behind the requests' writes; their answers wait for it, 120000 ms at most each"]);

    await release();
    expect((await fourth.promise).recordTurn.number).toBe(4);
    // Answered once the backlog was back at the limit: a commit of the three had been announced.
    expect((await states(api, 'fast')).filter((s) => s.endsWith(':COMMITTED')).length).toBeGreaterThanOrEqual(2);
    expect(backlog.paced).toBe(1);
    expect(backlog.waiting).toBe(0);
    expect(said()[1]).toBe('the mirror is back within its backlog limit; answers no longer wait for it');
  });

  it('never waits longer than maxWaitMs for a mirror that does not move', async () => {
    const api = await startTestServer({}, { backlog: { limit: 0, maxWaitMs: 200 } });
    const { deps, mirror, backlog } = api.server.app;
    await api.ok(CreateSession, { input: { sessionId: 'stuck' } });
    const release = await holdLock(deps.repoLocks, 'stuck');
    for (const n of [1, 2, 3]) expect((await api.ok(RecordTurn, turn('stuck', n))).recordTurn.number).toBe(n);
    // Answered while the repo lock was still held: nothing committed.
    expect(await states(api, 'stuck')).toEqual(['1:PENDING', '2:PENDING', '3:PENDING']);
    expect(backlog.paced).toBe(3);
    await release();
    await eventually(async () => backlog.size === 0);
    await mirror.idle();
    expect(await states(api, 'stuck')).toEqual(['1:COMMITTED', '2:COMMITTED', '3:COMMITTED']);
  });

  it('does not wait for a session whose commits fail', async () => {
    // A two-minute wait per answer unless the failure lets it go: the test's own timeout catches that.
    const api = await startTestServer({}, { backlog: { limit: 0, maxWaitMs: 120_000 } });
    const { backlog } = api.server.app;
    await api.ok(CreateSession, { input: { sessionId: 'broken' } });
    const saved = process.env.ENTITY_MEMORY_GIT_BINARY;
    process.env.ENTITY_MEMORY_GIT_BINARY = join(tempDir(), 'no-such-git');
    onCleanup(() => {
      if (saved === undefined) delete process.env.ENTITY_MEMORY_GIT_BINARY;
      else process.env.ENTITY_MEMORY_GIT_BINARY = saved;
    });
    for (const n of [1, 2, 3]) expect((await api.ok(RecordTurn, turn('broken', n))).recordTurn.number).toBe(n);
    // The first waited for its failure; the others were not counted: the session is failing.
    expect(backlog.paced).toBe(1);
    expect(backlog.size).toBe(0);
    expect(await states(api, 'broken')).not.toContain('3:COMMITTED');
  });

  it('neither paces nor counts an import', async () => {
    const root = tempDir('em-backlog-');
    cpSync(join(import.meta.dirname, '..', 'importers', 'fixtures', 'claude-code'), join(root, 'cc'), { recursive: true });
    const api = await startTestServer({ allowedRoots: [root] }, { backlog: { limit: 0, maxWaitMs: 120_000 } });
    const { mirror, backlog } = api.server.app;
    // No commit will be announced: a counted turn would stay counted.
    await mirror.stop();
    const result = await api.raw(`mutation($paths: [String!]!) { importClaudeCode(input: { paths: $paths }) { turns } }`, { paths: [join(root, 'cc')] });
    expect(result.errors).toBeUndefined();
    expect((result.data as { importClaudeCode: { turns: number } }).importClaudeCode.turns).toBeGreaterThan(1);
    expect(backlog.size).toBe(0);
    expect(backlog.paced).toBe(0);
  });

  it('neither paces nor counts the hook events replayed from the spool', async () => {
    const dataDir = tempDir('em-data-');
    const cwd = tempDir('em-cwd-');
    const c = claudeEvents('spooled', cwd);
    // No server runs: the hook command spools each event.
    for (const event of [c.sessionStart(), c.prompt('p1', 'first'), c.stop('p1', 'One.'), c.prompt('p2', 'second'), c.stop('p2', 'Two.')]) {
      expect((await runHook('claude-code', dataDir, event)).code).toBe(0);
    }
    const api = await startTestServer({ dataDir }, { backlog: { limit: 0, maxWaitMs: 120_000 } });
    const { backlog } = api.server.app;
    await eventually(async () => (await api.server.app.db.turn.count({ where: { sessionId: 'spooled', closedAt: { not: null } } })) === 2);
    expect(backlog.paced).toBe(0);
    expect(backlog.size).toBe(0);
  });
});
