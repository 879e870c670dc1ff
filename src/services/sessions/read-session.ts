/**
 * Reading sessions, and a branch's messages and turns, page by page.
 */
import type { Message, Prisma, Session, Turn } from '../../generated/prisma/client.js';
import type { Db } from '../../db/index.js';
import { NotFoundError } from '../../errors.js';
import { assertValidId, isValidId } from '../../ids.js';
import { spendTextBytes } from '../../request-context.js';
import { messageFilter } from './branch-path.js';
import { SessionReads } from './session-reads.js';
import { Batcher, chunks } from '../batcher.js';
import { ascendingPage, countOnlyPage, isBackward, newestFirstPage, pageSize, seqRange, type Page, type PageArgs } from '../page.js';
import { placeholders } from '../../db/dialect.js';

export async function getSession(
  db: Db,
  sessionId: string,
  query: Omit<Prisma.SessionFindUniqueArgs, 'where'> = {},
): Promise<Session | null> {
  assertValidId(sessionId, 'sessionId');
  return db.session.findUnique({ ...query, where: { sessionId } });
}

/**
 * One message of a session by its messageId, on any branch, or null. How a
 * client that lost the answer to a write finds what the write stored.
 */
export async function getMessage(
  db: Db,
  sessionId: string,
  messageId: string,
  query: Omit<Prisma.MessageFindUniqueArgs, 'where'> = {},
): Promise<Message | null> {
  if (!isValidId(messageId)) return null;
  return db.message.findUnique({ ...query, where: { sessionId_messageId: { sessionId, messageId } } });
}

export async function requireSession(db: Db, sessionId: string): Promise<Session> {
  const session = await getSession(db, sessionId);
  if (!session) throw new NotFoundError(`Session ${JSON.stringify(sessionId)} does not exist.`, { sessionId });
  return session;
}

/** What a list of sessions can be narrowed to; each one given must hold. */
export interface SessionFilter {
  projectId?: string | null;
  /** The agent a session came from: its agentId, or its source when it has no agentId (an import). */
  agent?: string | null;
  /** Started at or after this time. */
  startedAfter?: Date | null;
  /** Started before this time. */
  startedBefore?: Date | null;
}

function sessionWhere(filter: SessionFilter): Prisma.SessionWhereInput {
  if (filter.projectId != null) assertValidId(filter.projectId, 'projectId');
  if (filter.agent != null) assertValidId(filter.agent, 'agent');
  const where: Prisma.SessionWhereInput[] = [];
  if (filter.projectId != null) where.push({ projectId: filter.projectId });
  if (filter.agent != null) where.push({ OR: [{ agentId: filter.agent }, { agentId: null, source: filter.agent }] });
  if (filter.startedAfter != null || filter.startedBefore != null) {
    where.push({ createdAt: { ...(filter.startedAfter != null && { gte: filter.startedAfter }), ...(filter.startedBefore != null && { lt: filter.startedBefore }) } });
  }
  return where.length === 1 ? where[0]! : { AND: where };
}

/** Sessions newest first, narrowed by `args`' filter. */
export async function listSessions(
  db: Db,
  args: PageArgs & SessionFilter,
  query: Omit<Prisma.SessionFindManyArgs, 'where' | 'orderBy' | 'take'> = {},
): Promise<Page<Session>> {
  const size = pageSize(args);
  const base = sessionWhere(args);
  return newestFirstPage(
    { size, after: args.after, before: args.before, backward: isBackward(args), kind: 'session', key: 'sessionId' },
    ({ after, orderBy, take }) => db.session.findMany({ ...query, where: after ? { AND: [base, after] } : base, orderBy, take }),
    () => db.session.count({ where: base }),
  );
}

/**
 * When each session last had something written: its newest message's time (the source's time
 * for an import or a hook event), or its start when it has none. One statement for a page of
 * sessions: the newest message is the one with the last seq handed out.
 */
/** Sessions per statement: each is one (sessionId, seq) pair of an OR, which SQLite nests one level deeper each. */
const ACTIVITY_BATCH = 100;

export class LastActivityLoader {
  private readonly batcher: Batcher<Pick<Session, 'sessionId' | 'nextSeq' | 'createdAt'>, Date>;

  constructor(db: Db) {
    this.batcher = new Batcher(async (sessions) => {
      const newest = new Map<string, Date>();
      for (const chunk of chunks(sessions.filter((s) => s.nextSeq > 1), ACTIVITY_BATCH)) {
        const rows = await db.message.findMany({
          where: { OR: chunk.map((s) => ({ sessionId: s.sessionId, seq: s.nextSeq - 1 })) },
          select: { sessionId: true, createdAt: true },
        });
        for (const row of rows) newest.set(row.sessionId, row.createdAt);
      }
      return sessions.map((s) => newest.get(s.sessionId) ?? s.createdAt);
    }, (s) => s.sessionId);
  }

  load(session: Pick<Session, 'sessionId' | 'nextSeq' | 'createdAt'>): Promise<Date> {
    return this.batcher.load(session);
  }
}

