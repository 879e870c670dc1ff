/**
 * `entity-memory gc` on a data dir of many sessions, as a user runs it (a whole process on a
 * stopped server's data dir): the bytes of `sessions/` (and of the repos' `.git`) before and
 * after, and how long it takes; baseline: `git gc --quiet` of one of the repos, timed alone.
 *
 * Setup: a server in-process on a temp data dir; N sessions of T turns each recorded through the
 * API (4 clients at once), the mirror caught up, the turns aged an hour (gc leaves a session with
 * a turn in the last 10 minutes alone), the server stopped.
 * Usage: npx tsx bench/gc.ts [--sessions N] [--turns T]   (or npm run bench -- gc)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { bareGitEnv, benchConfig, fmt, postGraphQL } from './stats.js';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const SESSIONS = arg('--sessions', 1_000);
const TURNS = arg('--turns', 5);
const CLIENTS = 4;
const BIN = join(import.meta.dirname, '..', 'bin', 'entity-memory.js');

/** Bytes on disk under `path` (blocks, as du counts them). */
function diskBytes(path: string): number {
  let total = 0;
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else total += statSync(full).blocks * 512;
    }
  };
  walk(path);
  return total;
}

const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024, 1)} MB`;

const root = await mkdtemp(join(tmpdir(), 'em-bench-gc-'));
try {
  const dataDir = join(root, 'data');
  const server = await startServer(benchConfig(dataDir), createLogger('silent'));
  const RECORD = 'mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number } }';
  const t0 = performance.now();
  let next = 0;
  const client = async () => {
    for (let s = next++; s < SESSIONS; s = next++) {
      const sessionId = `gc-${s}`;
      await postGraphQL(server.url, 'mutation C($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }', { id: sessionId });
      for (let t = 1; t <= TURNS; t++) {
        const input = {
          sessionId,
          user: { content: `Turn ${t} of session ${s}: read src/app.ts and add a flag for the ${t}th option.` },
          assistant: { content: `Added --option-${t} to src/app.ts, with its parser and a test in test/app.test.ts. `.repeat(4) },
          toolResults: [{ content: `export function option${t}(argv: string[]) { return argv.includes('--option-${t}'); }\n`.repeat(8), toolName: 'Read' }],
        };
        await postGraphQL(server.url, RECORD, { input });
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  await server.app.mirror.idle();
  const recorded = performance.now() - t0;
  const hourAgo = new Date(Date.now() - 3_600_000);
  await server.app.deps.db.turn.updateMany({ data: { createdAt: hourAgo, closedAt: hourAgo } });
  await server.stop();

  const sessions = join(dataDir, 'sessions');
  const gitBytes = () => readdirSync(sessions).reduce((n, name) => n + diskBytes(join(sessions, name, '.git')), 0);
  const before = { all: diskBytes(sessions), git: gitBytes() };
  console.log(
    `gc: ${fmt(SESSIONS)} sessions of ${TURNS} turns recorded through the API by ${CLIENTS} clients in ${fmt(recorded / 1000, 1)} s, mirror caught up; node ${process.version}`,
  );

  // The baseline: git's own gc of one repo (a copy, so the measured run finds it as the mirror left it).
  const copy = join(root, 'one');
  execFileSync('cp', ['-a', join(sessions, 'gc-0'), copy]);
  const g0 = performance.now();
  execFileSync('git', ['gc', '--quiet'], { cwd: copy, env: bareGitEnv(true), stdio: 'ignore' });
  const gitGcMs = performance.now() - g0;

  const t1 = performance.now();
  const run = spawnSync(process.execPath, [BIN, 'gc', '--json', '--data-dir', dataDir], { env: { ...process.env, LOG_LEVEL: 'silent' }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const gcMs = performance.now() - t1;
  if (run.status !== 0) throw new Error(`entity-memory gc failed (${run.status}): ${run.stderr}`);
  const report = JSON.parse(run.stdout) as { sessions: { after: number | null; skipped?: string; packs: number }[] };
  const compacted = report.sessions.filter((s) => s.after !== null).length;
  const skipped = report.sessions.filter((s) => s.skipped !== undefined).length;
  const after = { all: diskBytes(sessions), git: gitBytes() };

  console.log(`  entity-memory gc: ${fmt(compacted)} of ${fmt(report.sessions.length)} repos compacted (${skipped} left alone) in ${fmt(gcMs / 1000, 1)} s, ${fmt(gcMs / report.sessions.length, 1)} ms a repo`);
  console.log(`  git gc --quiet of one repo (baseline): ${fmt(gitGcMs, 1)} ms; entity-memory gc per repo ${fmt(gcMs / report.sessions.length / gitGcMs, 2)}x`);
  console.log(`  sessions/: ${mb(before.all)} -> ${mb(after.all)}; the repos' .git: ${mb(before.git)} -> ${mb(after.git)} (${fmt((100 * (before.git - after.git)) / before.git, 1)}% less)`);
  console.log(`  load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
