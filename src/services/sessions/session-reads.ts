/**
 * The reads behind a page of sessions (their branches, the ends of their
 * paths, a page of turns or of commits each), batched: the sessions of a page
 * asking in the same tick share one statement per kind of read, so a page
 * costs the same number of statements whatever its size. One per request.
 *
 * Counts come from what the database keeps, never from counting a path:
 * turns are numbered along their path (1, 2, ... with no gap), so the path to
 * a turn holds `number` turns and `messagesThrough` messages; and a turn is
 * committed only after its parent (src/mirror/turn-plan.ts), so the committed
 * turns on the path to a branch's newest committed turn are exactly that
 * turn's `number` ancestors-and-self.
 */
import type { Prisma, Turn } from '../../generated/prisma/client.js';
import type { Db } from '../../db/index.js';
import { Batcher, chunks } from '../batcher.js';
import { loadBranchRows, segmentsOf, type BranchRows, type ForkTurn, type Segment } from './branch-path.js';
import { placeholders } from '../../db/dialect.js';

/** Bound values per statement: well under SQLite's limit (32,766), for pages of up to 500 sessions in one. */
const ROWS_PER_STATEMENT = 3000;

/** The ends of a branch, from the database. */
export interface BranchEnds {
  /** Its highest-numbered turn (null before its first turn). */
  tip: { number: number; messagesThrough: number } | null;
  /** Its newest turn with a commit: the branch's tip in the session repo (null before its first commit). */
  committed: { number: number; commitSha: string; mirroredAt: Date | null } | null;
}

/** How far a path goes: the turns and messages on it, as kept. */
export interface PathCounts {
  turns: number;
  messages: number;
}

/**
 * Turns along a path numbered `above` < number <= `upTo`: as the numbers along
 * a path have no gap, any page of it is such a range, and so are its parts on
 * each branch of the path (one index range each).
 */
interface PathRange {
  sessionId: string;
  segments: Segment[];
  above: number;
  upTo: number;
}

/** The (branch, number range) parts of a path range: the part of each segment above the next one's. */
function rangeTerms(range: PathRange): { sessionId: string; branch: string; number: { gt: number; lte: number } }[] {
  return range.segments.flatMap((segment, i) => {
    const below = range.segments[i + 1]?.maxNumber ?? 0;
    const gt = Math.max(range.above, below);
    const lte = Math.min(range.upTo, segment.maxNumber ?? Number.MAX_SAFE_INTEGER);
    return gt < lte ? [{ sessionId: range.sessionId, branch: segment.branch, number: { gt, lte } }] : [];
  });
}

type SqlRow = Record<string, unknown>;

export class SessionReads {
  private readonly branchRows: Batcher<string, BranchRows>;
  private readonly branchEnds: Batcher<{ sessionId: string; branch: string }, BranchEnds>;
  private readonly commitPages: Batcher<PathRange, string[]>;
  /** One batch of pages per distinct selection (Pothos plans the same one for every row of a list). */
  private readonly turnPages = new Map<string, Batcher<PathRange, Turn[]>>();

  constructor(private readonly db: Db) {
    this.branchRows = new Batcher(async (ids) => {
      const rows = await loadBranchRows(db, ids);
      return ids.map((id) => rows.get(id)!);
    });
    this.branchEnds = new Batcher((keys) => this.loadEnds(keys), (k) => `${k.sessionId}\n${k.branch}`);
    this.commitPages = new Batcher(
      async (ranges) =>
        (await this.rangesOf(ranges)).map((rows) =>
          rows
            .filter((row) => row.commitSha !== null)
            .sort((a, b) => b.number - a.number)
            .map((row) => row.commitSha!),
        ),
      rangeKey,
    );
  }

  /** A session's branches and fork turns. */
  branches(sessionId: string): Promise<BranchRows> {
    return this.branchRows.load(sessionId);
  }

  /**
   * The segments of the path to `branch`'s tip (or to `upTo`).
   * @throws NotFoundError for an unknown branch.
   */
  async segments(sessionId: string, branch: string, upTo?: { branch: string; number: number }): Promise<Segment[]> {
    return segmentsOf(await this.branches(sessionId), sessionId, branch, upTo);
  }

  ends(sessionId: string, branch: string): Promise<BranchEnds> {
    return this.branchEnds.load({ sessionId, branch });
  }

  /**
   * The turns and messages on the path to `branch`'s tip: its highest-numbered
   * turn's, or for a branch without turns yet the turn it grows from.
   * @throws NotFoundError for an unknown branch.
   */
  async pathCounts(sessionId: string, branch: string): Promise<PathCounts> {
    const [rows, ends] = await Promise.all([this.branches(sessionId), this.ends(sessionId, branch)]);
    segmentsOf(rows, sessionId, branch);
    const forkTurnId = rows.branches.find((b) => b.name === branch)?.forkTurnId;
    const end: { number: number; messagesThrough: number } | ForkTurn | null =
      ends.tip ?? (forkTurnId ? (rows.forkTurns.get(forkTurnId) ?? null) : null);
    return { turns: end?.number ?? 0, messages: end?.messagesThrough ?? 0 };
  }

