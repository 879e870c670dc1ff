/**
 * Per-session leases in the database (SessionLease), for several server
 * instances sharing one database and one sessions folder: one instance at a
 * time mirrors a given session. A lease lasts `ttlMs` unless renewed; any
 * instance may claim one that has expired (its holder died or lost the
 * database), so a dead instance's sessions are taken over about `ttlMs` after
 * its last renewal.
 *
 * The Prisma client API, so it behaves alike on SQLite and
 * PostgreSQL: a conditional `updateMany` (count 1: ours) and a `create` whose
 * unique violation means another instance holds it; only the takeover scan
 * on PostgreSQL is SQL of its own (`FOR UPDATE SKIP LOCKED`, claimExpiredLocked).
 * The instances' clocks
 * must agree to well under `ttlMs` (an expiry is written with the holder's
 * clock and read against the claimer's).
 */
import type { Db } from '../db/index.js';
import { Prisma } from '../generated/prisma/client.js';
import type { Logger } from '../logger.js';
import { dialectOf } from '../db/dialect.js';

/** A database write for a session whose lease this instance no longer holds: nothing was recorded. */
export class LeaseLostError extends Error {
  constructor(readonly sessionId: string) {
    super(`the lease on session ${sessionId} is no longer this instance's (another instance took it over); nothing was recorded`);
  }
}

/**
 * - `kept`: this instance held it already, with nothing done by another since (renewed).
 * - `acquired`: newly this instance's; whoever held it before may have died mid-pass.
 * - null: another instance holds it.
 */
export type LeaseOutcome = 'kept' | 'acquired' | null;

export interface SessionLeasesOptions {
  /** This instance's id, unique among the instances sharing the database. */
  instanceId: string;
  /** How long a lease lasts without renewal. */
  ttlMs: number;
}

/** A released lease keeps its row, expired since the epoch, so any instance may claim it. */
const RELEASED = new Date(0);

