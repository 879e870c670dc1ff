/**
 * Start-up, as users start it: spawns the real bin (bin/entity-memory.js, which runs the compiled
 * dist/cli.js) and measures
 *   - `--help`, spawn to exit, against `node -e 0` (the floor: node itself);
 *   - `serve`, spawn to the first `/health` 200, with a new data dir (created, migrated), with
 *     an existing one, and with one holding a 10,000-turn session (its repo in sync), against a
 *     bare `http.createServer` spawned the same way (issue 31: <= 1.5x with 10k turns);
 *   - the server's RSS at its first 200 and after it sat idle;
 *   - what holds that memory: RSS, V8 heap and external memory after each phase of loading the
 *     compiled server in one process (node alone, the command line, the server's modules, a
 *     started server), so a regression shows where it lands;
 *   - the same `--help` and `serve` through tsx (src/cli.ts, how it ran before dist/), for the gain.
 * Every figure is measured in this run; goals (issue 14, on a quiet machine): /health within
 * 1 s (existing data dir) and 2 s (new one), --help within 300 ms, idle RSS at most 150 MB.
 *
 * Usage: npm run bench -- startup [runs (5)] [--no-tsx]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverBuildIsFresh } from '../scripts/build-server.mjs';
import { createLogger } from '../src/logger.js';
import { rebuildSession } from '../src/mirror/rebuild.js';
import { startServer } from '../src/server.js';
import { fillClosedTurns } from './fill-session.js';
import { benchConfig, fmt, percentile } from './stats.js';

const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'entity-memory.js');
const runs = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 5);
const withTsx = !process.argv.includes('--no-tsx');
const IDLE_MS = 3000;
const HEALTH_TIMEOUT_MS = 60_000;

if (!serverBuildIsFresh()) {
  console.error('dist/ is missing or does not match src/: npm run build first (the bin would fall back to tsx)');
  process.exit(2);
}

const scratch = mkdtempSync(join(tmpdir(), 'em-bench-startup-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ENTITY_MEMORY_TOKEN: '' };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Milliseconds from spawn to exit (status 0 required). */
function timeToExit(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

/** The status of GET /health, or 0 when nothing answers yet. */
function health(port: number): Promise<number> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/health', agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
  });
}

/** Resident set size of a process, from /proc (Linux), in MB. */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Number(line[1]) / 1024 : Number.NaN;
}

interface Started {
  ms: number;
  rssAtHealth: number;
  rssIdle: number;
}

