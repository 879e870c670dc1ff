/**
 * The end-of-turn project commit as the product makes it, against bare
 * `git add -A && git commit` of the same change, in one run.
 *
 * A working directory of 10,000 tracked files in 100 folders is built once
 * (plain `git init`, one `git add -A` + `git commit`, repacked), then copied
 * with `cp -a`, one copy per variant. Every turn the agent modifies 3 tracked
 * files and adds 1 new one (its touchedPaths), the same change in every copy;
 * the edits are not timed, everything git does after them is:
 *  (C) commit: the turn's close as closeProjectTurn runs it (captureAtClose:
 *      open the repo, status and claims with the turn's touchedPaths hashed
 *      into the object store beside them, HEAD's entries for them, claim them), then the
 *      committer's commitTurn (locate the repo as last found, then ProjectCommitter.look:
 *      take the project lock, open the repo, decide: COMMITTED with a
 *      temporary index, compare-and-swap of the branch, index sync), then the
 *      claim release;
 *  (S) snapshot: the same, with a tracked file outside touchedPaths left
 *      dirty by the user: the deciding look is SKIPPED_DIRTY and the agent's
 *      state goes to a private snapshot ref. The committer's earlier settle
 *      looks (default 6, 500 ms apart, only while a suspect is unclaimed) are
 *      a deliberate pause, not work: one look's cost is printed on its own.
 *      Afterwards (not timed) the user's file is put back and the change is
 *      committed bare, so the copy stays in step with the others;
 *  (B) bare `git add -A` then `git commit -q -m msg`, spawned directly.
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
import type { Config } from '../src/config.js';
import type { Db } from '../src/db/index.js';
import type { Turn } from '../src/generated/prisma/client.js';
import { onGitSpawn } from '../src/git/run.js';
import { KeyedLocks } from '../src/locks.js';
import { createLogger } from '../src/logger.js';
import type { TurnCapture } from '../src/projects/capture.js';
import { releaseClaim } from '../src/projects/claims.js';
import { AGENT_EMAIL, agentName, projectCommitMessage } from '../src/projects/agent-commits.js';
import { ProjectCommitter, type ProjectOutcome } from '../src/projects/committer.js';
import { locateProjectRepoKept, type PlaceProject } from '../src/projects/project-place.js';
import { captureAtClose } from '../src/projects/turn-close.js';
import type { PubSub } from '../src/pubsub.js';
import { bareGitEnv, benchConfig, command, fmt, percentile, row, summary } from './stats.js';

const quick = process.argv.includes('--quick');
const TURNS = quick ? 10 : 30;
const WARMUP = quick ? 2 : 3;
const FOLDERS = 100;
const FILES_PER_FOLDER = 100;
const TARGET_COMMIT = 1.5;
const TARGET_SNAPSHOT = 2;
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
  /** A tracked file the user edits in the snapshot copy, outside touchedPaths. */
  userPath: string;
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
    userPath: filePath((t * 37 + 50) % FOLDERS, (t * 53 + 7) % FILES_PER_FOLDER),
    message: projectCommitMessage(SESSION_ID, t + 1, `Please change ${files.length} files for turn ${t + 1} of the benchmark`),
  };
}

async function applyChange(dir: string, change: Change): Promise<void> {
  await Promise.all(change.files.map((f) => writeFile(join(dir, f.path), f.content)));
}

// --- instrumentation of our path: phase marks plus a mark at every git spawn ---

type Mark = { label: string; t: number };
let marks: Mark[] | null = null;
let phase = '';
const mark = (label: string) => marks?.push({ label, t: performance.now() });

/** The git subcommand of an argv (binary, then global options and `-c k=v` pairs), with its first option. */
function subcommand(argv: string[]): string {
  let i = 1;
  while (argv[i]?.startsWith('-')) i += argv[i] === '-c' ? 2 : 1;
  const option = argv[i + 1]?.startsWith('-') ? ` ${argv[i + 1]}` : '';
  return `${argv[i] ?? '?'}${option}`;
}

const stopObserving = onGitSpawn((event) => mark(`${phase}: git ${subcommand(event.argv)}`));

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

