/**
 * The git mirror against bare git, measured in the same run:
 *  1. a turn commit (5 messages + meta.json) as the worker makes it, at 50 and at 50,000 messages in
 *     the session, against the same plumbing spawned by hand: the commit landing (`commitTurnOnly`)
 *     and the checkout following it (`followCommit`, one update-index, whose cost follows the
 *     index), each timed; turnCommitted is announced once the commit landed and the checkout follows
 *     after it (src/mirror/worker.ts, settleAndPublish), so the goals are checked on the commit, and
 *     on commit + follow (what the repo lock is held for) for the record;
 *  2. what `.git` grows by per turn, against the bytes of the turn's files;
 *  3. backfill through our `fastImport` against raw `git fast-import` of a pre-built stream;
 *  4. the timeline's first page (`SessionRepo.log`) against a raw `git log -n 50`.
 * Usage: npm run bench -- mirror [--quick]   (or npx tsx bench/mirror.ts [--quick])
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { cp, lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Identity, RepoFile } from '../src/git/commit-input.js';
import { fastImport, fastImportMark, type FastImportCommit } from '../src/git/fast-import.js';
import { onGitSpawn } from '../src/git/run.js';
import { SessionRepo } from '../src/git/session-repo.js';
import { turnCommitMessage } from '../src/mirror/commit-message.js';
import { messageFile, metaFile, type MessageRecord, type SessionRecord } from '../src/mirror/files.js';
import { MIRROR_IDENTITY } from '../src/mirror/turn-plan.js';
import { BARE_STEPS, bareCommit, sh } from './bare-git.js';
import { fmt, percentile, row, summary, timed } from './stats.js';

const quick = process.argv.includes('--quick');
const TURNS = quick ? 40 : 200;
const WARMUP = quick ? 5 : 10;
const BACKFILL_TURNS = quick ? 1_000 : 3_000;
const BACKFILL_REPS = quick ? 1 : 3;
const LOG_RUNS = 50;
const LOG_WARMUP = 5;
const SMALL_PREFILL_TURNS = 10; // 50 messages
const LARGE_PREFILL_TURNS = 10_000; // 50,000 messages
const MESSAGE_FILE_BYTES = 350;
const BRANCH = 'main';

const started = Date.now();
const root = await mkdtemp(join(tmpdir(), 'em-bench-mirror-'));

// --- one synthetic session, deterministic so two repos fed the same turns stay byte-identical ---

const SESSION: SessionRecord = {
  sessionId: 'bench-mirror-session',
  title: 'Benchmark: mirror latency',
  agentId: 'bench-agent',
  model: 'bench-model-1',
  projectId: null,
  createdAt: new Date(Date.UTC(2026, 0, 1)),
};
const META = metaFile(SESSION);
const WORDS = 'the a file read grep list turn agent tool result error value function return test build config path repo branch commit index tree message session mirror'.split(' ');
const ROLES = ['USER', 'ASSISTANT', 'TOOL', 'TOOL', 'TOOL'] as const;
const TOOLS = ['read', 'grep', 'list'] as const;

const idOf = (seq: number) => createHash('sha1').update(`message-${seq}`).digest('hex').slice(0, 20);

/** Deterministic prose of exactly `length` ASCII characters. */
function prose(seed: number, length: number): string {
  let x = (seed * 2654435761) >>> 0;
  let text = '';
  while (text.length < length) {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    text += `${WORDS[x % WORDS.length]} `;
  }
  return text.slice(0, length);
}

interface Turn {
  files: RepoFile[];
  message: string;
  author: Identity;
  bytes: number;
}