  /**
   * A page of turns along a path, oldest first: `take` of them numbered above `after` (from the
   * first when null), selected as `query` says (Pothos' plan of the GraphQL selection).
   */
  turnPage(
    sessionId: string,
    segments: Segment[],
    after: number | null,
    take: number,
    query: Omit<Prisma.TurnFindManyArgs, 'where' | 'orderBy' | 'take'> = {},
  ): Promise<Turn[]> {
    const key = JSON.stringify(query);
    let batcher = this.turnPages.get(key);
    if (!batcher) {
      // The id maps rows back to their pages, whatever the selection.
      const select = query.select ? { ...query.select, id: true } : undefined;
      batcher = new Batcher(async (ranges) => {
        const placed = await this.rangesOf(ranges);
        const found = new Map<string, Turn>();
        for (const slice of chunks(placed.flat().map((row) => row.id), ROWS_PER_STATEMENT)) {
          const rows = (await this.db.turn.findMany({ ...query, ...(select ? { select } : {}), where: { id: { in: slice } } })) as Turn[];
          for (const row of rows) found.set(row.id, row);
        }
        return placed.map((rows) => rows.sort((a, b) => a.number - b.number).flatMap((row) => found.get(row.id) ?? []));
      }, rangeKey);
      this.turnPages.set(key, batcher);
    }
    const above = after ?? 0;
    return batcher.load({ sessionId, segments, above, upTo: above + take });
  }

  /** Shas of a page of committed turns along a path, newest first: `take` of them numbered up to `upTo`. */
  commitShas(sessionId: string, segments: Segment[], upTo: number, take: number): Promise<string[]> {
    return this.commitPages.load({ sessionId, segments, above: Math.max(0, upTo - take), upTo });
  }

  /**
   * The turns of every range (id, number, commit), one statement for them all:
   * the (branch, number range) parts are a table of values joined to the turns,
   * one index range each, so the statement's text grows by a row per part only.
   */
  private async rangesOf(ranges: PathRange[]): Promise<{ id: string; number: number; commitSha: string | null }[][]> {
    const out: { id: string; number: number; commitSha: string | null }[][] = ranges.map(() => []);
    const parts = ranges.flatMap((range, k) => rangeTerms(range).map((term) => ({ k, ...term })));
    for (const slice of chunks(parts, ROWS_PER_STATEMENT / 5)) {
      const p = placeholders(this.db);
      const rows = await this.db.$queryRawUnsafe<SqlRow[]>(
        `WITH "r"("k", "s", "b", "gt", "lte") AS (VALUES ${slice.map(() => `(${p('int')}, ${p('text')}, ${p('text')}, ${p('int')}, ${p('int')})`).join(', ')})
         SELECT "r"."k" AS "k", t."id" AS "id", t."number" AS "number", t."commitSha" AS "commitSha"
         FROM "r" JOIN "Turn" t ON t."sessionId" = "r"."s" AND t."branch" = "r"."b" AND t."number" > "r"."gt" AND t."number" <= "r"."lte"`,
        ...slice.flatMap((p) => [p.k, p.sessionId, p.branch, p.number.gt, p.number.lte]),
      );
      for (const row of rows) {
        out[Number(row.k)]!.push({ id: String(row.id), number: Number(row.number), commitSha: row.commitSha === null ? null : String(row.commitSha) });
      }
    }
    return out;
  }

  private async loadEnds(keys: { sessionId: string; branch: string }[]): Promise<BranchEnds[]> {
    const out: BranchEnds[] = keys.map(() => ({ tip: null, committed: null }));
    for (const [c, slice] of chunks(keys, ROWS_PER_STATEMENT / 3).entries()) {
      // Per key, one probe of the (sessionId, branch, number) index for the newest turn, one walking back
      // from it past the few turns the mirror has not committed yet; the keys are a table of values, so
      // the statement's text grows by a row per key only (a union of sub-selects took longer to prepare than to run).
      const newest = (committedOnly: boolean) =>
        `(SELECT t."id" FROM "Turn" t WHERE t."sessionId" = k."s" AND t."branch" = k."b"${committedOnly ? ' AND t."commitSha" IS NOT NULL' : ''} ORDER BY t."number" DESC LIMIT 1)`;
      const p = placeholders(this.db);
      const rows = await this.db.$queryRawUnsafe<SqlRow[]>(
        `WITH k("k", "s", "b") AS (VALUES ${slice.map(() => `(${p('int')}, ${p('text')}, ${p('text')})`).join(', ')})
         SELECT k."k" AS "k", tip."number" AS "tipNumber", tip."messagesThrough" AS "tipMessages",
           c."number" AS "committedNumber", c."commitSha" AS "committedSha", c."mirroredAt" AS "committedAt"
         FROM k LEFT JOIN "Turn" tip ON tip."id" = ${newest(false)} LEFT JOIN "Turn" c ON c."id" = ${newest(true)}`,
        ...slice.flatMap((k, i) => [c * (ROWS_PER_STATEMENT / 3) + i, k.sessionId, k.branch]),
      );
      for (const row of rows) {
        const ends = out[Number(row.k)]!;
        if (row.tipNumber !== null) ends.tip = { number: Number(row.tipNumber), messagesThrough: Number(row.tipMessages) };
        if (row.committedSha !== null) {
          ends.committed = { number: Number(row.committedNumber), commitSha: String(row.committedSha), mirroredAt: sqlDate(row.committedAt) };
        }
      }
    }
    return out;
  }
}

/** A DateTime column read through a sub-select, which the driver hands over untyped (text, or a Date). */
function sqlDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  // SQLite gives what Prisma wrote (milliseconds or ISO text); PostgreSQL a Date, or text without a zone (UTC).
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?$/.test(value)) return sqlDate(`${value.replace(' ', 'T')}Z`);
  const date = new Date(typeof value === 'number' || typeof value === 'bigint' ? Number(value) : /^\d+$/.test(String(value)) ? Number(value) : String(value));
  return Number.isNaN(date.getTime()) ? null : date;
}

function rangeKey(range: PathRange): string {
  return JSON.stringify([range.sessionId, range.segments, range.above, range.upTo]);
}
