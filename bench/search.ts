/**
 * Full-text search on SQLite and on PostgreSQL, in one run each:
 *  (1) `search` through the HTTP API on 250,000 messages (500 sessions of 500), first page of 20:
 *      one common word, one rare word, two words, a phrase, a prefix, and qualifiers (role:, path:),
 *      p50 and p95 (issue 28: <= 20 and <= 50 ms); baseline: `{ __typename }` to the same server;
 *  (2) `recordTurn` with the index against the same server's database without it (SQLite: its
 *      triggers dropped; PostgreSQL: its column dropped; both: the index on Message.createdAt),
 *      alternated (issue 28: <= 1.10x);
 *  (3) building the index for the 250,000 messages already there (issue 28: <= 60 s).
 * The corpus is this repository's own text: each message a window of 40 to 400 words of its
 * sources and README (code, paths, prose), every fifth a tool call naming one of its files.
 * Usage: npm run bench -- search [--quick] [--messages N] [--sqlite-only | --postgresql-only]   (or npx tsx bench/search.ts)
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { withPostgresClient } from '../src/db/postgresql.js';
import { dialectOf } from '../src/db/dialect.js';
import { newId } from '../src/ids.js';
import { createLogger } from '../src/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { corpus, random } from './corpus.js';
import { benchConfig, fmt, percentile, postGraphQL, timed } from './stats.js';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, messages: { type: 'string' }, 'sqlite-only': { type: 'boolean', default: false }, 'postgresql-only': { type: 'boolean', default: false } } });
const ROOT = join(import.meta.dirname, '..');
const MESSAGES = Number(values.messages ?? (values.quick ? 25_000 : 250_000));
const PER_SESSION = 500;
const SAMPLES = values.quick ? 15 : 40;
const TURN_SAMPLES = values.quick ? 40 : 150;
const adminUrl = process.env.ENTITY_MEMORY_BENCH_POSTGRESQL_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

async function fill(server: RunningServer, words: string[], files: string[]): Promise<void> {
  const db = server.app.deps.db;
  const next = random(42);
  const base = Date.UTC(2026, 0, 1);
  for (let s = 0; s < MESSAGES / PER_SESSION; s++) {
    const sessionId = `bench-${s}`;
    await db.session.create({ data: { sessionId, title: `Session ${s}`, agentId: s % 2 ? 'claude-code' : 'codex', createdAt: new Date(base + s * 60_000), branches: { create: { name: 'main', kind: 'MAIN', createdAt: new Date(base) } } } });
    const rows = Array.from({ length: PER_SESSION }, (_, i) => {
      const length = 40 + Math.floor(next() * 360);
      const at = Math.floor(next() * (words.length - length));
      const role = i % 5 === 4 ? 'TOOL' : i % 2 ? 'ASSISTANT' : 'USER';
      const file = files[Math.floor(next() * files.length)]!;
      return {
        id: newId(),
        sessionId,
        messageId: newId(),
        seq: i + 1,
        role: role as 'TOOL' | 'ASSISTANT' | 'USER',
        content: words.slice(at, at + length).join(' '),
        toolName: role === 'TOOL' ? 'Read' : null,
        metadata: role === 'ASSISTANT' && i % 10 === 3 ? JSON.stringify({ toolCalls: [{ id: `toolu_${i}`, name: 'Edit', input: { file_path: file } }] }) : null,
        createdAt: new Date(base + s * 60_000 + i * 1000),
      };
    });
    for (let i = 0; i < rows.length; i += 250) await db.message.createMany({ data: rows.slice(i, i + 250) });
    await db.session.update({ where: { sessionId }, data: { nextSeq: PER_SESSION + 1 } });
  }
}

const SEARCH = `query S($query: String!) { search(query: $query, first: 20) { edges { node { rank turnNumber snippet highlights { start end } message { messageId } session { sessionId } } } } }`;

const COUNT = `query C($query: String!) { search(query: $query, first: 0) { totalCount } }`;

async function measure(label: string, server: RunningServer): Promise<{ rows: string[]; worstP50: number; worstP95: number }> {
  const post = <T>(query: string, variables: Record<string, unknown> = {}) => postGraphQL<T>(server.url, query, variables);
  const queries = ['session', 'idempotent', 'project commit', '"the agent"', 'redact*', 'role:tool error', 'path:src/schema', 'turn -branch'];
  const baseline: number[] = [];
  const rows: string[] = [];
  let worstP50 = 0;
  let worstP95 = 0;
  for (let i = 0; i < 5; i++) for (const q of queries) await post(SEARCH, { query: q });
  for (const q of queries) {
    const xs: number[] = [];
    let hits = 0;
    for (let i = 0; i < SAMPLES; i++) {
      baseline.push(await timed(() => post('{ __typename }')));
      xs.push(await timed(async () => (hits = (await post<{ search: { edges: unknown[] } }>(SEARCH, { query: q })).search.edges.length)));
    }
    const p50 = percentile(xs, 50);
    const p95 = percentile(xs, 95);
    worstP50 = Math.max(worstP50, p50);
    worstP95 = Math.max(worstP95, p95);
    rows.push(`  ${label.padEnd(11)} ${q.padEnd(20)} ${String(hits).padStart(3)} hits   p50 ${fmt(p50, 1).padStart(6)} ms   p95 ${fmt(p95, 1).padStart(6)} ms`);
  }
  const counts: number[] = [];
  for (let i = 0; i < SAMPLES; i++) counts.push(await timed(() => post(COUNT, { query: 'session' })));
  rows.push(`  ${label.padEnd(11)} ${'session (its count)'.padEnd(20)}   totalCount p50 ${fmt(percentile(counts, 50), 1).padStart(6)} ms   p95 ${fmt(percentile(counts, 95), 1).padStart(6)} ms (the UI asks it after the page)`);
  rows.push(`  ${label.padEnd(11)} ${'{ __typename }'.padEnd(20)} baseline   p50 ${fmt(percentile(baseline, 50), 1).padStart(6)} ms   p95 ${fmt(percentile(baseline, 95), 1).padStart(6)} ms`);
  return { rows, worstP50, worstP95 };
}

/** recordTurn on `indexed` against `bare` (the index removed), alternated: p50 each. */
async function recordTurnRatio(indexed: RunningServer, bare: RunningServer): Promise<{ withIndex: number; without: number }> {
  const samples = { withIndex: [] as number[], without: [] as number[] };
  for (const server of [indexed, bare]) await postGraphQL(server.url, 'mutation { createSession(input: { sessionId: "rt" }) { sessionId } }');
  const words = corpus().words;
  const next = random(7);
  const text = () => {
    const at = Math.floor(next() * (words.length - 300));
    return words.slice(at, at + 40 + Math.floor(next() * 200)).join(' ');
  };
  const input = () => ({ sessionId: 'rt', user: { content: text() }, assistant: { content: text() }, toolResults: [{ content: text(), toolName: 'Read' }, { content: text(), toolName: 'Bash' }] });
  const record = (server: RunningServer) => postGraphQL(server.url, 'mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number } }', { input: input() });
  for (let i = 0; i < 10; i++) await Promise.all([record(indexed), record(bare)]);
  for (let i = 0; i < TURN_SAMPLES; i++) {
    const [first, second] = i % 2 ? ([['without', bare], ['withIndex', indexed]] as const) : ([['withIndex', indexed], ['without', bare]] as const);
    samples[first[0]].push(await timed(() => record(first[1])));
    samples[second[0]].push(await timed(() => record(second[1])));
  }
  return { withIndex: percentile(samples.withIndex, 50), without: percentile(samples.without, 50) };
}

