/**
 * The end-of-turn project commit (what ProjectCommitter runs in the user's
 * working directory) against bare `git add -A && git commit`, in one run.
 *
 * A working directory of 10,000 tracked files in 100 folders is built once
 * (plain `git init`, one `git add -A` + `git commit`), then copied with
 * `cp -a`, one copy per variant. Every turn modifies 3 tracked files and adds
 * 1 new one, the same change in every copy; only the commit is timed:
 *  (A1) ours, with touchedPaths: what ProjectCommitter does under the lock:
 *       top check, state(), claims, commit(touched dirty paths), claim release;
 *  (A2) ours, without touchedPaths: the same with commit(null);
 *  (B)  bare `git add -A` then `git commit -q -m msg`, spawned directly.
 * The three run interleaved (the order rotates every turn), so drift in the
 * machine's speed hits all alike.
 * Usage: npm run bench -- project-commit [--quick]   (or npx tsx bench/project-commit.ts [--quick])
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ProjectRepo } from '../src/git/project-repo.js';
import { onGitSpawn } from '../src/git/run.js';
import { KeyedLocks } from '../src/locks.js';
import { AGENT_EMAIL, agentName, projectCommitMessage } from '../src/projects/committer.js';
import { isTouched } from '../src/projects/ownership.js';
import { claimedPaths, releaseClaim } from '../src/projects/claims.js';
import { withProjectLock } from '../src/projects/project-lock.js';
import { bareGitEnv, command, fmt, percentile, row, summary } from './stats.js';

const quick = process.argv.includes('--quick');
const TURNS = quick ? 10 : 30;
const WARMUP = quick ? 2 : 3;
const FOLDERS = 100;
const FILES_PER_FOLDER = 100;
const TARGET_RATIO = 1.5;
const SESSION_ID = 'bench-project-session';
const WHO = { name: agentName('bench-model-1'), email: AGENT_EMAIL };
const BARE_IDENTITY = ['-c', `user.name=${WHO.name}`, '-c', `user.email=${WHO.email}`];

const started = Date.now();
const execFileP = promisify(execFile);

// --- the user's environment for the bare baseline (like userGitEnv: no inherited GIT_*, their global config applies) ---

const BARE_ENV = bareGitEnv(false);

/** Spawns git directly (no wrapper) and resolves with stdout. */
function git(args: string[], cwd: string): Promise<string> {
  return command('git', args, { cwd, env: BARE_ENV });
}

// --- the synthetic project: deterministic, so every copy gets byte-identical changes ---

const pad = (n: number) => String(n).padStart(2, '0');
const filePath = (folder: number, file: number) => `mod-${pad(folder)}/file-${pad(file)}.ts`;

/** ~1 KB of source-like text, unique per (path, version). */
function fileContent(path: string, version: number): string {
  const lines = [`// ${path}, version ${version}`];
  for (let i = 0; i < 14; i++) {
    const h = createHash('sha1').update(`${path}:${version}:${i}`).digest('hex');
    lines.push(`export const value${i} = '${h}${h.slice(0, 12)}';`);
  }
  return `${lines.join('\n')}\n`;
}

interface Change {
  turn: number;
  files: { path: string; content: string }[];
  /** The turn's touchedPaths: the 3 modified files and the new one. */
  touched: string[];
  message: string;
}

/** Turn `t`: 3 tracked files (in 3 different folders) rewritten, 1 new file added. */
function makeChange(t: number): Change {
  const files: Change['files'] = [];
  for (let k = 0; k < 3; k++) {
    const path = filePath((t * 37 + k * 11) % FOLDERS, (t * 53 + k * 29) % FILES_PER_FOLDER);
    files.push({ path, content: fileContent(path, t + 1) });
  }
  const added = `mod-${pad((t * 17) % FOLDERS)}/new-turn-${t}.ts`;
  files.push({ path: added, content: fileContent(added, 1) });
  return {
    turn: t,
    files,
    touched: files.map((f) => f.path),
    message: projectCommitMessage(SESSION_ID, t + 1, `Please change ${files.length} files for turn ${t + 1} of the benchmark`),
  };
}

