/**
 * Full-text search over every session's messages: the query (query.ts) asked of the database's
 * own index, kept by the database in the transaction of every write of a message (SQLite: the
 * FTS5 table "MessageSearch" and its triggers; PostgreSQL: the generated column
 * "Message"."searchVector" and its GIN index; both made by the *_message_search migrations), so a
 * message is findable once its write is acknowledged. Ranked (bm25 on SQLite, ts_rank on
 * PostgreSQL: the text weighs 1, the tools' names and inputs 0.4), newest first among equals; a
 * query with more than RANKED_MATCHES matches ranks its newest RANKED_MATCHES (rankedIds).
 */
import { sep } from 'node:path';
import type { Message, Prisma, Session } from '../../generated/prisma/client.js';
import type { Db } from '../../db/index.js';
import { dialectOf, placeholders } from '../../db/dialect.js';
import { BadUserInputError } from '../../errors.js';
import { assertValidId } from '../../ids.js';
import { decodeIntCursor, encodeCursor, type Page } from '../page.js';
import { fts5Query, indexWords, parseQuery, tsQuery, type SearchRole, type SearchTerm } from './query.js';
import { readableText } from './readable.js';
import { snippetOf, type TextRange } from './snippet.js';

export const DEFAULT_SEARCH_PAGE = 20;
export const MAX_SEARCH_PAGE = 100;
/** How many of a query's newest matches are ranked (rankedIds): its pages go this deep. */
export const RANKED_MATCHES = 2_000;
/** How deep a search pages: a ranked list is read from its start each time. */
export const MAX_SEARCH_OFFSET = RANKED_MATCHES;
const CURSOR_KIND = 'search';

export interface SearchFilter {
  projectId?: string | null;
  sessionId?: string | null;
  /** A session's agentId, or for an import without one its source (as the sessions list filters). */
  agent?: string | null;
  role?: SearchRole | null;
  /** As the query's tool:. */
  toolName?: string | null;
  since?: Date | null;
  until?: Date | null;
}

export interface SearchArgs {
  query: string;
  filter?: SearchFilter | null;
  first?: number | null;
  after?: string | null;
}

export interface SearchHit {
  message: Message;
  session: Session;
  /** The number of the turn the message was recorded in; null outside a turn. */
  turnNumber: number | null;
  snippet: string;
  highlights: TextRange[];
  rank: number;
}

interface Plan {
  terms: SearchTerm[];
  role: SearchRole | null;
  sessions: string[];
  filter: SearchFilter;
}

/** The columns of a hit's message the snippet is made from, read whatever else a caller selects. */
const SNIPPET_COLUMNS = { id: true, sessionId: true, turnId: true, content: true, toolName: true, metadata: true } as const;

/**
 * A page of hits for `args.query`, ranked, with offset cursors (a page read again after new
 * messages may shift by their number). `messageSelect`: the columns and relations of the hits'
 * messages to read (the API passes its selection, so a message is read once; every column when
 * omitted); the snippet's columns are read as well.
 * @throws BadUserInputError for a malformed query (naming where), filter or page argument.
 */
export async function searchMessages(db: Db, args: SearchArgs, messageSelect?: Prisma.MessageSelect): Promise<Page<SearchHit>> {
  const parsed = parseQuery(args.query);
  const filter = args.filter ?? {};
  for (const field of ['projectId', 'sessionId', 'agent'] as const) {
    const value = filter[field];
    if (value != null) assertValidId(value, `filter.${field}`);
  }
  if (parsed.session !== null) assertValidId(parsed.session, 'query');
  if (filter.role != null && parsed.role !== null && filter.role !== parsed.role) return emptyPage();
  const terms = [...parsed.terms];
  if (filter.toolName != null) {
    const words = indexWords(filter.toolName);
    if (words.length === 0) throw new BadUserInputError(`filter.toolName ${JSON.stringify(filter.toolName)} has no letter or digit.`, { field: 'filter.toolName' });
    terms.push({ words, prefix: false, negated: false, inTools: true });
  }
  const first = args.first ?? DEFAULT_SEARCH_PAGE;
  if (!Number.isInteger(first) || first < 0 || first > MAX_SEARCH_PAGE) {
    throw new BadUserInputError(`first must be from 0 to ${MAX_SEARCH_PAGE}, got ${first}.`, { field: 'first' });
  }
  const offset = args.after != null ? decodeIntCursor(args.after, CURSOR_KIND) + 1 : 0;
  if (offset >= MAX_SEARCH_OFFSET) {
    throw new BadUserInputError(
      `Search ranks the ${MAX_SEARCH_OFFSET.toLocaleString('en-US')} newest matches, and pages go no deeper: add a word, or filter by date (since, until) to reach older messages.`,
      { field: 'after' },
    );
  }
  const plan: Plan = {
    terms,
    role: filter.role ?? parsed.role,
    sessions: [...new Set([filter.sessionId, parsed.session].filter((id): id is string => id != null))],
    filter,
  };
  const rows = first === 0 ? [] : await rankedIds(db, plan, first + 1, offset);
  const hasNextPage = rows.length > first;
  const hits = await hydrate(db, rows.slice(0, first), terms, messageSelect);
  const edges = hits.map((node, i) => ({ cursor: encodeCursor(CURSOR_KIND, offset + i), node }));
  return {
    edges,
    pageInfo: { hasNextPage, hasPreviousPage: offset > 0, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
    totalCount: () => countHits(db, plan),
  };
}

function emptyPage(): Page<SearchHit> {
  return { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }, totalCount: async () => 0 };
}

