/**
 * Reads that list: `sessions(first: 50)` with each session's turns and their
 * commits, timeline and mirror status, on 50 sessions of 100 closed, mirrored
 * turns; `Session.mirror` for the 50 sessions alone; and
 * `messages(first: 50) { totalCount }` on a session of 10 turns against one of
 * 10,000 (the baseline), interleaved in one run. Each request goes through the
 * server's GraphQL handler in-process; SQL statements are counted at the
 * driver adapter (`onSqlStatement`), git processes at spawn (`onGitSpawn`).
 *
 * Goals (issue 14): the page ≤ 200 ms and ≤ 20 statements; mirror ≤ 50 ms;
 * totalCount at 10,000 turns within 1.2× of 10.
 * Usage: npm run bench -- reads [--quick]   (or npx tsx bench/reads.ts [--quick])
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { onSqlStatement } from '../src/db/index.js';
import { onGitSpawn, PER_CALL_CONFIG } from '../src/git/run.js';
import { createLogger } from '../src/logger.js';
import { rebuildSession } from '../src/mirror/rebuild.js';
import { startServer } from '../src/server.js';
import { fillClosedTurns } from './fill-session.js';
import { benchConfig, fmt, percentile, timed } from './stats.js';

const quick = process.argv.includes('--quick');
const SESSIONS = 50;
const TURNS = 100;
const LONG = quick ? 2_000 : 10_000;
const ROUNDS = quick ? 5 : 15;

const root = await mkdtemp(join(tmpdir(), 'em-bench-reads-'));
const config = benchConfig(join(root, 'data'));
const server = await startServer(config, createLogger('silent'));
const { deps } = server.app;

async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const response = await server.app.yoga.fetch('http://bench/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as { data?: T; errors?: unknown };
  if (result.errors || !result.data) throw new Error(JSON.stringify(result.errors ?? result).slice(0, 2000));
  return result.data;
}

let statements = 0;
const gitSeen = new Map<string, number>();
onSqlStatement(() => statements++);
const SUBCOMMAND_AT = 1 + PER_CALL_CONFIG.length;
onGitSpawn((e) => {
  const name = e.argv[SUBCOMMAND_AT] ?? '?';
  gitSeen.set(name, (gitSeen.get(name) ?? 0) + 1);
});

/** Time, statements and git processes of each round of `fn`, median time. */
async function measure(label: string, fn: () => Promise<unknown>, goal?: { ms?: number; statements?: number }) {
  try {
    await fn();
  } catch (error) {
    const cost = /"cost":(\d+)/.exec(String(error))?.[1];
    console.log(`${label.padEnd(46)} refused${cost ? ` by the cost limit (cost ${cost})` : `: ${String(error).slice(0, 300)}`}`);
    return Number.NaN;
  }
  const times: number[] = [];
  let perRound = 0;
  let gitPerRound = 0;
  for (let r = 0; r < ROUNDS; r++) {
    statements = 0;
    gitSeen.clear();
    times.push(await timed(fn));
    perRound = statements;
    gitPerRound = [...gitSeen.values()].reduce((a, b) => a + b, 0);
  }
  const p50 = percentile(times, 50);
  const gitText = [...gitSeen].map(([k, v]) => `${k}×${v}`).join(' ') || 'none';
  const verdicts: string[] = [];
  if (goal?.ms !== undefined) verdicts.push(`${p50 <= goal.ms ? 'ok' : 'MISSED'} ≤ ${goal.ms} ms`);
  if (goal?.statements !== undefined) verdicts.push(`${perRound <= goal.statements ? 'ok' : 'MISSED'} ≤ ${goal.statements} statements`);
  console.log(
    `${label.padEnd(46)} p50 ${fmt(p50, 1).padStart(8)} ms  p99 ${fmt(percentile(times, 99), 1).padStart(8)} ms  ` +
      `${String(perRound).padStart(4)} SQL  ${String(gitPerRound).padStart(4)} git (${gitText})  ${verdicts.join(', ')}`,
  );
  return p50;
}

try {
  const setupStart = Date.now();
  for (let s = 0; s < SESSIONS; s++) {
    const sessionId = `bench-reads-${String(s).padStart(2, '0')}`;
    await fillClosedTurns(deps.db, { sessionId, title: `reads ${s}`, turns: TURNS, contentBytes: 200 });
    await deps.repoLocks.run(sessionId, () => rebuildSession(deps, sessionId, { moveAside: false }));
  }
  await fillClosedTurns(deps.db, { sessionId: 'aa-short', title: 'short', turns: 10, contentBytes: 200 });
  await fillClosedTurns(deps.db, { sessionId: 'aa-long', title: 'long', turns: LONG, contentBytes: 200 });
  console.log(`setup: ${SESSIONS} sessions × ${TURNS} turns mirrored, sessions of 10 and ${fmt(LONG)} turns, in ${fmt((Date.now() - setupStart) / 1000, 1)} s`);
  console.log(`load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);

  const mirror = 'mirror { dagTurns gitCommits pending inSync lastError lastCommittedAt }';
  const page = `query Page { sessions(first: ${SESSIONS}) { totalCount edges { node { sessionId
    head { sha }
    turns(first: 10) { totalCount edges { node { number mirrorState commit { sha shortSha } } } }
    timeline(first: 10) { totalCount edges { node { sha } } }
    ${mirror} } } } }`;
  const page5 = page.replace(`first: ${SESSIONS}`, 'first: 5');
  const mirrors = `query Mirrors { sessions(first: ${SESSIONS}) { edges { node { sessionId ${mirror} } } } }`;
  const checked = await gql<{ sessions: { edges: { node: { mirror: { inSync: boolean; gitCommits: number } } }[] } }>(mirrors.replace(`first: ${SESSIONS}`, 'first: 10'));
  const notInSync = checked.sessions.edges.filter((e) => !e.node.mirror.inSync || e.node.mirror.gitCommits !== TURNS).length;
  if (notInSync > 0) throw new Error(`${notInSync} sessions not in sync after the rebuild`);

  console.log(`\nsessions(first: N) with head, turns(first: 10) { commit { sha } }, timeline(first: 10) { sha }, mirror:`);
  await measure(`the page, 5 sessions`, () => gql(page5));
  await measure(`the page, ${SESSIONS} sessions`, () => gql(page), { ms: 200, statements: 20 });
  await measure(`Session.mirror of ${SESSIONS} sessions`, () => gql(mirrors), { ms: 50 });

  console.log(`\nmessages(first: 50) { totalCount }, 10 turns against ${fmt(LONG)}, interleaved:`);
  const count = (sessionId: string) => () => gql(`{ session(sessionId: "${sessionId}") { messages(first: 50) { totalCount } } }`);
  const short: number[] = [];
  const long: number[] = [];
  await count('aa-short')();
  await count('aa-long')();
  for (let r = 0; r < ROUNDS * 2; r++) {
    short.push(await timed(count('aa-short')));
    long.push(await timed(count('aa-long')));
  }
  const ratio = percentile(long, 50) / percentile(short, 50);
  console.log(
    `  10 turns p50 ${fmt(percentile(short, 50), 2)} ms, ${fmt(LONG)} turns p50 ${fmt(percentile(long, 50), 2)} ms: ×${ratio.toFixed(2)} ` +
      `(${ratio <= 1.2 ? 'ok' : 'MISSED'} ≤ 1.2×)`,
  );
  console.log(`load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
} finally {
  await server.stop();
  await rm(root, { recursive: true, force: true });
}
