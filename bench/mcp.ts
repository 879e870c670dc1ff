/**
 * Issue 29's goals for the MCP server, ratios in one run:
 * - each read tool's p50 over Streamable HTTP (the SDK's Client at /mcp) ≤ 1.3× the p50 of the
 *   same GraphQL operations sent to /graphql over HTTP (the tool runs them in process), with the
 *   same variables: search, list_sessions and get_turn on a session of 10,000 turns; get_turn_diff,
 *   read_file_at_turn and project_history on a project session whose turns were committed;
 * - the stdio relay an agent starts (what hooks install registers: bin/entity-memory-mcp.cjs) from
 *   its start to its answer to initialize ≤ 1.5× `node -e 0` from start to exit; and, for
 *   information, `entity-memory mcp` (the compiled command line, which runs the same relay).
 * Requests alternate (tool, GraphQL, tool, …) so load hits both alike.
 * Usage: npm run bench -- mcp [--quick]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { createLogger } from '../src/logger.js';
import {
  FileAtQuery,
  ProjectHistoryQuery,
  SearchQuery,
  SessionsQuery,
  TurnDiffQuery,
  TurnQuery,
  TurnStatesQuery,
} from '../src/mcp/operations.js';
import { encodeCursor } from '../src/services/page.js';
import { startServer } from '../src/server.js';
import { fillClosedTurns } from './fill-session.js';
import { benchConfig, fmt, percentile, postGraphQL, timed } from './stats.js';

const quick = process.argv.includes('--quick');
const LONG_TURNS = quick ? 2_000 : 10_000;
const PROJECT_TURNS = quick ? 10 : 20;
const ROUNDS = quick ? 15 : 40;
const STARTS = quick ? 5 : 15;
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');

const root = await mkdtemp(join(tmpdir(), 'em-bench-mcp-'));
const dataDir = join(root, 'data');
mkdirSync(dataDir);
const server = await startServer({ ...benchConfig(dataDir), allowedRoots: [root] }, createLogger('silent'));
console.log(`MCP tools against the same GraphQL operations; ${LONG_TURNS}-turn session, ${PROJECT_TURNS}-turn project session, ${ROUNDS} rounds; load average ${load()}`);

await fillClosedTurns(server.app.db, { sessionId: 'long', title: 'A long session', turns: LONG_TURNS, contentBytes: 400 });

// A project and a session whose turns each commit one more file, through recordTurn as an agent runtime does.
const repo = join(root, 'repo');
mkdirSync(repo);
const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 'Dana', GIT_AUTHOR_EMAIL: 'dana@example.com', GIT_COMMITTER_NAME: 'Dana', GIT_COMMITTER_EMAIL: 'dana@example.com' } });
git('init', '-q', '-b', 'main');
writeFileSync(join(repo, 'README.md'), '# bench\n');
git('add', '-A');
git('commit', '-q', '-m', 'initial');
const { createProject } = await postGraphQL<{ createProject: { projectId: string } }>(server.url, 'mutation($w: String!) { createProject(input: { name: "bench", workdir: $w }) { projectId } }', { w: repo });
await postGraphQL(server.url, 'mutation($p: String!) { createSession(input: { sessionId: "proj", projectId: $p }) { sessionId } }', { p: createProject.projectId });
for (let n = 1; n <= PROJECT_TURNS; n++) {
  const path = `src/module-${n}.ts`;
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, path), Array.from({ length: 200 }, (_, i) => `export const value${i} = ${n * i}; // the parser, step ${n}`).join('\n') + '\n');
  await postGraphQL(server.url, 'mutation($i: RecordTurnInput!) { recordTurn(input: $i) { number } }', {
    i: { sessionId: 'proj', user: { content: `refactor the parser, step ${n}` }, assistant: { content: `Wrote ${path}.` }, touchedPaths: [path] },
  });
}
// Every project commit made before measuring.
for (;;) {
  const data = await postGraphQL<{ session: { turns: { edges: { node: { projectCommit: { result: string } | null } }[] } } }>(
    server.url,
    'query { session(sessionId: "proj") { turns(first: 100) { edges { node { projectCommit { result } } } } } }',
  );
  if (data.session.turns.edges.every((e) => e.node.projectCommit && e.node.projectCommit.result !== 'PENDING')) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}

const client = new Client({ name: 'bench', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));

type Gql = [TypedDocumentNode<unknown, never>, Record<string, unknown>];
const middle = Math.floor(LONG_TURNS / 2);
const last = PROJECT_TURNS;
const cases: { name: string; args: Record<string, unknown>; graphql: Gql[] }[] = [
  {
    name: 'search',
    args: { query: 'parser', limit: 10 },
    graphql: [[SearchQuery as never, { query: 'parser', filter: {}, first: 10 }]],
  },
  { name: 'list_sessions', args: { limit: 20 }, graphql: [[SessionsQuery as never, { first: 20 }]] },
  {
    name: 'get_turn',
    args: { session: 'long', turn: middle },
    graphql: [[TurnQuery as never, { sessionId: 'long', after: encodeCursor('turn', middle - 1), first: 1 }]],
  },
  {
    name: 'get_turn_diff',
    args: { session: 'proj', turn: last },
    graphql: [[TurnDiffQuery as never, { sessionId: 'proj', after: encodeCursor('turn', last - 1), first: 1, withPatches: true }]],
  },
  {
    name: 'read_file_at_turn',
    args: { session: 'proj', turn: last, path: 'src/module-1.ts' },
    graphql: [
      [TurnStatesQuery as never, { sessionId: 'proj', before: encodeCursor('turn', last + 1), last: 100 }],
      [FileAtQuery as never, { sessionId: 'proj', after: encodeCursor('turn', last - 1), path: 'src/module-1.ts' }],
    ],
  },
  {
    name: 'project_history',
    args: { project: createProject.projectId, limit: 20 },
    graphql: [[ProjectHistoryQuery as never, { projectId: createProject.projectId, first: 20 }]],
  },
];

const texts = new Map(cases.map((c) => [c.name, c.graphql.map(([doc, vars]) => [print(doc), vars] as const)]));
const samples = new Map(cases.map((c) => [c.name, { tool: [] as number[], graphql: [] as number[] }]));
for (let round = 0; round < ROUNDS + 3; round++) {
  for (const c of cases) {
    const tool = await timed(async () => {
      const result = await client.callTool({ name: c.name, arguments: c.args });
      if (result.isError) throw new Error(`${c.name}: ${JSON.stringify(result.content)}`);
    });
    const graphql = await timed(async () => {
      for (const [query, variables] of texts.get(c.name)!) await postGraphQL(server.url, query, variables);
    });
    // The first rounds warm both paths (module loads, prepared statements).
    if (round >= 3) {
      samples.get(c.name)!.tool.push(tool);
      samples.get(c.name)!.graphql.push(graphql);
    }
  }
}
await client.close();

let failed = 0;
for (const c of cases) {
  const { tool, graphql } = samples.get(c.name)!;
  const ratio = percentile(tool, 50) / percentile(graphql, 50);
  const ok = ratio <= 1.3;
  if (!ok) failed += 1;
  console.log(
    `${c.name.padEnd(18)} tool p50 ${fmt(percentile(tool, 50), 2)} ms (p99 ${fmt(percentile(tool, 99), 1)})  GraphQL p50 ${fmt(percentile(graphql, 50), 2)} ms (p99 ${fmt(percentile(graphql, 99), 1)})  ${fmt(ratio, 2)}× (goal ≤ 1.3) ${ok ? 'met' : 'MISSED'}`,
  );
}

// The relay from its start to its answer to initialize, against `node -e 0` to its exit.
spawnSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'build-server.mjs')], { stdio: 'inherit' });
const relayArgs = [join(import.meta.dirname, '..', 'bin', 'entity-memory-mcp.cjs'), '--data-dir', dataDir];
const cliArgs = [join(import.meta.dirname, '..', 'bin', 'entity-memory.js'), 'mcp', '--data-dir', dataDir];
const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`;

function untilInitialized(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, LOG_LEVEL: 'silent' } });
  child.stdin.write(INITIALIZE);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      const ms = performance.now() - started;
      if (!out.includes('"result"')) reject(new Error(`initialize failed: ${out}`));
      child.stdin.end();
      child.once('close', () => resolve(ms));
    });
    child.once('error', reject);
  });
}

function nodeExit(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  return new Promise((resolve) => child.once('close', () => resolve(performance.now() - started)));
}

const starts: number[] = [];
const cliStarts: number[] = [];
const bare: number[] = [];
await untilInitialized(relayArgs);
await untilInitialized(cliArgs);
for (let i = 0; i < STARTS; i++) {
  bare.push(await nodeExit());
  starts.push(await untilInitialized(relayArgs));
  cliStarts.push(await untilInitialized(cliArgs));
}
const startRatio = percentile(starts, 50) / percentile(bare, 50);
if (startRatio > 1.5) failed += 1;
console.log(
  `stdio relay start   initialize answered p50 ${fmt(percentile(starts, 50), 1)} ms  node -e 0 p50 ${fmt(percentile(bare, 50), 1)} ms  ${fmt(startRatio, 2)}× (goal ≤ 1.5) ${startRatio <= 1.5 ? 'met' : 'MISSED'}`,
);
console.log(`entity-memory mcp   initialize answered p50 ${fmt(percentile(cliStarts, 50), 1)} ms  ${fmt(percentile(cliStarts, 50) / percentile(bare, 50), 2)}× node -e 0 (the command line first; information)`);
await server.stop();
console.log(`${failed === 0 ? 'every goal met' : `${failed} goal(s) missed`}; load average ${load()}`);