/** Turn `t` (0-based) of the session: messages seq 5t+1 .. 5t+5, each file exactly ~350 bytes. */
function makeTurn(t: number): Turn {
  const closedAt = new Date(SESSION.createdAt.getTime() + (t + 1) * 60_000);
  const records: MessageRecord[] = ROLES.map((role, i) => {
    const seq = 5 * t + i + 1;
    return {
      messageId: idOf(seq),
      seq,
      role,
      content: '',
      predecessorMessageId: seq === 1 ? null : idOf(seq - 1),
      callerMessageId: role === 'TOOL' ? idOf(5 * t + 2) : null,
      toolName: role === 'TOOL' ? TOOLS[i - 2]! : null,
      toolCallId: role === 'TOOL' ? `call_${seq}` : null,
      createdAt: new Date(closedAt.getTime() - (5 - i) * 1000),
      metadata: role === 'ASSISTANT' ? '{"tokens":400}' : null,
    };
  });
  for (const r of records) {
    const overhead = Buffer.byteLength(messageFile(r).content);
    r.content = prose(r.seq, Math.max(20, MESSAGE_FILE_BYTES - overhead));
  }
  const files = [META, ...records.map(messageFile)];
  const tools = records.filter((r) => r.role === 'TOOL');
  const message = turnCommitMessage({
    sessionId: SESSION.sessionId,
    number: t + 1,
    userContent: records[0]!.content,
    assistantContent: records[1]!.content,
    toolNames: tools.map((r) => r.toolName),
    toolCount: tools.length,
    durationMs: 1200,
    tokens: 400,
    messageIds: records.map((r) => r.messageId),
  });
  return {
    files,
    message,
    author: { ...MIRROR_IDENTITY, date: closedAt },
    bytes: files.reduce((n, f) => n + Buffer.byteLength(f.content as string), 0),
  };
}

function importCommit(t: number, firstTurn: number, parentSha: string | null): FastImportCommit {
  const turn = makeTurn(t);
  const parent = t === firstTurn ? (parentSha ?? 'none') : fastImportMark(t - firstTurn - 1);
  return { branch: BRANCH, parent, files: turn.files, message: turn.message, author: turn.author };
}

function* importCommits(count: number): Generator<FastImportCommit> {
  for (let t = 0; t < count; t++) yield importCommit(t, 0, null);
}

// --- sizes ---

interface DirSize {
  apparent: number;
  allocated: number;
  files: number;
  byPart: Map<string, number>;
}

/**
 * du-like: `apparent` is the sum of the files' lengths (`du -b` without the
 * folders' own entries), `allocated` the blocks of files and folders (`du`).
 */
async function duGit(gitDir: string): Promise<DirSize> {
  const size: DirSize = { apparent: 0, allocated: 0, files: 0, byPart: new Map() };
  const partOf = (rel: string): string => {
    if (rel.startsWith('objects/pack/')) return 'packs';
    if (rel.startsWith('objects/')) return 'loose objects';
    if (rel === 'index' || rel.startsWith('sharedindex.')) return 'index + sharedindex';
    if (rel.startsWith('logs/')) return 'reflogs';
    return 'other';
  };
  async function walk(folder: string, rel: string): Promise<void> {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const info = await lstat(full);
      size.allocated += info.blocks * 512;
      if (entry.isDirectory()) {
        await walk(full, relPath);
      } else {
        size.apparent += info.size;
        size.files++;
        const part = partOf(relPath);
        size.byPart.set(part, (size.byPart.get(part) ?? 0) + info.size);
      }
    }
  }
  await walk(gitDir, '');
  return size;
}

// --- helpers ---

const ratio = (a: number, b: number) => (a / b).toFixed(2);
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
const median = (xs: number[]) => percentile(xs, 50);

async function freshRepo(name: string): Promise<SessionRepo> {
  const repo = new SessionRepo(join(root, name));
  await repo.init();
  return repo;
}

/**
 * Two identical repos holding `turns` turns: fast-imported once, `.git` copied,
 * then each working tree and index reset to HEAD. Returns both and the tip.
 */