async function applyChange(dir: string, change: Change): Promise<void> {
  await Promise.all(change.files.map((f) => writeFile(join(dir, f.path), f.content)));
}


// --- instrumentation of our path: phase marks plus a mark at every git spawn ---

type Mark = { label: string; t: number };
let marks: Mark[] | null = null;
const mark = (label: string) => marks?.push({ label, t: performance.now() });

/** The git subcommand of an argv (binary, then `-c k=v` pairs, then the command). */
function subcommand(argv: string[]): string {
  let i = 1;
  while (argv[i] === '-c') i += 2;
  return argv[i] ?? '?';
}

const stopObserving = onGitSpawn((event) => mark(`spawn ${subcommand(event.argv)}`));

/**
 * Segment name -> ms, from one turn's marks: each segment runs from a mark to
 * the next and is named after the mark that starts it (a spawn's subcommand or
 * a step of ours), so the breakdown follows the code as it is.
 */
function segmentsOf(turnMarks: Mark[]): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < turnMarks.length; i++) {
    const name = turnMarks[i]!.label;
    out.set(name, (out.get(name) ?? 0) + turnMarks[i + 1]!.t - turnMarks[i]!.t);
  }
  return out;
}

// --- the three variants ---

interface Sample {
  ms: number;
  segments: Map<string, number>;
}

/** One turn the way ProjectCommitter.commitTurn runs it (clean tree at turn start; touchedPaths given or not). */
async function ours(dir: string, change: Change, withTouched: boolean): Promise<Sample> {
  const turnMarks: Mark[] = [];
  marks = turnMarks;
  mark('start');
  let committedPaths = 0;
  await withProjectLock(new KeyedLocks(), dir, async () => {
    mark('locked: top check');
    const repo = new ProjectRepo(dir);
    const top = await repo.topLevel();
    if (top !== dir) throw new Error(`${dir} is not the top of its repo (${top})`);
    mark('state()');
    const now = await repo.state();
    mark('claims read');
    await claimedPaths(dir, 'bench-turn');
    mark('commit(): temp message file');
    const touched = withTouched ? change.touched : null;
    const paths = touched ? now.dirtyPaths.filter((p) => isTouched(p, touched)) : now.dirtyPaths;
    if (paths.length !== change.files.length) throw new Error(`expected ${change.files.length} dirty paths, got ${JSON.stringify(now.dirtyPaths)}`);
    const ours = new Set(paths);
    await repo.commit(paths, change.message, WHO, { onlyPaths: now.staged.some((p) => !ours.has(p)) });
    committedPaths = paths.length;
    mark('claim release + lock release');
    await releaseClaim(dir, 'bench-turn');
  });
  mark('end');
  marks = null;
  if (committedPaths === 0) throw new Error('nothing committed');
  const segments = segmentsOf(turnMarks);
  return { ms: turnMarks.at(-1)!.t - turnMarks[0]!.t, segments };
}

/** The baseline: `git add -A && git commit -q -m msg`, two direct spawns. */
async function bare(dir: string, change: Change): Promise<Sample> {
  const t0 = performance.now();
  await git([...BARE_IDENTITY, 'add', '-A'], dir);
  const t1 = performance.now();
  await git([...BARE_IDENTITY, 'commit', '-q', '-m', change.message], dir);
  const t2 = performance.now();
  return { ms: t2 - t0, segments: new Map([['git add -A', t1 - t0], ['git commit -q -m', t2 - t1]]) };
}

// --- setup ---

const median = (xs: number[]) => percentile(xs, 50);

