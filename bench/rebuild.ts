/**
 * `rebuildSession` of a long session against raw `git fast-import` of the same
 * stream, in one run.
 *
 * Setup: 10,000 closed turns on main (user + assistant, ~300 B each), the rows
 * the services would write, inserted straight through Prisma in a few big
 * transactions (as bench/replay.ts does); no server, so no background check
 * touches the repo between repetitions. The stream is what `writeBulk`
 * encodes for those turns (`loadTurnPlans` + `encodeCommit`), written once to
 * a file.
 * Each repetition, in alternating order: ours times `rebuildSession` whole
 * (the repo before moved aside, init, loading the turns from the database,
 * fast-import, bringing index and working tree to HEAD, the swap into place,
 * recording 10,000 commit shas, HEAD); the baseline times
 * `git fast-import < stream` into a fresh `git init` (the init not timed).
 * Both must end at the same tip. Nothing is deleted until the end, unless
 * `--remove-first` (the repo deleted right before each rebuild).
 * Temp dirs go under os.tmpdir() (set TMPDIR to move them, e.g. to a tmpfs).
 * Usage: npm run bench -- rebuild [--quick] [--reps N] [--remove-first]   (or npx tsx bench/rebuild.ts)
 */
import { closeSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseFile } from '../src/config.js';
import { openDb, type Db } from '../src/db/index.js';
import { encodeCommit, fastImportMark } from '../src/git/fast-import.js';
import { onGitSpawn, PER_CALL_CONFIG } from '../src/git/run.js';
import { KeyedLocks } from '../src/locks.js';
import { createLogger } from '../src/logger.js';
import { closedTurnIds, rebuildSession } from '../src/mirror/rebuild.js';
import { sessionRepoPath } from '../src/mirror/session-repos.js';
import { loadTurnPlans } from '../src/mirror/turn-plan.js';
import { createEventPubSub } from '../src/pubsub.js';
import { fillClosedTurns } from './fill-session.js';
import { bareGitEnv, benchConfig, command, fmt, percentile, timed } from './stats.js';

const quick = process.argv.includes('--quick');
/** Delete the repo (and what was moved aside) right before each rebuild, as after `rm -rf` of a repo: ext4 then allocates new inodes slowly. */
const removeFirst = process.argv.includes('--remove-first');
const repsAt = process.argv.indexOf('--reps');
const TURNS = quick ? 2_000 : 10_000;
const REPS = repsAt > 0 ? Number(process.argv[repsAt + 1]) : quick ? 3 : 5;
const TARGET_RATIO = 3;
const CONTENT_BYTES = 300;
const SESSION_ID = 'bench-rebuild';

const started = Date.now();
const root = await mkdtemp(join(tmpdir(), 'em-bench-rebuild-'));
const dataDir = join(root, 'data');
const config = benchConfig(dataDir);
const BARE_ENV = bareGitEnv(true);
const git = (args: string[], cwd: string, stdinFd?: number) => command('git', args, { cwd, env: BARE_ENV, stdinFd });
const median = (xs: number[]) => percentile(xs, 50);
const seconds = (ms: number) => `${fmt(ms / 1000, 2)} s`;


/** The stream `writeBulk` sends for the session, as one file. */
async function writeStream(db: Db, file: string): Promise<number> {
  const plans = await loadTurnPlans(db, SESSION_ID, await closedTurnIds(db, SESSION_ID));
  const position = new Map(plans.map((plan, i) => [plan.turnId, i]));
  const parts: Buffer[] = [Buffer.from('feature done\n')];
  plans.forEach((plan, i) => {
    const parent = plan.parentTurnId === null ? 'none' : fastImportMark(position.get(plan.parentTurnId)!);
    parts.push(encodeCommit({ branch: plan.branch, parent, files: plan.files, message: plan.message, author: plan.author }, i));
  });
  parts.push(Buffer.from('done\n'));
  const bytes = Buffer.concat(parts);
  await writeFile(file, bytes);
  return bytes.length;
}

// Where rebuildSession's time goes: a mark at each git spawn.
let marks: { names: string[]; times: number[] } | null = null;
const SUBCOMMAND_AT = 1 + PER_CALL_CONFIG.length;
const stopObserving = onGitSpawn((event) => {
  if (!marks) return;
  marks.names.push(event.argv[SUBCOMMAND_AT] ?? '?');
  marks.times.push(performance.now());
});

