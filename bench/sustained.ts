/**
 * The mirror under sustained load (issue 14, "a mirror that keeps up"), against the server started
 * as the README says (in process, real SQLite and git in a temp data dir):
 *  1. 50 sessions x 100 turns recorded by 10 concurrent HTTP clients as fast as they can: ingest
 *     throughput, mirror lag (recordTurn acknowledged -> its turnCommitted event) p50/p99, and the
 *     time until every turn is mirrored; the mirror's own rate is what it committed per second;
 *  2. the same clients paced at fractions of that mirror rate on fresh sessions: lag p99 per rate,
 *     and the highest rate whose p99 stays within 1 s (the sustainable ingest rate);
 *  3. one session written by 20 concurrent writers: turns ingested and mirrored per second.
 * Then `verify` (the command's function) must find every session's repo in line with the database.
 * Lag is taken from the in-process pubsub (the event's publication), the acknowledgement from the
 * HTTP response at the client; an event published before the client read its response counts 0.
 * Usage: npm run bench -- sustained [--quick]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/logger.js';
import { verify } from '../src/mirror/reconcile.js';
import { startServer } from '../src/server.js';
import { benchConfig, benchTurnInput, fmt, percentile } from './stats.js';

const quick = process.argv.includes('--quick');
const SESSIONS = quick ? 20 : 50;
const TURNS = quick ? 25 : 100;
const CLIENTS = 10;
const PACED_TURNS = quick ? 150 : 600;
const PACED_FRACTIONS = [0.5, 0.75, 0.9];
const WRITERS = 20;
const ONE_SESSION_TURNS = quick ? 300 : 2_000;
const LAG_GOAL_MS = 1_000;
const ONE_SESSION_GOAL = 50;

const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const now = () => performance.now();
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');

const dataDir = mkdtempSync(join(tmpdir(), 'em-bench-sustained-'));
const started = Date.now();
const server = await startServer(benchConfig(dataDir), createLogger('silent'));
const { app } = server;

/** When each turn's turnCommitted was published, by turn id; and how many per session. */
const committedAt = new Map<string, number>();
const committedIn = new Map<string, number>();
const waiting: { check: (() => void) | null } = { check: null };
const events = app.deps.pubsub.subscribe('turnCommitted');
void (async () => {
  for await (const event of events) {
    committedAt.set(event.turnId, now());
    committedIn.set(event.sessionId, (committedIn.get(event.sessionId) ?? 0) + 1);
    waiting.check?.();
  }
})();

const MUTATION = `mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`;

/** Acknowledgement times by `<sessionId>#<turn number>` (every turn here is on main). */
type Acks = Map<string, number>;

/** Records one turn over HTTP; returns its key and when the response was read. */
async function recordTurn(sessionId: string): Promise<{ key: string; ackAt: number }> {
  const body = JSON.stringify({
    query: MUTATION,
    variables: { input: benchTurnInput(sessionId, 2) },
  });
  const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const result = (await response.json()) as { data?: { recordTurn: { number: number } }; errors?: unknown };
  if (result.errors || !result.data) throw new Error(JSON.stringify(result.errors));
  return { key: `${sessionId}#${result.data.recordTurn.number}`, ackAt: now() };
}

async function createSessions(prefix: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (const sessionId of ids) {
    await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation C($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }', variables: { input: { sessionId } } }),
    });
  }
  return ids;
}

/** Resolves once the sessions have had `count` turnCommitted events in all. */
function allCommitted(sessions: readonly string[], count: number): Promise<number> {
  return new Promise((resolve) => {
    const check = () => {
      if (sessions.reduce((n, id) => n + (committedIn.get(id) ?? 0), 0) < count) return;
      waiting.check = null;
      resolve(now());
    };
    waiting.check = check;
    check();
  });
}

/** Ack -> event per turn (0 when the event came before the client read its response). */
async function lags(sessions: readonly string[], acks: Acks): Promise<number[]> {
  const turns = await app.deps.db.turn.findMany({ where: { sessionId: { in: [...sessions] } }, select: { id: true, sessionId: true, number: true } });
  return turns.map((t) => Math.max(0, committedAt.get(t.id)! - acks.get(`${t.sessionId}#${t.number}`)!));
}

/**
 * Records `turnsEach` turns on each session with `clients` concurrent clients; a session's turns
 * go one after another (client k takes sessions k, k + clients, ...). With `intervalMs`, turns are
 * started no faster than one per interval overall (paced); else as fast as the clients go.
 */
async function drive(sessions: string[], turnsEach: number, clients: number, intervalMs = 0): Promise<{ acks: Acks; ms: number }> {
  const acks: Acks = new Map();
  const t0 = now();
  let next = t0;
  const slot = async () => {
    if (intervalMs === 0) return;
    const at = next;
    next += intervalMs;
    if (at > now()) await new Promise((r) => setTimeout(r, at - now()));
  };
  await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      const mine = sessions.filter((_, i) => i % clients === k);
      for (let t = 0; t < turnsEach; t++) {
        for (const sessionId of mine) {
          await slot();
          const { key, ackAt } = await recordTurn(sessionId);
          acks.set(key, ackAt);
        }
      }
    }),
  );
  return { acks, ms: now() - t0 };
}

