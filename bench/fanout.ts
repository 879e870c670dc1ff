/**
 * turnCommitted fan-out (issue 14, "resolve each event once"): N graphql-ws clients, one socket
 * and one subscription each, with the full documented selection (the typed client's
 * turnCommitted: session, turn with its messages, commit sha/shortSha/headline, plus the
 * commit's message and author), while turns are recorded back to back over HTTP.
 * Prints per N: event delay after the commit (publish -> received by the client) p50/p99,
 * events lost, and recordTurn p50 against its 1-subscriber value in the same run; then each
 * event in order (when it was published, its delay over the subscribers: the mirror announces a
 * backlog of turns together, and the last of a burst shows what the percentiles hide) and the
 * CPU the clients' process spent (it shares the machine's cores with the server).
 * The clients run in a child process, as browsers would be: not in the server's process, whose
 * resident memory sets what each git spawn costs (fork copies its page tables). Where `taskset`
 * exists and there are two cores or more, the server's process is pinned to the first core and the
 * clients' to the second (issue 31: "server and clients pinned to separate cores").
 * The baseline, in the same run: a bare graphql-ws server (the same graphql-ws and ws packages, no
 * schema work, no database, no git) that broadcasts the very frames the largest stage's clients
 * received, published at the same moments relative to each other, to as many clients.
 * Usage: npm run bench -- fanout [largest N, default 1000] [turns per N, default 20]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, fork } from 'node:child_process';
import { createServer } from 'node:http';
import { cpus } from 'node:os';
import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse, print, type ExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { Repeater } from 'graphql-yoga';
import WebSocket, { WebSocketServer } from 'ws';
import { TurnCommittedSubscription } from '../src/client/operations.js';
import { benchConfig, fmt, percentile } from './stats.js';

const now = () => performance.timeOrigin + performance.now();

/** The client's documented selection, with the commit's message and author too. */
const SELECTION = print(TurnCommittedSubscription).replace(/headline\n/, 'headline\n        message\n        author { name email date }\n');

type ToClients = { kind: 'subscribe'; url: string; sessionId: string; count: number } | { kind: 'collect'; expected: number; waitMs: number } | { kind: 'close' };
type FromClients =
  | { kind: 'ready' }
  | { kind: 'collected'; received: { turn: number; at: number }[]; errors: string[]; cpuMs: number; frames: Record<number, unknown> }
  | { kind: 'closed' };

