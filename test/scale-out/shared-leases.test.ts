/**
 * Several instances on one database and one sessions folder (MirrorWorker's
 * `shared` option, src/mirror/leases.ts): two apps in this process over one
 * SQLite file and one data dir, each with its own instance id, locks and
 * events, as two servers would have. A session is mirrored by the holder of
 * its lease; a dead instance's sessions are taken over once its leases
 * expire; a commit that landed but was not recorded is adopted, never made
 * twice; an instance whose lease was taken over records nothing.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { onSqlStatement } from '../../src/db/index.js';
import type { Logger } from '../../src/logger.js';
import type { SharedMirrorOptions } from '../../src/mirror/lease-holder.js';
import type { TurnCommittedPayload } from '../../src/pubsub.js';
import { createSession } from '../../src/services/sessions/create-session.js';
import { recordTurn } from '../../src/services/sessions/record-turn.js';
import { eventually, git } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import { capturedLogger } from '../helpers/logger.js';
import { abandonMirror } from '../helpers/mirror.js';
import { freshDatabase, onPostgres } from '../helpers/database.js';
import { testConfig } from '../helpers/server.js';

/** Only a bound for a mirror that never gets there (a loaded 2-core CI machine is slow). */
const DEADLINE_MS = 60_000;

interface Instance {
  app: App;
  /** Every turnCommitted this instance published, in order. */
  committed: TurnCommittedPayload[];
  /** Resolves once `count` of this session's turns were announced by this instance. */
  announced(sessionId: string, count: number): Promise<void>;
  /** Resolves with the first turnCommitted of this instance that `match` accepts, past or to come. */
  seen(match: (event: TurnCommittedPayload) => boolean): Promise<TurnCommittedPayload>;
  lines: Record<string, unknown>[];
}

/** One config for both instances: one data dir and one PostgreSQL database. */
async function sharedConfig(): Promise<Config> {
  const config = testConfig();
  // test/scale-out runs in the PostgreSQL pass only: two instances in one process on one SQLite file
  // deadlock (better-sqlite3 waits for a lock synchronously, holding the event loop the holder needs).
  if (!onPostgres) throw new Error('test/scale-out needs the PostgreSQL pass (npm run test:postgresql)');
  config.databaseUrl = (await freshDatabase()).url;
  return config;
}

async function instance(config: Config, shared: SharedMirrorOptions | undefined): Promise<Instance> {
  const { logger, lines } = capturedLogger();
  const app = await createApp(config, logger as Logger, {
    mirror: { retryBaseMs: 50, retryMaxMs: 400, shared },
    repoHealth: { intervalMs: 0 },
  });
  onCleanup(() => app.close());
  const committed: TurnCommittedPayload[] = [];
  const waiters = new Set<() => void>();
  const events = app.deps.pubsub.subscribe('turnCommitted');
  onCleanup(() => events.return(undefined));
  void (async () => {
    for await (const event of events) {
      committed.push(event);
      for (const wake of waiters) wake();
    }
  })();
  const when = <T>(probe: () => T | undefined, what: string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const found = probe();
        if (found === undefined) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`${what} not announced in time`));
      }, DEADLINE_MS);
      waiters.add(check);
      check();
    });
  const announced = (sessionId: string, count: number) =>
    when(() => (committed.filter((e) => e.sessionId === sessionId).length >= count ? true : undefined), `${count} turns of ${sessionId}`).then(() => undefined);
  const seen = (match: (event: TurnCommittedPayload) => boolean) => when(() => committed.find(match), 'the turn');
  return { app, committed, announced, seen, lines };
}

async function turn(app: App, sessionId: string, n: number): Promise<void> {
  await recordTurn({ sessionId, user: { content: `question ${n}` }, assistant: { content: `answer ${n}` } }, app.deps);
}

/** Resolves once every closed turn of the session is recorded as committed (no cross-instance event exists: polled). */
async function allCommitted(app: App, sessionId: string, count: number): Promise<void> {
  await eventually(async () => (await app.db.turn.count({ where: { sessionId, mirrorState: 'COMMITTED' } })) === count, DEADLINE_MS);
}

