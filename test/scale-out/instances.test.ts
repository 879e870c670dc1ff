/**
 * Issue 15's multi-instance test: three server processes on one PostgreSQL database, one Redis
 * and one shared data dir; 20 sessions × 50 turns written round-robin through all three (the
 * turns of a session one after the other, the sessions at once); a turnCommitted subscriber per
 * session on each instance; one instance SIGKILLed once half the turns are acknowledged, and
 * started again.
 *
 * What must hold at the end:
 * - every turn is in the database once, in order (turn n holds message u<n>), and each has exactly
 *   one commit in its session's repo (50 commits in all, 50 on main, each Turn trailer once, the
 *   commit the database records for it); `git fsck --strict` is clean; `entity-memory verify`
 *   finds no mismatch;
 * - a subscriber on an instance that stayed up received every turn of its session, 1..50, first
 *   received in order with no gap (a turn announced once more by the instance that took the
 *   session over from the dead one is tolerated as a repeat: see firstReceipts);
 * - a subscriber on the killed instance lost its socket with the process, and Redis keeps no
 *   events for a subscriber that is away, so it cannot receive what was published while it was
 *   gone. It did receive turns 1..k in order before the kill (nothing missing before the socket
 *   died). After the restart it subscribes again, then reads the session (as the web UI reloads
 *   what it shows after a reconnect): the turns the read shows committed and the events received
 *   after it together are 1..50, the events a gap-free ascending run ending at 50.
 *
 * A write that meets the killed instance gets no answer and is sent to the next instance; one
 * whose answer was lost may have landed, so each turn carries fixed message ids: a retry of a
 * turn that landed is answered CONFLICT naming its own user message, and counts as written.
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/git.js';
import { BIN } from '../helpers/instance-process.js';
import { startInstances } from '../helpers/instances.js';
import { wsSettled } from '../helpers/ws.js';
import { readTurns, socketTo, subscribeTurns, userMessageId, writeTurn, type Subscriber, type WriteLog } from './turns.js';

const INSTANCES = 3;
const SESSIONS = 20;
const TURNS = 50;
const KILLED = 1;
/**
 * How long the mirror may go without committing a turn before the test fails: only a bound for a
 * mirror that has stopped; on a loaded 2-core machine git and fsync run ten times slower than quiet.
 */
const STALL_MS = 120_000;

/**
 * The turns in the order they were first received. A turn may be announced again when the instance
 * that committed it died before it could tell whether the announcement went out (the next holder of
 * the session announces it once more): a repeat of a turn already received is not a new event; the
 * first receipts must still be every turn, in order.
 */
function firstReceipts(numbers: number[]): number[] {
  return numbers.filter((n, i) => numbers.indexOf(n) === i);
}

