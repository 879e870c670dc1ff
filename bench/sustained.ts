/**
 * The mirror under sustained load (issue 14, "a mirror that keeps up"), against the server started
 * as the README says (real SQLite and git in a temp data dir), with the HTTP clients in a child
 * process, as agents would be: the server's process runs nothing but the server.
 *  1. 50 sessions x 100 turns recorded by 10 concurrent HTTP clients as fast as they can: ingest
 *     throughput, mirror lag (recordTurn acknowledged -> its turnCommitted event) p50/p99, and the
 *     time until every turn is mirrored; the mirror's own rate is what it committed per second;
 *  2. the same clients paced at fractions of that mirror rate on fresh sessions (25 % to 90 %, then
 *     halfway between the best rate within the goal and the next one tried, or halving below 25 %
 *     down to 3 % while none is within it): lag p99 per rate, and
 *     the highest rate whose p99 stays within 1 s (the sustainable ingest rate);
 *  3. one session written by 20 concurrent writers: turns ingested and mirrored per second.
 * Then `verify` (the command's function) must find every session's repo in line with the database.
 * Lag is taken from the server's pubsub (the event's publication) and the acknowledgement from the
 * HTTP response read by the client, both on the epoch clock (performance.timeOrigin + now()); an
 * event published before the client read its response counts 0.
 * With `--trace <file>`, writes one JSON line per turn (phase, session, number, ack and event
 * times) and per server happening (GC pauses, event-loop delay over 100 ms, the server's info
 * log lines: packs, rebuilds) and the server's resident memory every 250 ms, for finding what
 * stalls the mirror. `--concurrency <n>` sets the mirror's sessions at once (default: its own);
 * `--backlog <n>` the turns acknowledged and not yet committed past which acknowledgements wait
 * for the mirror (src/mirror/backlog.ts; default its own; a large number turns the pacing off).
 * Usage: npm run bench -- sustained [--quick] [--trace <file>] [--concurrency <n>] [--backlog <n>]
 */
import { fork } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { benchConfig, benchTurnInput, fmt, percentile } from './stats.js';

const now = () => performance.timeOrigin + performance.now();

/** Acknowledgement times (epoch ms) by `<sessionId>#<turn number>` (every turn here is on main). */
type AckList = [key: string, ackAt: number][];
type ToClients =
  | { kind: 'create'; url: string; ids: string[] }
  | { kind: 'drive'; url: string; sessions: string[]; turnsEach: number; clients: number; intervalMs: number }
  | { kind: 'one'; url: string; sessionId: string; writers: number; total: number };
type FromClients = { kind: 'created' } | { kind: 'driven'; acks: AckList; startedAt: number; ms: number } | { kind: 'failed'; error: string };