export class SessionLeases {
  /** Leases held, and until when (epoch ms by this clock, measured from before the write that extended it). */
  private readonly held = new Map<string, number>();
  /**
   * The tenure of each lease this process took and has not seen lost (held,
   * or released by itself): its `acquiredAt`, which only a new acquisition
   * changes. A row still ours with that tenure means nobody held it since, so
   * the repo needs no look as after a takeover; and a pass fences its record
   * on the tenure it started under, so a lease lost and taken again meanwhile
   * fails it (the pass read its jobs before another instance recorded them).
   */
  private readonly tenures = new Map<string, Date>();
  /** The last `acquiredAt` written: each tenure is distinct, even two in one millisecond. */
  private lastAcquiredAt = 0;
  /** The release being written, if any (an acquire waits for it). Never rejects. */
  private releasing: Promise<void> | null = null;
  /** Sessions taken over from an instance whose lease lapsed (see takeAbandoned). */
  private readonly abandoned = new Set<string>();
  readonly instanceId: string;
  readonly ttlMs: number;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    options: SessionLeasesOptions,
  ) {
    this.instanceId = options.instanceId;
    this.ttlMs = options.ttlMs;
  }

  /** How many leases this instance holds. */
  get count(): number {
    return this.held.size;
  }

  /** The sessions whose lease this instance holds. */
  sessions(): string[] {
    return [...this.held.keys()];
  }

  /** Whether this instance holds the session's lease now, by its own clock (no database). */
  holds(sessionId: string): boolean {
    return (this.held.get(sessionId) ?? 0) > Date.now();
  }

  /**
   * Takes the session's lease when it is free, expired or ours (extending it).
   * @throws when the database cannot be asked (nothing is held then).
   */
  async acquire(sessionId: string): Promise<LeaseOutcome> {
    const me = this.instanceId;
    const started = Date.now();
    const now = new Date(started);
    const expiresAt = new Date(started + this.ttlMs);
    // A release in flight must land before: it would expire what this takes.
    if (this.releasing) await this.releasing;
    const tenure = this.tenures.get(sessionId);
    if (tenure) {
      // Still ours, same tenure: nobody took it in between, whether it expired or not.
      const { count } = await this.db.sessionLease.updateMany({ where: { sessionId, owner: me, acquiredAt: tenure }, data: { expiresAt } });
      if (count === 1) {
        this.took(sessionId, started, tenure);
        return 'kept';
      }
      this.held.delete(sessionId);
      this.tenures.delete(sessionId);
    }
    // Another instance's lease that lapsed without being given up: that instance may have died between
    // recording a commit and announcing it (abandonedBy tells the worker, which announces again).
    const before = await this.db.sessionLease.findUnique({ where: { sessionId }, select: { owner: true, expiresAt: true } });
    const abandoned = before !== null && before.owner !== me && before.owner !== '' && before.expiresAt.getTime() > RELEASED.getTime() && before.expiresAt < now;
    const acquiredAt = new Date((this.lastAcquiredAt = Math.max(started, this.lastAcquiredAt + 1)));
    // Ours from an earlier run of this instance id counts as a takeover: that run may have died mid-pass.
    const take = () =>
      this.db.sessionLease.updateMany({
        where: { sessionId, OR: [{ owner: me }, { expiresAt: { lt: now } }] },
        data: { owner: me, expiresAt, acquiredAt },
      });
    const { count } = await take();
    if (count === 0) {
      try {
        await this.db.sessionLease.create({ data: { sessionId, owner: me, expiresAt, acquiredAt } });
      } catch (error) {
        if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')) throw error;
        // The row appeared meanwhile: another instance's lease, or only a scan's placeholder (released,
        // expired since the epoch, claimExpiredLocked) or this instance's own scan's claim, which are
        // as free or as ours as before. Looked at once more; only a live lease of another is refused.
        if ((await take()).count === 0) return null;
      }
    }
    this.took(sessionId, started, acquiredAt);
    if (abandoned) this.abandoned.add(sessionId);
    return 'acquired';
  }

  /**
   * Whether the lease this instance just took had lapsed in another instance's hands (not given
   * up): true once per such takeover.
   */
  takeAbandoned(sessionId: string): boolean {
    return this.abandoned.delete(sessionId);
  }

  /**
   * Notes a lease written as this instance's, with the expiry the write set
   * (`started`: the epoch ms just before it) and its `acquiredAt`. What a
   * replacement of `claimExpired` calls for each lease it takes.
   */
  took(sessionId: string, started: number, acquiredAt: Date): void {
    this.tenures.set(sessionId, acquiredAt);
    this.held.set(sessionId, started + this.ttlMs);
  }

  /** The tenure (`acquiredAt`) of the session's lease while this instance holds it. */
  tenure(sessionId: string): Date | undefined {
    return this.held.has(sessionId) ? this.tenures.get(sessionId) : undefined;
  }

  /**
   * Extends every lease held, in one statement (two when one was lost).
   * @returns the sessions whose lease turned out to be another's; they are no longer held.
   * @throws when the database cannot be asked: the leases then lapse by the clock unless a later renewal succeeds.
   */
  async renewAll(): Promise<string[]> {
    const ids = this.sessions();
    if (ids.length === 0) return [];
    const started = Date.now();
    const where = { sessionId: { in: ids }, owner: this.instanceId };
    const { count } = await this.db.sessionLease.updateMany({ where, data: { expiresAt: new Date(started + this.ttlMs) } });
    let lost: string[] = [];
    if (count < ids.length) {
      const ours = new Set((await this.db.sessionLease.findMany({ where, select: { sessionId: true } })).map((l) => l.sessionId));
      lost = ids.filter((id) => !ours.has(id));
    }
    for (const id of ids) {
      // One released or lost meanwhile stays so.
      if (this.held.has(id)) this.held.set(id, started + this.ttlMs);
    }
    for (const id of lost) {
      this.held.delete(id);
      this.tenures.delete(id);
    }
    return lost;
  }

  /**
   * Checks, inside the caller's transaction, that the session's lease is
   * still this instance's, in the tenure the caller's pass started under,
   * and extends it: the fence that keeps an instance whose lease was taken
   * over (even if taken back since) from recording.
   * @throws LeaseLostError when it is not (the transaction then rolls back).
   */
  async fence(tx: Prisma.TransactionClient, sessionId: string, tenure: Date | undefined): Promise<void> {
    if (!tenure) throw new LeaseLostError(sessionId);
    const started = Date.now();
    const { count } = await tx.sessionLease.updateMany({
      where: { sessionId, owner: this.instanceId, acquiredAt: tenure },
      data: { expiresAt: new Date(started + this.ttlMs) },
    });
    if (count !== 1) {
      if (this.tenures.get(sessionId) === tenure) {
        this.held.delete(sessionId);
        this.tenures.delete(sessionId);
      }
      throw new LeaseLostError(sessionId);
    }
    // Locally only once committed: a rolled-back extension must not make this instance count on it.
  }

  /** Gives the session's lease up (another instance may claim it at once). Logs a failure, never throws. */
  async release(sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length === 0) return;
    // At once, before any await: a drain starting now must not count on them. A row still
    // ours later (this release failed, or nobody claimed it since) is taken back as `kept`.
    for (const id of sessionIds) this.held.delete(id);
    const previous = this.releasing;
    const run = (async () => {
      await previous;
      try {
        await this.db.sessionLease.updateMany({ where: { sessionId: { in: [...sessionIds] }, owner: this.instanceId }, data: { expiresAt: RELEASED } });
      } catch (error) {
        // They expire by themselves in ttlMs.
        this.logger.warn({ err: error, sessions: sessionIds.length }, 'could not release session leases; they expire by themselves');
      }
    })();
    this.releasing = run;
    await run;
    if (this.releasing === run) this.releasing = null;
  }

  /** Forgets every lease without releasing it: what a dying process leaves (for tests). */
  forget(): void {
    this.held.clear();
    this.tenures.clear();
  }

  /**
   * Sessions with a job due whose lease is missing, expired, or this
   * instance's (held, or released and not claimed since): those this
   * instance may drain. One query. Leases are taken by the drain, so another
   * instance claiming one first simply wins it.
   * @param skip sessions not to return (this instance is draining them already), so they never use up `limit`.
   */
  async claimable(limit: number, skip: readonly string[] = []): Promise<string[]> {
    const now = new Date();
    // GROUP BY in the database (findMany's `distinct` would read every job and dedupe in memory).
    const jobs = await this.db.outboxJob.groupBy({
      by: ['sessionId'],
      where: {
        kind: 'SESSION',
        nextAttemptAt: { lte: now },
        ...(skip.length > 0 && { sessionId: { notIn: [...skip] } }),
        session: { OR: [{ lease: { is: null } }, { lease: { expiresAt: { lt: now } } }, { lease: { owner: this.instanceId } }] },
      },
      orderBy: { sessionId: 'asc' },
      take: limit,
    });
    return jobs.map((j) => j.sessionId);
  }

  /**
   * Claims up to `limit` of the sessions with a job due whose lease is
   * missing or expired (a dead instance's, the takeover), plus those already
   * ours. The one function to swap for a PostgreSQL claim (`FOR UPDATE SKIP
   * LOCKED`); a replacement notes each lease it takes with `took`, and
   * reports it `acquired` unless this instance held it already.
   * @param skip as for `claimable`.
   * @returns each session now ours, with how (`acquired`: taken over, look at its repo first).
   */
  async claimExpired(limit: number, skip: readonly string[] = []): Promise<{ sessionId: string; outcome: 'kept' | 'acquired' }[]> {
    if (dialectOf(this.db) === 'postgresql') return this.claimExpiredLocked(limit, skip);
    const claimed: { sessionId: string; outcome: 'kept' | 'acquired' }[] = [];
    for (const sessionId of await this.claimable(limit, skip)) {
      if (this.holds(sessionId)) {
        claimed.push({ sessionId, outcome: 'kept' });
        continue;
      }
      const outcome = await this.acquire(sessionId);
      if (outcome) claimed.push({ sessionId, outcome });
    }
    return claimed;
  }

  /**
   * `claimExpired` on PostgreSQL: the expired (or missing) leases of sessions with work due are
   * claimed in one transaction, their rows locked with `FOR UPDATE SKIP LOCKED`, so instances
   * scanning at the same moment each take different sessions instead of queueing on the same
   * rows (or failing over them), and a row another instance is renewing is passed over, not
   * waited for. Sessions without a lease row get one first (expired since the epoch), so every
   * claim goes through the same locked select.
   */
  private async claimExpiredLocked(limit: number, skip: readonly string[]): Promise<{ sessionId: string; outcome: 'kept' | 'acquired' }[]> {
    const claimed: { sessionId: string; outcome: 'kept' | 'acquired' }[] = [];
    const candidates: string[] = [];
    for (const sessionId of await this.claimable(limit, skip)) {
      if (this.holds(sessionId)) claimed.push({ sessionId, outcome: 'kept' });
      else candidates.push(sessionId);
    }
    if (candidates.length === 0) return claimed;
    if (this.releasing) await this.releasing;
    await this.db.$executeRawUnsafe(
      `INSERT INTO "SessionLease" ("sessionId", "owner", "expiresAt", "acquiredAt")
       SELECT id, '', $2::timestamp(3), $2::timestamp(3) FROM unnest($1::text[]) AS id ON CONFLICT ("sessionId") DO NOTHING`,
      candidates,
      RELEASED,
    );
    const started = Date.now();
    const acquiredAt = new Date((this.lastAcquiredAt = Math.max(started, this.lastAcquiredAt + 1)));
    const taken = await this.db.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<{ sessionId: string; owner: string; expiresAt: Date }[]>(
        `SELECT "sessionId", "owner", "expiresAt" FROM "SessionLease" WHERE "sessionId" = ANY($1::text[]) AND ("expiresAt" < $2::timestamp(3) OR "owner" = $3)
         ORDER BY "sessionId" FOR UPDATE SKIP LOCKED`,
        candidates,
        new Date(started),
        this.instanceId,
      );
      const ids = rows.map((row) => row.sessionId);
      for (const row of rows) {
        if (row.owner !== this.instanceId && row.owner !== '' && new Date(row.expiresAt).getTime() > RELEASED.getTime()) this.abandoned.add(row.sessionId);
      }
      if (ids.length > 0) {
        await tx.sessionLease.updateMany({
          where: { sessionId: { in: ids } },
          data: { owner: this.instanceId, expiresAt: new Date(started + this.ttlMs), acquiredAt },
        });
      }
      return ids;
    });
    for (const sessionId of taken) {
      this.took(sessionId, started, acquiredAt);
      claimed.push({ sessionId, outcome: 'acquired' });
    }
    return claimed;
  }
}