async function prefilledPair(name: string, turns: number): Promise<{ ours: SessionRepo; bare: SessionRepo; tip: string; ms: number }> {
  const t0 = performance.now();
  const ours = await freshRepo(`${name}-ours`);
  const { tips } = await fastImport(ours.dir, importCommits(turns));
  const importMs = performance.now() - t0;
  const t1 = performance.now();
  const bare = new SessionRepo(join(root, `${name}-bare`));
  await mkdir(bare.dir, { recursive: true });
  await cp(ours.gitDir, bare.gitDir, { recursive: true });
  await Promise.all([ours.resetWorkingTree(), bare.resetWorkingTree()]);
  const ms = performance.now() - t0;
  console.log(`  prefill ${name}: ${fmt(turns)} turns (${fmt(turns * 5)} messages) fast-imported in ${fmt(importMs / 1000, 1)} s, ` +
    `.git copied + both working trees reset (in parallel) in ${fmt((performance.now() - t1) / 1000, 1)} s`);
  return { ours, bare, tip: tips.get(BRANCH)!, ms };
}

interface LatencyResult {
  label: string;
  ours: number[];
  /** The checkout following the commit (after the event). */
  follow: number[];
  bare: number[];
  bareSteps: number[][];
  oursSegments: number[][];
  oursGrowth: { before: DirSize; after: DirSize };
  bareGrowth: { before: DirSize; after: DirSize };
  turnBytes: number;
  tipsEqual: boolean;
}

/** Interleaved turns on two identical repos: ours via commitTurn (what the mirror worker runs), the baseline by hand; the order flips each turn. */
async function latency(label: string, pair: { ours: SessionRepo; bare: SessionRepo; tip: string }, firstTurn: number): Promise<LatencyResult> {
  const result: LatencyResult = {
    label,
    ours: [],
    follow: [],
    bare: [],
    bareSteps: BARE_STEPS.map(() => []),
    oursSegments: [],
    oursGrowth: { before: undefined as never, after: undefined as never },
    bareGrowth: { before: undefined as never, after: undefined as never },
    turnBytes: 0,
    tipsEqual: false,
  };
  let oursTip = pair.tip;
  let bareTip = pair.tip;
  // Spawn times inside commitTurn, to see where its time goes.
  let spawnMarks: number[] | null = null;
  const stopObserving = onGitSpawn(() => spawnMarks?.push(performance.now()));
  try {
    for (let i = 0; i < WARMUP + TURNS; i++) {
      if (i === WARMUP) {
        result.oursGrowth.before = await duGit(pair.ours.gitDir);
        result.bareGrowth.before = await duGit(pair.bare.gitDir);
      }
      const turn = makeTurn(firstTurn + i);
      const runOurs = async () => {
        const marks = [performance.now()];
        spawnMarks = marks;
        const landed = await pair.ours.commitTurnOnly({ branch: BRANCH, parent: oursTip, files: turn.files, message: turn.message, author: turn.author });
        oursTip = landed.sha;
        marks.push(performance.now());
        spawnMarks = null;
        if (!landed.headAtParent) throw new Error('HEAD was not on the branch at the parent');
        const followed = await timed(() => pair.ours.followCommit(turn.files));
        return { marks, followed };
      };
      const runBare = async () => {
        const t0 = performance.now();
        const r = await bareCommit(pair.bare.dir, turn, bareTip);
        bareTip = r.sha;
        return { ms: performance.now() - t0, steps: r.steps };
      };
      let ours: { marks: number[]; followed: number };
      let bare: { ms: number; steps: number[] };
      if (i % 2 === 0) {
        ours = await runOurs();
        bare = await runBare();
      } else {
        bare = await runBare();
        ours = await runOurs();
      }
      const oursMarks = ours.marks;
      if (i >= WARMUP) {
        result.ours.push(oursMarks.at(-1)! - oursMarks[0]!);
        result.follow.push(ours.followed);
        result.oursSegments.push(oursMarks.slice(1).map((m, k) => m - oursMarks[k]!));
        result.bare.push(bare.ms);
        bare.steps.forEach((ms, k) => result.bareSteps[k]!.push(ms));
        result.turnBytes += turn.bytes;
      }
    }
  } finally {
    stopObserving();
  }
  result.oursGrowth.after = await duGit(pair.ours.gitDir);
  result.bareGrowth.after = await duGit(pair.bare.gitDir);
  result.tipsEqual = oursTip === bareTip;
  return result;
}

