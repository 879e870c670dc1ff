/**
 * Several instances (issue 15): mirrored turns per second with 1, 2 and 3 server processes on one
 * PostgreSQL database, one Redis and one shared data dir, and recordTurn latency on PostgreSQL
 * against SQLite, in one run.
 *
 * 1. Throughput. For each instance count: a fresh database, data dir and Redis prefix; the
 *    instances started as `entity-memory serve` processes (ready at /health 200); `sessions`
 *    sessions written by `clients` concurrent clients spread over the instances (client c on
 *    instance c mod N, its sessions in turn, each turn 1 user + 1 assistant + 3 tool results).
 *    Timed from the first write to the last turnCommitted received by a subscriber on instance 0
 *    (every instance's events reach it through Redis); then every turn is checked COMMITTED.
 *    Printed: turns/s, against 1 instance, and the load average. Git (fast-import, fsync) is the
 *    bottleneck: on 2 cores more instances add processes competing for the same cores and disk.
 * 2. Latency. One SQLite server and one PostgreSQL server (processes), the same turns to each,
 *    alternately, each timed over HTTP and then waited on until its turnCommitted arrived, so the
 *    mirror never runs during a timed request. Printed: p50/p99 each and the PostgreSQL/SQLite ratio.
 *
 * Needs PostgreSQL (ENTITY_MEMORY_BENCH_POSTGRESQL_URL, default postgresql://postgres@127.0.0.1:5432/postgres,
 * where it creates and drops its databases) and Redis (ENTITY_MEMORY_BENCH_REDIS_URL, default
 * redis://127.0.0.1:6379). Compiles dist/ first when src/ changed (the instances run it).
 * Usage: npm run bench -- instances [--sessions 20] [--turns 30] [--clients 10] [--samples 100] [--quick]
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient, type Client } from 'graphql-ws';
import type pg from 'pg';
import { withPostgresClient } from '../src/db/postgresql.js';
import WebSocket from 'ws';
import { postGraphQL, startInstance, stopInstance, type InstanceProcess, type InstanceSettings } from '../test/helpers/instance-process.js';
import { benchTurnInput, fmt, percentile, row } from './stats.js';

const { values: flags } = parseArgs({
  options: {
    sessions: { type: 'string' },
    turns: { type: 'string' },
    clients: { type: 'string' },
    samples: { type: 'string' },
    quick: { type: 'boolean' },
  },
});
const quick = flags.quick === true;
const count = (raw: string | undefined, fallback: number, what: string) => {
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--${what} must be a whole number of at least 1, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return n;
};
const SESSIONS = count(flags.sessions, quick ? 6 : 20, 'sessions');
const TURNS = count(flags.turns, quick ? 10 : 30, 'turns');
const CLIENTS = count(flags.clients, quick ? 6 : 10, 'clients');
const SAMPLES = count(flags.samples, quick ? 30 : 100, 'samples');
const WARMUP = 10;
/** A stalled mirror fails the run rather than hanging it. */
const STALL_MS = 120_000;

const adminUrl = process.env.ENTITY_MEMORY_BENCH_POSTGRESQL_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.ENTITY_MEMORY_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const now = () => performance.now();

/** Everything to undo at the end, last first, also after a failure. */
const cleanups: (() => Promise<unknown> | unknown)[] = [];
async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) await Promise.resolve(cleanups.pop()!()).catch((error: unknown) => console.error('cleanup:', error));
}

const admin = <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => withPostgresClient(adminUrl, work);

/** A new empty database (the first instance migrates it), dropped at the end. */
async function freshDatabase(): Promise<string> {
  const name = `em_bench_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE "${name}"`));
  cleanups.push(() => admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'em-bench-instances-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startGroup(n: number, settings: InstanceSettings): Promise<InstanceProcess[]> {
  // One first, so the migration runs once before the others open the database.
  const first = await startInstance(settings);
  cleanups.push(() => stopInstance(first));
  const rest = await Promise.all(Array.from({ length: n - 1 }, () => startInstance(settings)));
  for (const instance of rest) cleanups.push(() => stopInstance(instance));
  return [first, ...rest];
}

