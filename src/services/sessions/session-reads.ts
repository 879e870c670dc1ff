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
import { loadBranchRows, segmentsOf, type BranchRows, type ForkTurn, type Segment } from '../replay/branch-path.js';

/** Sub-selects per compound statement: under SQLite's 500 (SQLITE_MAX_COMPOUND_SELECT). */
const KEYS_PER_STATEMENT = 200;

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

interface PathPage {
  sessionId: string;
  segments: Segment[];
  /** Turns with a number above this only (ascending), or up to it (descending); null: from the start. */
  from: number | null;
  take: number;
}

type SqlRow = Record<string, unknown>;

export class SessionReads {
  private readonly branchRows: Batcher<string, BranchRows>;
  private readonly branchEnds: Batcher<{ sessionId: string; branch: string }, BranchEnds>;
  private readonly turnPages: Batcher<PathPage, string[]>;
  private readonly commitPages: Batcher<PathPage, string[]>;
  /** One batch of rows per distinct selection (Pothos plans the same one for every row of a list). */
  private readonly turnRows = new Map<string, Batcher<string, Turn | null>>();

  constructor(private readonly db: Db) {
    this.branchRows = new Batcher(async (ids) => {
      const rows = await loadBranchRows(db, ids);
      return ids.map((id) => rows.get(id)!);
    });
    this.branchEnds = new Batcher((keys) => this.loadEnds(keys), (k) => `${k.sessionId}\n${k.branch}`);
    this.turnPages = new Batcher((pages) => this.loadPages(pages, 'ASC', 'id'), pageKey);
    this.commitPages = new Batcher((pages) => this.loadPages(pages, 'DESC', 'commitSha'), pageKey);
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

  /** Ids of a page of turns along a path, oldest first: those numbered above `from`, `take` of them. */
  turnIds(sessionId: string, segments: Segment[], from: number | null, take: number): Promise<string[]> {
    return this.turnPages.load({ sessionId, segments, from, take });
  }

  /** Shas of a page of committed turns along a path, newest first: those numbered up to `from`, `take` of them. */
  commitShas(sessionId: string, segments: Segment[], from: number | null, take: number): Promise<string[]> {
    return this.commitPages.load({ sessionId, segments, from, take });
  }

  /** Turns by id, in that order, selected as `query` says (Pothos' plan of the GraphQL selection). */
  async turns(ids: string[], query: Omit<Prisma.TurnFindManyArgs, 'where' | 'orderBy' | 'take'> = {}): Promise<Turn[]> {
    const key = JSON.stringify(query);
    let batcher = this.turnRows.get(key);
    if (!batcher) {
      batcher = new Batcher(async (wanted) => {
        const found = new Map<string, Turn>();
        for (const slice of chunks(wanted, 500)) {
          // The id maps rows back to their callers, whatever the selection.
          const select = query.select ? { ...query.select, id: true } : undefined;
          const rows = (await this.db.turn.findMany({ ...query, ...(select ? { select } : {}), where: { id: { in: slice } } })) as Turn[];
          for (const row of rows) found.set(row.id, row);
        }
        return wanted.map((id) => found.get(id) ?? null);
      });
      this.turnRows.set(key, batcher);
    }
    const rows = await Promise.all(ids.map((id) => batcher.load(id)));
    // A turn is never deleted; one missing would be a row read between two writes' statements.
    return rows.filter((row): row is Turn => row !== null);
  }

  private async loadEnds(keys: { sessionId: string; branch: string }[]): Promise<BranchEnds[]> {
    const out: BranchEnds[] = keys.map(() => ({ tip: null, committed: null }));
    for (const [c, slice] of chunks(keys, KEYS_PER_STATEMENT).entries()) {
      // One probe of the (sessionId, branch, number) index per value; the committed one walks back past
      // the few turns the mirror has not committed yet.
      const newest = (column: string, committedOnly: boolean) =>
        `(SELECT "${column}" FROM "Turn" WHERE "sessionId" = ? AND "branch" = ?${committedOnly ? ' AND "commitSha" IS NOT NULL' : ''} ORDER BY "number" DESC LIMIT 1)`;
      const one = `SELECT ? AS "k", ${newest('number', false)} AS "tipNumber", ${newest('messagesThrough', false)} AS "tipMessages", ${newest('number', true)} AS "committedNumber", ${newest('commitSha', true)} AS "committedSha", ${newest('mirroredAt', true)} AS "committedAt"`;
      const params = slice.flatMap((k, i) => [c * KEYS_PER_STATEMENT + i, ...Array<string>(5).fill('').flatMap(() => [k.sessionId, k.branch])]);
      const rows = await this.db.$queryRawUnsafe<SqlRow[]>(slice.map(() => one).join(' UNION ALL '), ...params);
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

  /** Pages along paths: one sub-select per page, each walking the index from its start. */
  private async loadPages(pages: PathPage[], order: 'ASC' | 'DESC', column: 'id' | 'commitSha'): Promise<string[][]> {
    const out: { number: number; value: string }[][] = pages.map(() => []);
    for (const [c, slice] of chunks(pages, KEYS_PER_STATEMENT).entries()) {
      const params: unknown[] = [];
      const selects = slice.map((page, i) => {
        params.push(c * KEYS_PER_STATEMENT + i, page.sessionId);
        const path = page.segments.map((s) => {
          params.push(s.branch);
          if (s.maxNumber === null) return '"branch" = ?';
          params.push(s.maxNumber);
          return '("branch" = ? AND "number" <= ?)';
        });
        let from = '';
        if (page.from !== null) {
          params.push(page.from);
          from = ` AND "number" ${order === 'ASC' ? '>' : '<='} ?`;
        }
        params.push(page.take);
        return (
          `SELECT * FROM (SELECT ? AS "k", "number", "${column}" AS "value" FROM "Turn" WHERE "sessionId" = ? AND (${path.join(' OR ')})` +
          `${column === 'commitSha' ? ' AND "commitSha" IS NOT NULL' : ''}${from} ORDER BY "number" ${order} LIMIT ?)`
        );
      });
      const rows = await this.db.$queryRawUnsafe<SqlRow[]>(selects.join(' UNION ALL '), ...params);
      for (const row of rows) out[Number(row.k)]!.push({ number: Number(row.number), value: String(row.value) });
    }
    return out.map((rows) => rows.sort((a, b) => (order === 'ASC' ? a.number - b.number : b.number - a.number)).map((r) => r.value));
  }
}

/** A DateTime column read through a sub-select, which the driver hands over untyped (text, or a Date). */
function sqlDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  const date = new Date(typeof value === 'number' || typeof value === 'bigint' ? Number(value) : /^\d+$/.test(String(value)) ? Number(value) : String(value));
  return Number.isNaN(date.getTime()) ? null : date;
}

function pageKey(page: PathPage): string {
  return JSON.stringify([page.sessionId, page.segments, page.from, page.take]);
}
