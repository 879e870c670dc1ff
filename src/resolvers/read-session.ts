/**
 * Reading sessions, and a branch's messages and turns, page by page.
 */
import type { Message, Prisma, Session, Turn } from '../generated/prisma/client.js';
import type { Db } from '../db/index.js';
import { NotFoundError } from '../errors.js';
import { assertValidId } from '../ids.js';
import { branchSegments, messageFilter, turnFilter, type Segment } from './branch-path.js';
import { decodeIntCursor, decodeNewestFirst, encodeCursor, encodeNewestFirst, pageSize, toPage, type Page, type PageArgs } from './page.js';

export async function getSession(
  db: Db,
  sessionId: string,
  query: Omit<Prisma.SessionFindUniqueArgs, 'where'> = {},
): Promise<Session | null> {
  assertValidId(sessionId, 'sessionId');
  return db.session.findUnique({ ...query, where: { sessionId } });
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
  let where = base;
  if (args.after) {
    const { createdAt: at, id } = decodeNewestFirst(args.after, 'session');
    where = { AND: [base, { OR: [{ createdAt: { lt: at } }, { createdAt: at, sessionId: { lt: id } }] }] };
  }
  const fetched = await db.session.findMany({
    ...query,
    where,
    orderBy: [{ createdAt: 'desc' }, { sessionId: 'desc' }],
    take: size + 1,
  });
  return toPage(
    fetched,
    size,
    Boolean(args.after),
    (s) => encodeNewestFirst('session', s.createdAt, s.sessionId),
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
  const after = args.after ? decodeIntCursor(args.after, 'seq') : null;
  const fetched = await db.message.findMany({
    ...query,
    where: after === null ? filter : { AND: [filter, { seq: { gt: after } }] },
    orderBy: { seq: 'asc' },
    take: size + 1,
  });
  return toPage(fetched, size, after !== null, (m) => encodeCursor('seq', m.seq), () => db.message.count({ where: filter }));
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
  const after = args.after ? decodeIntCursor(args.after, 'turn') : null;
  const fetched = await db.turn.findMany({
    ...query,
    where: after === null ? filter : { AND: [filter, { number: { gt: after } }] },
    orderBy: { number: 'asc' },
    take: size + 1,
  });
  return toPage(fetched, size, after !== null, (t) => encodeCursor('turn', t.number), () => db.turn.count({ where: filter }));
}