/**
 * The statement's FROM and WHERE for `plan`, with its parameters, its rank's expression, and the
 * placeholders' counter to number more after them; null when the plan finds nothing (two sessions).
 * `matched`: the statement has a match on the index (then `rank` ranks it, and on SQLite `s` is
 * the index's table, its rowid the message's).
 */
function statement(
  db: Db,
  plan: Plan,
): { from: string; where: string[]; params: unknown[]; rank: string; matched: boolean; p: ReturnType<typeof placeholders> } | null {
  const sqlite = dialectOf(db) === 'sqlite';
  const p = placeholders(db);
  const params: unknown[] = [];
  const where: string[] = [];
  let from: string;
  let rank: string;
  const compiled = sqlite ? fts5Query(plan.terms) : tsQuery(plan.terms);
  // On SQLite the role is in the index (its column role, lower-cased): with words to match, it is
  // asked there, one more word to find, not a read of every newer match's message (role:tool
  // error: 21 -> 8 ms of SQL); otherwise it is read from the messages.
  const roleInIndex = sqlite && compiled.match !== null ? plan.role : null;
  if (compiled.match !== null) {
    if (sqlite) {
      from = `"MessageSearch" s`;
      where.push(`"MessageSearch" MATCH ${p()}`);
      rank = `-bm25("MessageSearch", 1.0, 0.4, 0.0)`;
      params.push(roleInIndex !== null ? `(${compiled.match}) AND role : "${roleInIndex.toLowerCase()}"` : compiled.match);
    } else {
      from = `"Message" m CROSS JOIN to_tsquery('simple', ${p('text')}) q`;
      where.push(`m."searchVector" @@ q`);
      rank = `ts_rank(m."searchVector", q)`;
      params.push(compiled.match);
    }
  } else {
    from = `"Message" m`;
    rank = '0';
    if (compiled.exclude !== null) {
      where.push(
        sqlite
          ? `m.rowid NOT IN (SELECT rowid FROM "MessageSearch" WHERE "MessageSearch" MATCH ${p()})`
          : `NOT (m."searchVector" @@ to_tsquery('simple', ${p('text')}))`,
      );
      params.push(compiled.exclude);
    }
  }
  const { filter } = plan;
  if (plan.sessions.length > 1) return null;
  if (plan.sessions.length === 1) {
    where.push(`m."sessionId" = ${p('text')}`);
    params.push(plan.sessions[0]);
  }
  if (plan.role !== null && roleInIndex === null) {
    where.push(sqlite ? `m."role" = ${p()}` : `m."role" = ${p()}::"Role"`);
    params.push(plan.role);
  }
  if (filter.since != null) {
    where.push(`m."createdAt" >= ${p('timestamp')}`);
    params.push(filter.since);
  }
  if (filter.until != null) {
    where.push(`m."createdAt" < ${p('timestamp')}`);
    params.push(filter.until);
  }
  const bySession = filter.projectId != null || filter.agent != null;
  // On SQLite the index is joined to its messages only when a filter reads them (where[0] is the match).
  if (sqlite && compiled.match !== null && (where.length > 1 || bySession)) from += ` JOIN "Message" m ON m.rowid = s.rowid`;
  if (bySession) {
    from += ` JOIN "Session" se ON se."sessionId" = m."sessionId"`;
    if (filter.projectId != null) {
      where.push(`se."projectId" = ${p('text')}`);
      params.push(filter.projectId);
    }
    if (filter.agent != null) {
      where.push(`(se."agentId" = ${p('text')} OR (se."agentId" IS NULL AND se."source" = ${p('text')}))`);
      params.push(filter.agent, filter.agent);
    }
  }
  return { from, where, params, rank, matched: compiled.match !== null, p };
}

/**
 * The page's message ids and ranks. A query with words ranks its RANKED_MATCHES newest matches
 * (all of them when it has fewer): ranking every match of a word found in half of the messages
 * costs a read of each (300 ms at 250,000 messages), ranking the newest 2,000 a few ms,
 * and in a memory of what happened the newest are the likelier ones. The newest are taken in
 * the index's own order (SQLite: its rowids, the messages' order of writing, read backward;
 * PostgreSQL: "createdAt"), then ranked; equal ranks newest first.
 */