const root = await realpath(await mkdtemp(join(tmpdir(), 'em-bench-project-')));
try {
  const gitVersion = (await git(['--version'], root)).trim();
  console.log(
    `project commit benchmark${quick ? ' (--quick)' : ''}: ${availableParallelism()} CPUs (${cpus()[0]?.model.trim() ?? 'unknown'}), ` +
      `${gitVersion}, node ${process.version}`,
  );
  console.log(
    `  working directory: ${fmt(FOLDERS * FILES_PER_FOLDER)} tracked files in ${FOLDERS} folders; per turn 3 files modified + 1 added; ` +
      `${TURNS} turns per variant after ${WARMUP} warm-up, interleaved (order rotates each turn)`,
  );

  // One prepared repo: files written by Node, then plain git init + one add/commit, packed as a user's repo
  // usually is. It becomes copy A1; A2 and B are `cp -a` of it (every file create is costly on this disk).
  const t0 = performance.now();
  const variants = ['A1', 'A2', 'B'] as const;
  type Variant = (typeof variants)[number];
  const dirs = Object.fromEntries(variants.map((v) => [v, join(root, v)])) as Record<Variant, string>;
  const prepared = dirs.A1;
  for (let d = 0; d < FOLDERS; d++) {
    await mkdir(join(prepared, `mod-${pad(d)}`), { recursive: true });
    await Promise.all(
      Array.from({ length: FILES_PER_FOLDER }, (_, f) => {
        const path = filePath(d, f);
        return writeFile(join(prepared, path), fileContent(path, 0));
      }),
    );
  }
  const tWritten = performance.now();
  await git(['-c', 'init.defaultBranch=main', 'init', '-q'], prepared);
  await git([...BARE_IDENTITY, 'add', '-A'], prepared);
  await git([...BARE_IDENTITY, 'commit', '-q', '-m', 'initial import'], prepared);
  await git(['repack', '-a', '-d', '-q'], prepared);
  const tCommitted = performance.now();
  await Promise.all(variants.filter((v) => dirs[v] !== prepared).map((v) => execFileP('cp', ['-a', prepared, dirs[v]])));
  // cp -a gives new inodes and ctimes: refresh each copy's index once, as the user's own `git status` would.
  await Promise.all(variants.map((v) => git(['update-index', '-q', '--refresh'], dirs[v])));
  console.log(
    `  setup: files written in ${fmt((tWritten - t0) / 1000, 1)} s, git init + add -A + commit + repack in ${fmt((tCommitted - tWritten) / 1000, 1)} s, ` +
      `2 copies (cp -a) + index refresh in ${fmt((performance.now() - tCommitted) / 1000, 1)} s`,
  );

  // Reference costs in this run: the floor of one git spawn, and one status of the whole tree.
  const spawnFloor: number[] = [];
  const statusAlone: number[] = [];
  for (let i = 0; i < 23; i++) {
    const a = performance.now();
    await git(['rev-parse', '--show-toplevel'], dirs.B);
    const b = performance.now();
    await git(['status', '--porcelain=v1', '-z', '--branch', '--no-renames', '--untracked-files=all'], dirs.B);
    const c = performance.now();
    if (i >= 3) {
      spawnFloor.push(b - a);
      statusAlone.push(c - b);
    }
  }

  const run: Record<Variant, (dir: string, change: Change) => Promise<Sample>> = {
    A1: (dir, change) => ours(dir, change, true),
    A2: (dir, change) => ours(dir, change, false),
    B: bare,
  };
  const samples: Record<Variant, Sample[]> = { A1: [], A2: [], B: [] };
  for (let t = 0; t < WARMUP + TURNS; t++) {
    const change = makeChange(t);
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(t + k) % variants.length]!;
      await applyChange(dirs[v], change); // the agent's edits: not timed
      const sample = await run[v](dirs[v], change);
      if (t >= WARMUP) samples[v].push(sample);
    }
  }

  // Every copy must have committed the same trees and be clean.
  const trees = await Promise.all(variants.map((v) => git(['rev-parse', 'HEAD^{tree}'], dirs[v]).then((s) => s.trim())));
  const counts = await Promise.all(variants.map((v) => git(['rev-list', '--count', 'HEAD'], dirs[v]).then((s) => Number(s.trim()))));
  const dirty = await Promise.all(variants.map((v) => git(['status', '--porcelain'], dirs[v]).then((s) => s.trim() !== '')));
  const consistent = trees.every((tree) => tree === trees[0]) && counts.every((n) => n === 1 + WARMUP + TURNS) && !dirty.some(Boolean);

  // --- report ---

  const labels: Record<Variant, string> = {
    A1: '(A1) ours, touchedPaths (commit(paths))',
    A2: '(A2) ours, no touchedPaths (all dirty paths)',
    B: '(B) bare git add -A && git commit',
  };
  console.log('');
  const s = Object.fromEntries(variants.map((v) => [v, summary(labels[v], samples[v].map((x) => x.ms))])) as Record<Variant, ReturnType<typeof summary>>;
  for (const v of variants) console.log(row(s[v].label, s[v].p50, s[v].p99));
  const r1 = s.A1.p50 / s.B.p50;
  const r2 = s.A2.p50 / s.B.p50;
  const verdict = (r: number) => (r <= TARGET_RATIO ? 'ok' : 'OVER TARGET');
  console.log(`ratio p50 A1 / B:  ${r1.toFixed(2)}  (target <= ${TARGET_RATIO}: ${verdict(r1)})`);
  console.log(`ratio p50 A2 / B:  ${r2.toFixed(2)}  (target <= ${TARGET_RATIO}: ${verdict(r2)})`);
  console.log(`(p99 over ${TURNS} samples is their maximum)`);

  console.log('');
  console.log(`reference, same run: one git spawn (rev-parse --show-toplevel) p50 ${median(spawnFloor).toFixed(2)} ms; ` +
    `git status --porcelain -uall of the whole tree p50 ${median(statusAlone).toFixed(2)} ms`);
  console.log('where the time goes, p50 of each step in ms (a spawn step runs from that spawn to the next mark; steps do not add up exactly to the p50 total):');
  const segmentNames = [...new Set(samples.A1.concat(samples.A2).flatMap((x) => [...x.segments.keys()]))];
  const head = `${'step'.padEnd(56)}${'A1'.padStart(9)}${'A2'.padStart(9)}`;
  console.log(`  ${head}`);
  const sumOf = (v: Variant) => segmentNames.reduce((n, name) => n + median(samples[v].map((x) => x.segments.get(name) ?? 0)), 0);
  for (const name of segmentNames) {
    const cell = (v: Variant) => median(samples[v].map((x) => x.segments.get(name) ?? 0)).toFixed(2).padStart(9);
    console.log(`  ${name.padEnd(56)}${cell('A1')}${cell('A2')}`);
  }
  console.log(`  ${'sum of step medians'.padEnd(56)}${sumOf('A1').toFixed(2).padStart(9)}${sumOf('A2').toFixed(2).padStart(9)}`);
  const bAdd = median(samples.B.map((x) => x.segments.get('git add -A') ?? 0));
  const bCommit = median(samples.B.map((x) => x.segments.get('git commit -q -m') ?? 0));
  console.log(`  B: git add -A ${bAdd.toFixed(2)}, git commit ${bCommit.toFixed(2)}`);
  const spawnsPerTurn = (v: Variant) => median(samples[v].map((x) => [...x.segments.keys()].filter((k) => k.startsWith('spawn ')).length));
  console.log(`  distinct git commands per turn (the first turn also locates the repo): A1 ${spawnsPerTurn("A1")}, A2 ${spawnsPerTurn("A2")}, bare 2`);
  console.log(`same trees committed in all three copies, ${1 + WARMUP + TURNS} commits each, clean after: ${consistent ? 'yes' : `NO (trees ${trees.join(' ')}, commits ${counts.join(' ')}, dirty ${dirty.join(' ')})`}`);
  console.log(`total run time ${fmt((Date.now() - started) / 1000, 1)} s`);
  if (!consistent) process.exitCode = 1;
} finally {
  stopObserving();
  await rm(root, { recursive: true, force: true });
}