/** Spawns `args` (which listen on `port`), polls /health until 200, samples RSS, then stops it. */
async function timeToHealth(args: string[], port: number): Promise<Started> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let dead = false;
  void exited.then(() => (dead = true));
  try {
    for (;;) {
      if (dead) throw new Error(`${args.join(' ')} exited before /health: ${stderr}`);
      if ((await health(port)) === 200) break;
      if (performance.now() - started > HEALTH_TIMEOUT_MS) throw new Error(`no /health 200 within ${HEALTH_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ms = performance.now() - started;
    const rssAtHealth = rssMb(child.pid!);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    return { ms, rssAtHealth, rssIdle: rssMb(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const BARE_HTTP = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.argv[1]), '127.0.0.1')`;

/** A data dir holding one 10,000-turn session, its repo written and in sync, the server stopped. */
async function tenThousandTurns(): Promise<string> {
  const dataDir = join(scratch, 'ten-thousand-turns');
  const server = await startServer(benchConfig(dataDir), createLogger('silent'));
  try {
    const { app } = server;
    await fillClosedTurns(app.deps.db, { sessionId: 'long', title: 'A long session', turns: 10_000, contentBytes: 400 });
    const { written } = await app.deps.repoLocks.run('long', () => rebuildSession(app.deps, 'long', { moveAside: false }));
    if (written !== 10_000) throw new Error(`rebuildSession wrote ${written} turns, expected 10,000`);
    await app.mirror.idle();
  } finally {
    await server.stop();
  }
  return dataDir;
}
const tenK = await tenThousandTurns();

const samples = {
  nodeE0: [] as number[],
  help: [] as number[],
  helpTsx: [] as number[],
  bareHttp: [] as number[],
  fresh: [] as Started[],
  existing: [] as Started[],
  tenK: [] as Started[],
  freshTsx: [] as Started[],
  existingTsx: [] as Started[],
};

const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
console.log(`start-up: ${runs} runs each, load average at start ${load()}`);

for (let run = 0; run < runs; run += 1) {
  samples.nodeE0.push(await timeToExit(['-e', '0']));
  samples.help.push(await timeToExit([bin, '--help']));
  let port = await freePort();
  samples.bareHttp.push((await timeToHealth(['-e', BARE_HTTP, String(port)], port)).ms);
  const dataDir = join(scratch, `data-${run}`);
  port = await freePort();
  samples.fresh.push(await timeToHealth([bin, 'serve', '--data-dir', dataDir, '--port', String(port)], port));
  port = await freePort();
  samples.existing.push(await timeToHealth([bin, 'serve', '--data-dir', dataDir, '--port', String(port)], port));
  port = await freePort();
  samples.tenK.push(await timeToHealth([bin, 'serve', '--data-dir', tenK, '--port', String(port)], port));
  if (withTsx && run < Math.min(runs, 3)) {
    const tsxCli = ['--import', 'tsx', join(root, 'src', 'cli.ts')];
    samples.helpTsx.push(await timeToExit([...tsxCli, '--help']));
    const tsxDir = join(scratch, `tsx-${run}`);
    port = await freePort();
    samples.freshTsx.push(await timeToHealth([...tsxCli, 'serve', '--data-dir', tsxDir, '--port', String(port)], port));
    port = await freePort();
    samples.existingTsx.push(await timeToHealth([...tsxCli, 'serve', '--data-dir', tsxDir, '--port', String(port)], port));
  }
}
if (!existsSync(join(scratch, 'data-0', 'entity-memory.db'))) throw new Error('the server did not create its database');

const p50 = (values: number[]) => percentile(values, 50);
const ms = (value: number) => `${fmt(value)} ms`.padStart(9);
const mb = (value: number) => `${fmt(value)} MB`.padStart(7);
const ratio = (value: number, base: number) => `×${(value / base).toFixed(1)}`.padStart(6);
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');

const nodeE0 = p50(samples.nodeE0);
const bareHttp = p50(samples.bareHttp);
const help = p50(samples.help);
const fresh = p50(samples.fresh.map((s) => s.ms));
const existing = p50(samples.existing.map((s) => s.ms));
const withTenK = p50(samples.tenK.map((s) => s.ms));
const idle = p50([...samples.fresh, ...samples.existing].map((s) => s.rssIdle));
const atHealth = p50([...samples.fresh, ...samples.existing].map((s) => s.rssAtHealth));

console.log('\np50 of each (ratio to its baseline from this run)');
console.log(`  node -e 0                                ${ms(nodeE0)}`);
console.log(`  bare http.createServer → first 200       ${ms(bareHttp)}`);
console.log(`  entity-memory --help                     ${ms(help)} ${ratio(help, nodeE0)} node -e 0   goal ≤ 300 ms: ${verdict(help <= 300)}`);
console.log(`  serve → /health 200, new data dir        ${ms(fresh)} ${ratio(fresh, bareHttp)} bare http  goal ≤ 2,000 ms: ${verdict(fresh <= 2000)}`);
console.log(`  serve → /health 200, existing data dir   ${ms(existing)} ${ratio(existing, bareHttp)} bare http  goal ≤ 1,000 ms: ${verdict(existing <= 1000)}`);
console.log(`  serve → /health 200, 10,000-turn session ${ms(withTenK)} ${ratio(withTenK, bareHttp)} bare http  goal ≤ ×1.5: ${verdict(withTenK <= 1.5 * bareHttp)}`);
console.log(`  RSS at the first /health 200             ${mb(atHealth)}`);
console.log(`  RSS after ${IDLE_MS / 1000} s idle                      ${mb(idle)}          goal ≤ 150 MB: ${verdict(idle <= 150)}`);
if (samples.helpTsx.length > 0) {
  const helpTsx = p50(samples.helpTsx);
  const freshTsx = p50(samples.freshTsx.map((s) => s.ms));
  const existingTsx = p50(samples.existingTsx.map((s) => s.ms));
  const idleTsx = p50([...samples.freshTsx, ...samples.existingTsx].map((s) => s.rssIdle));
  console.log(`\nthe same through tsx (src/cli.ts, before dist/; ${samples.helpTsx.length} runs), and compiled / tsx`);
  console.log(`  --help                                   ${ms(helpTsx)} ${ratio(help, helpTsx)}`);
  console.log(`  serve → /health 200, new data dir        ${ms(freshTsx)} ${ratio(fresh, freshTsx)}`);
  console.log(`  serve → /health 200, existing data dir   ${ms(existingTsx)} ${ratio(existing, existingTsx)}`);
  console.log(`  RSS after ${IDLE_MS / 1000} s idle                      ${mb(idleTsx)} ${ratio(idle, idleTsx)}`);
}

// What holds the memory: one process loading the compiled server phase by phase.
const PHASES = `
(await import('node:v8')).setFlagsFromString('--liftoff-only'); // as src/cli.ts does
const phases = [];
const mark = (name) => { globalThis.gc?.(); const m = process.memoryUsage(); phases.push([name, m.rss, m.heapUsed, m.external + m.arrayBuffers]); };
mark('node alone');
await import(${JSON.stringify(join(root, 'dist', 'config.js'))});
await import(${JSON.stringify(join(root, 'dist', 'data-dir-lock.js'))});
mark('+ the command line (config, data dir lock)');
const { createLogger } = await import(${JSON.stringify(join(root, 'dist', 'logger.js'))});
const { startServer } = await import(${JSON.stringify(join(root, 'dist', 'server.js'))});
mark('+ the server modules (GraphQL, Prisma, git)');
const dataDir = process.argv.at(-1);
const server = await startServer({ dataDir, port: 0, host: '127.0.0.1', allowedRoots: [dataDir], maxContentBytes: 10485760, logLevel: 'silent' }, createLogger('silent'));
mark('+ started (database open, mirror running)');
await fetch(server.url + '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ sessions(first: 1) { edges { node { id } } } }' }) });
mark('+ one GraphQL query');
await server.stop();
console.log(JSON.stringify(phases));
`;
const phaseOut = await new Promise<string>((resolve, reject) => {
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', PHASES, join(scratch, 'phases')], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`phases exited ${code}`))));
});
const phases = JSON.parse(phaseOut.trim().split('\n').pop()!) as [string, number, number, number][];
console.log('\nwhat holds the memory (one process, after a GC at each phase): RSS, V8 heap used, external + array buffers');
let previous = 0;
for (const [name, rss, heap, external] of phases) {
  const MB = 1024 * 1024;
  console.log(`  ${name.padEnd(46)} ${mb(rss / MB)} (+${fmt((rss - previous) / MB)})  heap ${mb(heap / MB)}  external ${mb(external / MB)}`);
  previous = rss;
}
console.log(`\nload average at end ${load()}`);