/** One session, `writers` concurrent writers, `total` turns in all. */
async function oneSession(sessionId: string, writers: number, total: number): Promise<{ acks: Acks; ms: number }> {
  const acks: Acks = new Map();
  let left = total;
  const t0 = now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (left > 0) {
        left--;
        const { key, ackAt } = await recordTurn(sessionId);
        acks.set(key, ackAt);
      }
    }),
  );
  return { acks, ms: now() - t0 };
}

try {
  console.log(`sustained mirror benchmark${quick ? ' (--quick)' : ''}: load average ${load()}`);

  // --- 1. flat out ---
  const flat = await createSessions('flat', SESSIONS);
  const t0 = now();
  const a = await drive(flat, TURNS, CLIENTS);
  const allAt = await allCommitted(flat, a.acks.size);
  const flatLags = await lags(flat, a.acks);
  const total = SESSIONS * TURNS;
  const ingest = total / (a.ms / 1000);
  const mirrorRate = total / ((allAt - t0) / 1000);
  console.log(`\n[1] ${SESSIONS} sessions x ${TURNS} turns, ${CLIENTS} concurrent clients, flat out (load ${load()})`);
  console.log(`ingest: ${fmt(total)} turns acknowledged in ${fmt(a.ms / 1000, 1)} s = ${fmt(ingest, 1)} turns/s`);
  console.log(`all mirrored ${fmt((allAt - t0) / 1000, 1)} s after the first turn (${fmt((allAt - t0 - a.ms) / 1000, 1)} s after the last ack): mirror ${fmt(mirrorRate, 1)} turns/s`);
  console.log(`mirror lag (ack -> turnCommitted): p50 ${fmt(percentile(flatLags, 50))} ms, p99 ${fmt(percentile(flatLags, 99))} ms, max ${fmt(Math.max(...flatLags))} ms` +
    ` (goal p99 <= ${fmt(LAG_GOAL_MS)} ms while the ingest rate is sustainable; here ingest/mirror = ${(ingest / mirrorRate).toFixed(2)}) ${verdict(percentile(flatLags, 99) <= LAG_GOAL_MS)}`);

  // --- 2. paced ---
  console.log(`\n[2] paced: ${CLIENTS} clients, ${fmt(PACED_TURNS)} turns per rate over ${SESSIONS} fresh sessions, rates as fractions of the measured mirror rate`);
  let sustainable = 0;
  for (const [i, fraction] of PACED_FRACTIONS.entries()) {
    const rate = mirrorRate * fraction;
    const sessions = await createSessions(`paced${i}`, SESSIONS);
    const p = await drive(sessions, Math.ceil(PACED_TURNS / SESSIONS), CLIENTS, 1000 / rate);
    await allCommitted(sessions, p.acks.size);
    const pl = await lags(sessions, p.acks);
    const achieved = p.acks.size / (p.ms / 1000);
    const ok = percentile(pl, 99) <= LAG_GOAL_MS;
    if (ok) sustainable = Math.max(sustainable, achieved);
    console.log(`  ${(fraction * 100).toFixed(0).padStart(3)} % (${fmt(rate, 1)} turns/s asked, ${fmt(achieved, 1)} achieved): lag p50 ${fmt(percentile(pl, 50))} ms, p99 ${fmt(percentile(pl, 99))} ms ${verdict(ok)} (load ${load()})`);
  }
  console.log(`sustainable ingest rate (lag p99 <= ${fmt(LAG_GOAL_MS)} ms): ${sustainable > 0 ? `${fmt(sustainable, 1)} turns/s` : 'none of the rates tried'}`);

  // --- 3. one session, many writers ---
  const [single] = await createSessions('single', 1);
  const s0 = now();
  const o = await oneSession(single!, WRITERS, ONE_SESSION_TURNS);
  const singleAll = await allCommitted([single!], o.acks.size);
  const singleRate = ONE_SESSION_TURNS / ((singleAll - s0) / 1000);
  const sl = await lags([single!], o.acks);
  console.log(`\n[3] one session, ${WRITERS} concurrent writers, ${fmt(ONE_SESSION_TURNS)} turns (load ${load()})`);
  console.log(`ingested in ${fmt(o.ms / 1000, 1)} s (${fmt(ONE_SESSION_TURNS / (o.ms / 1000), 1)} turns/s), all mirrored after ${fmt((singleAll - s0) / 1000, 1)} s: ` +
    `${fmt(singleRate, 1)} turns/s ingested and mirrored (goal >= ${ONE_SESSION_GOAL}) ${verdict(singleRate >= ONE_SESSION_GOAL)}; lag p50 ${fmt(percentile(sl, 50))} ms, p99 ${fmt(percentile(sl, 99))} ms`);

  // --- verify ---
  await app.mirror.idle();
  const rows = await verify({ db: app.deps.db, config: app.config });
  const bad = rows.filter((r) => !r.ok);
  console.log(`\nverify: ${rows.length} sessions, ${bad.length === 0 ? 'clean (every session has one commit per closed turn)' : `${bad.length} OUT OF SYNC: ${bad.slice(0, 5).map((r) => `${r.sessionId} ${r.dagTurns}/${r.gitCommits} ${r.error ?? ''}`).join('; ')}`}`);
} finally {
  await events.return?.(undefined);
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
  console.log(`\ntotal ${fmt((Date.now() - started) / 1000, 1)} s; load average ${load()}`);
}
