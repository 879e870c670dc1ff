/**
 * Moving and shelving a long session, as the commands run them (each a whole `entity-memory`
 * process on a stopped server's data dir): `export` of a 10,000-turn session, `import bundle`
 * of that file into another data dir, `archive` and `unarchive` of it; each against git's own part
 * of the work in the same run (baselines): `git bundle create --all` of the repo, and `git clone`
 * of that bundle (objects indexed, refs written, working tree checked out).
 *
 * Setup: a server in-process on a temp data dir; the session's rows through Prisma
 * (bench/fill-session.ts), its repo by rebuildSession; then the server is stopped.
 * Usage: npx tsx bench/portable.ts [--turns N] [--runs N]   (or npm run bench -- portable)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/logger.js';
import { rebuildSession } from '../src/mirror/rebuild.js';
import { startServer } from '../src/server.js';
import { fillClosedTurns } from './fill-session.js';
import { bareGitEnv, benchConfig, fmt, percentile } from './stats.js';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const TURNS = arg('--turns', 10_000);
const RUNS = arg('--runs', 3);
const SESSION_ID = 'bench-portable';
const BIN = join(import.meta.dirname, '..', 'bin', 'entity-memory.js');

const root = await mkdtemp(join(tmpdir(), 'em-bench-portable-'));
try {
  const dataDir = join(root, 'data');
  const server = await startServer(benchConfig(dataDir), createLogger('silent'));
  await fillClosedTurns(server.app.deps.db, { sessionId: SESSION_ID, title: 'Benchmark: portable', turns: TURNS, contentBytes: 300 });
  await server.app.deps.repoLocks.run(SESSION_ID, () => rebuildSession(server.app.deps, SESSION_ID, { moveAside: false }));
  // A new server database elsewhere, for the imports.
  const other = join(root, 'other');
  const second = await startServer(benchConfig(other), createLogger('silent'));
  await second.stop();
  await server.stop();
  const repo = join(dataDir, 'sessions', SESSION_ID);
  console.log(`portable sessions: ${fmt(TURNS)} turns (${fmt(2 * TURNS)} messages of 300 B); ${RUNS} runs each; node ${process.version}`);

  const cliMs = (args: string[]): number => {
    const t0 = performance.now();
    const run = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent' }, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`entity-memory ${args.join(' ')} failed: ${run.stderr}`);
    return performance.now() - t0;
  };
  const gitMs = (cwd: string, args: string[]): number => {
    const t0 = performance.now();
    execFileSync('git', args, { cwd, env: bareGitEnv(true), stdio: 'ignore' });
    return performance.now() - t0;
  };

  const file = join(root, 'session.em');
  const bundle = join(root, 'bare.bundle');
  const rows = { export: [] as number[], bundle: [] as number[], import: [] as number[], clone: [] as number[], archive: [] as number[], unarchive: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    rows.bundle.push(gitMs(repo, ['bundle', 'create', '-q', bundle, '--all']));
    rows.export.push(cliMs(['export', SESSION_ID, '--out', file, '--data-dir', dataDir]));
    const clone = join(root, `clone-${i}`);
    rows.clone.push(gitMs(root, ['clone', '-q', bundle, clone]));
    await rm(clone, { recursive: true, force: true });
    const into = join(root, `into-${i}`);
    execFileSync('cp', ['-a', other, into]);
    rows.import.push(cliMs(['import', 'bundle', file, '--data-dir', into]));
    await rm(into, { recursive: true, force: true });
    rows.archive.push(cliMs(['archive', SESSION_ID, '--data-dir', dataDir]));
    rows.unarchive.push(cliMs(['unarchive', SESSION_ID, '--data-dir', dataDir]));
  }
  const p50 = (xs: number[]) => percentile(xs, 50);
  const line = (label: string, xs: number[], base?: number[]) =>
    console.log(`  ${label.padEnd(44)} p50 ${fmt(p50(xs))} ms${base ? `   ${fmt(p50(xs) / p50(base), 2)}x the baseline` : ''}`);
  line('git bundle create --all (baseline)', rows.bundle);
  line('entity-memory export', rows.export, rows.bundle);
  line('git clone of that bundle (baseline)', rows.clone);
  line('entity-memory import bundle (fresh data dir)', rows.import, rows.clone);
  line('entity-memory archive', rows.archive, rows.bundle);
  line('entity-memory unarchive', rows.unarchive, rows.clone);
  console.log(`  export file ${fmt((await stat(file)).size / 1024 / 1024, 1)} MB; git's bundle ${fmt((await stat(bundle)).size / 1024 / 1024, 1)} MB; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