/** Removes the index, and the one search's newest matches are read by, from a server's database (what recordTurn is compared against). */
async function dropIndex(server: RunningServer): Promise<void> {
  const db = server.app.deps.db;
  await db.$executeRawUnsafe('DROP INDEX "Message_createdAt_idx"');
  if (dialectOf(db) === 'sqlite') {
    for (const trigger of ['Message_search_insert', 'Message_search_update', 'Message_search_delete']) await db.$executeRawUnsafe(`DROP TRIGGER "${trigger}"`);
  } else {
    await db.$executeRawUnsafe('ALTER TABLE "Message" DROP COLUMN "searchVector"');
  }
}

/**
 * Builds the index again for every message there, as its migration builds it for the messages
 * stored before: ms. SQLite: the index emptied, then the migration's INSERT ... SELECT (the
 * triggers stay). PostgreSQL: the column dropped, then the migration's ADD COLUMN and CREATE INDEX.
 */
async function rebuildIndex(server: RunningServer): Promise<number> {
  const db = server.app.deps.db;
  const sqlite = dialectOf(db) === 'sqlite';
  const file = sqlite ? 'prisma/migrations/20261207180000_message_search_json/migration.sql' : 'prisma/postgresql/migrations/20261207180000_message_search_json/migration.sql';
  const sql = readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n');
  let statements: string[];
  if (sqlite) {
    await db.$executeRawUnsafe('DELETE FROM "MessageSearch"');
    statements = [sql.slice(sql.lastIndexOf('INSERT INTO "MessageSearch"')).trim()];
  } else {
    await db.$executeRawUnsafe('ALTER TABLE "Message" DROP COLUMN "searchVector"');
    statements = sql.split(/;\s*(?:\n|$)/).map((statement) => statement.trim()).filter(Boolean);
  }
  return timed(async () => {
    for (const statement of statements) await db.$executeRawUnsafe(statement);
  });
}

