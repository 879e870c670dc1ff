/**
 * Replay on a long session: our `checkout` mutation half-way back (alone, and
 * followed by the viewed commit's `head.messages`) and `switchBranch` back to
 * the tip, through the server's GraphQL handler, against raw `git checkout`
 * of the same commits in a copy of the same repo, interleaved in one run.
 *
 * Setup: a real server in-process on a temp data dir; 10,000 closed turns
 * (user + assistant, ~300 B each) written straight through Prisma in a few big
 * transactions, the rows the services would write; the repo built by
 * `rebuildSession` (fast-import); `session.mirror.inSync` checked over GraphQL.
 * head.messages is its first page (first: 50), what the UI renders first.
 * The git baseline is what a person types (`git checkout --detach <sha>`, no
 * `-f`, so git first checks that the files it removes are unmodified); the
 * server runs `git checkout -f`. Temp dirs go under os.tmpdir() (set TMPDIR to
 * move them, e.g. to a tmpfs).
 * Usage: npm run bench -- replay [--quick]   (or npx tsx bench/replay.ts [--quick])
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { onGitSpawn, PER_CALL_CONFIG } from '../src/git/run.js';
import { createLogger } from '../src/logger.js';
import { rebuildSession } from '../src/mirror/rebuild.js';
import { openSessionRepo, sessionRepoPath } from '../src/mirror/session-repos.js';
import { commitMessages } from '../src/services/replay/read-commits.js';
import { startServer, type RunningServer } from '../src/server.js';
import { fillClosedTurns } from './fill-session.js';
import { bareGitEnv, benchConfig, command, fmt, percentile, row, summary, timed } from './stats.js';

const quick = process.argv.includes('--quick');
const TURNS = quick ? 2_000 : 10_000;
const TARGET_TURN = TURNS / 2;
const WARMUP = 2;
const ROUNDS = quick ? 8 : 15;
/** head.messages(first: 50), the first page the UI renders, is measured every Nth round. */
const MESSAGES_EVERY = 1;
const CONTENT_BYTES = 300;
const SESSION_ID = 'bench-replay';

const started = Date.now();
const root = await mkdtemp(join(tmpdir(), 'em-bench-replay-'));
const dataDir = join(root, 'data');
const copyDir = join(root, 'git-copy');
const config = benchConfig(dataDir);

// --- helpers ---

const median = (xs: number[]) => percentile(xs, 50);
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');

/** The bare baseline's environment: no user or system git config, like the server's own runs. */
const BARE_ENV = bareGitEnv(true);

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = BARE_ENV): Promise<string> {
  return command(cmd, args, { cwd, env });
}
const git = (args: string[], cwd: string) => run('git', args, cwd);

let server: RunningServer | undefined;

async function gql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
  const response = await server!.app.yoga.fetch('http://bench/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as { data?: T; errors?: unknown };
  if (result.errors || !result.data) throw new Error(JSON.stringify(result.errors ?? result));
  return result.data;
}

const CHECKOUT = `mutation Checkout($input: CheckoutInput!) { checkout(input: $input) { head { sha } } }`;
const SWITCH = `mutation Switch($input: SwitchBranchInput!) { switchBranch(input: $input) { head { sha } } }`;
const HEAD_MESSAGES = `query HeadMessages($sessionId: String!) { session(sessionId: $sessionId) { head { sha messages(first: 50) { messageId } } } }`;
const MIRROR = `query Mirror($sessionId: String!) { session(sessionId: $sessionId) { currentBranch detached mirror { dagTurns gitCommits pending inSync lastError } } }`;
const FLOOR = `query Floor($sessionId: String!) { session(sessionId: $sessionId) { sessionId } }`;

type HeadSha = { head: { sha: string } | null };

// --- where the time of one of our requests goes: split at each git spawn ---

interface Marks {
  names: string[];
  times: number[];
}
let marks: Marks | null = null;
const SUBCOMMAND_AT = 1 + PER_CALL_CONFIG.length;
const stopObserving = onGitSpawn((event) => {
  if (!marks) return;
  marks.names.push(event.argv[SUBCOMMAND_AT] ?? '?');
  marks.times.push(performance.now());
});