if (process.argv[2] === '--clients') {
  const port = { postMessage: (message: FromClients) => process.send!(message) };
  let clients: Client[] = [];
  let received: { turn: number; at: number }[] = [];
  let errors: string[] = [];
  // The data the first client received per turn: what the baseline broadcasts.
  let frames: Record<number, unknown> = {};
  let cpuAtReady = process.cpuUsage();
  process.on('message', (message: ToClients) => void handle(message));
  async function handle(message: ToClients): Promise<void> {
    if (message.kind === 'subscribe') {
      received = [];
      errors = [];
      frames = {};
      clients = Array.from({ length: message.count }, () =>
        createClient({ url: `${message.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, onNonLazyError: () => {} }),
      );
      // Subscribe, then a query on the same socket: its answer means the subscription is set up.
      await Promise.all(
        clients.map(async (client, index) => {
          client.subscribe<{ turnCommitted: { turn: { number: number } } }>(
            { query: SELECTION, variables: { sessionId: message.sessionId } },
            {
              next: (result) => {
                const at = now();
                if (result.errors?.length) errors.push(JSON.stringify(result.errors[0]).slice(0, 200));
                else {
                  const turn = result.data!.turnCommitted.turn.number;
                  received.push({ turn, at });
                  if (index === 0) frames[turn] = result.data;
                }
              },
              error: (error) => errors.push(String((error as { reason?: string }).reason ?? error)),
              complete: () => {},
            },
          );
          await new Promise<void>((resolve, reject) => client.subscribe({ query: '{ __typename }' }, { next: () => {}, error: reject, complete: resolve }));
        }),
      );
      cpuAtReady = process.cpuUsage();
      port.postMessage({ kind: 'ready' } satisfies FromClients);
    } else if (message.kind === 'collect') {
      const deadline = Date.now() + message.waitMs;
      while (received.length + errors.length < message.expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const cpu = process.cpuUsage(cpuAtReady);
      port.postMessage({ kind: 'collected', received, errors, cpuMs: (cpu.user + cpu.system) / 1000, frames } satisfies FromClients);
    } else {
      await Promise.all(clients.map((client) => client.dispose()));
      clients = [];
      port.postMessage({ kind: 'closed' } satisfies FromClients);
    }
  }
} else {
  const { createLogger } = await import('../src/logger.js');
  const { startServer } = await import('../src/server.js');
  const largest = Number(process.argv[2] ?? 1000);
  const turns = Number(process.argv[3] ?? 20);
  const counts = [1, 100, 300, 1000].filter((n) => n <= largest);
  const dataDir = mkdtempSync(join(tmpdir(), 'em-bench-fanout-'));
  const config = { ...benchConfig(dataDir), maxWsConnections: 2000, maxWsPerAddress: 2000 };
  const server = await startServer(config, createLogger('silent'));
  const { app } = server;

  // When each turn's event was published (after its commit and the database update): turnId -> time.
  const publishedAt = new Map<string, number>();
  const pubsub = app.deps.pubsub;
  const publish = pubsub.publish.bind(pubsub);
  pubsub.publish = ((topic: string, ...args: unknown[]) => {
    if (topic === 'turnCommitted') publishedAt.set((args[0] as { turnId: string }).turnId, now());
    return (publish as (topic: string, ...rest: unknown[]) => void)(topic, ...args);
  }) as typeof pubsub.publish;

  const clients = fork(import.meta.filename, ['--clients'], { execArgv: ['--import', 'tsx'] });
  const pinned = pinToSeparateCores(process.pid, clients.pid!);
  const ask = (message: ToClients) =>
    new Promise<FromClients>((resolve) => {
      clients.once('message', resolve);
      clients.send(message);
    });

  const text = (n: number, seed: number) => `turn ${seed}: ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(n / 27))}`.slice(0, n);
  async function recordTurn(sessionId: string, n: number): Promise<number> {
    const start = now();
    const response = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number } }',
        variables: {
          input: {
            sessionId,
            user: { content: text(200, n) },
            assistant: { content: text(600, n) },
            toolResults: [{ content: text(400, n), toolName: 'read' }],
          },
        },
      }),
    });
    const result = (await response.json()) as { errors?: unknown };
    if (result.errors) throw new Error(JSON.stringify(result.errors));
    return now() - start;
  }

  // recordTurn's baseline is its 1-subscriber stage, the first one: measured cold (JIT, first statements,
  // first repo), it was up to 3x the later stages' and flattered every ratio; after 20 warm-up turns still
  // 2x (24 against 11-13 ms, load 7), after 60 the same as the later stages. Turns on a session nobody
  // watches warm the request path and the mirror first; they are not counted.
  const WARM_UP_TURNS = 60;
  await app.deps.db.session.create({ data: { sessionId: 'fan-warm-up', createdAt: new Date(), branches: { create: { name: 'main', kind: 'MAIN' } } } });
  for (let i = 0; i < WARM_UP_TURNS; i++) await recordTurn('fan-warm-up', i);
  await app.mirror.idle();

  console.log(
    `turnCommitted fan-out: ${turns} turns per stage, one socket per subscriber, full selection, after ${WARM_UP_TURNS} warm-up turns nobody watches; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
  const rows: { n: number; p50: number; p99: number; lost: number; errors: string[]; record: number; seconds: number }[] = [];
  // The largest stage's events, for the baseline: each counted turn's frame and when it was published.
  let replay: { turn: number; offsetMs: number; frame: unknown }[] = [];
  for (const n of counts) {
    const started = now();
    const sessionId = `fan-${n}`;
    await app.deps.db.session.create({ data: { sessionId, createdAt: new Date(), branches: { create: { name: 'main', kind: 'MAIN' } } } });
    await ask({ kind: 'subscribe', url: server.url, sessionId, count: n });
    await recordTurn(sessionId, 0); // warm-up turn, not counted
    await app.mirror.idle();
    await new Promise((r) => setTimeout(r, 200));
    const recordTimes: number[] = [];
    // Back to back, as an agent sends them: the fan-out of one turn runs while the next is recorded.
    for (let i = 1; i <= turns; i++) recordTimes.push(await recordTurn(sessionId, i));
    await app.mirror.idle();
    const collected = (await ask({ kind: 'collect', expected: n * (turns + 1), waitMs: 120_000 })) as Extract<FromClients, { kind: 'collected' }>;
    await ask({ kind: 'close' });
    const rowsOfTurns = await app.deps.db.turn.findMany({ where: { sessionId }, select: { id: true, number: true } });
    const publishedByNumber = new Map(rowsOfTurns.map((t) => [t.number, publishedAt.get(t.id)]));
    const delays: number[] = [];
    const delaysByTurn = new Map<number, number[]>();
    let counted = 0;
    for (const { turn, at } of collected.received) {
      if (turn < 2) continue; // the warm-up turn (number 1)
      counted += 1;
      const published = publishedByNumber.get(turn);
      if (published === undefined) continue;
      delays.push(at - published);
      let list = delaysByTurn.get(turn);
      if (!list) delaysByTurn.set(turn, (list = []));
      list.push(at - published);
    }
    const lost = n * turns - counted;
    const firstCounted = publishedByNumber.get(2) ?? 0;
    replay = [...publishedByNumber.entries()]
      .filter(([turn, at]) => turn >= 2 && at !== undefined && collected.frames[turn] !== undefined)
      .sort(([a], [b]) => a - b)
      .map(([turn, at]) => ({ turn, offsetMs: at! - firstCounted, frame: collected.frames[turn] }));
    rows.push({ n, p50: percentile(delays, 50), p99: percentile(delays, 99), lost, errors: collected.errors, record: percentile(recordTimes, 50), seconds: (now() - started) / 1000 });
    const last = rows.at(-1)!;
    console.log(
      `${String(n).padStart(5)} subscribers: event delay p50 ${fmt(last.p50, 1).padStart(9)} ms  p99 ${fmt(last.p99, 1).padStart(9)} ms  lost ${lost}` +
        `${last.errors.length ? ` (errors: ${last.errors.length}, first: ${last.errors[0]})` : ''}  recordTurn p50 ${fmt(last.record, 1)} ms` +
        `  (×${(last.record / rows[0]!.record).toFixed(2)} of 1 subscriber)  stage ${fmt(last.seconds, 1)} s`,
    );
    // Each event in order: when it was published (after the first counted one), and its delay over the subscribers.
    const firstPublished = publishedByNumber.get(2) ?? 0;
    const perEvent = [...delaysByTurn.keys()]
      .sort((a, b) => a - b)
      .map((turn) => {
        const list = delaysByTurn.get(turn)!;
        return `#${turn} +${fmt(publishedByNumber.get(turn)! - firstPublished)} ${fmt(percentile(list, 50))}/${fmt(Math.max(...list))}`;
      });
    console.log(`        per event (published +ms, delay p50/max ms): ${perEvent.join('  ')}`);
    console.log(`        recordTurn each (ms): ${recordTimes.map((t) => fmt(t, 1)).join(' ')}; clients' process: ${fmt(collected.cpuMs)} ms of CPU from subscribed to collected`);
  }
  const top = rows.at(-1)!;
  const bare = await bareBroadcast(top.n, replay, ask);
  const frameBytes = replay.map((event) => Buffer.byteLength(JSON.stringify({ data: event.frame })));
  console.log(
    `baseline, a bare graphql-ws server broadcasting the same ${replay.length} frames (${fmt(Math.min(...frameBytes))}-${fmt(Math.max(...frameBytes))} B) at the same moments to ${top.n} subscribers: ` +
      `delay p50 ${fmt(bare.p50, 1)} ms  p99 ${fmt(bare.p99, 1)} ms  lost ${bare.lost}`,
  );
  const ratio = top.p99 / bare.p99;
  const verdict = (ok: boolean) => (ok ? 'ok' : 'missed');
  console.log(
    `goal at ${top.n} subscribers${pinned ? ' (server on CPU 0, clients on CPU 1)' : ' (not pinned: no taskset or one core)'}: ` +
      `event delay p99 ${fmt(top.p99, 1)} ms (<= 250: ${verdict(top.p99 <= 250)}), ×${ratio.toFixed(2)} the bare server's (<= 1.5: ${verdict(ratio <= 1.5)}), ` +
      `lost ${top.lost} (0: ${verdict(top.lost === 0)}), recordTurn ×${(top.record / rows[0]!.record).toFixed(2)} of 1 subscriber (<= 1.5: ${verdict(top.record / rows[0]!.record <= 1.5)}); ` +
      `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
  clients.kill();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Pins this process (all its threads) to the first core and the clients' to the second, when
 * `taskset` exists and there are two cores; says whether it did.
 */
function pinToSeparateCores(server: number, clients: number): boolean {
  if (cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(server)], { stdio: 'ignore' });
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(clients)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The baseline: a bare graphql-ws server (same packages) with `n` clients subscribed through the
 * same client process, publishing `events` at their offsets; each subscriber's iterator yields the
 * frames as they are published. Returns the delay from publish to receipt over every subscriber.
 */
async function bareBroadcast(
  n: number,
  events: { turn: number; offsetMs: number; frame: unknown }[],
  ask: (message: ToClients) => Promise<FromClients>,
): Promise<{ p50: number; p99: number; lost: number }> {
  // Each subscriber's events, queued until graphql-ws takes them (the Repeater the server's own pubsub uses).
  const pushes = new Set<(result: ExecutionResult) => unknown>();
  const subscription = () =>
    new Repeater<ExecutionResult>((push, stop) => {
      pushes.add(push);
      void stop.then(() => pushes.delete(push));
    });
  // A schema only so graphql-ws has one: every operation is answered by the functions below.
  const schema = new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }) });
  const http = createServer();
  const wss = new WebSocketServer({ server: http, path: '/graphql' });
  const server = useServer(
    {
      schema,
      onSubscribe: (_ctx, _id, params) => ({ schema, document: parse(params.query), variableValues: params.variables }),
      execute: () => ({ data: { __typename: 'Query' } }),
      subscribe: () => subscription(),
    },
    wss,
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  await ask({ kind: 'subscribe', url, sessionId: 'bare', count: n });
  await new Promise((r) => setTimeout(r, 200));

  const publishedAt = new Map<number, number>();
  const start = now() + 20;
  await Promise.all(
    events.map(
      (event) =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            publishedAt.set(event.turn, now());
            for (const push of pushes) void push({ data: event.frame as Record<string, unknown> });
            resolve();
          }, Math.max(0, start + event.offsetMs - now())),
        ),
    ),
  );
  const collected = (await ask({ kind: 'collect', expected: n * events.length, waitMs: 120_000 })) as Extract<FromClients, { kind: 'collected' }>;
  await ask({ kind: 'close' });
  await server.dispose();
  await new Promise((resolve) => http.close(resolve));
  const delays = collected.received.filter(({ turn }) => publishedAt.has(turn)).map(({ turn, at }) => at - publishedAt.get(turn)!);
  return { p50: percentile(delays, 50), p99: percentile(delays, 99), lost: n * events.length - delays.length };
}