let db: Db | undefined;
try {
  await mkdir(dataDir, { recursive: true });
  const gitVersion = (await git(['--version'], root)).trim();
  console.log(
    `rebuild benchmark${quick ? ' (--quick)' : ''}: ${cpus().length} cpus (${availableParallelism()} available), ${gitVersion}, node ${process.version}, ` +
      `${fmt(TURNS)} turns (${fmt(2 * TURNS)} message files of ~${CONTENT_BYTES} B of content), ${REPS} repetitions, alternating order, in ${tmpdir()}` +
      (removeFirst ? ', the repo deleted right before each rebuild' : ', the repo before moved aside'),
  );
  db = await openDb({ file: databaseFile(config) });
  const deps = { db, config, logger: createLogger('silent'), pubsub: createEventPubSub(), sessionLocks: new KeyedLocks(), repoLocks: new KeyedLocks() };
  let t0 = performance.now();
  await fillClosedTurns(db, { sessionId: SESSION_ID, title: 'Benchmark: rebuild', turns: TURNS, contentBytes: CONTENT_BYTES });
  const fillMs = performance.now() - t0;
  const streamFile = join(root, 'stream.fi');
  t0 = performance.now();
  const streamBytes = await writeStream(db, streamFile);
  console.log(`  setup: ${fmt(TURNS)} turns through Prisma in ${seconds(fillMs)}; stream of ${fmt(streamBytes / 1024 / 1024, 1)} MiB encoded in ${seconds(performance.now() - t0)}`);

  const repoDir = sessionRepoPath(config, SESSION_ID);
  const ours: number[] = [];
  const raw: number[] = [];
  const segments: Map<string, number[]> = new Map();
  let oursTip = '';
  let rawTip = '';

  const runOurs = async () => {
    if (removeFirst) await Promise.all([repoDir, join(dataDir, 'moved-aside')].map((dir) => rm(dir, { recursive: true, force: true })));
    const m = { names: ['start'], times: [performance.now()] };
    marks = m;
    let written = 0;
    // From the second repetition on, the repo before is moved aside (renamed, as in production), unless
    // --remove-first deleted it: removing 20,000 files right before writing them again slows the writes down.
    const ms = await timed(async () => (written = (await rebuildSession(deps, SESSION_ID, { moveAside: true })).written));
    marks = null;
    m.names.push('end');
    m.times.push(m.times[0]! + ms);
    if (written !== TURNS) throw new Error(`rebuildSession wrote ${written} turns, expected ${TURNS}`);
    for (let k = 0; k < m.names.length - 1; k++) {
      const key = `${k === 0 ? 'start' : `git ${m.names[k]}`} -> ${m.names[k + 1] === 'end' ? 'end' : `git ${m.names[k + 1]}`}`;
      segments.set(`${String(k).padStart(2, '0')} ${key}`, [...(segments.get(`${String(k).padStart(2, '0')} ${key}`) ?? []), m.times[k + 1]! - m.times[k]!]);
    }
    const status = await git(['status', '--porcelain'], repoDir);
    if (status !== '') throw new Error(`the rebuilt repo is not clean: ${status.slice(0, 200)}`);
    oursTip = (await git(['rev-parse', 'main'], repoDir)).trim();
    return ms;
  };
  const runRaw = async (i: number) => {
    const dir = join(root, `raw-${i}`);
    await mkdir(dir);
    await git(['init', '-q', '-b', 'main'], dir);
    const fd = openSync(streamFile, 'r');
    let ms: number;
    try {
      ms = await timed(() => git(['fast-import', '--quiet', '--date-format=raw'], dir, fd));
    } finally {
      closeSync(fd);
    }
    rawTip = (await git(['rev-parse', 'main'], dir)).trim();
    return ms;
  };

  for (let i = 0; i < REPS; i++) {
    if (i % 2 === 0) {
      ours.push(await runOurs());
      raw.push(await runRaw(i));
    } else {
      raw.push(await runRaw(i));
      ours.push(await runOurs());
    }
    if (oursTip !== rawTip) throw new Error(`tips differ: rebuildSession ${oursTip}, raw fast-import ${rawTip}`);
    console.log(`  rep ${i + 1}: rebuildSession ${seconds(ours.at(-1)!)}, raw git fast-import ${seconds(raw.at(-1)!)}`);
  }

  // Turn n's recorded commit is the n-th on main.
  const recorded = await db.turn.findMany({ where: { sessionId: SESSION_ID, mirrorState: 'COMMITTED' }, select: { number: true, commitSha: true }, orderBy: { number: 'asc' } });
  const history = (await git(['rev-list', '--reverse', 'main'], repoDir)).trim().split('\n');
  const committed = recorded.filter((t, i) => t.number === i + 1 && t.commitSha === history[i]).length;
  if (committed !== TURNS || history.length !== TURNS) throw new Error(`the database recorded ${committed} of ${TURNS} commits as git has them`);
  const files = (await git(['ls-files'], repoDir)).split('\n').filter(Boolean).length;
  console.log(`\nboth end at main = ${oursTip.slice(0, 12)}; the rebuilt repo holds ${fmt(files)} files, status clean; the database has all ${fmt(committed)} turns COMMITTED at their commit`);
  console.log(`median rebuildSession          ${seconds(median(ours))}   (min ${seconds(Math.min(...ours))}, max ${seconds(Math.max(...ours))})`);
  console.log(`median raw git fast-import     ${seconds(median(raw))}   (min ${seconds(Math.min(...raw))}, max ${seconds(Math.max(...raw))})`);
  console.log('\nwhere rebuildSession\'s time goes (median ms between consecutive git spawns; a segment holds the JS and database work up to the next spawn):');
  for (const [key, xs] of [...segments.entries()].sort()) console.log(`  ${key.slice(3).padEnd(44)} ${fmt(median(xs)).padStart(7)} ms`);
  const ratio = median(ours) / median(raw);
  console.log(`\nratio of medians rebuildSession / raw git fast-import: ${ratio.toFixed(2)}  (target <= ${TARGET_RATIO}) ${ratio <= TARGET_RATIO ? 'ok' : 'MISSED'}`);
} finally {
  stopObserving();
  await db?.$disconnect();
  await rm(root, { recursive: true, force: true });
  console.log(`\ntotal ${fmt((Date.now() - started) / 1000, 1)} s; temp dirs removed`);
}