/**
 * Messages on the path to the tip of a branch, in seq order. The count is the
 * one kept on the path's newest turn.
 * @param reads the request's batched reads (a page of sessions shares them).
 */
export async function listBranchMessages(
  db: Db,
  session: Session,
  args: PageArgs & { branch?: string | null },
  query: Omit<Prisma.MessageFindManyArgs, 'where' | 'orderBy' | 'take'> = {},
  reads: SessionReads = new SessionReads(db),
): Promise<Page<Message>> {
  const size = pageSize(args);
  const branch = args.branch ?? session.currentBranch;
  const counts = settled(reads.pathCounts(session.sessionId, branch));
  const segments = await reads.segments(session.sessionId, branch);
  if (args.countOnly) return countOnlyPage(async () => (await counts).messages, args.after, 'seq');
  const filter = await messageFilter(db, session.sessionId, segments);
  return ascendingPage(
    { size, after: args.after, before: args.before, backward: isBackward(args), kind: 'seq', keyOf: (m) => m.seq },
    (range) =>
      db.message.findMany({
        // Content is loaded per message, within the request's text budget.
        ...(query.select ? {} : { omit: { content: true } }),
        ...query,
        ...seqRange(filter, range),
      }),
    async () => (await counts).messages,
  );
}

/**
 * Turns along a branch, oldest first. The count is the path's newest turn's
 * number (turns are numbered along their path).
 * @param reads the request's batched reads (a page of sessions shares them).
 */
export async function listBranchTurns(
  db: Db,
  session: Session,
  args: PageArgs & { branch?: string | null },
  query: Omit<Prisma.TurnFindManyArgs, 'where' | 'orderBy' | 'take'> = {},
  reads: SessionReads = new SessionReads(db),
): Promise<Page<Turn>> {
  const size = pageSize(args);
  const branch = args.branch ?? session.currentBranch;
  // Asked for with the branches, so a page of sessions reads both in the same statements.
  const counts = settled(reads.pathCounts(session.sessionId, branch));
  const segments = await reads.segments(session.sessionId, branch);
  if (args.countOnly) return countOnlyPage(async () => (await counts).turns, args.after, 'turn');
  return ascendingPage(
    { size, after: args.after, before: args.before, backward: isBackward(args), kind: 'turn', keyOf: (t) => t.number },
    async (range) => {
      if (!range.fromEnd) return reads.turnPage(session.sessionId, segments, range.after, range.take, query);
      // Turns are numbered 1, 2, … along the path: the last ones are a range of numbers.
      const end = range.before ?? (await counts).turns + 1;
      const above = Math.max(0, end - 1 - range.take);
      return (await reads.turnPage(session.sessionId, segments, above, end - 1 - above, query)).reverse();
    },
    async () => (await counts).turns,
  );
}

/**
 * A read started early whose answer may never be asked for (a totalCount not
 * selected): its failure is reported where it is awaited, not as an unhandled rejection.
 */
function settled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Ids per size and per text query: well under SQLite's limit on bound values. */
const CONTENT_BATCH = 500;

/**
 * Message content for one request. The messages whose content is asked for
 * in the same tick are loaded together, in two queries: their sizes first,
 * counted against the request's text budget in the order they were asked
 * for, then the text of those that fit. So no request, however many messages
 * of whatever size it selects, loads more text than its budget.
 */
export class MessageContentLoader {
  private readonly batcher: Batcher<string, string>;

  constructor(db: Db) {
    this.batcher = new Batcher((ids) => loadContents(db, ids));
  }

  /**
   * The content of message `id` (the internal key).
   * @throws TextBudgetError when it does not fit the request's text budget;
   *   NotFoundError when the message is gone.
   */
  load(id: string): Promise<string> {
    return this.batcher.load(id);
  }
}

async function loadContents(db: Db, ids: string[]): Promise<(string | Error)[]> {
  const sizes = new Map<string, number>();
  for (const chunk of chunks(ids, CONTENT_BATCH)) {
    const p = placeholders(db);
    const rows = await db.$queryRawUnsafe<{ id: string; bytes: number | bigint }[]>(
      `SELECT "id", octet_length("content") AS "bytes" FROM "Message" WHERE "id" IN (${chunk.map(() => p()).join(', ')})`,
      ...chunk,
    );
    for (const row of rows) sizes.set(row.id, Number(row.bytes));
  }
  const answers = new Map<string, string | Error>();
  const fitting: string[] = [];
  for (const id of ids) {
    const bytes = sizes.get(id);
    if (bytes === undefined) {
      answers.set(id, new NotFoundError(`Message ${id} no longer exists.`, { id }));
      continue;
    }
    try {
      spendTextBytes(bytes);
      fitting.push(id);
    } catch (error) {
      answers.set(id, error instanceof Error ? error : new Error(String(error)));
    }
  }
  for (const chunk of chunks(fitting, CONTENT_BATCH)) {
    const rows = await db.message.findMany({ where: { id: { in: chunk } }, select: { id: true, content: true } });
    for (const row of rows) answers.set(row.id, row.content);
  }
  return ids.map((id) => answers.get(id) ?? new NotFoundError(`Message ${id} no longer exists.`, { id }));
}
