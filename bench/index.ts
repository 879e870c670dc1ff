/**
 * `npm run bench -- <name> [args]`: runs one benchmark script of bench/.
 * Each prints its figures and the ratio against a baseline measured in the same run.
 *
 * `npm run bench -- all`: every benchmark one after the other, each in its quick variant (its
 * `--quick`, or the smaller sizes in QUICK), streaming its output, then one summary line per
 * benchmark (its status, its time, its last line). A benchmark is a bench/*.ts whose doc comment
 * has a `Usage:` line; the others (stats.ts, fill-session.ts, …) are helpers. A benchmark that
 * fails is reported and the rest still run; the exit status is then 1.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';

/** Quick sizes for benchmarks without a `--quick` flag, so that `all` ends within 15 minutes here. */
const QUICK: Record<string, string[]> = {
  fanout: ['1000', '10'],
  'subscription-memory': ['1000', '2'],
  'record-turn': ['150'],
  pack: ['500'],
  startup: ['3', '--no-tsx'],
  import: ['--prompts', '100'],
  cost: ['--seconds', '5'],
  instances: ['--quick'],
  gc: ['--sessions', '100'],
};

const [name = 'record-turn', ...args] = process.argv.slice(2);
if (name === 'all') {
  process.exit(await runAll());
}
const script = join(import.meta.dirname, `${name}.ts`);
if (!/^[a-z-]+$/.test(name) || !existsSync(script)) {
  console.error(`unknown benchmark ${JSON.stringify(name)}; see the files in bench/, or all`);
  process.exit(2);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);

/** The benchmarks of bench/ (files with a `Usage:` line), with the arguments of their quick variant. */
function benchmarks(): { name: string; args: string[] }[] {
  return readdirSync(import.meta.dirname)
    .filter((file) => /^[a-z-]+\.ts$/.test(file) && file !== 'index.ts')
    .map((file) => ({ name: file.slice(0, -3), text: readFileSync(join(import.meta.dirname, file), 'utf8') }))
    .filter(({ text }) => /^\s*\*.*Usage:/m.test(text))
    .map(({ name, text }) => ({ name, args: QUICK[name] ?? (text.includes("argv.includes('--quick')") ? ['--quick'] : []) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

async function runAll(): Promise<number> {
  const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
  const list = benchmarks();
  const started = performance.now();
  // startup measures the compiled server: compile it first when src/ changed (a no-op otherwise).
  spawnSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'build-server.mjs')], { stdio: 'inherit' });
  console.log(`all benchmarks, quick variants: ${list.map((b) => b.name).join(', ')}; load average ${load()}\n`);
  const rows: { name: string; args: string[]; status: number; seconds: number; last: string }[] = [];
  for (const bench of list) {
    console.log(`── ${bench.name} ${bench.args.join(' ')} (load average ${load()})`);
    const t0 = performance.now();
    const { status, last } = await run(join(import.meta.dirname, `${bench.name}.ts`), bench.args);
    rows.push({ ...bench, status, seconds: (performance.now() - t0) / 1000, last });
    console.log('');
  }
  const total = (performance.now() - started) / 1000;
  console.log(`summary (${rows.length} benchmarks in ${(total / 60).toFixed(1)} min; load average ${load()})`);
  for (const row of rows) {
    const verdict = row.status === 0 ? 'ok    ' : `exit ${row.status}`;
    console.log(`  ${row.name.padEnd(20)} ${verdict} ${row.seconds.toFixed(0).padStart(4)} s  ${row.last}`);
  }
  return rows.every((row) => row.status === 0) ? 0 : 1;
}

/** Runs one benchmark, its output passed through; resolves with its exit status and last line of output. */
function run(script: string, args: string[]): Promise<{ status: number; last: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-4000));
    child.stdout.on('data', (chunk: Buffer) => (process.stdout.write(chunk), keep(chunk)));
    child.stderr.on('data', (chunk: Buffer) => (process.stderr.write(chunk), keep(chunk)));
    child.on('close', (code, signal) => {
      const lines = tail.split('\n').map((line) => line.trim()).filter(Boolean);
      resolve({ status: code ?? (signal ? 128 : 1), last: (lines.at(-1) ?? '').slice(0, 200) });
    });
  });
}