async function mutate(url: string, query: string, variables: Record<string, unknown>): Promise<void> {
  const answer = await postGraphQL(url, query, variables);
  if (answer.errors?.length || answer.status !== 200) throw new Error(`${url}: HTTP ${answer.status} ${JSON.stringify(answer.errors)}`);
}

const CREATE = 'mutation ($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }';
const RECORD = 'mutation ($input: RecordTurnInput!) { recordTurn(input: $input) { number } }';

function socket(url: string): Client {
  const client = createClient({ url: `${url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, onNonLazyError: () => {} });
  cleanups.push(() => client.dispose());
  return client;
}

/** Counts turnCommitted events (of one session, or all); `reached(n)` resolves at the n-th, rejecting after STALL_MS without one. */
async function committedCounter(client: Client, sessionId?: string) {
  let seen = 0;
  let lastAt = now();
  let failure: unknown;
  const waiters: { n: number; resolve: () => void }[] = [];
  client.subscribe(
    { query: 'subscription ($sessionId: String) { turnCommitted(sessionId: $sessionId) { __typename } }', variables: { sessionId } },
    {
      next: () => {
        seen += 1;
        lastAt = now();
        for (const waiter of waiters.filter((w) => seen >= w.n)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      },
      error: (error) => (failure = error),
      complete: () => {},
    },
  );
  // A query on the same socket answers after the subscription is set up (test/helpers/ws.ts, wsSettled).
  await new Promise<void>((resolve, reject) => client.subscribe({ query: '{ __typename }' }, { next: () => {}, error: reject, complete: resolve }));
  return {
    get seen() {
      return seen;
    },
    get lastAt() {
      return lastAt;
    },
    async reached(n: number): Promise<void> {
      if (seen >= n) return;
      const reached = new Promise<void>((resolve) => waiters.push({ n, resolve }));
      for (;;) {
        if (failure) throw new Error(`subscription failed: ${String(failure)}`);
        const before = seen;
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([reached.then(() => 'done' as const), new Promise<'stalled'>((r) => (timer = setTimeout(() => r('stalled'), STALL_MS)))]);
        clearTimeout(timer);
        if (outcome === 'done') return;
        if (seen === before) throw new Error(`no turnCommitted for ${STALL_MS} ms; ${seen} of ${n}`);
      }
    },
  };
}

/** Mirrored turns per second with `n` instances. */
async function throughput(n: number): Promise<{ turnsPerSecond: number; seconds: number; writeSeconds: number; load: string }> {
  const settings: InstanceSettings = {
    dataDir: tempDataDir(),
    databaseUrl: await freshDatabase(),
    redisUrl,
    redisPrefix: `em-bench:${randomBytes(6).toString('hex')}:`,
  };
  const instances = await startGroup(n, settings);
  const sessions = Array.from({ length: SESSIONS }, (_, i) => `bench-${i}`);
  for (const [i, id] of sessions.entries()) await mutate(instances[i % n]!.url, CREATE, { id });
  const events = await committedCounter(socket(instances[0]!.url));

  const total = SESSIONS * TURNS;
  const started = now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const url = instances[c % n]!.url;
      const mine = sessions.filter((_, i) => i % CLIENTS === c);
      for (let t = 0; t < TURNS; t++) for (const sessionId of mine) await mutate(url, RECORD, { input: benchTurnInput(sessionId, 3) });
    }),
  );
  const written = now();
  await events.reached(total);
  const seconds = (events.lastAt - started) / 1000;
  // Every turn committed, as the database says (the events could in principle repeat one).
  const committed = await Promise.all(
    sessions.map(async (sessionId) => {
      const answer = await postGraphQL<{ session: { turns: { edges: { node: { mirrorState: string } }[] } } }>(
        instances[0]!.url,
        `query ($id: String!) { session(sessionId: $id) { turns(first: ${TURNS}) { edges { node { mirrorState } } } } }`,
        { id: sessionId },
      );
      return answer.data?.session.turns.edges.filter((e) => e.node.mirrorState === 'COMMITTED').length ?? 0;
    }),
  );
  const inSync = committed.reduce((a, b) => a + b, 0);
  if (inSync !== total) throw new Error(`${n} instances: ${inSync} of ${total} turns committed after the last event`);
  const figures = { turnsPerSecond: total / seconds, seconds, writeSeconds: (written - started) / 1000, load: load() };
  await cleanUp();
  return figures;
}

/** recordTurn latency on SQLite and on PostgreSQL: the same turns, alternately, each after the previous one's commit. */
async function latency(): Promise<{ sqlite: number[]; postgresql: number[] }> {
  const sqliteDir = tempDataDir();
  const [sqlite] = await startGroup(1, { dataDir: sqliteDir });
  const [postgresql] = await startGroup(1, { dataDir: tempDataDir(), databaseUrl: await freshDatabase() });
  const servers = { sqlite: sqlite!, postgresql: postgresql! };
  const samples = { sqlite: [] as number[], postgresql: [] as number[] };
  const counters = {
    sqlite: await committedCounter(socket(servers.sqlite.url), 'latency'),
    postgresql: await committedCounter(socket(servers.postgresql.url), 'latency'),
  };
  for (const server of Object.values(servers)) await mutate(server.url, CREATE, { id: 'latency' });
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    const input = benchTurnInput('latency', 3);
    for (const which of ['sqlite', 'postgresql'] as const) {
      const t0 = now();
      await mutate(servers[which].url, RECORD, { input });
      const ms = now() - t0;
      if (i >= WARMUP) samples[which].push(ms);
      await counters[which].reached(i + 1);
    }
  }
  await cleanUp();
  return samples;
}

try {
  spawnSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'build-server.mjs')], { stdio: 'inherit' });
  const t0 = now();
  console.log(`instances: ${SESSIONS} sessions x ${TURNS} turns (1 user, 1 assistant, 3 tool results) from ${CLIENTS} clients; load average ${load()}`);
  const rows: { n: number; turnsPerSecond: number; seconds: number; writeSeconds: number; load: string }[] = [];
  for (const n of [1, 2, 3]) {
    const figures = await throughput(n);
    rows.push({ n, ...figures });
    const ratio = figures.turnsPerSecond / rows[0]!.turnsPerSecond;
    console.log(
      `  ${n} instance${n === 1 ? ' ' : 's'}: ${fmt(figures.turnsPerSecond, 1).padStart(7)} mirrored turns/s (${fmt(figures.seconds, 1)} s to the last turnCommitted, writes done at ${fmt(figures.writeSeconds, 1)} s)  x${ratio.toFixed(2)} vs 1   load ${figures.load}`,
    );
  }
  const { sqlite, postgresql } = await latency();
  console.log(`recordTurn over HTTP, ${SAMPLES} turns each, alternately, each after the previous commit (load average ${load()}):`);
  console.log(row('  SQLite', percentile(sqlite, 50), percentile(sqlite, 99)));
  console.log(row('  PostgreSQL', percentile(postgresql, 50), percentile(postgresql, 99)));
  const ratio = percentile(postgresql, 50) / percentile(sqlite, 50);
  const best = rows.reduce((a, b) => (b.turnsPerSecond > a.turnsPerSecond ? b : a));
  console.log(`done in ${fmt((now() - t0) / 1000, 0)} s`);
  console.log(
    `instances: ${rows.map((r) => `${r.n}: ${fmt(r.turnsPerSecond, 1)}/s`).join(', ')} (best x${(best.turnsPerSecond / rows[0]!.turnsPerSecond).toFixed(2)} at ${best.n}); recordTurn p50 PostgreSQL/SQLite x${ratio.toFixed(2)}`,
  );
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