if (process.argv[2] === '--clients') {
  const MUTATION = `mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`;
  const post = async (url: string, query: string, variables: unknown) => {
    const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    const result = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown };
    if (result.errors || !result.data) throw new Error(JSON.stringify(result.errors));
    return result.data;
  };
  /** Records one turn over HTTP; returns its key and when the response was read. */
  const recordTurn = async (url: string, sessionId: string): Promise<[string, number]> => {
    const data = (await post(url, MUTATION, { input: benchTurnInput(sessionId, 2) })) as { recordTurn: { number: number } };
    return [`${sessionId}#${data.recordTurn.number}`, now()];
  };

  /**
   * Records `turnsEach` turns on each session with `clients` concurrent clients; a session's turns
   * go one after another (client k takes sessions k, k + clients, ...). With `intervalMs`, turns are
   * started no faster than one per interval overall (paced); else as fast as the clients go.
   */
  const drive = async (m: Extract<ToClients, { kind: 'drive' }>): Promise<FromClients> => {
    const acks: AckList = [];
    const startedAt = now();
    let next = startedAt;
    const slot = async () => {
      if (m.intervalMs === 0) return;
      const at = next;
      next += m.intervalMs;
      if (at > now()) await new Promise((r) => setTimeout(r, at - now()));
    };
    await Promise.all(
      Array.from({ length: m.clients }, async (_, k) => {
        const mine = m.sessions.filter((_, i) => i % m.clients === k);
        for (let t = 0; t < m.turnsEach; t++) {
          for (const sessionId of mine) {
            await slot();
            acks.push(await recordTurn(m.url, sessionId));
          }
        }
      }),
    );
    return { kind: 'driven', acks, startedAt, ms: now() - startedAt };
  };

  /** One session, `writers` concurrent writers, `total` turns in all. */
  const one = async (m: Extract<ToClients, { kind: 'one' }>): Promise<FromClients> => {
    const acks: AckList = [];
    let left = m.total;
    const startedAt = now();
    await Promise.all(
      Array.from({ length: m.writers }, async () => {
        while (left > 0) {
          left--;
          acks.push(await recordTurn(m.url, m.sessionId));
        }
      }),
    );
    return { kind: 'driven', acks, startedAt, ms: now() - startedAt };
  };

  process.on('message', (m: ToClients) => {
    const work: Promise<FromClients> =
      m.kind === 'create'
        ? (async () => {
            const query = 'mutation C($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }';
            for (const sessionId of m.ids) await post(m.url, query, { input: { sessionId } });
            return { kind: 'created' };
          })()
        : m.kind === 'drive'
          ? drive(m)
          : one(m);
    void work.then(
      (reply) => process.send!(reply),
      (error: unknown) => process.send!({ kind: 'failed', error: String(error) } satisfies FromClients),
    );
  });
} else {
  const { createLogger } = await import('../src/logger.js');
  const { verify } = await import('../src/mirror/reconcile.js');
  const { startServer } = await import('../src/server.js');
  const { pino } = await import('pino');

  const quick = process.argv.includes('--quick');
  const option = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const tracePath = option('--trace');
  const concurrency = option('--concurrency') === undefined ? undefined : Number(option('--concurrency'));
  const backlogLimit = option('--backlog') === undefined ? undefined : Number(option('--backlog'));
  const SESSIONS = quick ? 20 : 50;
  const TURNS = quick ? 25 : 100;
  const CLIENTS = 10;
  const PACED_TURNS = quick ? 150 : 600;
  const PACED_FRACTIONS = [0.25, 0.5, 0.75, 0.9];
  const WRITERS = 20;
  const ONE_SESSION_TURNS = quick ? 300 : 2_000;
  const LAG_GOAL_MS = 1_000;
  const ONE_SESSION_GOAL = 50;
  const SUSTAINABLE_GOAL = 40;

  /** The load average, and the share of the last 10 s some task waited for a CPU (Linux PSI), when the kernel says. */
  const load = () => {
    const cpu = (() => {
      try {
        return /some avg10=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1];
      } catch {
        return undefined;
      }
    })();
    return `${loadavg().map((n) => n.toFixed(2)).join(' ')}${cpu === undefined ? '' : `, cpu pressure ${cpu} %`}`;
  };
  const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');

  const trace = tracePath ? createWriteStream(tracePath) : null;
  const note = (entry: Record<string, unknown>) => trace?.write(`${JSON.stringify(entry)}\n`);
  // Traced: the server's info lines (packs, rebuilds, warnings) go to the trace with their time.
  const logger = trace
    ? pino({ level: 'info' }, { write: (line: string) => note({ kind: 'log', at: now(), line: JSON.parse(line) as unknown }) })
    : createLogger('silent');
  const gcObserver = trace ? new PerformanceObserver((list) => list.getEntries().forEach((e) => note({ kind: 'gc', at: performance.timeOrigin + e.startTime, ms: e.duration }))) : null;
  gcObserver?.observe({ entryTypes: ['gc'] });
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  let loopTimer: NodeJS.Timeout | undefined;
  if (trace) {
    loopDelay.enable();
    loopTimer = setInterval(() => {
      if (loopDelay.max / 1e6 > 100) note({ kind: 'loop', at: now(), maxMs: loopDelay.max / 1e6 });
      note({ kind: 'rss', at: now(), mb: process.memoryUsage.rss() / 1e6 });
      loopDelay.reset();
    }, 250);
  }

  const dataDir = mkdtempSync(join(tmpdir(), 'em-bench-sustained-'));
  const started = Date.now();
  const server = await startServer(benchConfig(dataDir), logger, {
    ...(concurrency ? { mirror: { concurrency } } : {}),
    ...(backlogLimit !== undefined ? { backlog: { limit: backlogLimit } } : {}),
  });
  const { app } = server;

  /** When each turn's turnCommitted was published (epoch ms), by turn id; and how many per session. */
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

  const clients = fork(import.meta.filename, ['--clients'], { execArgv: ['--import', 'tsx'] });
  const ask = (message: ToClients) =>
    new Promise<FromClients>((resolve, reject) => {
      clients.once('message', (reply: FromClients) => (reply.kind === 'failed' ? reject(new Error(reply.error)) : resolve(reply)));
      clients.send(message);
    });
  const driven = async (message: ToClients) => {
    const reply = (await ask(message)) as Extract<FromClients, { kind: 'driven' }>;
    return { acks: new Map(reply.acks), startedAt: reply.startedAt, ms: reply.ms };
  };

  async function createSessions(prefix: string, count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    await ask({ kind: 'create', url: server.url, ids });
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

  /** Ack -> event per turn (0 when the event came before the client read its response), traced. */
  async function lags(phase: string, sessions: readonly string[], acks: Map<string, number>): Promise<number[]> {
    const turns = await app.deps.db.turn.findMany({ where: { sessionId: { in: [...sessions] } }, select: { id: true, sessionId: true, number: true } });
    return turns.map((t) => {
      const ackAt = acks.get(`${t.sessionId}#${t.number}`)!;
      const at = committedAt.get(t.id)!;
      note({ kind: 'turn', phase, sessionId: t.sessionId, number: t.number, ackAt, committedAt: at });
      return Math.max(0, at - ackAt);
    });
  }

  /** What the server's backlog did to acknowledgements since the last call (src/mirror/backlog.ts). */
  let pacedBefore = { paced: 0, timedOut: 0 };
  const pacing = () => {
    const { paced, timedOut, limit, maxWaitMs } = app.backlog;
    const text = `acknowledgements that waited for the mirror (backlog past ${limit} turns): ${fmt(paced - pacedBefore.paced)}, of which ${fmt(timedOut - pacedBefore.timedOut)} for the full ${fmt(maxWaitMs)} ms`;
    pacedBefore = { paced, timedOut };
    return text;
  };

  /** Paced clients at `rate` turns/s on fresh sessions: the rate achieved and the lag p50/p99. */
  async function paced(label: string, rate: number): Promise<{ achieved: number; p50: number; p99: number }> {
    const sessions = await createSessions(label, SESSIONS);
    const p = await driven({ kind: 'drive', url: server.url, sessions, turnsEach: Math.ceil(PACED_TURNS / SESSIONS), clients: CLIENTS, intervalMs: 1000 / rate });
    await allCommitted(sessions, p.acks.size);
    const pl = await lags(label, sessions, p.acks);
    return { achieved: p.acks.size / (p.ms / 1000), p50: percentile(pl, 50), p99: percentile(pl, 99) };
  }

  try {
    console.log(`sustained mirror benchmark${quick ? ' (--quick)' : ''}${concurrency ? `, mirror concurrency ${concurrency}` : ''}, clients in a child process: load average ${load()}`);

    // --- 1. flat out ---
    const flat = await createSessions('flat', SESSIONS);
    const a = await driven({ kind: 'drive', url: server.url, sessions: flat, turnsEach: TURNS, clients: CLIENTS, intervalMs: 0 });
    const allAt = await allCommitted(flat, a.acks.size);
    const flatLags = await lags('flat', flat, a.acks);
    const total = SESSIONS * TURNS;
    const ingest = total / (a.ms / 1000);
    const mirrorRate = total / ((allAt - a.startedAt) / 1000);
    console.log(`\n[1] ${SESSIONS} sessions x ${TURNS} turns, ${CLIENTS} concurrent clients, flat out (load ${load()})`);
    console.log(`ingest: ${fmt(total)} turns acknowledged in ${fmt(a.ms / 1000, 1)} s = ${fmt(ingest, 1)} turns/s`);
    console.log(`all mirrored ${fmt((allAt - a.startedAt) / 1000, 1)} s after the first turn (${fmt((allAt - a.startedAt - a.ms) / 1000, 1)} s after the last ack): mirror ${fmt(mirrorRate, 1)} turns/s`);
    console.log(`mirror lag (ack -> turnCommitted): p50 ${fmt(percentile(flatLags, 50))} ms, p99 ${fmt(percentile(flatLags, 99))} ms, max ${fmt(Math.max(...flatLags))} ms` +
      ` (goal p99 <= ${fmt(LAG_GOAL_MS)} ms while the ingest rate is sustainable; here ingest/mirror = ${(ingest / mirrorRate).toFixed(2)}) ${verdict(percentile(flatLags, 99) <= LAG_GOAL_MS)}`);
    console.log(pacing());

    // --- 2. paced: fractions of the mirror rate, then halfway between the best within the goal and the next ---
    console.log(`\n[2] paced: ${CLIENTS} clients, ${fmt(PACED_TURNS)} turns per rate over ${SESSIONS} fresh sessions, rates as fractions of the measured mirror rate`);
    const tried: { fraction: number; ok: boolean; achieved: number }[] = [];
    const tryFraction = async (fraction: number) => {
      const rate = mirrorRate * fraction;
      const r = await paced(`paced${tried.length}`, rate);
      const ok = r.p99 <= LAG_GOAL_MS;
      tried.push({ fraction, ok, achieved: r.achieved });
      console.log(`  ${(fraction * 100).toFixed(0).padStart(3)} % (${fmt(rate, 1)} turns/s asked, ${fmt(r.achieved, 1)} achieved): lag p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms ${verdict(ok)} (load ${load()})`);
    };
    for (const fraction of PACED_FRACTIONS) await tryFraction(fraction);
    // None within the goal: halve below the lowest until one is (or the rate is a few turns a second).
    for (let fraction = PACED_FRACTIONS[0]! / 2; !tried.some((t) => t.ok) && fraction >= PACED_FRACTIONS[0]! / 8; fraction /= 2) await tryFraction(fraction);
    const bestOk = Math.max(0, ...tried.filter((t) => t.ok).map((t) => t.fraction));
    const firstMissAbove = Math.min(1, ...tried.filter((t) => !t.ok && t.fraction > bestOk).map((t) => t.fraction));
    if (bestOk > 0 && firstMissAbove - bestOk > 0.05) await tryFraction((bestOk + firstMissAbove) / 2);
    const sustainable = Math.max(0, ...tried.filter((t) => t.ok).map((t) => t.achieved));
    console.log(`sustainable ingest rate (the highest rate tried whose lag p99 <= ${fmt(LAG_GOAL_MS)} ms): ${sustainable > 0 ? `${fmt(sustainable, 1)} turns/s` : 'none of the rates tried'}` +
      ` (goal >= ${SUSTAINABLE_GOAL}) ${verdict(sustainable >= SUSTAINABLE_GOAL)}`);
    console.log(`all rates: ${pacing()}`);

    // --- 3. one session, many writers ---
    const [single] = await createSessions('single', 1);
    const o = await driven({ kind: 'one', url: server.url, sessionId: single!, writers: WRITERS, total: ONE_SESSION_TURNS });
    const singleAll = await allCommitted([single!], o.acks.size);
    const singleRate = ONE_SESSION_TURNS / ((singleAll - o.startedAt) / 1000);
    const sl = await lags('single', [single!], o.acks);
    // Commits landing during the writing, not only after it: events published before the last acknowledgement.
    const lastAck = Math.max(...o.acks.values());
    const singleTurns = await app.deps.db.turn.findMany({ where: { sessionId: single! }, select: { id: true } });
    const during = singleTurns.filter((t) => (committedAt.get(t.id) ?? Infinity) <= lastAck).length;
    console.log(`\n[3] one session, ${WRITERS} concurrent writers, ${fmt(ONE_SESSION_TURNS)} turns (load ${load()})`);
    console.log(`committed while the writers wrote: ${fmt(during)} of ${fmt(ONE_SESSION_TURNS)} (their turnCommitted published before the last acknowledgement)`);
    console.log(pacing());
    console.log(`ingested in ${fmt(o.ms / 1000, 1)} s (${fmt(ONE_SESSION_TURNS / (o.ms / 1000), 1)} turns/s), all mirrored after ${fmt((singleAll - o.startedAt) / 1000, 1)} s: ` +
      `${fmt(singleRate, 1)} turns/s ingested and mirrored (goal >= ${ONE_SESSION_GOAL}) ${verdict(singleRate >= ONE_SESSION_GOAL)}; lag p50 ${fmt(percentile(sl, 50))} ms, p99 ${fmt(percentile(sl, 99))} ms`);

    // --- verify ---
    await app.mirror.idle();
    const rows = await verify({ db: app.deps.db, config: app.config });
    const bad = rows.filter((r) => !r.ok);
    console.log(`\nverify: ${rows.length} sessions, ${bad.length === 0 ? 'clean (every session has one commit per closed turn)' : `${bad.length} OUT OF SYNC: ${bad.slice(0, 5).map((r) => `${r.sessionId} ${r.dagTurns}/${r.gitCommits} ${r.error ?? ''}`).join('; ')}`}`);
  } finally {
    clients.kill();
    clearInterval(loopTimer);
    gcObserver?.disconnect();
    await events.return?.(undefined);
    await server.stop();
    trace?.end();
    rmSync(dataDir, { recursive: true, force: true });
    console.log(`\ntotal ${fmt((Date.now() - started) / 1000, 1)} s; load average ${load()}`);
  }
}
