/**
 * Reads that list: `sessions(first: 50)` with each session's turns and their
 * commits, timeline and mirror status, on 50 sessions of 100 closed, mirrored
 * turns; `Session.mirror` for the 50 sessions alone; and
 * `totalCount` of `messages(first: 50)`, of `turns(first: 50)` and of
 * `timeline(first: 50)` on a session of 10,000 turns against one of 10 (the
 * baseline), interleaved in one run. Each request goes through the
 * server's GraphQL handler in-process; SQL statements are counted at the
 * driver adapter (`onSqlStatement`), git processes at spawn (`onGitSpawn`).
 *
 * The same page with the turn commits' and the timeline's headlines (issue 31: ≤ 200 ms, no git).
 * Goals (issue 14): the page ≤ 200 ms and ≤ 20 statements, and as many
 * statements for 50 sessions as for 5; mirror ≤ 50 ms; each totalCount at
 * 10,000 turns within 1.2× of 10. Each line prints the figure, the goal and
 * their ratio.
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
async function measure(label: string, fn: () => Promise<unknown>, goal?: { ms?: number; statements?: number }): Promise<{ ms: number; statements: number }> {
  try {
    await fn();
  } catch (error) {
    const cost = /"cost":(\d+)/.exec(String(error))?.[1];
    console.log(`${label.padEnd(46)} refused${cost ? ` by the cost limit (cost ${cost})` : `: ${String(error).slice(0, 300)}`}`);
    return { ms: Number.NaN, statements: Number.NaN };
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
  if (goal?.ms !== undefined) verdicts.push(`${p50 <= goal.ms ? 'ok' : 'MISSED'} ≤ ${goal.ms} ms (×${(p50 / goal.ms).toFixed(2)} of it)`);
  if (goal?.statements !== undefined) {
    verdicts.push(`${perRound <= goal.statements ? 'ok' : 'MISSED'} ≤ ${goal.statements} statements (×${(perRound / goal.statements).toFixed(2)} of it)`);
  }
  console.log(
    `${label.padEnd(46)} p50 ${fmt(p50, 1).padStart(8)} ms  p99 ${fmt(percentile(times, 99), 1).padStart(8)} ms  ` +
      `${String(perRound).padStart(4)} SQL  ${String(gitPerRound).padStart(4)} git (${gitText})  ${verdicts.join(', ')}`,
  );
  return { ms: p50, statements: perRound };
}

try {
  const setupStart = Date.now();
  for (let s = 0; s < SESSIONS; s++) {
    const sessionId = `bench-reads-${String(s).padStart(2, '0')}`;
    await fillClosedTurns(deps.db, { sessionId, title: `reads ${s}`, turns: TURNS, contentBytes: 200 });
    await deps.repoLocks.run(sessionId, () => rebuildSession(deps, sessionId, { moveAside: false }));
  }
  for (const [sessionId, turns] of [['aa-short', 10], ['aa-long', LONG]] as const) {
    await fillClosedTurns(deps.db, { sessionId, title: sessionId, turns, contentBytes: 200 });
    // Mirrored too, so their timelines hold every turn.
    await deps.repoLocks.run(sessionId, () => rebuildSession(deps, sessionId, { moveAside: false }));
  }
  console.log(`setup: ${SESSIONS} sessions × ${TURNS} turns, sessions of 10 and ${fmt(LONG)} turns, all mirrored, in ${fmt((Date.now() - setupStart) / 1000, 1)} s`);
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
  const five = await measure(`the page, 5 sessions`, () => gql(page5));
  const fifty = await measure(`the page, ${SESSIONS} sessions`, () => gql(page), { ms: 200, statements: 20 });
  const grows = fifty.statements / five.statements;
  console.log(`  statements, ${SESSIONS} sessions against 5: ×${grows.toFixed(2)} (${grows <= 1 ? 'ok' : 'MISSED'}: the same whatever the page size)`);
  // Issue 31: the turn commits' and the timeline's headlines come from the database (no git process).
  const withHeadlines = page
    .replace('commit { sha shortSha }', 'commit { sha shortSha headline }')
    .replace('timeline(first: 10) { totalCount edges { node { sha } } }', 'timeline(first: 10) { totalCount edges { node { sha headline } } }');
  await measure(`the page with headlines, ${SESSIONS} sessions`, () => gql(withHeadlines), { ms: 200, statements: 20 });
  await measure(`Session.mirror of ${SESSIONS} sessions`, () => gql(mirrors), { ms: 50 });

  console.log(`\ntotalCount of a list of 50, 10 turns (baseline) against ${fmt(LONG)}, interleaved:`);
  for (const list of ['messages', 'turns', 'timeline']) {
    const count = (sessionId: string) => () => gql(`{ session(sessionId: "${sessionId}") { ${list}(first: 50) { totalCount } } }`);
    const expected = { messages: 2 * LONG, turns: LONG, timeline: LONG }[list];
    const got = await count('aa-long')() as { session: Record<string, { totalCount: number }> };
    if (got.session[list]?.totalCount !== expected) throw new Error(`${list} totalCount ${got.session[list]?.totalCount}, expected ${expected}`);
    await count('aa-short')();
    const short: number[] = [];
    const long: number[] = [];
    for (let r = 0; r < ROUNDS * 2; r++) {
      short.push(await timed(count('aa-short')));
      long.push(await timed(count('aa-long')));
    }
    const ratio = percentile(long, 50) / percentile(short, 50);
    console.log(
      `  ${`${list} { totalCount }`.padEnd(26)} 10 turns p50 ${fmt(percentile(short, 50), 2).padStart(6)} ms, ${fmt(LONG)} turns p50 ${fmt(percentile(long, 50), 2).padStart(6)} ms: ` +
        `×${ratio.toFixed(2)} (${ratio <= 1.2 ? 'ok' : 'MISSED'} ≤ 1.2×)`,
    );
  }
  console.log(`load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
} finally {
  await server.stop();
  await rm(root, { recursive: true, force: true });
}