/** The mirror's outbox as the database has it, for a failure message: what is left, and why. */
async function outbox(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT j."sessionId", t.number, j.kind, j.attempts, j."lastError" FROM "OutboxJob" j JOIN "Turn" t ON t.id = j."turnId" ORDER BY j.id LIMIT 30`,
    );
    return `outbox jobs left (first 30):\n${rows.map((r) => JSON.stringify(r)).join('\n')}`;
  } finally {
    await client.end();
  }
}

describe('three instances on one database, one Redis and one data dir', () => {
  it('lose no acknowledged turn, commit each once, and deliver every turnCommitted when one is SIGKILLed midway', async () => {
    const group = await startInstances(INSTANCES);
    const { dataDir, databaseUrl } = group.settings;
    const sessions = Array.from({ length: SESSIONS }, (_, i) => `s${String(i).padStart(2, '0')}`);
    for (const [i, sessionId] of sessions.entries()) {
      const created = await fetch(`${group.url(i % INSTANCES)}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'mutation ($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }', variables: { id: sessionId } }),
      });
      expect(await created.json()).toEqual({ data: { createSession: { sessionId } } });
    }

    // A subscriber per session on each instance, live before the first turn.
    const sockets = Array.from({ length: INSTANCES }, (_, k) => socketTo(group.url(k)));
    const subscribers: Subscriber[][] = sockets.map((socket) => sessions.map((sessionId) => subscribeTurns(socket, sessionId)));
    await Promise.all(sockets.map((socket) => wsSettled(socket)));

    // The writers. Once half the turns are acknowledged, instance KILLED is SIGKILLed and started again.
    const log: WriteLog = { unanswered: 0, landedUnanswered: 0 };
    let acknowledged = 0;
    let killedAt: { acknowledged: number; received: number[][] } | undefined;
    let restart: Promise<void> | undefined;
    const afterRestart: Subscriber[] = [];
    const caughtUp = new Map<string, number>();
    const killAndRestart = async () => {
      await group.kill(KILLED);
      killedAt = { acknowledged, received: subscribers[KILLED]!.map((s) => [...s.numbers]) };
      const instance = await group.restart(KILLED);
      const socket = socketTo(instance.url);
      afterRestart.push(...sessions.map((sessionId) => subscribeTurns(socket, sessionId)));
      await wsSettled(socket);
      // The catch-up read, after the subscription is live: what it shows committed needs no event.
      for (const sessionId of sessions) {
        const { turns } = await readTurns(instance.url, sessionId);
        caughtUp.set(sessionId, Math.max(0, ...turns.filter((t) => t.mirrorState === 'COMMITTED').map((t) => t.number)));
      }
    };
    const urls = () => group.processes.map((p) => p.url);
    await Promise.all(
      sessions.map(async (sessionId, i) => {
        for (let n = 1; n <= TURNS; n++) {
          const written = await writeTurn(urls, (i + n) % INSTANCES, sessionId, n, { toolResults: [{ content: `result ${n}`, toolName: 'read' }] }, log);
          if (written.number !== null) expect(written.number, `${sessionId} turn ${n}`).toBe(n);
          if (written.outcome === 'acknowledged') acknowledged += 1;
          if (acknowledged >= (SESSIONS * TURNS) / 2 && !restart) {
            restart = killAndRestart();
            // Awaited below; a writer failing first must not leave it unhandled.
            restart.catch(() => {});
          }
        }
      }),
    );
    await restart;
    expect(killedAt, 'the instance was killed midway').toBeDefined();
    // Requests met the dead instance, and were answered by another.
    expect(log.unanswered).toBeGreaterThan(0);

    // Every turn committed, as the database says: waited on with a bound on a stalled mirror, not a slow one.
    let committed = -1;
    let deadline = 0;
    for (;;) {
      const rows = await Promise.all(sessions.map((sessionId) => readTurns(group.url(0), sessionId)));
      const now = rows.flatMap((r) => r.turns).filter((t) => t.mirrorState === 'COMMITTED').length;
      if (now === SESSIONS * TURNS) break;
      if (now > committed) [committed, deadline] = [now, Date.now() + STALL_MS];
      if (Date.now() > deadline) {
        const behind = rows.flatMap((r, i) => r.turns.filter((t) => t.mirrorState !== 'COMMITTED').map((t) => `${sessions[i]}#${t.number} ${t.mirrorState}`));
        throw new Error(
          `no turn committed for ${STALL_MS} ms; ${committed} of ${SESSIONS * TURNS} are; not: ${behind.slice(0, 20).join(', ')}\n${await outbox(databaseUrl)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    // Subscribers on the instances that stayed up: every turn, first received in order (see firstReceipts).
    const all = Array.from({ length: TURNS }, (_, i) => i + 1);
    for (const k of [0, 1, 2].filter((k) => k !== KILLED)) {
      for (const subscriber of subscribers[k]!) {
        // In order, so turn 50 comes last; a turn missing shows in the comparison, not as a wait.
        await subscriber.until((numbers) => numbers.includes(TURNS), STALL_MS);
        expect(firstReceipts(subscriber.numbers), `instance ${k}, ${subscriber.sessionId}: ${subscriber.numbers.join(',')}`).toEqual(all);
      }
    }
    // Subscribers on the killed instance: a gap-free prefix before the kill; after the restart, the
    // catch-up read and a gap-free run of events to 50 cover every turn.
    for (const [i, sessionId] of sessions.entries()) {
      const before = firstReceipts(killedAt!.received[i]!);
      expect(before, `before the kill, ${sessionId}`).toEqual(all.slice(0, before.length));
      const after = afterRestart[i]!;
      const read = caughtUp.get(sessionId)!;
      if (read < TURNS) await after.until((numbers) => numbers.includes(TURNS), STALL_MS);
      const received = firstReceipts(after.numbers);
      const from = received[0] ?? TURNS + 1;
      expect(from, `${sessionId}: first event after the restart, against the catch-up read's ${read}`).toBeLessThanOrEqual(read + 1);
      expect(received, `after the restart, ${sessionId}: ${after.numbers.join(',')}`).toEqual(all.slice(from - 1));
    }

    // The database: each session's 50 turns in order, each its own user message, each with a commit.
    const views = await Promise.all(sessions.map((sessionId) => readTurns(group.url(0), sessionId)));
    await group.stopAll();
    for (const [i, sessionId] of sessions.entries()) {
      const { repoPath, turns } = views[i]!;
      expect(turns.map((t) => [t.number, t.branch, t.open, t.userMessage.messageId]), sessionId).toEqual(all.map((n) => [n, 'main', false, userMessageId(n)]));
      // The repo: exactly one commit per turn, the one the database records, and nothing else.
      expect(git(repoPath, 'rev-list', '--count', '--all').trim(), `${sessionId}: commits`).toBe(String(TURNS));
      expect(git(repoPath, 'rev-list', '--count', 'main').trim(), `${sessionId}: commits on main`).toBe(String(TURNS));
      const trailers = git(repoPath, 'log', '--all', '--format=%H %(trailers:key=Turn,valueonly,separator=)')
        .trim()
        .split('\n')
        .map((line) => line.split(' '))
        .map(([sha, turn]) => [Number(turn), sha])
        .sort((a, b) => (a[0] as number) - (b[0] as number));
      expect(trailers, `${sessionId}: one commit per Turn trailer, the one the database records`).toEqual(turns.map((t) => [t.number, t.commit?.sha]));
      expect(git(repoPath, 'fsck', '--strict').trim(), `${sessionId}: git fsck --strict`).toBe('');
    }

    // verify, as an operator runs it: every session's closed turns against its repo.
    const verify = spawnSync(process.execPath, [BIN, 'verify', '--data-dir', dataDir, '--database-url', databaseUrl], {
      encoding: 'utf8',
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    expect(verify.status, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    for (const sessionId of sessions) expect(verify.stdout).toContain(`${sessionId}\t${TURNS}\t${TURNS}\tok`);
  }, 900_000);
});