// --- the product's path: the functions closeProjectTurn and commitTurn call, in their order ---

const root = await realpath(await mkdtemp(join(tmpdir(), 'em-bench-project-')));
// The working directories lie inside the allowed root, as a project's must.
const config: Config = { ...benchConfig(join(root, 'data')), allowedRoots: [root] };
const projectLocks = new KeyedLocks();

/** A dependency the committer's decideAndApply never reads while HEAD stays where the turn closed. */
function unused<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get: () => {
      throw new Error(`the benchmark's committer used ${name}: HEAD moved between close and commit?`);
    },
  });
}
const committer = new ProjectCommitter({ db: unused<Db>('db'), pubsub: unused<PubSub>('pubsub'), config, logger: createLogger('silent'), projectLocks });

/** closeProjectTurn with touchedPaths, without its database reads: what runs in the closing request. */
async function closeTurn(project: PlaceProject, change: Change, turnId: string): Promise<TurnCapture> {
  const close = await captureAtClose(project, config, { sessionId: SESSION_ID, touched: change.touched, dirtyAtStart: [], startedAt: null });
  await close.claim(turnId);
  return close.capture;
}

/** One look of ProjectCommitter.commitTurn at the turn (`final`: the deciding one), then the claim release of its finish. */
async function commitTurn(project: PlaceProject, change: Change, turnId: string, capture: TurnCapture, final: boolean): Promise<ProjectOutcome | null> {
  const gitDir = (await locateProjectRepoKept(project, config)).location.gitDir;
  const now = new Date();
  const turn = { id: turnId, number: change.turn + 1, branch: 'main', projectHeadAtClose: capture.headAtClose, closedAt: now, createdAt: now } as unknown as Turn;
  const ctx = { files: capture.files, suspects: capture.suspects, final, message: change.message, identity: WHO, sessionId: SESSION_ID, projectId: project.projectId };
  const decided = await committer.look(project, gitDir, turn, ctx);
  if (decided) await releaseClaim({ gitDir }, turnId);
  return decided;
}

// --- the three variants ---

interface Sample {
  ms: number;
  closeMs: number;
  segments: Map<string, number>;
  /** Git processes started. */
  spawns: number;
  /** (S) one settle look that waits, timed on its own. */
  lookMs?: number;
}

/** The mark closing the close: what follows it until the commit starts is not timed. */
const BETWEEN = 'between close and commit';

/** (C) and (S): the turn's close, then its commit; (S) finds the user's edit and keeps a snapshot. */
async function ours(dir: string, change: Change, userDirty: boolean): Promise<Sample> {
  const project: PlaceProject = { projectId: `bench-${userDirty ? 'S' : 'C'}`, workdir: dir, trustedConfig: null };
  const turnId = `bench-turn-${change.turn}`;
  let lookMs: number | undefined;
  const turnMarks: Mark[] = [];
  marks = turnMarks;
  phase = 'close';
  mark('close: open repo');
  const capture = await closeTurn(project, change, turnId);
  mark(BETWEEN);
  const closed = performance.now();
  if (userDirty) {
    // An earlier look, as the committer makes while a suspect is unclaimed: not part of the total.
    marks = null;
    const t0 = performance.now();
    const waited = await commitTurn(project, change, turnId, capture, false);
    lookMs = performance.now() - t0;
    if (waited !== null) throw new Error(`a settle look decided ${waited.result}`);
    marks = turnMarks;
  }
  phase = 'commit';
  const commitStart = performance.now();
  mark('commit: open repo, lock');
  const done = await commitTurn(project, change, turnId, capture, true);
  mark('end');
  marks = null;
  const expected = userDirty ? 'SKIPPED_DIRTY' : 'COMMITTED';
  if (done?.result !== expected || (userDirty ? !done.snapshotSha : !done.sha)) throw new Error(`expected ${expected}, got ${JSON.stringify(done)}`);
  if (capture.files.length !== change.files.length) throw new Error(`captured ${capture.files.length} paths, expected ${change.files.length}`);
  const segments = segmentsOf(turnMarks);
  segments.delete(BETWEEN);
  const closeMs = closed - turnMarks[0]!.t;
  const spawns = turnMarks.filter((m) => m.label.includes(': git ')).length;
  return { ms: closeMs + (turnMarks.at(-1)!.t - commitStart), closeMs, segments, spawns, lookMs };
}

