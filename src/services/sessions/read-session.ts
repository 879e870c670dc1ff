/**
 * Reading sessions, and a branch's messages and turns, page by page.
 */
import type { Message, Prisma, Session, Turn } from '../../generated/prisma/client.js';
import type { Db } from '../../db/index.js';
import { NotFoundError } from '../../errors.js';
import { assertValidId, isValidId } from '../../ids.js';
import { spendTextBytes } from '../../request-context.js';
import { branchSegments, messageFilter, turnFilter, type Segment } from '../replay/branch-path.js';
import { ascendingPage, newestFirstPage, pageSize, type Page, type PageArgs } from '../page.js';

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

/** Sessions newest first, optionally of one project. */
export async function listSessions(
  db: Db,
  args: PageArgs & { projectId?: string | null },
  query: Omit<Prisma.SessionFindManyArgs, 'where' | 'orderBy' | 'take'> = {},
): Promise<Page<Session>> {
  const size = pageSize(args);
  if (args.projectId != null) assertValidId(args.projectId, 'projectId');
  const base: Prisma.SessionWhereInput = args.projectId != null ? { projectId: args.projectId } : {};
  return newestFirstPage(
    { size, after: args.after, kind: 'session', key: 'sessionId' },
    ({ after, orderBy, take }) => db.session.findMany({ ...query, where: after ? { AND: [base, after] } : base, orderBy, take }),
    () => db.session.count({ where: base }),
  );
}

/** The segments of `branch` (the session's current branch when null). */
export async function segmentsFor(db: Db, session: Session, branch: string | null | undefined): Promise<Segment[]> {
  return branchSegments(db, session.sessionId, branch ?? session.currentBranch);
}

/** Messages on the path to the tip of a branch, in seq order. */
export async function listBranchMessages(
  db: Db,
  session: Session,
  args: PageArgs & { branch?: string | null },
  query: Omit<Prisma.MessageFindManyArgs, 'where' | 'orderBy' | 'take'> = {},
): Promise<Page<Message>> {
  const size = pageSize(args);
  const filter = await messageFilter(db, session.sessionId, await segmentsFor(db, session, args.branch));
  return ascendingPage(
    { size, after: args.after, kind: 'seq', keyOf: (m) => m.seq },
    (after, take) =>
      db.message.findMany({
        // Content is loaded per message, within the request's text budget.
        ...(query.select ? {} : { omit: { content: true } }),
        ...query,
        where: after === null ? filter : { AND: [filter, { seq: { gt: after } }] },
        orderBy: { seq: 'asc' },
        take,
      }),
    () => db.message.count({ where: filter }),
  );
}

/** Turns along a branch, oldest first. */
export async function listBranchTurns(
  db: Db,
  session: Session,
  args: PageArgs & { branch?: string | null },
  query: Omit<Prisma.TurnFindManyArgs, 'where' | 'orderBy' | 'take'> = {},
): Promise<Page<Turn>> {
  const size = pageSize(args);
  const filter = turnFilter(session.sessionId, await segmentsFor(db, session, args.branch));
  return ascendingPage(
    { size, after: args.after, kind: 'turn', keyOf: (t) => t.number },
    (after, take) =>
      db.turn.findMany({ ...query, where: after === null ? filter : { AND: [filter, { number: { gt: after } }] }, orderBy: { number: 'asc' }, take }),
    () => db.turn.count({ where: filter }),
  );
}

/** Ids per size and per text query: well under SQLite's limit on bound values. */
const CONTENT_BATCH = 500;

interface ContentWaiter {
  resolve: (content: string) => void;
  reject: (error: unknown) => void;
}

/**
 * Message content for one request. The messages whose content is asked for
 * in the same tick are loaded together, in two queries: their sizes first,
 * counted against the request's text budget in the order they were asked
 * for, then the text of those that fit. So no request, however many messages
 * of whatever size it selects, loads more text than its budget.
 */
export class MessageContentLoader {
  private pending: Map<string, ContentWaiter[]> | null = null;

  constructor(private readonly db: Db) {}

  /**
   * The content of message `id` (the internal key).
   * @throws TextBudgetError when it does not fit the request's text budget;
   *   NotFoundError when the message is gone.
   */
  load(id: string): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.pending === null) {
        this.pending = new Map();
        process.nextTick(() => void this.flush());
      }
      const waiters = this.pending.get(id);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(id, [{ resolve, reject }]);
    });
  }

  private async flush(): Promise<void> {
    const pending = this.pending!;
    this.pending = null;
    const ids = [...pending.keys()];
    try {
      const sizes = new Map<string, number>();
      for (let i = 0; i < ids.length; i += CONTENT_BATCH) {
        const chunk = ids.slice(i, i + CONTENT_BATCH);
        const rows = await this.db.$queryRawUnsafe<{ id: string; bytes: number | bigint }[]>(
          `SELECT "id", octet_length("content") AS "bytes" FROM "Message" WHERE "id" IN (${chunk.map(() => '?').join(', ')})`,
          ...chunk,
        );
        for (const row of rows) sizes.set(row.id, Number(row.bytes));
      }
      const fitting: string[] = [];
      for (const id of ids) {
        const bytes = sizes.get(id);
        if (bytes === undefined) {
          for (const w of pending.get(id)!) w.reject(new NotFoundError(`Message ${id} no longer exists.`, { id }));
          continue;
        }
        try {
          spendTextBytes(bytes);
          fitting.push(id);
        } catch (error) {
          for (const w of pending.get(id)!) w.reject(error);
        }
      }
      for (let i = 0; i < fitting.length; i += CONTENT_BATCH) {
        const rows = await this.db.message.findMany({
          where: { id: { in: fitting.slice(i, i + CONTENT_BATCH) } },
          select: { id: true, content: true },
        });
        for (const row of rows) for (const w of pending.get(row.id)!) w.resolve(row.content);
      }
    } catch (error) {
      // Settling twice is harmless: whoever was answered keeps that answer.
      for (const waiters of pending.values()) for (const w of waiters) w.reject(error);
    }
  }
}