async function freshPostgres(): Promise<string> {
  const name = `em_bench_search_${process.pid}_${Date.now()}`;
  await withPostgresClient(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  dropLater.push(name);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
const dropLater: string[] = [];

const roots: string[] = [];
const servers: RunningServer[] = [];
async function start(databaseUrl?: string): Promise<RunningServer> {
  const root = await mkdtemp(join(tmpdir(), 'em-bench-search-'));
  roots.push(root);
  const server = await startServer({ ...benchConfig(join(root, 'data')), ...(databaseUrl ? { databaseUrl } : {}) }, createLogger('silent'));
  servers.push(server);
  return server;
}

try {
  const { words, files } = corpus();
  console.log(`search benchmark: ${fmt(MESSAGES)} messages (${fmt(MESSAGES / PER_SESSION)} sessions of ${PER_SESSION}) from ${fmt(words.length)} words of this repository; ${SAMPLES} samples a query`);
  const summary: string[] = [];
  for (const which of values['sqlite-only'] ? (['sqlite'] as const) : values['postgresql-only'] ? (['postgresql'] as const) : (['sqlite', 'postgresql'] as const)) {
    const url = () => (which === 'postgresql' ? freshPostgres() : Promise.resolve(undefined));
    const server = await start(await url());
    const filled = await timed(() => fill(server, words, files));
    console.log(`\n${which}: ${fmt(MESSAGES)} messages written in ${fmt(filled / 1000, 1)} s (index kept while writing)`);
    // The planner's statistics, as autovacuum gathers them within a minute of such a fill: without
    // them PostgreSQL takes every word for a rare one (it chooses how to find the newest matches by them).
    if (which === 'postgresql') await server.app.deps.db.$executeRawUnsafe('ANALYZE "Message"');
    const { rows, worstP50, worstP95 } = await measure(which, server);
    for (const row of rows) console.log(row);
    const build = await rebuildIndex(server);
    console.log(`  index built for the ${fmt(MESSAGES)} messages already there: ${fmt(build / 1000, 1)} s (target <= 60 s)`);
    const indexed = await start(await url());
    const bare = await start(await url());
    await dropIndex(bare);
    const turn = await recordTurnRatio(indexed, bare);
    console.log(`  recordTurn p50: ${fmt(turn.withIndex, 2)} ms with the index, ${fmt(turn.without, 2)} ms without: ${(turn.withIndex / turn.without).toFixed(2)}x (target <= 1.10)`);
    summary.push(
      `${which}: worst query p50 ${fmt(worstP50, 1)} ms (<= 20), p95 ${fmt(worstP95, 1)} ms (<= 50); build ${fmt(build / 1000, 1)} s (<= 60); recordTurn ${(turn.withIndex / turn.without).toFixed(2)}x (<= 1.10)`,
    );
  }
  console.log(`\n${summary.join('\n')}`);
} finally {
  for (const server of servers) await server.stop().catch(() => {});
  for (const root of roots) await rm(root, { recursive: true, force: true });
  for (const name of dropLater) await withPostgresClient(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => {});
}