/** The baseline: `git add -A && git commit -q -m msg`, two direct spawns. */
async function bare(dir: string, change: Change): Promise<Sample> {
  const t0 = performance.now();
  await git([...BARE_IDENTITY, 'add', '-A'], dir);
  const t1 = performance.now();
  await git([...BARE_IDENTITY, 'commit', '-q', '-m', change.message], dir);
  const t2 = performance.now();
  return { ms: t2 - t0, closeMs: 0, segments: new Map([['git add -A', t1 - t0], ['git commit -q -m', t2 - t1]]), spawns: 2 };
}

// --- setup ---

const median = (xs: number[]) => percentile(xs, 50);

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
  // usually is. It becomes copy C; S and B are `cp -a` of it (every file create is costly on this disk).
  const t0 = performance.now();
  const variants = ['C', 'S', 'B'] as const;
  type Variant = (typeof variants)[number];
  const dirs = Object.fromEntries(variants.map((v) => [v, join(root, v)])) as Record<Variant, string>;
  const prepared = dirs.C;
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
    C: (dir, change) => ours(dir, change, false),
    S: async (dir, change) => {
      await writeFile(join(dir, change.userPath), fileContent(change.userPath, 1000 + change.turn)); // the user's edit: not timed
      const sample = await ours(dir, change, true);
      // Not timed: the user's edit undone and the change committed bare, so this copy stays in step.
      await git(['checkout', '-q', '--', change.userPath], dir);
      await git([...BARE_IDENTITY, 'add', '-A'], dir);
      await git([...BARE_IDENTITY, 'commit', '-q', '-m', change.message], dir);
      return sample;
    },
    B: bare,
  };
  const samples: Record<Variant, Sample[]> = { C: [], S: [], B: [] };
  let snapshotsMatch = true;
  for (let t = 0; t < WARMUP + TURNS; t++) {
    const change = makeChange(t);
    if (change.touched.includes(change.userPath)) throw new Error(`turn ${t}: the user's path is one of the agent's`);
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(t + k) % variants.length]!;
      await applyChange(dirs[v], change); // the agent's edits: not timed
      const sample = await run[v](dirs[v], change);
      if (t >= WARMUP) samples[v].push(sample);
    }
    // The snapshot holds exactly the agent's change on the HEAD it was taken on (the bare commit that followed).
    const ref = `refs/entity-memory/snapshots/${SESSION_ID}/turn-${t + 1}`;
    const [snapTree, headTree] = await Promise.all([`${ref}^{tree}`, 'HEAD^{tree}'].map((rev) => git(['rev-parse', rev], dirs.S).then((s) => s.trim())));
    if (snapTree !== headTree) snapshotsMatch = false;
  }

  // Every copy must have committed the same trees and be clean.
  const trees = await Promise.all(variants.map((v) => git(['rev-parse', 'HEAD^{tree}'], dirs[v]).then((s) => s.trim())));
  const counts = await Promise.all(variants.map((v) => git(['rev-list', '--count', 'HEAD'], dirs[v]).then((s) => Number(s.trim()))));
  const dirty = await Promise.all(variants.map((v) => git(['status', '--porcelain'], dirs[v]).then((s) => s.trim() !== '')));
  const consistent = trees.every((tree) => tree === trees[0]) && counts.every((n) => n === 1 + WARMUP + TURNS) && !dirty.some(Boolean) && snapshotsMatch;

  // --- report ---

  const labels: Record<Variant, string> = {
    C: '(C) ours: close + commit (COMMITTED)',
    S: '(S) ours: close + snapshot (SKIPPED_DIRTY)',
    B: '(B) bare git add -A && git commit',
  };
  console.log('');
  const s = Object.fromEntries(variants.map((v) => [v, summary(labels[v], samples[v].map((x) => x.ms))])) as Record<Variant, ReturnType<typeof summary>>;
  for (const v of variants) console.log(row(s[v].label, s[v].p50, s[v].p99));
  const rc = s.C.p50 / s.B.p50;
  const rs = s.S.p50 / s.B.p50;
  const verdict = (r: number, target: number) => (r <= target ? 'ok' : 'OVER TARGET');
  console.log(`ratio p50 C / B:  ${rc.toFixed(2)}  (target <= ${TARGET_COMMIT}: ${verdict(rc, TARGET_COMMIT)})`);
  console.log(`ratio p50 S / B:  ${rs.toFixed(2)}  (target <= ${TARGET_SNAPSHOT}: ${verdict(rs, TARGET_SNAPSHOT)})`);
  console.log(`(p99 over ${TURNS} samples is their maximum)`);
  const closeC = median(samples.C.map((x) => x.closeMs));
  const closeS = median(samples.S.map((x) => x.closeMs));
  console.log(
    `of which the close (in the closing request) p50: C ${closeC.toFixed(2)} ms, S ${closeS.toFixed(2)} ms; ` +
      `one settle look before S's deciding one p50 ${median(samples.S.map((x) => x.lookMs ?? 0)).toFixed(2)} ms (not in the total)`,
  );
  const commitOnly = (v: Variant) => median(samples[v].map((x) => x.ms - x.closeMs));
  console.log(
    `the committer's part alone (background) p50: C ${commitOnly('C').toFixed(2)} ms (${(commitOnly('C') / s.B.p50).toFixed(2)} x B), ` +
      `S ${commitOnly('S').toFixed(2)} ms (${(commitOnly('S') / s.B.p50).toFixed(2)} x B)`,
  );

  console.log('');
  console.log(`reference, same run: one git spawn (rev-parse --show-toplevel) p50 ${median(spawnFloor).toFixed(2)} ms; ` +
    `git status --porcelain -uall of the whole tree p50 ${median(statusAlone).toFixed(2)} ms`);
  console.log('where the time goes, p50 of each step in ms (a step runs from its mark to the next; steps do not add up exactly to the p50 total):');
  const segmentNames = [...new Set(samples.C.concat(samples.S).flatMap((x) => [...x.segments.keys()]))];
  console.log(`  ${'step'.padEnd(56)}${'C'.padStart(9)}${'S'.padStart(9)}`);
  const sumOf = (v: Variant) => segmentNames.reduce((n, name) => n + median(samples[v].map((x) => x.segments.get(name) ?? 0)), 0);
  for (const name of segmentNames) {
    const cell = (v: Variant) => median(samples[v].map((x) => x.segments.get(name) ?? 0)).toFixed(2).padStart(9);
    console.log(`  ${name.padEnd(56)}${cell('C')}${cell('S')}`);
  }
  console.log(`  ${'sum of step medians'.padEnd(56)}${sumOf('C').toFixed(2).padStart(9)}${sumOf('S').toFixed(2).padStart(9)}`);
  const bAdd = median(samples.B.map((x) => x.segments.get('git add -A') ?? 0));
  const bCommit = median(samples.B.map((x) => x.segments.get('git commit -q -m') ?? 0));
  console.log(`  B: git add -A ${bAdd.toFixed(2)}, git commit ${bCommit.toFixed(2)}`);
  const spawnsPerTurn = (v: Variant) => median(samples[v].map((x) => x.spawns));
  console.log(`  git processes per turn: C ${spawnsPerTurn('C')}, S ${spawnsPerTurn('S')}, bare 2`);
  console.log(
    `same trees committed in all three copies, ${1 + WARMUP + TURNS} commits each, clean after, each snapshot the agent's change: ` +
      `${consistent ? 'yes' : `NO (trees ${trees.join(' ')}, commits ${counts.join(' ')}, dirty ${dirty.join(' ')}, snapshots ${snapshotsMatch})`}`,
  );
  console.log(`total run time ${fmt((Date.now() - started) / 1000, 1)} s`);
  if (!consistent) process.exitCode = 1;
} finally {
  stopObserving();
  await rm(root, { recursive: true, force: true });
}
