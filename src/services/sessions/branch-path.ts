/**
 * A branch's history as database filters. A turn is created on one branch and
 * numbered along it, and a branch grows from a turn of another one, so the
 * turns on the path to a branch's tip are a few (branch, highest number)
 * segments: its own turns, then its parent branch's up to the fork point, and
 * so on. Queries stay indexed whatever the session's length.
 */
import type { Branch, Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db/index.js';
import { NotFoundError } from '../../errors.js';

type Reader = Pick<Db, 'branch' | 'turn'>;

export interface Segment {
  branch: string;
  /** Highest turn number of this branch on the path; null for all of them. */
  maxNumber: number | null;
}

/** A session's branches and the turns they grow from: what its paths are made of. */
export interface BranchRows {
  branches: Pick<Branch, 'name' | 'forkTurnId'>[];
  /** The fork turns by id (a branch grows from the turn after it). */
  forkTurns: Map<string, ForkTurn>;
}

export type ForkTurn = { id: string; branch: string; number: number; messagesThrough: number };

/** Loads `BranchRows` of a session: two queries (none for the fork turns when no branch has one). */
export async function loadBranchRows(db: Reader, sessionIds: readonly string[]): Promise<Map<string, BranchRows>> {
  const out = new Map<string, BranchRows>(sessionIds.map((id) => [id, { branches: [], forkTurns: new Map() }]));
  const branches = await db.branch.findMany({ where: { sessionId: { in: [...sessionIds] } }, select: { sessionId: true, name: true, forkTurnId: true } });
  for (const b of branches) out.get(b.sessionId)?.branches.push(b);
  const forkTurnIds = [...new Set(branches.map((b) => b.forkTurnId).filter((id): id is string => id !== null))];
  if (forkTurnIds.length > 0) {
    const turns = await db.turn.findMany({
      where: { id: { in: forkTurnIds } },
      select: { id: true, sessionId: true, branch: true, number: true, messagesThrough: true },
    });
    for (const { sessionId, ...turn } of turns) out.get(sessionId)?.forkTurns.set(turn.id, turn);
  }
  return out;
}

/**
 * @param upTo limit the path to the turns up to this one (replay of an older commit).
 * @throws NotFoundError for an unknown branch.
 */
export async function branchSegments(
  db: Reader,
  sessionId: string,
  branch: string,
  upTo?: { branch: string; number: number },
): Promise<Segment[]> {
  const rows = (await loadBranchRows(db, [sessionId])).get(sessionId)!;
  return segmentsOf(rows, sessionId, branch, upTo);
}

/** `branchSegments` from rows already loaded. @throws NotFoundError for an unknown branch. */
export function segmentsOf(rows: BranchRows, sessionId: string, branch: string, upTo?: { branch: string; number: number }): Segment[] {
  const byName = new Map(rows.branches.map((b) => [b.name, b]));
  if (!byName.has(branch)) {
    throw new NotFoundError(`Session ${sessionId} has no branch ${JSON.stringify(branch)}.`, { branch });
  }
  const segments: Segment[] = [];
  let name: string | undefined = upTo?.branch ?? branch;
  let limit: number | null = upTo?.number ?? null;
  const seen = new Set<string>();
  while (name !== undefined && !seen.has(name)) {
    seen.add(name);
    segments.push({ branch: name, maxNumber: limit });
    const fork: ForkTurn | undefined = rows.forkTurns.get(byName.get(name)?.forkTurnId ?? '');
    if (!fork) break;
    name = fork.branch;
    limit = limit === null ? fork.number : Math.min(limit, fork.number);
  }
  return segments;
}

export function turnFilter(sessionId: string, segments: Segment[]): Prisma.TurnWhereInput {
  return {
    sessionId,
    OR: segments.map((s) => ({ branch: s.branch, ...(s.maxNumber !== null ? { number: { lte: s.maxNumber } } : {}) })),
  };
}

/**
 * Messages on the path: those recorded in its turns, plus the user message a
 * retry answers (recorded in the turn it replaced). Only the first turn of a
 * retry branch answers such a message, so those few ids are looked up first:
 * a correlated "some turn answers this message" filter made SQLite rescan the
 * turns for every message (seconds at 10,000 turns).
 */
export async function messageFilter(
  db: Reader,
  sessionId: string,
  segments: Segment[],
): Promise<Prisma.MessageWhereInput> {
  const turns = turnFilter(sessionId, segments);
  const retries = segments.filter((s) => s.branch.startsWith('retry-'));
  const firsts = await Promise.all(
    retries.map((s) =>
      db.turn.findFirst({
        where: { sessionId, branch: s.branch, ...(s.maxNumber !== null ? { number: { lte: s.maxNumber } } : {}) },
        orderBy: { number: 'asc' },
        select: { userMessageId: true },
      }),
    ),
  );
  const answered = firsts.filter((t): t is { userMessageId: string } => t !== null).map((t) => t.userMessageId);
  return answered.length === 0 ? { sessionId, turn: turns } : { sessionId, OR: [{ turn: turns }, { id: { in: answered } }] };
}