async function rankedIds(db: Db, plan: Plan, take: number, offset: number): Promise<{ id: string; rank: number }[]> {
  const built = statement(db, plan);
  if (built === null) return [];
  const { from, where, params, rank, matched, p } = built;
  const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  let sql: string;
  if (!matched) {
    // Nothing to rank (only -words, role:, session:): newest first.
    sql = `SELECT m."id" AS id, 0 AS rank FROM ${from}${whereSql} ORDER BY m."createdAt" DESC, m."id" DESC LIMIT ${p('int')} OFFSET ${p('int')}`;
  } else if (dialectOf(db) === 'sqlite') {
    // The rank is computed in the index's own query (bm25 is only known there), for the newest
    // only; the page is cut from them before their messages are read (1.5-3 ms less than reading
    // the ids of all RANKED_MATCHES and then sorting).
    const ranked = `SELECT s.rowid AS rid, ${rank} AS rank FROM ${from}${whereSql} ORDER BY s.rowid DESC LIMIT ${RANKED_MATCHES}`;
    sql =
      `SELECT m."id" AS id, c.rank AS rank FROM (SELECT rid, rank FROM (${ranked}) ORDER BY rank DESC, rid DESC LIMIT ${p('int')} OFFSET ${p('int')}) c` +
      ` JOIN "Message" m ON m.rowid = c.rid ORDER BY c.rank DESC, c.rid DESC`;
  } else {
    // The newest matches first (their tsvectors are not read to sort them), then their rank.
    sql =
      `SELECT c.id AS id, ts_rank(c.v, c.q) AS rank FROM (SELECT m."id" AS id, m."createdAt" AS at, m."searchVector" AS v, q FROM ${from}${whereSql}` +
      ` ORDER BY m."createdAt" DESC, m."id" DESC LIMIT ${RANKED_MATCHES}) c ORDER BY rank DESC, c.at DESC, c.id DESC LIMIT ${p('int')} OFFSET ${p('int')}`;
  }
  const rows = await db.$queryRawUnsafe<{ id: string; rank: number | string }[]>(sql, ...params, take, offset);
  return rows.map((row) => ({ id: row.id, rank: Number(row.rank) }));
}

async function countHits(db: Db, plan: Plan): Promise<number> {
  const built = statement(db, plan);
  if (built === null) return 0;
  const { from, where, params } = built;
  const sql = `SELECT count(*) AS n FROM ${from}` + (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '');
  const rows = await db.$queryRawUnsafe<{ n: number | bigint }[]>(sql, ...params);
  return Number(rows[0]?.n ?? 0);
}

/** The hits' messages, sessions, turn numbers and snippets, in rank order. */
async function hydrate(db: Db, rows: { id: string; rank: number }[], terms: readonly SearchTerm[], select?: Prisma.MessageSelect): Promise<SearchHit[]> {
  if (rows.length === 0) return [];
  const where = { id: { in: rows.map((r) => r.id) } };
  // With a selection, its columns and the snippet's; the hit's message is the row as read.
  const found = (select ? await db.message.findMany({ where, select: { ...select, ...SNIPPET_COLUMNS } }) : await db.message.findMany({ where })) as Message[];
  const messages = new Map(found.map((m) => [m.id, m]));
  const sessionIds = [...new Set([...messages.values()].map((m) => m.sessionId))];
  const turnIds = [...new Set([...messages.values()].flatMap((m) => (m.turnId ? [m.turnId] : [])))];
  // The three reads at once: each is a round trip to the database, and a search is asked as the user types.
  const [sessionRows, turnRows, projectRows] = await Promise.all([
    db.session.findMany({ where: { sessionId: { in: sessionIds } } }),
    turnIds.length === 0 ? [] : db.turn.findMany({ where: { id: { in: turnIds } }, select: { id: true, number: true } }),
    db.project.findMany({ where: { sessions: { some: { sessionId: { in: sessionIds } } } }, select: { projectId: true, workdir: true } }),
  ]);
  const sessions = new Map(sessionRows.map((s) => [s.sessionId, s]));
  const turns = new Map(turnRows.map((t) => [t.id, t.number]));
  const workdirs = new Map(projectRows.map((p) => [p.projectId, p.workdir]));
  const hits: SearchHit[] = [];
  for (const row of rows) {
    const message = messages.get(row.id);
    const session = message && sessions.get(message.sessionId);
    // Deleted between the two reads: left out.
    if (!message || !session) continue;
    // Shown as a person reads them: JSON (a hooked tool's result, the tool calls' inputs) as its
    // values, paths inside the session's project relative to it (as the session page shows them);
    // the tool's name once, when its calls already name it.
    const workdir = session.projectId === null ? undefined : workdirs.get(session.projectId);
    const read = (text: string) => withinProject(readableText(text), workdir);
    const calls = message.metadata === null ? '' : read(message.metadata);
    const named = message.toolName !== null && calls.split('\n').includes(message.toolName);
    const tools = [named ? null : message.toolName, calls].filter((part) => part).join('\n');
    hits.push({ message, session, turnNumber: message.turnId ? (turns.get(message.turnId) ?? null) : null, rank: row.rank, ...snippetOf(read(message.content), tools, terms) });
  }
  return hits;
}

/** `text` with the paths under `workdir` written relative to it (`/home/me/app/src/a.ts` -> `src/a.ts`). */
function withinProject(text: string, workdir: string | undefined): string {
  if (!workdir) return text;
  const base = workdir.endsWith(sep) ? workdir : `${workdir}${sep}`;
  return text.split(base).join('');
}
