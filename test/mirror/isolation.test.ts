/**
 * One bad session never blocks another: at start-up, in the worker, and in
 * verify. The fault used is one that stops git and the file system for root
 * too: a FILE where a folder must be.
 */
import { lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { reconcile, verify } from '../../src/mirror/reconcile.js';
import { capturedLogger } from '../helpers/logger.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { MirrorView } from './operations.js';

async function turns(api: TestServer, sessionId: string, count: number, from = 1): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await api.ok(RecordTurn, { input: { sessionId, user: { content: `question ${n}` }, assistant: { content: `answer ${n}` } } });
  }
}

async function mirror(api: TestServer, sessionId: string) {
  const view = await api.ok(MirrorView, { sessionId });
  return view.session!.mirror;
}

async function inSync(api: TestServer, sessionId: string, dagTurns: number) {
  const found = await eventually(async () => {
    const status = await mirror(api, sessionId);
    return status.inSync && status.dagTurns === dagTurns ? status : undefined;
  }, 30_000);
  // Its checkout follows a commit after the commit is recorded: wait for the pass to end.
  await api.repoSettled(sessionId);
  return found;
}

describe('one bad session never blocks another', () => {
  it('at start-up, a session whose repo cannot be rebuilt is reported and the healthy session after it is rebuilt; it heals once its fault is gone, without a restart', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    // Created first, so reconcile meets it first (sessions go in creation order).
    await first.ok(CreateSession, { input: { sessionId: 'poisoned' } });
    await first.ok(CreateSession, { input: { sessionId: 'healthy' } });
    await turns(first, 'poisoned', 1);
    await turns(first, 'healthy', 2);
    await inSync(first, 'poisoned', 1);
    await inSync(first, 'healthy', 2);
    const poisonedRepo = join(dataDir, 'sessions', 'poisoned');
    const healthyRepo = join(dataDir, 'sessions', 'healthy');
    const healthyTip = git(healthyRepo, 'rev-parse', 'main').trim();
    await first.server.stop();

    // The healthy session's repo is deleted: reconcile must rebuild it.
    rmSync(healthyRepo, { recursive: true, force: true });
    // The poisoned one: a file where its repo folder should be, and a file where moved-aside/ must go,
    // so its repo can be neither used nor moved aside (a fault root cannot write through either).
    rmSync(poisonedRepo, { recursive: true, force: true });
    writeFileSync(poisonedRepo, 'not a repo\n');
    const movedAside = join(dataDir, 'moved-aside');
    writeFileSync(movedAside, 'in the way\n');

    const { logger, lines } = capturedLogger();
    // One session mirrored at a time: the failing one must not take the only slot.
    const second = await startTestServer({ dataDir }, { mirror: { concurrency: 1 }, repoHealth: { intervalMs: 0 } }, { logger });
    const healed = await inSync(second, 'healthy', 2);
    expect(healed).toMatchObject({ gitCommits: 2, pending: 0, lastError: null });
    expect(git(healthyRepo, 'rev-parse', 'main').trim()).toBe(healthyTip);
    expect(git(healthyRepo, 'status', '--porcelain')).toBe('');

    // The poisoned session's failure is visible: in the log and in Session.mirror.
    const failing = await eventually(async () => {
      const status = await mirror(second, 'poisoned');
      return status.lastError ? status : undefined;
    });
    expect(failing).toMatchObject({ dagTurns: 1, inSync: false });
    expect(failing.lastError).toMatch(/moved-aside|EEXIST|ENOTDIR|not a folder/);
    await eventually(async () =>
      lines.some((l) => l.sessionId === 'poisoned' && /reconciling a session repo failed/.test(String(l.msg))),
    );

    // While it keeps failing, the healthy session goes on committing, and the poisoned one accepts turns.
    await turns(second, 'healthy', 1, 3);
    await turns(second, 'poisoned', 1, 2);
    await inSync(second, 'healthy', 3);
    expect(git(healthyRepo, 'rev-list', '--count', 'main').trim()).toBe('3');
    const stillFailing = await mirror(second, 'poisoned');
    expect(stillFailing).toMatchObject({ dagTurns: 2, inSync: false, pending: 1 });
    // The turn waiting shows the failure too, as after a failed commit.
    await eventually(async () => {
      const view = await second.ok(MirrorView, { sessionId: 'poisoned' });
      return view.session?.turns.edges.find((e) => e.node.number === 2)?.node.mirrorState === 'FAILED';
    });

    // reconcile reports per session: the healthy one in line, the poisoned one in `failed`.
    const report = await reconcile(second.server.app.deps);
    expect(report.sessions).toEqual([{ sessionId: 'healthy', outcome: 'in-sync', turns: 0 }]);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]).toMatchObject({ sessionId: 'poisoned' });
    expect(report.failed[0]!.error).toMatch(/moved-aside|EEXIST|ENOTDIR/);

    // The way is cleared: the worker's retry moves the file aside (kept) and rebuilds the repo.
    rmSync(movedAside);
    const poisonedHealed = await inSync(second, 'poisoned', 2);
    expect(poisonedHealed).toMatchObject({ gitCommits: 2, pending: 0, lastError: null });
    expect(git(poisonedRepo, 'log', '--format=%s', 'main').trim().split('\n')).toEqual(['turn 2: question 2', 'turn 1: question 1']);
    const kept = readdirSync(movedAside);
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/^poisoned-/);
    expect(readFileSync(join(movedAside, kept[0]!), 'utf8')).toBe('not a repo\n');
    // No half-written rebuild is left beside the repos.
    expect(readdirSync(join(dataDir, 'sessions')).sort()).toEqual(['healthy', 'poisoned']);
  });

  it('verify reads every session, giving the one whose repo cannot be read a row with its error', async () => {
    const api = await startTestServer({}, { repoHealth: { intervalMs: 0 } });
    for (const sessionId of ['garbled', 'fine']) {
      await api.ok(CreateSession, { input: { sessionId } });
      await turns(api, sessionId, 2);
      await inSync(api, sessionId, 2);
    }
    const garbled = join(api.dataDir, 'sessions', 'garbled');
    writeFileSync(join(garbled, '.git', 'HEAD'), 'garbage\n');

    const rows = await verify(api.server.app.deps);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ sessionId: 'garbled', dagTurns: 2, gitCommits: 0, ok: false });
    expect(rows[0]!.error).toBeTruthy();
    expect(rows[1]).toEqual({ sessionId: 'fine', dagTurns: 2, gitCommits: 2, ok: true, error: null });
    expect(lstatSync(garbled).isDirectory()).toBe(true);
  });
});