function subjects(repo: string, ref = 'main'): string[] {
  return git(repo, 'log', '--format=%s', ref).trim().split('\n');
}

const expectedSubjects = (count: number) => Array.from({ length: count }, (_, i) => `turn ${count - i}: question ${count - i}`);

describe('several instances sharing one database and sessions folder', () => {
  it('commits each turn of each session exactly once and in order, whichever instance recorded it', async () => {
    const config = await sharedConfig();
    // Leases long enough that no renewal is missed on a loaded machine: a lapse is a takeover,
    // which announces the holder's last turns once more (by design), and this test counts them.
    const a = await instance(config, { instanceId: 'a', leaseTtlMs: 3000, scanEveryMs: 50 });
    const b = await instance(config, { instanceId: 'b', leaseTtlMs: 3000, scanEveryMs: 50 });
    const sessions = ['s1', 's2', 's3', 's4'];
    const turns = 5;
    for (const [i, sessionId] of sessions.entries()) await createSession({ sessionId }, (i % 2 === 0 ? a : b).app.deps);
    // Round-robin over sessions and instances: each session's turns come through both.
    for (let n = 1; n <= turns; n++) {
      for (const [i, sessionId] of sessions.entries()) await turn((n + i) % 2 === 0 ? a.app : b.app, sessionId, n);
    }
    for (const sessionId of sessions) await allCommitted(a.app, sessionId, turns);
    await Promise.all([a.app.mirror.idle(), b.app.mirror.idle()]);

    for (const sessionId of sessions) {
      const repo = join(config.dataDir, 'sessions', sessionId);
      expect(subjects(repo)).toEqual(expectedSubjects(turns));
      expect(git(repo, 'rev-list', '--count', '--all').trim()).toBe(String(turns));
      // Announced once in all, by whichever instance committed it, with the sha recorded.
      const events = [...a.committed, ...b.committed].filter((e) => e.sessionId === sessionId);
      expect(events).toHaveLength(turns);
      const recorded = await a.app.db.turn.findMany({ where: { sessionId }, orderBy: { number: 'asc' }, select: { id: true, commitSha: true } });
      expect(new Set(events.map((e) => e.turnId))).toEqual(new Set(recorded.map((t) => t.id)));
      expect(recorded.map((t) => t.commitSha)).toEqual(git(repo, 'rev-list', '--reverse', 'main').trim().split('\n'));
    }
    expect(await a.app.db.outboxJob.count({ where: { kind: 'SESSION' } })).toBe(0);
    // Each held session has one lease row naming its holder, and the counts agree.
    const leases = await a.app.db.sessionLease.findMany({ where: { expiresAt: { gt: new Date() } } });
    expect(a.app.mirror.leaseCount() + b.app.mirror.leaseCount()).toBeLessThanOrEqual(sessions.length);
    for (const lease of leases) expect(['a', 'b']).toContain(lease.owner);
  }, 120_000);

  it("takes a dead instance's session over once its lease expires, adopting a commit that landed but was not recorded", async () => {
    const config = await sharedConfig();
    const a = await instance(config, { instanceId: 'a', leaseTtlMs: 1000, scanEveryMs: 50 });
    await createSession({ sessionId: 'k' }, a.app.deps);
    for (let n = 1; n <= 3; n++) await turn(a.app, 'k', n);
    await a.announced('k', 3);
    await a.app.mirror.idle();
    // Started once a holds the session (else its scan might take the first turns: a race to no purpose here).
    const b = await instance(config, { instanceId: 'b', leaseTtlMs: 1000, scanEveryMs: 50 });
    const repo = join(config.dataDir, 'sessions', 'k');
    const third = git(repo, 'rev-parse', 'main').trim();

    // Killed: its lease stays in the database until it expires. Turn 3 had landed in git, and the
    // database had not heard of it (a death between the commit and its record).
    await abandonMirror(a.app.mirror);
    const turn3 = await a.app.db.turn.findFirstOrThrow({ where: { sessionId: 'k', number: 3 } });
    await a.app.db.$transaction([
      a.app.db.turn.update({ where: { id: turn3.id }, data: { commitSha: null, mirroredAt: null, mirrorState: 'PENDING' } }),
      a.app.db.outboxJob.create({ data: { sessionId: 'k', turnId: turn3.id, kind: 'SESSION' } }),
    ]);

    // b's scan finds the turn waiting under an expired lease, takes it and adopts the commit.
    expect(await b.seen((e) => e.turnId === turn3.id)).toEqual({ sessionId: 'k', turnId: turn3.id, sha: third });
    expect((await b.app.db.turn.findUniqueOrThrow({ where: { id: turn3.id } })).commitSha).toBe(third);
    expect(b.lines.some((line) => line.msg === 'adopted a turn commit made before a crash')).toBe(true);
    expect((await b.app.db.sessionLease.findUniqueOrThrow({ where: { sessionId: 'k' } })).owner).toBe('b');

    for (let n = 4; n <= 5; n++) await turn(b.app, 'k', n);
    await allCommitted(b.app, 'k', 5);
    await b.app.mirror.idle();
    expect(subjects(repo)).toEqual(expectedSubjects(5));
    expect(git(repo, 'rev-list', '--count', '--all').trim()).toBe('5');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect((await b.app.db.turn.findUniqueOrThrow({ where: { id: turn3.id } })).commitSha).toBe(third);
  }, 120_000);

  it('writes the same commit again, not a second one, when a landed turn is taken over with turns after it', async () => {
    const config = await sharedConfig();
    // A long lease, expired by hand below: b must find both turns waiting at once (one fast-import pass).
    const a = await instance(config, { instanceId: 'a', leaseTtlMs: 60_000, scanEveryMs: 50 });
    await createSession({ sessionId: 'm' }, a.app.deps);
    for (let n = 1; n <= 3; n++) await turn(a.app, 'm', n);
    await a.announced('m', 3);
    await a.app.mirror.idle();
    const repo = join(config.dataDir, 'sessions', 'm');
    const third = git(repo, 'rev-parse', 'main').trim();

    await abandonMirror(a.app.mirror);
    const turn3 = await a.app.db.turn.findFirstOrThrow({ where: { sessionId: 'm', number: 3 } });
    await a.app.db.$transaction([
      a.app.db.turn.update({ where: { id: turn3.id }, data: { commitSha: null, mirroredAt: null, mirrorState: 'PENDING' } }),
      a.app.db.outboxJob.create({ data: { sessionId: 'm', turnId: turn3.id, kind: 'SESSION' } }),
    ]);
    // Written through the dead instance's database handle: queued, mirrored by nobody yet.
    await turn(a.app, 'm', 4);
    await a.app.db.sessionLease.update({ where: { sessionId: 'm' }, data: { expiresAt: new Date(0) } });

    const b = await instance(config, { instanceId: 'b', leaseTtlMs: 60_000, scanEveryMs: 50 });
    await b.announced('m', 2);
    await allCommitted(b.app, 'm', 4);
    await b.app.mirror.idle();
    expect(git(repo, 'rev-list', '--count', '--all').trim()).toBe('4');
    expect(subjects(repo)).toEqual(expectedSubjects(4));
    expect(git(repo, 'rev-parse', 'main~1').trim()).toBe(third);
    expect((await b.app.db.turn.findUniqueOrThrow({ where: { id: turn3.id } })).commitSha).toBe(third);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  }, 120_000);

  it("opens a repo it takes back as after a restart: the dead holder's git lock removed and its checkout brought to HEAD", async () => {
    const config = await sharedConfig();
    // b mirrors the session first (so it has opened the repo), then gives the lease up when idle
    // (looked at with each renewal, every second here). Its scan runs at start only here: it
    // comes back through onWake, the hook an event from another instance calls.
    const b = await instance(config, { instanceId: 'b', leaseTtlMs: 3000, idleReleaseMs: 100, scanEveryMs: 600_000 });
    await createSession({ sessionId: 'c' }, b.app.deps);
    await turn(b.app, 'c', 1);
    await b.announced('c', 1);
    await eventually(async () => b.app.mirror.leaseCount() === 0, DEADLINE_MS);
    // a takes it for turn 2, then dies after the commit and before its checkout followed, with git's index lock left.
    const a = await instance(config, { instanceId: 'a', leaseTtlMs: 60_000, scanEveryMs: 50 });
    await turn(a.app, 'c', 2);
    await a.announced('c', 1);
    await a.app.mirror.idle();
    await abandonMirror(a.app.mirror);
    const repo = join(config.dataDir, 'sessions', 'c');
    git(repo, 'read-tree', '--reset', '-u', 'main~1');
    writeFileSync(join(repo, '.git', 'entity-memory-checkout-behind'), '');
    writeFileSync(join(repo, '.git', 'index.lock'), '');
    expect(git(repo, 'status', '--porcelain')).not.toBe('');
    await turn(a.app, 'c', 3);
    await a.app.db.sessionLease.update({ where: { sessionId: 'c' }, data: { expiresAt: new Date(0) } });

    // Woken, b takes it back: a lease newly taken, so the repo is opened afresh before the commit.
    b.app.mirror.onWake('c');
    await b.announced('c', 2);
    await b.app.mirror.idle();
    expect(subjects(repo)).toEqual(expectedSubjects(3));
    expect(git(repo, 'rev-list', '--count', '--all').trim()).toBe('3');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(repo, '.git', 'index.lock'))).toBe(false);
    expect(existsSync(join(repo, '.git', 'entity-memory-checkout-behind'))).toBe(false);
    // At its first pass, not after a failed checkout (which the pass after would also repair).
    expect(b.lines.filter((line) => (line.level as number) >= 40)).toEqual([]);
  }, 120_000);

  it('records nothing once its lease was taken over; the new holder adopts what it committed', async () => {
    const config = await sharedConfig();
    // A long lease: no renewal runs during the test, so only the fence can notice the takeover.
    const a = await instance(config, { instanceId: 'a', leaseTtlMs: 60_000, scanEveryMs: 50 });
    await createSession({ sessionId: 'f' }, a.app.deps);
    await turn(a.app, 'f', 1);
    await a.announced('f', 1);
    await a.app.mirror.idle();
    expect(a.app.mirror.leaseCount()).toBe(1);

    // Another instance takes the lease over behind a's back (a's renewal has not run since).
    await a.app.db.sessionLease.update({ where: { sessionId: 'f' }, data: { owner: 'b', acquiredAt: new Date() } });
    await turn(a.app, 'f', 2);
    await eventually(async () => a.lines.some((line) => line.msg === "lost a session's lease; this instance no longer mirrors it"), DEADLINE_MS);
    await a.app.mirror.idle();
    const repo = join(config.dataDir, 'sessions', 'f');
    // The commit landed in git, but a recorded nothing: the turn still waits, with its job.
    expect(git(repo, 'rev-list', '--count', 'main').trim()).toBe('2');
    const second = await a.app.db.turn.findFirstOrThrow({ where: { sessionId: 'f', number: 2 } });
    expect(second).toMatchObject({ commitSha: null, mirrorState: 'PENDING' });
    expect(await a.app.db.outboxJob.count({ where: { turnId: second.id } })).toBe(1);
    expect(a.app.mirror.leaseCount()).toBe(0);
    expect(a.committed).toHaveLength(1);

    // b, the lease's owner, starts: it adopts the commit rather than making it again.
    const b = await instance(config, { instanceId: 'b', leaseTtlMs: 60_000, scanEveryMs: 50 });
    await b.announced('f', 1);
    await allCommitted(b.app, 'f', 2);
    expect(git(repo, 'rev-list', '--count', '--all').trim()).toBe('2');
    expect(subjects(repo)).toEqual(expectedSubjects(2));
    expect(b.lines.some((line) => line.msg === 'adopted a turn commit made before a crash')).toBe(true);
    // a's later writes to the session are left to b.
    await turn(a.app, 'f', 3);
    await b.announced('f', 2);
    expect(a.committed).toHaveLength(1);
  }, 120_000);

  it('records nothing from a pass begun before its lease was lost, even when the lease is its own again', async () => {
    const config = await sharedConfig();
    const a = await instance(config, { instanceId: 'a', leaseTtlMs: 60_000, scanEveryMs: 50 });
    await createSession({ sessionId: 't' }, a.app.deps);
    await turn(a.app, 't', 1);
    await a.announced('t', 1);
    await a.app.mirror.idle();
    // Lost and taken again behind its back (another instance held it in between and may have
    // recorded what this pass read as waiting): same owner, a new tenure.
    await a.app.db.sessionLease.update({ where: { sessionId: 't' }, data: { acquiredAt: new Date(Date.now() + 1) } });
    await turn(a.app, 't', 2);
    await eventually(async () => a.lines.some((line) => line.msg === "lost a session's lease; this instance no longer mirrors it"), DEADLINE_MS);
    // Taken afresh by the scan, the landed commit is adopted and announced once.
    await a.announced('t', 2);
    await allCommitted(a.app, 't', 2);
    const repo = join(config.dataDir, 'sessions', 't');
    expect(git(repo, 'rev-list', '--count', '--all').trim()).toBe('2');
    expect(a.committed).toHaveLength(2);
    expect(a.lines.some((line) => line.msg === 'adopted a turn commit made before a crash')).toBe(true);
  }, 120_000);

  it('gives a lease up once its session is idle, and every lease at stop', async () => {
    const config = await sharedConfig();
    const a = await instance(config, { instanceId: 'a', leaseTtlMs: 300, idleReleaseMs: 100, scanEveryMs: 50 });
    await createSession({ sessionId: 'quick' }, a.app.deps);
    await turn(a.app, 'quick', 1);
    await a.announced('quick', 1);
    // No event for a lease given up: polled, until its row says so too (forgotten first, then written).
    await eventually(
      async () =>
        a.app.mirror.leaseCount() === 0 &&
        (await a.app.db.sessionLease.findUniqueOrThrow({ where: { sessionId: 'quick' } })).expiresAt.getTime() < Date.now(),
      DEADLINE_MS,
    );
    const released = await a.app.db.sessionLease.findUniqueOrThrow({ where: { sessionId: 'quick' } });
    expect(released).toMatchObject({ owner: 'a' });
    expect(released.expiresAt.getTime()).toBeLessThan(Date.now());

    // Taken again by a later turn, by whichever instance gets there; all given up at stop.
    const b = await instance(config, { instanceId: 'b', leaseTtlMs: 5000, idleReleaseMs: 60_000, scanEveryMs: 50 });
    await createSession({ sessionId: 'kept' }, b.app.deps);
    await turn(b.app, 'kept', 1);
    await turn(b.app, 'quick', 2);
    await allCommitted(b.app, 'kept', 1);
    await allCommitted(b.app, 'quick', 2);
    await Promise.all([a.app.mirror.idle(), b.app.mirror.idle()]);
    await Promise.all([a.app.mirror.stop(), b.app.mirror.stop()]);
    expect(a.app.mirror.leaseCount() + b.app.mirror.leaseCount()).toBe(0);
    expect(await b.app.db.sessionLease.findMany({ where: { expiresAt: { gt: new Date() } } })).toEqual([]);
  }, 120_000);

  it('reads and writes no lease without the shared option', async () => {
    // One server on its SQLite file, the default, in either pass (on PostgreSQL the option is always on).
    const config = testConfig();
    const statements: string[] = [];
    onCleanup(onSqlStatement(({ sql }) => statements.push(sql)));
    const single = await instance(config, undefined);
    await createSession({ sessionId: 'solo' }, single.app.deps);
    for (let n = 1; n <= 3; n++) await turn(single.app, 'solo', n);
    await single.announced('solo', 3);
    await single.app.mirror.idle();
    await single.app.close();
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.filter((sql) => sql.includes('SessionLease'))).toEqual([]);
    expect(single.app.mirror.leaseCount()).toBe(0);
  }, 120_000);
});
