/**
 * `entity-memory import claude-code` in-process against raw `git fast-import` of the same
 * commits, in one run.
 *
 * Setup: a made-up ~3 MB Claude Code transcript (bench/claude-transcript.ts: 200 prompts, each
 * response split over several assistant records, tool calls and their results, progress records),
 * and a folder of 8 such transcripts.
 * Ours: the app opened over a fresh data dir (as the command line does without a server), the
 * files imported through the import service (importClaudeCodeFiles + serviceImportTarget), until
 * the mirror has committed every imported turn (no session job left in the outbox). The app's
 * opening (migrations) is not timed.
 * Baseline: the commits the mirror made, as the fast-import stream `writeBulk` encodes them
 * (loadTurnPlans + encodeCommit, as bench/rebuild.ts), written to a file after the run, then
 * `git fast-import < stream` into a fresh `git init` per session; for the folder, the 8 one after
 * the other. Both must end at the same tip.
 * For the folder, the CPU time of this process and of its git children against the wall time
 * shows how much of both cores was used.
 * Usage: npm run bench -- import [--prompts N]   (or npx tsx bench/import.ts)
 */
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../src/app.js';
import { encodeCommit, fastImportMark } from '../src/git/fast-import.js';
import { importClaudeCodeFiles } from '../src/importers/claude-code/files.js';
import type { ImportSummary } from '../src/importers/import-files.js';
import { createLogger } from '../src/logger.js';
import { closedTurnIds } from '../src/mirror/rebuild.js';
import { sessionRepoPath } from '../src/mirror/session-repos.js';
import { loadTurnPlans } from '../src/mirror/turn-plan.js';
import { serviceImportTarget } from '../src/services/imports/import-session.js';
import { generateTranscript } from './claude-transcript.js';
import { bareGitEnv, benchConfig, command, fmt, timed } from './stats.js';

const promptsAt = process.argv.indexOf('--prompts');
const PROMPTS = promptsAt > 0 ? Number(process.argv[promptsAt + 1]) : 200;
const FOLDER_FILES = 8;
const TARGET_MS = 5_000;

const started = Date.now();
const root = await mkdtemp(join(tmpdir(), 'em-bench-import-'));
const BARE_ENV = bareGitEnv(true);
const git = (args: string[], cwd: string, stdinFd?: number) => command('git', args, { cwd, env: BARE_ENV, stdinFd });
const seconds = (ms: number) => `${fmt(ms / 1000, 2)} s`;
const sessionIdOf = (n: number) => `5e55${n.toString(16).padStart(4, '0')}-0000-4000-8000-00000000be0c`;

/** CPU seconds of this process (user + system) and of its children that have exited (git). */
function cpuNow(): { self: number; children: number } {
  const usage = process.cpuUsage();
  // /proc/self/stat fields 16 and 17: cutime, cstime in clock ticks (100 a second on Linux).
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const children = (Number(fields[13]) + Number(fields[14])) / 100;
  return { self: (usage.user + usage.system) / 1e6, children };
}

async function waitForMirror(app: App, sessionIds: string[]): Promise<void> {
  for (;;) {
    await app.mirror.idle();
    const left = await app.db.outboxJob.count({ where: { kind: 'SESSION', sessionId: { in: sessionIds } } });
    if (left === 0) return;
    await new Promise((done) => setTimeout(done, 5));
  }
}

/** Imports `paths` into a fresh data dir and waits for the mirror; returns the times and the app (still open). */
async function runOurs(name: string, paths: string[], sessionIds: string[]) {
  const dataDir = join(root, `data-${name}`);
  await mkdir(dataDir, { recursive: true });
  const config = benchConfig(dataDir);
  const app = await createApp(config, createLogger('silent'));
  // The app's start-up catch-up (reconcile of an empty data dir) is not part of the import.
  await app.mirror.idle();
  const cpu0 = cpuNow();
  let summary: ImportSummary | undefined;
  let importedMs = 0;
  const totalMs = await timed(async () => {
    importedMs = await timed(async () => (summary = await importClaudeCodeFiles(serviceImportTarget(app.deps), paths)));
    await waitForMirror(app, sessionIds);
  });
  const cpu1 = cpuNow();
  if (!summary || summary.errors.length > 0) throw new Error(`import errors: ${JSON.stringify(summary?.errors.slice(0, 3))}`);
  return { app, config, summary, importedMs, totalMs, cpu: { self: cpu1.self - cpu0.self, children: cpu1.children - cpu0.children } };
}

