/**
 * Which turn wrote each line (`Project.blame`) against `git blame --porcelain` of the same file,
 * in one run (issue 28: <= 1.5x): a project repo whose 2,000-line file was changed by 300 turns
 * of an agent (each rewriting 6 lines, committed by the server at the turn's end) and, every
 * fifth turn, by a commit of the user's (--quick: 400 lines, 20 turns); then, alternated, (a) `project { blame(path) { ...each range's lines,
 * origin, turn and commit } }` through the HTTP API and (b) `git blame --porcelain` of that file
 * spawned directly: p50 each, and their ratio. Blame is one git process plus the database's turns
 * for the commits it names, so the ratio is what attributing costs over git's own answer.
 * Usage: npm run bench -- blame [--quick]   (or npx tsx bench/blame.ts)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { benchConfig, fmt, percentile, postGraphQL, timed } from './stats.js';

const quick = process.argv.includes('--quick');
const TURNS = quick ? 20 : 300;
const SAMPLES = quick ? 15 : 40;
const LINES = quick ? 400 : 2_000;
const FILE = 'src/app.ts';
const USER_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'Dana', GIT_AUTHOR_EMAIL: 'dana@example.com', GIT_COMMITTER_NAME: 'Dana', GIT_COMMITTER_EMAIL: 'dana@example.com' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: USER_ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

const BLAME = `query B($projectId: String!, $path: String!) { project(projectId: $projectId) { blame(path: $path) { startLine endLine lines origin turnNumber session { sessionId } commit { sha headline } } } }`;

const root = await realpath(await mkdtemp(join(tmpdir(), 'em-bench-blame-')));
let server: RunningServer | undefined;
try {
  const workdir = join(root, 'shop');
  mkdirSync(join(workdir, 'src'), { recursive: true });
  const lines = Array.from({ length: LINES }, (_, i) => `export const line${i} = ${i};`);
  const write = () => writeFileSync(join(workdir, FILE), `${lines.join('\n')}\n`);
  git(workdir, 'init', '-q', '-b', 'main');
  write();
  git(workdir, 'add', '-A');
  git(workdir, 'commit', '-q', '-m', 'Start');

  server = await startServer({ ...benchConfig(join(root, 'data')), allowedRoots: [root] }, createLogger('silent'), {
    projectCommitter: { settleMs: 20, settleAttempts: 3, retryBaseMs: 50, retryMaxMs: 200 },
  });
  const url = server.url;
  const post = <T>(query: string, variables: Record<string, unknown> = {}) => postGraphQL<T>(url, query, variables);
  const { createProject } = await post<{ createProject: { projectId: string } }>(`mutation C($w: String!) { createProject(input: { name: "shop", workdir: $w }) { projectId } }`, { w: workdir });
  const projectId = createProject.projectId;
  await post(`mutation S($p: String!) { createSession(input: { sessionId: "agent", projectId: $p }) { sessionId } }`, { p: projectId });

  const started = performance.now();
  for (let turn = 1; turn <= TURNS; turn++) {
    for (let k = 0; k < 6; k++) {
      const at = (turn * 37 + k * 61) % LINES;
      lines[at] = `export const line${at} = ${turn * 1000 + k}; // turn ${turn}`;
    }
    write();
    const startedAt = new Date().toISOString();
    await post(`mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`, {
      input: { sessionId: 'agent', user: { content: `turn ${turn}` }, assistant: { content: 'done' }, touchedPaths: [FILE], startedAt },
    });
    // The turn's commit is made in the background: wait for it before anyone changes the file again.
    for (;;) {
      const { session } = await post<{ session: { turns: { edges: { node: { projectCommit: { result: string } | null } }[] } } }>(
        `query T($n: String!) { session(sessionId: "agent") { turns(after: $n, first: 1) { edges { node { projectCommit { result } } } } } }`,
        { n: Buffer.from(`turn:${turn - 1}`).toString('base64url') },
      );
      const result = session.turns.edges[0]?.node.projectCommit?.result;
      if (result && result !== 'PENDING') {
        if (result !== 'COMMITTED') throw new Error(`turn ${turn}: ${result}`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (turn % 5 === 0) {
      const at = (turn * 13) % LINES;
      lines[at] = `export const line${at} = -${turn}; // the user's`;
      write();
      git(workdir, 'commit', '-q', '-am', `User change ${turn}`);
    }
  }
  const setupSeconds = (performance.now() - started) / 1000;

  const check = await post<{ project: { blame: { origin: string; lines: string[] }[] } }>(BLAME, { projectId, path: FILE });
  const ranges = check.project.blame;
  const agentLines = ranges.filter((r) => r.origin === 'AGENT').reduce((n, r) => n + r.lines.length, 0);
  const userLines = ranges.filter((r) => r.origin === 'USER').reduce((n, r) => n + r.lines.length, 0);
  if (agentLines + userLines !== LINES || agentLines === 0 || userLines === 0) throw new Error(`blame: ${agentLines} agent and ${userLines} user lines of ${LINES}`);

  const ours: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 5; i++) {
    await post(BLAME, { projectId, path: FILE });
    git(workdir, 'blame', '--porcelain', FILE);
  }
  for (let i = 0; i < SAMPLES; i++) {
    const first = i % 2 === 0;
    const a = async () => ours.push(await timed(() => post(BLAME, { projectId, path: FILE })));
    const b = async () => bare.push(await timed(async () => git(workdir, 'blame', '--porcelain', FILE)));
    if (first) {
      await a();
      await b();
    } else {
      await b();
      await a();
    }
  }
  const p50 = (xs: number[]) => percentile(xs, 50);
  console.log(`blame benchmark: ${LINES}-line file, ${TURNS} agent turns and ${TURNS / 5} user commits (set up in ${fmt(setupSeconds, 1)} s); ${ranges.length} ranges, ${agentLines} agent lines, ${userLines} user lines`);
  console.log(`  (a) Project.blame over HTTP        p50 ${fmt(p50(ours), 1).padStart(6)} ms   p95 ${fmt(percentile(ours, 95), 1).padStart(6)} ms`);
  console.log(`  (b) git blame --porcelain spawned  p50 ${fmt(p50(bare), 1).padStart(6)} ms   p95 ${fmt(percentile(bare, 95), 1).padStart(6)} ms`);
  console.log(`  ratio p50 (a) / (b): ${(p50(ours) / p50(bare)).toFixed(2)} (target <= 1.5)`);
} finally {
  await server?.stop();
  await rm(root, { recursive: true, force: true });
}