function printLatency(r: LatencyResult): { oursP50: number; bareP50: number; followP50: number } {
  const ours = summary(`commit landed (commitTurnOnly), ${r.label}`, r.ours);
  const follow = summary(`  then checkout follows (followCommit)`, r.follow);
  const bare = summary(`bare plumbing by hand, ${r.label}`, r.bare);
  console.log(row(ours.label, ours.p50, ours.p99));
  console.log(row(follow.label, follow.p50, follow.p99, `(after the event; commit + follow p50 ${(ours.p50 + follow.p50).toFixed(2)} ms)`));
  console.log(row(bare.label, bare.p50, bare.p99));
  const steps = BARE_STEPS.map((s, k) => `${s} ${median(r.bareSteps[k]!).toFixed(2)}`).join(', ');
  console.log(`    bare steps p50 (ms): ${steps}`);
  const segCount = Math.max(...r.oursSegments.map((s) => s.length));
  const segNames = segCount === 2
    ? ['checks+HEAD read', 'fast-import (commit landed)']
    : Array.from({ length: segCount }, (_, k) => `segment ${k}`);
  const segs = segNames.map((n, k) => `${n} ${median(r.oursSegments.map((s) => s[k] ?? 0)).toFixed(2)}`).join(', ');
  console.log(`    ours p50 (ms, split at each spawn start): ${segs}`);
  console.log(`    same commits written by both: ${r.tipsEqual ? 'yes (identical tips)' : 'NO (tips differ)'}`);
  return { oursP50: ours.p50, bareP50: bare.p50, followP50: follow.p50 };
}

function printGrowth(label: string, g: { before: DirSize; after: DirSize }, turns: number, turnBytes: number): void {
  const apparent = (g.after.apparent - g.before.apparent) / turns;
  const allocated = (g.after.allocated - g.before.allocated) / turns;
  const perTurnFiles = turnBytes / turns;
  console.log(
    `${label.padEnd(44)} +${fmt(apparent).padStart(7)} B (file lengths), +${fmt(allocated).padStart(7)} B on disk (du) per turn ` +
      `vs ${fmt(perTurnFiles)} B of turn files: ratio ${ratio(apparent, perTurnFiles)} (lengths), ${ratio(allocated, perTurnFiles)} (du)`,
  );
  const parts = ['loose objects', 'packs', 'index + sharedindex', 'reflogs', 'other'];
  const detail = parts
    .map((p) => [p, ((g.after.byPart.get(p) ?? 0) - (g.before.byPart.get(p) ?? 0)) / turns] as const)
    .filter(([, b]) => b !== 0)
    .map(([p, b]) => `${p} ${b >= 0 ? '+' : ''}${fmt(b)}`)
    .join(', ');
  console.log(`    file lengths per turn by part of .git: ${detail}; files in .git ${fmt(g.before.files)} -> ${fmt(g.after.files)}`);
}

// --- raw fast-import stream, written independently of src/git/fast-import.ts ---

async function writeRawStream(file: string, turns: number): Promise<void> {
  const parts: Buffer[] = [];
  const text = (s: string) => parts.push(Buffer.from(s, 'utf8'));
  for (let t = 0; t < turns; t++) {
    const turn = makeTurn(t);
    const who = `${turn.author.name} <${turn.author.email}> ${Math.floor(turn.author.date.getTime() / 1000)} +0000`;
    const message = Buffer.from(turn.message, 'utf8');
    text(`commit refs/heads/${BRANCH}\nmark :${t + 1}\nauthor ${who}\ncommitter ${who}\ndata ${message.length}\n`);
    parts.push(message);
    text(t === 0 ? '\n' : `\nfrom :${t}\n`);
    for (const f of turn.files) {
      const bytes = Buffer.from(f.content as string, 'utf8');
      text(`M 100644 inline ${f.path}\ndata ${bytes.length}\n`);
      parts.push(bytes);
      text('\n');
    }
    text('\n');
  }
  await writeFile(file, Buffer.concat(parts));
}