/** The mirror's commits of one session as a fast-import stream, and the raw fast-import of it (timed) into a fresh repo; returns the time and whether the tips agree. */
async function runRaw(app: App, sessionId: string, dir: string): Promise<{ ms: number; same: boolean; commits: number }> {
  const plans = await loadTurnPlans(app.db, sessionId, await closedTurnIds(app.db, sessionId));
  const position = new Map(plans.map((plan, i) => [plan.turnId, i]));
  const parts: Buffer[] = [Buffer.from('feature done\n')];
  plans.forEach((plan, i) => {
    const parent = plan.parentTurnId === null ? 'none' : fastImportMark(position.get(plan.parentTurnId)!);
    parts.push(encodeCommit({ branch: plan.branch, parent, files: plan.files, message: plan.message, author: plan.author }, i));
  });
  parts.push(Buffer.from('done\n'));
  const stream = join(dir, 'stream.fi');
  await mkdir(join(dir, 'repo'), { recursive: true });
  await writeFile(stream, Buffer.concat(parts));
  await git(['init', '-q', '-b', 'main'], join(dir, 'repo'));
  const fd = openSync(stream, 'r');
  let ms: number;
  try {
    ms = await timed(() => git(['fast-import', '--quiet', '--date-format=raw'], join(dir, 'repo'), fd));
  } finally {
    closeSync(fd);
  }
  const ours = (await git(['rev-parse', 'main'], sessionRepoPath(app.config, sessionId))).trim();
  const raw = (await git(['rev-parse', 'main'], join(dir, 'repo'))).trim();
  return { ms, same: ours === raw, commits: plans.length };
}

try {
  const gitVersion = (await git(['--version'], root)).trim();
  console.log(`import benchmark: ${cpus().length} cpus (${availableParallelism()} available), ${gitVersion}, node ${process.version}, in ${tmpdir()}`);

  const one = join(root, 'one');
  const eight = join(root, 'eight');
  await mkdir(one);
  await mkdir(eight);
  const text = generateTranscript({ sessionId: sessionIdOf(0), prompts: PROMPTS, seed: 1 });
  await writeFile(join(one, `${sessionIdOf(0)}.jsonl`), text);
  let folderBytes = 0;
  for (let n = 1; n <= FOLDER_FILES; n++) {
    const body = generateTranscript({ sessionId: sessionIdOf(n), prompts: PROMPTS, seed: n + 1 });
    folderBytes += body.length;
    await writeFile(join(eight, `${sessionIdOf(n)}.jsonl`), body);
  }
  console.log(`  one transcript: ${fmt(text.length / 1024 / 1024, 2)} MiB, ${text.split('\n').length - 1} records, ${PROMPTS} prompts; a folder of ${FOLDER_FILES} alike, ${fmt(folderBytes / 1024 / 1024, 1)} MiB`);

  // One transcript.
  const single = await runOurs('one', [one], [sessionIdOf(0)]);
  const rawOne = await runRaw(single.app, sessionIdOf(0), join(root, 'raw-one'));
  await single.app.close();
  if (!rawOne.same) throw new Error('the mirror and raw fast-import end at different tips');
  const s = single.summary;
  console.log(`\none transcript: ${s.sessions} session, ${fmt(s.turns)} turns, ${fmt(s.messages)} messages, ${s.branches} branches`);
  console.log(`  ours: parsed and stored in ${seconds(single.importedMs)}, mirror in sync after ${seconds(single.totalMs)}`);
  console.log(`  raw git fast-import of the same ${rawOne.commits} commits: ${seconds(rawOne.ms)} (same tip)`);
  console.log(`  ratio ours / raw: ${(single.totalMs / rawOne.ms).toFixed(1)}; target: under ${seconds(TARGET_MS)}: ${single.totalMs < TARGET_MS ? 'ok' : 'MISSED'}`);

  // A folder of eight.
  const ids = Array.from({ length: FOLDER_FILES }, (_, i) => sessionIdOf(i + 1));
  const folder = await runOurs('eight', [eight], ids);
  let rawMs = 0;
  for (const id of ids) {
    const raw = await runRaw(folder.app, id, join(root, `raw-${id}`));
    if (!raw.same) throw new Error(`session ${id}: the mirror and raw fast-import end at different tips`);
    rawMs += raw.ms;
  }
  await folder.app.close();
  const f = folder.summary;
  const cpuSeconds = folder.cpu.self + folder.cpu.children;
  console.log(`\na folder of ${FOLDER_FILES}: ${f.sessions} sessions, ${fmt(f.turns)} turns, ${fmt(f.messages)} messages`);
  console.log(`  ours: parsed and stored in ${seconds(folder.importedMs)}, mirror in sync after ${seconds(folder.totalMs)}`);
  console.log(`  raw git fast-import of the same commits, one session after the other: ${seconds(rawMs)}`);
  console.log(`  ratio ours / raw: ${(folder.totalMs / rawMs).toFixed(1)}`);
  console.log(
    `  CPU: this process ${fmt(folder.cpu.self, 2)} s + git ${fmt(folder.cpu.children, 2)} s = ${fmt(cpuSeconds, 2)} s in ${seconds(folder.totalMs)} wall: ${fmt(cpuSeconds / (folder.totalMs / 1000), 2)} cores busy on average`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
  console.log(`\ntotal ${fmt((Date.now() - started) / 1000, 1)} s; temp dirs removed`);
}
