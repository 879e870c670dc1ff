/**
 * `serve --max-disk`: past its budget the server archives the sessions idle longest until the data
 * dir fits, never one with a turn in the last 7 days or one in use; /health and `diskUsage` show
 * the usage, with a warning at 90%. An archived session still reads, and comes back when opened.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DiskBudget } from '../../src/mirror/disk-budget.js';
import { bytesOnDisk } from '../../src/mirror/gc.js';
import { EMBEDDED } from '../helpers/database.js';
import { eventually } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

async function record(api: TestServer, sessionId: string, turns: number, daysAgo: number): Promise<void> {
  expect((await api.raw(`mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`)).errors).toBeUndefined();
  for (let n = 1; n <= turns; n++) {
    const content = `${sessionId} ${n} `.repeat(400);
    expect((await api.raw(`mutation { recordTurn(input: { sessionId: "${sessionId}", user: { content: "${content}" }, assistant: { content: "ok ${n}" } }) { number } }`)).errors).toBeUndefined();
  }
  await eventually(async () => {
    const result = await api.raw(`{ session(sessionId: "${sessionId}") { mirror { inSync } } }`);
    return (result.data as { session: { mirror: { inSync: boolean } } }).session.mirror.inSync;
  });
  await api.repoSettled(sessionId);
  if (daysAgo > 0) {
    const then = new Date(Date.now() - daysAgo * 86_400_000);
    await api.server.app.db.turn.updateMany({ where: { sessionId }, data: { createdAt: then, closedAt: then } });
  }
}

const repo = (dataDir: string, sessionId: string) => join(dataDir, 'sessions', sessionId);

describe('serve --max-disk', () => {
  it('archives the sessions idle longest until the data dir fits, never a recent or busy one, and says how full it is', async () => {
    let api = await startTestServer(EMBEDDED);
    await record(api, 'ancient', 6, 60);
    await record(api, 'older', 6, 30);
    await record(api, 'week', 6, 3);
    await record(api, 'busy', 2, 45);
    expect((await api.raw(`mutation { appendMessage(input: { sessionId: "busy", role: USER, content: "still typing" }) { seq } }`)).errors).toBeUndefined();
    await api.server.stop();
    const dataDir = api.dataDir;
    const used = await bytesOnDisk(dataDir);

    // A budget one byte short: archiving the session idle longest is enough.
    api = await startTestServer({ ...EMBEDDED, dataDir, maxDiskBytes: used - 1 }, { diskBudget: { intervalMs: 3_600_000 } });
    const first = await api.server.app.diskBudget!.firstCheck();
    expect(first.archived).toBe(1);
    expect(existsSync(repo(dataDir, 'ancient'))).toBe(false);
    expect(['older', 'week', 'busy'].map((id) => existsSync(repo(dataDir, id)))).toEqual([true, true, true]);
    expect(first.usedBytes).toBeLessThanOrEqual(used - 1);
    const health = (await (await fetch(`${api.url}/health`)).json()) as { disk?: { usedBytes: number; budgetBytes: number; warning: boolean } };
    expect(health.disk).toMatchObject({ usedBytes: first.usedBytes, budgetBytes: used - 1, warning: first.usedBytes >= 0.9 * (used - 1) });
    const usage = await api.raw(`{ diskUsage { usedBytes budgetBytes warning archived } session(sessionId: "ancient") { archive { archivedAt } turns(first: 0) { totalCount } } }`);
    expect(usage.errors).toBeUndefined();
    expect(usage.data).toMatchObject({ diskUsage: { usedBytes: first.usedBytes, budgetBytes: used - 1, archived: 1 }, session: { turns: { totalCount: 6 } } });
    await api.server.stop();

    // A budget nothing fits: every session idle a week or more goes, never the recent one or the busy one.
    api = await startTestServer({ ...EMBEDDED, dataDir, maxDiskBytes: 1 }, { diskBudget: { intervalMs: 3_600_000 } });
    const second = await api.server.app.diskBudget!.firstCheck();
    expect(second.archived).toBe(1);
    expect(['ancient', 'older', 'week', 'busy'].map((id) => existsSync(repo(dataDir, id)))).toEqual([false, false, true, true]);
    // Opened again, an archived session comes back whole.
    const back = await api.raw(`mutation { unarchiveSession(input: { sessionId: "older" }) { timeline(first: 10) { edges { node { sha } } } } }`);
    expect(back.errors).toBeUndefined();
    expect((back.data as { unarchiveSession: { timeline: { edges: unknown[] } } }).unarchiveSession.timeline.edges).toHaveLength(6);

    // Within a budget but past 90% of it (measured just now, nothing writing): nothing archived, a warning.
    const { deps } = api.server.app;
    const near = new DiskBudget({ db: deps.db, config: { dataDir, maxDiskBytes: Math.floor((await bytesOnDisk(dataDir)) / 0.95) }, repoLocks: deps.repoLocks, logger: deps.logger });
    const third = await near.check();
    expect(third.archived).toBe(0);
    expect(third.usedBytes).toBeGreaterThanOrEqual(0.9 * third.budgetBytes);
    expect(existsSync(repo(dataDir, 'older'))).toBe(true);
  });

  it('is refused with a shared database, and a size it cannot read, in one line', async () => {
    const { loadConfig, ConfigError } = await import('../../src/config.js');
    expect(() => loadConfig(['--max-disk', 'lots'], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--max-disk', '20G', '--database-url', 'postgresql://localhost/x'], {})).toThrow(/--max-disk is for one server on its own data dir/);
    expect(loadConfig(['--max-disk', '1.5G'], {}).maxDiskBytes).toBe(1.5 * 1024 ** 3);
    expect(loadConfig([], { ENTITY_MEMORY_MAX_DISK: '500M' }).maxDiskBytes).toBe(500 * 1024 ** 2);
  });
});