async function rawFastImport(dir: string, streamFile: string): Promise<void> {
  const fd = openSync(streamFile, 'r');
  try {
    await sh(['fast-import', '--quiet'], dir, { stdinFd: fd });
  } finally {
    closeSync(fd);
  }
}

// --- run ---

try {
  const gitVersion = (await sh(['--version'], root)).trim();
  console.log(
    `mirror benchmark${quick ? ' (--quick)' : ''}: ${cpus().length} cpus (${availableParallelism()} available), ${gitVersion}, node ${process.version}, ` +
      `${TURNS} turns per case after ${WARMUP} warm-up, 5 messages of ${MESSAGE_FILE_BYTES} B + meta.json per turn; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`,
  );

  // Spawn floor: what one trivial git process costs from Node here.
  const spawnFloor: number[] = [];
  for (let i = 0; i < 30; i++) {
    const ms = await timed(() => sh(['--version'], root));
    if (i >= 5) spawnFloor.push(ms);
  }

  console.log('\n[1] turn commit latency (interleaved, two identically prefilled repos per case)');
  const small = await prefilledPair('s50', SMALL_PREFILL_TURNS);
  const large = await prefilledPair('s50k', LARGE_PREFILL_TURNS);
  const atSmall = await latency('50 msgs', small, SMALL_PREFILL_TURNS);
  const atLarge = await latency('50,000 msgs', large, LARGE_PREFILL_TURNS);
  console.log(row('spawn floor: `git --version` from Node', percentile(spawnFloor, 50), percentile(spawnFloor, 99)));
  const s = printLatency(atSmall);
  const l = printLatency(atLarge);
  // What turnCommitted waits for: the commit (the checkout follows after the event).
  console.log(`ratio p50 commit/bare @50:       ${ratio(s.oursP50, s.bareP50)}  (target <= 1.5) ${verdict(s.oursP50 / s.bareP50 <= 1.5)}`);
  console.log(`ratio p50 commit/bare @50,000:   ${ratio(l.oursP50, l.bareP50)}  (target <= 1.5) ${verdict(l.oursP50 / l.bareP50 <= 1.5)}`);
  console.log(`ratio p50 commit @50,000 / @50:  ${(l.oursP50 / s.oursP50).toFixed(2)}  (target <= 1.2) ${verdict(l.oursP50 / s.oursP50 <= 1.2)}`);
  const held50 = s.oursP50 + s.followP50;
  const held50k = l.oursP50 + l.followP50;
  console.log(
    `  (commit + follow, the repo lock's hold: ours/bare ${ratio(held50, s.bareP50)} @50, ${ratio(held50k, l.bareP50)} @50,000, @50,000/@50 ${(held50k / held50).toFixed(2)}; ` +
      `bare@50,000 / bare@50: ${ratio(l.bareP50, s.bareP50)})`,
  );

  console.log(`\n[2] .git growth per turn over the ${TURNS} measured turns`);
  printGrowth('commitTurn @50 msgs', atSmall.oursGrowth, TURNS, atSmall.turnBytes);
  printGrowth('bare plumbing @50 msgs', atSmall.bareGrowth, TURNS, atSmall.turnBytes);
  printGrowth('commitTurn @50,000 msgs', atLarge.oursGrowth, TURNS, atLarge.turnBytes);
  printGrowth('bare plumbing @50,000 msgs', atLarge.bareGrowth, TURNS, atLarge.turnBytes);

  console.log(`\n[3] backfill: ${fmt(BACKFILL_TURNS)} turns (${fmt(BACKFILL_TURNS * 5)} messages) into fresh repos, ${BACKFILL_REPS} rep(s) interleaved`);
  const specs = Array.from(importCommits(BACKFILL_TURNS));
  const streamFile = join(root, 'backfill.stream');
  await writeRawStream(streamFile, BACKFILL_TURNS);
  const oursMs: number[] = [];
  const rawMs: number[] = [];
  let backfillSame = true;
  for (let rep = 0; rep < BACKFILL_REPS; rep++) {
    const oursRepo = await freshRepo(`bf-ours-${rep}`);
    const rawRepo = await freshRepo(`bf-raw-${rep}`);
    let oursTip = '';
    const runOurs = async () => {
      oursMs.push(await timed(async () => (oursTip = (await fastImport(oursRepo.dir, specs)).tips.get(BRANCH)!)));
    };
    const runRaw = async () => {
      rawMs.push(await timed(() => rawFastImport(rawRepo.dir, streamFile)));
    };
    if (rep % 2 === 0) {
      await runOurs();
      await runRaw();
    } else {
      await runRaw();
      await runOurs();
    }
    const rawTip = (await sh(['rev-parse', `refs/heads/${BRANCH}`], rawRepo.dir)).trim();
    backfillSame &&= rawTip === oursTip;
    await Promise.all([rm(oursRepo.dir, { recursive: true, force: true }), rm(rawRepo.dir, { recursive: true, force: true })]);
  }
  const oursRate = BACKFILL_TURNS / (median(oursMs) / 1000);
  const rawRate = BACKFILL_TURNS / (median(rawMs) / 1000);
  const backfillRatio = oursRate / rawRate;
  console.log(`our fastImport (specs built beforehand)      ${fmt(median(oursMs))} ms  ${fmt(oursRate).padStart(7)} turns/s  (runs: ${oursMs.map((m) => fmt(m)).join(', ')} ms)`);
  console.log(`raw git fast-import < pre-built stream       ${fmt(median(rawMs))} ms  ${fmt(rawRate).padStart(7)} turns/s  (runs: ${rawMs.map((m) => fmt(m)).join(', ')} ms)`);
  console.log(`same commits written by both: ${backfillSame ? 'yes (identical tips)' : 'NO (tips differ)'}`);
  console.log(`ratio throughput ours/raw:          ${fmt(backfillRatio * 100)} %  (target >= 50 %) ${verdict(backfillRatio >= 0.5)}`);

  const commits = LARGE_PREFILL_TURNS + WARMUP + TURNS;
  console.log(`\n[4] timeline first page on the ${fmt(commits)}-commit repo, ${LOG_RUNS} runs each after ${LOG_WARMUP} warm-up, interleaved`);
  const repo = large.ours;
  const logOurs: number[] = [];
  const logRaw: number[] = [];
  for (let i = 0; i < LOG_WARMUP + LOG_RUNS; i++) {
    const runOurs = () => timed(async () => {
      const page = await repo.log({ ref: BRANCH, limit: 51 });
      if (page.length !== 51) throw new Error(`log returned ${page.length} commits`);
    });
    const runRaw = () => timed(() => sh(['log', '-n', '50', BRANCH], repo.dir));
    let o: number;
    let r: number;
    if (i % 2 === 0) {
      o = await runOurs();
      r = await runRaw();
    } else {
      r = await runRaw();
      o = await runOurs();
    }
    if (i >= LOG_WARMUP) {
      logOurs.push(o);
      logRaw.push(r);
    }
  }
  const lo = summary('SessionRepo.log({ ref: main, limit: 51 })', logOurs);
  const lr = summary('raw `git log -n 50 main`', logRaw);
  console.log(row(lo.label, lo.p50, lo.p99));
  console.log(row(lr.label, lr.p50, lr.p99));
  const logRatio = lo.p50 / lr.p50;
  console.log(`ratio p50 ours/raw:                 ${logRatio.toFixed(2)}  (target <= 3) ${verdict(logRatio <= 3)}`);
} finally {
  await rm(root, { recursive: true, force: true });
  console.log(`\ntotal ${fmt((Date.now() - started) / 1000, 1)} s; temp dirs removed; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
}