/** Runs `fn` and returns its duration and the spawn marks in it. */
async function observed(fn: () => Promise<unknown>): Promise<{ ms: number; marks: Marks }> {
  const m: Marks = { names: ['request'], times: [performance.now()] };
  marks = m;
  try {
    await fn();
  } finally {
    marks = null;
  }
  m.names.push('response');
  m.times.push(performance.now());
  return { ms: m.times.at(-1)! - m.times[0]!, marks: m };
}

/** Median time between consecutive marks, for the most common sequence of spawns. */
function breakdown(all: Marks[]): string {
  const bySignature = new Map<string, Marks[]>();
  for (const m of all) {
    const sig = m.names.join(' > ');
    bySignature.set(sig, [...(bySignature.get(sig) ?? []), m]);
  }
  const [, runs] = [...bySignature.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
  const names = runs[0]!.names;
  const parts: string[] = [];
  for (let k = 0; k < names.length - 1; k++) {
    const ms = median(runs.map((m) => m.times[k + 1]! - m.times[k]!));
    const from = k === 0 ? 'request' : `git ${names[k]}`;
    parts.push(`${from} -> ${names[k + 1] === 'response' ? 'response' : `git ${names[k + 1]}`} ${ms.toFixed(1)}`);
  }
  const others = all.length - runs.length;
  return `${parts.join(' | ')}${others > 0 ? ` (${others} run(s) with another spawn sequence left out)` : ''}`;
}


// --- run ---

try {
  const gitVersion = (await git(['--version'], root)).trim();
  console.log(
    `replay benchmark${quick ? ' (--quick)' : ''}: ${cpus().length} cpus (${availableParallelism()} available), ${gitVersion}, node ${process.version}, ` +
      `${fmt(TURNS)} turns (${fmt(2 * TURNS)} messages of ${CONTENT_BYTES} B), checkout of turn ${fmt(TARGET_TURN)}, ` +
      `${ROUNDS} rounds after ${WARMUP} warm-up, interleaved`,
  );

  // 1. setup
  let t0 = performance.now();
  server = await startServer(config, createLogger('silent'));
  const { app } = server;
  const startMs = performance.now() - t0;
  t0 = performance.now();
  const { tipTurnId } = await fillClosedTurns(app.deps.db, { sessionId: SESSION_ID, title: 'Benchmark: replay', turns: TURNS, contentBytes: CONTENT_BYTES });
  const fillMs = performance.now() - t0;
  t0 = performance.now();
  const { written } = await app.deps.repoLocks.run(SESSION_ID, () => rebuildSession(app.deps, SESSION_ID, { moveAside: false }));
  const rebuildMs = performance.now() - t0;
  if (written !== TURNS) throw new Error(`rebuildSession wrote ${written} turns, expected ${TURNS}`);

  const status = await gql<{ session: { currentBranch: string; detached: boolean; mirror: { dagTurns: number; gitCommits: number; pending: number; inSync: boolean; lastError: string | null } } }>(
    MIRROR,
    { sessionId: SESSION_ID },
  );
  const mirror = status.session.mirror;
  if (!mirror.inSync || mirror.dagTurns !== TURNS || mirror.gitCommits !== TURNS) {
    throw new Error(`the mirror is not in sync before measuring: ${JSON.stringify(status.session)}`);
  }
  const target = await app.deps.db.turn.findFirstOrThrow({ where: { sessionId: SESSION_ID, branch: 'main', number: TARGET_TURN } });
  const tip = await app.deps.db.turn.findUniqueOrThrow({ where: { id: tipTurnId } });
  const targetSha = target.commitSha!;
  const tipSha = tip.commitSha!;

  const repoDir = sessionRepoPath(config, SESSION_ID);
  t0 = performance.now();
  // The copy's .git is copied; its working tree is written by git the way rebuildSession wrote ours
  // (read-tree --reset -u), so both trees are laid out on disk alike.
  await mkdir(copyDir);
  await run('cp', ['-a', join(repoDir, '.git'), join(copyDir, '.git')], root);
  await git(['read-tree', '--reset', '-u', 'HEAD'], copyDir);
  const copyMs = performance.now() - t0;
  const copyStatus = await git(['status', '--porcelain'], copyDir);
  if (copyStatus !== '') throw new Error(`the copy is not clean: ${copyStatus.slice(0, 200)}`);
  const countFiles = async (rev: string) => (await git(['ls-tree', '-r', '--name-only', rev], repoDir)).split('\n').filter(Boolean).length;
  const [tipFiles, targetFiles] = await Promise.all([countFiles(tipSha), countFiles(targetSha)]);
  const copyHead = (await git(['symbolic-ref', 'HEAD'], copyDir)).trim();
  console.log(
    `  setup in ${root}: server started in ${fmt(startMs / 1000, 1)} s; ${fmt(TURNS)} turns + ${fmt(2 * TURNS)} messages through Prisma in ${fmt(fillMs / 1000, 1)} s; ` +
      `rebuildSession in ${fmt(rebuildMs / 1000, 1)} s; repo copied (cp -a .git + read-tree --reset -u) in ${fmt(copyMs / 1000, 1)} s`,
  );
  console.log(
    `  mirror: dagTurns ${fmt(mirror.dagTurns)}, gitCommits ${fmt(mirror.gitCommits)}, pending ${mirror.pending}, inSync ${mirror.inSync}; ` +
      `tree at tip ${fmt(tipFiles)} files, at turn ${fmt(TARGET_TURN)} ${fmt(targetFiles)} files ` +
      `(each checkout removes or writes ${fmt(tipFiles - targetFiles)}); copy on ${copyHead}`,
  );

  // Floors: one trivial git spawn, one trivial GraphQL query.
  const spawnFloor: number[] = [];
  const gqlFloor: number[] = [];
  for (let i = 0; i < 25; i++) {
    const s = await timed(() => git(['--version'], root));
    const q = await timed(() => gql(FLOOR, { sessionId: SESSION_ID }));
    if (i >= 5) {
      spawnFloor.push(s);
      gqlFloor.push(q);
    }
  }

  // 2. measure
  const samples = {
    checkout: [] as number[],
    messages: [] as number[],
    checkoutPlusMessages: [] as number[],
    switchBack: [] as number[],
    gitDetach: [] as number[],
    gitMain: [] as number[],
  };
  const marksOf = { checkout: [] as Marks[], messages: [] as Marks[], switchBack: [] as Marks[] };

  const runOurs = async (withMessages: boolean) => {
    const c = await observed(async () => {
      const data = await gql<{ checkout: HeadSha }>(CHECKOUT, { input: { sessionId: SESSION_ID, sha: targetSha } });
      if (data.checkout.head?.sha !== targetSha) throw new Error(`checkout: head is ${data.checkout.head?.sha}, expected ${targetSha}`);
    });
    const m = !withMessages ? null : await observed(async () => {
      const data = await gql<{ session: { head: { sha: string; messages: { messageId: string }[] } | null } }>(HEAD_MESSAGES, { sessionId: SESSION_ID });
      const head = data.session.head;
      if (head?.sha !== targetSha || head.messages.length !== 50) {
        throw new Error(`head.messages: ${head?.messages.length} messages at ${head?.sha}, expected the first page of 50 at ${targetSha}`);
      }
    });
    const repoHead = (await git(['rev-parse', 'HEAD'], repoDir)).trim();
    if (repoHead !== targetSha) throw new Error(`the session repo is at ${repoHead} after checkout, expected ${targetSha}`);
    const s = await observed(async () => {
      const data = await gql<{ switchBranch: HeadSha }>(SWITCH, { input: { sessionId: SESSION_ID, branch: 'main' } });
      if (data.switchBranch.head?.sha !== tipSha) throw new Error(`switchBranch: head is ${data.switchBranch.head?.sha}, expected ${tipSha}`);
    });
    const repoBranch = (await git(['symbolic-ref', 'HEAD'], repoDir)).trim();
    if (repoBranch !== 'refs/heads/main') throw new Error(`the session repo is on ${repoBranch} after switchBranch`);
    return { c, m, s };
  };
  const runGit = async () => {
    const detach = await timed(() => git(['checkout', '-q', '--detach', targetSha], copyDir));
    const copyAt = (await git(['rev-parse', 'HEAD'], copyDir)).trim();
    if (copyAt !== targetSha) throw new Error(`the copy is at ${copyAt} after git checkout --detach, expected ${targetSha}`);
    const main = await timed(() => git(['checkout', '-q', 'main'], copyDir));
    return { detach, main };
  };

  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    // Interleaved, the order flipping each round, so drift in the machine's speed hits both alike.
    const withMessages = i >= WARMUP && (i - WARMUP) % MESSAGES_EVERY === 0;
    let ours: Awaited<ReturnType<typeof runOurs>>;
    let bare: Awaited<ReturnType<typeof runGit>>;
    if (i % 2 === 0) {
      ours = await runOurs(withMessages);
      bare = await runGit();
    } else {
      bare = await runGit();
      ours = await runOurs(withMessages);
    }
    if (i >= WARMUP) {
      samples.checkout.push(ours.c.ms);
      samples.switchBack.push(ours.s.ms);
      samples.gitDetach.push(bare.detach);
      samples.gitMain.push(bare.main);
      marksOf.checkout.push(ours.c.marks);
      marksOf.switchBack.push(ours.s.marks);
      if (ours.m) {
        samples.messages.push(ours.m.ms);
        samples.checkoutPlusMessages.push(ours.c.ms + ours.m.ms);
        marksOf.messages.push(ours.m.marks);
      }
    }
  }

  const checkoutS = summary(`checkout(turn ${fmt(TARGET_TURN)}) { head { sha } }`, samples.checkout);
  const messagesS = summary(`then head { messages(first: 50) } (${samples.messages.length} runs)`, samples.messages);
  const bothS = summary('checkout + head.messages (same rounds)', samples.checkoutPlusMessages);
  const switchS = summary('switchBranch(main) { head { sha } }', samples.switchBack);
  const detachS = summary('git checkout --detach <sha> (copy)', samples.gitDetach);
  const mainS = summary('git checkout main (copy)', samples.gitMain);

  console.log(`\nlatency over ${ROUNDS} rounds (ours through yoga.fetch; git spawned directly in the copy)`);
  console.log(row('spawn floor: `git --version` from Node', median(spawnFloor), percentile(spawnFloor, 99)));
  console.log(row('GraphQL floor: session { sessionId }', median(gqlFloor), percentile(gqlFloor, 99)));
  for (const s of [checkoutS, messagesS, bothS, switchS, detachS, mainS]) console.log(row(s.label, s.p50, s.p99));

  console.log('\nwhere our time goes (p50 ms between consecutive git spawns; a git segment also holds the small DB reads up to the next spawn)');
  console.log(`  checkout:       ${breakdown(marksOf.checkout)}`);
  console.log(`  head.messages:  ${breakdown(marksOf.messages)}`);
  console.log(`  switchBranch:   ${breakdown(marksOf.switchBack)}`);

  // The database part of head.messages alone: the resolver's function, no GraphQL, once each after the rounds.
  const repo = openSessionRepo(config, SESSION_ID);
  const info = await repo.commitInfo(targetSha);
  let listed = 0;
  const bareResolverMs = await timed(async () => (listed = (await commitMessages(app.deps.db, { repo, sessionId: SESSION_ID, info: info! }, { first: 50 })).edges.length));
  let ranged = 0;
  const seqRangeMs = await timed(async () => (ranged = (await app.deps.db.message.findMany({ where: { sessionId: SESSION_ID, seq: { lte: 2 * TARGET_TURN } }, orderBy: { seq: 'asc' }, take: 50 })).length));
  console.log(`  head.messages, database only (1 run each): commitMessages() ${fmt(bareResolverMs)} ms for ${fmt(listed)} messages; ` +
    `the same rows by their (sessionId, seq) index ${fmt(seqRangeMs)} ms for ${fmt(ranged)}`);

  const r1 = checkoutS.p50 / detachS.p50;
  const r2 = bothS.p50 / detachS.p50;
  const r3 = switchS.p50 / mainS.p50;
  console.log('');
  console.log(`ratio p50 checkout / git checkout --detach:                  ${r1.toFixed(2)}  (target <= 2) ${verdict(r1 <= 2)}`);
  console.log(`ratio p50 (checkout + head.messages) / git checkout --detach: ${r2.toFixed(2)}`);
  console.log(`ratio p50 switchBranch back / git checkout main:             ${r3.toFixed(2)}`);
} finally {
  stopObserving();
  await server?.stop();
  await rm(root, { recursive: true, force: true });
  console.log(`\ntotal ${fmt((Date.now() - started) / 1000, 1)} s; server stopped, temp dirs removed`);
}
