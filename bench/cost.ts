/**
 * The server's responsiveness under the most expensive query the cost limit
 * allows: `/health` latency (p50, p99, max) while that query runs back to
 * back, against `/health` on the idle server in the same run, with the
 * server's own event-loop delay (perf_hooks) over the same time.
 *
 * Setup: a real server in this process on a temp data dir; a session of 300
 * closed turns (user, assistant, one tool result; --content-bytes each for the
 * user message, default 2,000) recorded through `recordTurn` and committed by
 * the mirror. The load (the query loop and the /health probe) runs in a worker
 * thread, so its own JSON parsing never stalls the server's loop.
 * Usage: npm run bench -- cost [--seconds N] [--content-bytes N]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { benchConfig, fmt, percentile } from './stats.js';

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

const SECONDS = flag('seconds', 10);
const CONTENT_BYTES = flag('content-bytes', 2000);
const TURNS = 300;

/** Just under the cost limit (see test/security/cost.test.ts): 28 diffs with patches and 200 messages with content. */
const WORST = `{
  session(sessionId: "big") {
    timeline(first: 28) { edges { node { sha headline diff { additions files { path patch } } } } }
    messages(first: 200) { edges { node { seq content } } }
  }
}`;

const dataDir = mkdtempSync(join(tmpdir(), 'em-bench-cost-'));
const server = await startServer(benchConfig(dataDir), createLogger('silent'));
const endpoint = `${server.url}/graphql`;

async function gql(query: string, variables?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors).slice(0, 500));
  return body.data!;
}

/**
 * The load, in a worker thread: with `query`, it runs back to back while
 * /health is probed; without, /health alone. Posts the latencies and the query times.
 */
const LOAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, query, seconds } = workerData;
(async () => {
  const until = Date.now() + seconds * 1000;
  const health = [];
  const queries = [];
  let stop = false;
  const probe = (async () => {
    while (!stop) {
      const t = performance.now();
      const r = await fetch(url + '/health');
      await r.arrayBuffer();
      health.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  while (Date.now() < until) {
    if (!query) { await new Promise((resolve) => setTimeout(resolve, 50)); continue; }
    const t = performance.now();
    const r = await fetch(url + '/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query }) });
    const body = await r.json();
    if (body.errors) throw new Error(JSON.stringify(body.errors).slice(0, 300));
    queries.push(performance.now() - t);
  }
  stop = true;
  await probe;
  parentPort.postMessage({ health, queries });
})().catch((error) => { parentPort.postMessage({ error: String(error) }); });
`;

function load(query: string | null): Promise<{ health: number[]; queries: number[]; loopMaxMs: number; loopP99Ms: number }> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const worker = new Worker(LOAD, { eval: true, workerData: { url: server.url, query, seconds: SECONDS } });
  return new Promise((resolve, reject) => {
    worker.once('message', (message: { health: number[]; queries: number[]; error?: string }) => {
      loop.disable();
      void worker.terminate();
      if (message.error) reject(new Error(message.error));
      else resolve({ ...message, loopMaxMs: loop.max / 1e6, loopP99Ms: loop.percentile(99) / 1e6 });
    });
    worker.once('error', reject);
  });
}

try {
  const setupStarted = performance.now();
  await gql(`mutation { createSession(input: { sessionId: "big" }) { sessionId } }`);
  const text = 'x'.repeat(CONTENT_BYTES);
  for (let n = 1; n <= TURNS; n++) {
    await gql(`mutation T($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`, {
      input: {
        sessionId: 'big',
        user: { content: `${n} ${text}` },
        assistant: { content: `reply ${n}` },
        toolResults: [{ content: `tool output ${n}`, toolName: 'list' }],
      },
    });
  }
  for (;;) {
    const data = (await gql(`{ session(sessionId: "big") { mirror { inSync } } }`)) as { session: { mirror: { inSync: boolean } } };
    if (data.session.mirror.inSync) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log(
    `setup: ${TURNS} turns (user message ${fmt(CONTENT_BYTES)} B) recorded and mirrored in ${fmt((performance.now() - setupStarted) / 1000, 1)} s; ` +
      `${SECONDS} s per phase; node ${process.version}`,
  );

  const idle = await load(null);
  const busy = await load(WORST);
  const line = (label: string, samples: number[]) =>
    `${label.padEnd(40)} p50 ${fmt(percentile(samples, 50), 1).padStart(7)} ms   p99 ${fmt(percentile(samples, 99), 1).padStart(7)} ms   max ${fmt(Math.max(...samples), 1).padStart(7)} ms   (${samples.length})`;
  console.log(line('/health, idle server', idle.health));
  console.log(line('/health, worst allowed query looping', busy.health));
  console.log(line('the worst allowed query itself', busy.queries));
  console.log(
    `server event-loop delay: idle p99 ${fmt(idle.loopP99Ms, 1)} ms, max ${fmt(idle.loopMaxMs, 1)} ms; ` +
      `under load p99 ${fmt(busy.loopP99Ms, 1)} ms, max ${fmt(busy.loopMaxMs, 1)} ms`,
  );
  console.log(`goal: /health within 100 ms while the worst allowed query runs: max ${fmt(Math.max(...busy.health), 1)} ms`);
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
