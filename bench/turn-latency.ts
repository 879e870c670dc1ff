/**
 * A single turn end to end (issue 14, "the single turn near bare git"): recordTurn over HTTP,
 * acknowledged, to its turnCommitted event, against bare git plumbing committing the same files
 * (bench/bare-git.ts) on a copy of the same repo, interleaved in the same run, at 50 and at
 * 50,000 messages in the session. Goals: ours p50 <= 1.5x bare p50, and ours at 50,000 messages
 * <= 1.2x ours at 50.
 *
 * The server runs in this process as `npm start` would run it (real SQLite and git in a temp data
 * dir); the long session is loaded straight into the database (bench/fill-session.ts) and its repo
 * rebuilt from it, as reconcile would. One turn at a time: each waits for its event and for the
 * checkout that follows it (the repo lock), then the bare commit of its files runs, so neither
 * shares the machine with the other. Lag: acknowledgement read by the client -> the event's publication.
 * Usage: npm run bench -- turn-latency [--quick]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/logger.js';
import { rebuildSession } from '../src/mirror/rebuild.js';
import { sessionRepoPath } from '../src/mirror/session-repos.js';
import { loadTurnPlans } from '../src/mirror/turn-plan.js';
import { startServer } from '../src/server.js';
import { BARE_ENV, bareCommit } from './bare-git.js';
import { fillClosedTurns } from './fill-session.js';
import { benchConfig, benchTurnInput, fmt, percentile, row } from './stats.js';

const quick = process.argv.includes('--quick');
const SAMPLES = quick ? 30 : 100;
const WARMUP = 5;
const LARGE_TURNS = 25_000; // two messages each: 50,000 messages
const RATIO_GOAL = 1.5;
const FLAT_GOAL = 1.2;

const now = () => performance.now();
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
const dataDir = mkdtempSync(join(tmpdir(), 'em-bench-turn-latency-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));

const started = now();
const config = benchConfig(dataDir);
const server = await startServer(config, createLogger('silent'));
const { deps } = server.app;

/** When each turn's turnCommitted was published, by turn id, and who waits for which. */
const committedAt = new Map<string, number>();
const waiters = new Map<string, () => void>();
const events = deps.pubsub.subscribe('turnCommitted');
void (async () => {
  for await (const event of events) {
    committedAt.set(event.turnId, now());
    waiters.get(event.turnId)?.();
  }
})();

function committed(turnId: string): Promise<number> {
  const at = committedAt.get(turnId);
  if (at !== undefined) return Promise.resolve(at);
  return new Promise((resolve) => waiters.set(turnId, () => resolve(committedAt.get(turnId)!)));
}

async function graphql<T>(query: string, variables: unknown): Promise<T> {
  const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const result = (await response.json()) as { data?: T; errors?: unknown };
  if (result.errors || !result.data) throw new Error(JSON.stringify(result.errors));
  return result.data;
}

const RECORD = 'mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number branch } }';

/** One turn (5 messages) over HTTP; the lag from its acknowledgement to its event, once its checkout followed. */
async function oursOnce(sessionId: string): Promise<{ lag: number; turnId: string }> {
  const data = await graphql<{ recordTurn: { number: number; branch: string } }>(RECORD, { input: benchTurnInput(sessionId, 3) });
  const ackAt = now();
  const { number, branch } = data.recordTurn;
  const { id: turnId } = await deps.db.turn.findFirstOrThrow({ where: { sessionId, branch, number }, select: { id: true } });
  const lag = Math.max(0, (await committed(turnId)) - ackAt);
  await deps.repoLocks.run(sessionId, async () => {});
  return { lag, turnId };
}

/**
 * A copy of the session repo for the bare baseline: its objects shared (a local clone), its
 * index read from HEAD; no working tree is needed, update-index reads only the files it is given.
 */
function bareCopy(sessionId: string, name: string): { dir: string; tip: string } {
  const dir = join(dataDir, `bare-${name}`);
  execFileSync('git', ['clone', '-q', '--no-checkout', '--local', sessionRepoPath(config, sessionId), dir], { env: BARE_ENV });
  execFileSync('git', ['read-tree', 'HEAD'], { cwd: dir, env: BARE_ENV });
  return { dir, tip: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, env: BARE_ENV, encoding: 'utf8' }).trim() };
}

async function measure(sessionId: string, name: string): Promise<{ ours: number[]; bare: number[] }> {
  // The turns before the copy, so the first of ours opens the repo (its one-time reset) outside the samples.
  for (let i = 0; i < 2; i++) await oursOnce(sessionId);
  const copy = bareCopy(sessionId, name);
  const ours: number[] = [];
  const bare: number[] = [];
  // Ours first in each sample: the bare commit takes the files of the turn just recorded.
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const { lag, turnId } = await oursOnce(sessionId);
    const [plan] = await loadTurnPlans(deps.db, sessionId, [turnId]);
    const t0 = now();
    copy.tip = (await bareCommit(copy.dir, plan!, copy.tip)).sha;
    const bareMs = now() - t0;
    if (i >= WARMUP) {
      ours.push(lag);
      bare.push(bareMs);
    }
  }
  return { ours, bare };
}

console.log(
  `turn latency${quick ? ' (--quick)' : ''}: recordTurn acknowledged -> turnCommitted, against bare plumbing of the same files; ` +
    `${SAMPLES} turns per case after ${WARMUP} warm-up; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
);

// 50 messages: ten turns of five.
await graphql('mutation C($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }', { input: { sessionId: 'short' } });
for (let i = 0; i < 10; i++) await oursOnce('short');

// 50,000 messages: the rows straight into the database, the repo rebuilt from them.
const t0 = now();
await fillClosedTurns(deps.db, { sessionId: 'long', title: 'Benchmark: a long session', turns: LARGE_TURNS, contentBytes: 300 });
const t1 = now();
await deps.repoLocks.run('long', () => rebuildSession(deps, 'long', { moveAside: false }));
console.log(`  prefill: ${fmt(LARGE_TURNS)} turns (${fmt(2 * LARGE_TURNS)} messages) into the database in ${fmt((t1 - t0) / 1000, 1)} s, repo rebuilt in ${fmt((now() - t1) / 1000, 1)} s`);

const short = await measure('short', 'short');
const long = await measure('long', 'long');
const p50 = (xs: number[]) => percentile(xs, 50);
console.log(row('ours, ack -> turnCommitted, 50 msgs', p50(short.ours), percentile(short.ours, 99)));
console.log(row('bare plumbing, 50 msgs', p50(short.bare), percentile(short.bare, 99)));
console.log(row('ours, ack -> turnCommitted, 50,000 msgs', p50(long.ours), percentile(long.ours, 99)));
console.log(row('bare plumbing, 50,000 msgs', p50(long.bare), percentile(long.bare, 99)));
const r50 = p50(short.ours) / p50(short.bare);
const r50k = p50(long.ours) / p50(long.bare);
const flat = p50(long.ours) / p50(short.ours);
console.log(`ratio p50 ours/bare @50:      ${r50.toFixed(2)}  (target <= ${RATIO_GOAL}) ${verdict(r50 <= RATIO_GOAL)}`);
console.log(`ratio p50 ours/bare @50,000:  ${r50k.toFixed(2)}  (target <= ${RATIO_GOAL}) ${verdict(r50k <= RATIO_GOAL)}`);
console.log(`ratio p50 ours @50,000 / @50: ${flat.toFixed(2)}  (target <= ${FLAT_GOAL}) ${verdict(flat <= FLAT_GOAL)}`);
await server.stop();
console.log(
  `turn-latency: ours/bare ${r50.toFixed(2)} @50, ${r50k.toFixed(2)} @50,000 (<= ${RATIO_GOAL}), flat ${flat.toFixed(2)} (<= ${FLAT_GOAL}) ` +
    `${verdict(r50 <= RATIO_GOAL && r50k <= RATIO_GOAL && flat <= FLAT_GOAL)}; ${fmt((now() - started) / 1000, 0)} s`,
);
process.exit(0);
