/**
 * How a mirror worker holds its sessions' leases when several instances share the database and
 * the sessions folder (the leases themselves: src/mirror/leases.ts). A session's lease is taken
 * when a turn of it is to be mirrored here or found waiting (a scan every `scanEveryMs`, which
 * is also how a dead instance's sessions are taken over once their lease expired); kept while
 * the session is active (one renewal of all leases every `leaseTtlMs / 3`); given up after
 * `idleReleaseMs` without work, and all at the worker's stop. A lease newly taken means its
 * previous holder may have died mid-pass: the worker forgets what it knew of the repo, and the
 * turns a dead holder recorded lately are announced again.
 */
import type { Db } from '../db/index.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { Logger } from '../logger.js';
import type { PubSub } from '../pubsub.js';
import { SessionLeases } from './leases.js';
import { publishCommitted } from './publish-committed.js';

/**
 * How an instance shares the mirroring with others (`MirrorWorkerOptions.shared`). Recording
 * commits checks, in the same transaction, that the lease is still this instance's. Start-up
 * runs no reconcile over all sessions (others own some): each is looked at when its lease is
 * taken.
 */
export interface SharedMirrorOptions {
  /** This instance's id; unique among the instances sharing the database (two with one id would both hold a lease). */
  instanceId: string;
  /** How long a lease lasts without renewal: a dead instance's sessions are taken over this long (plus one scan) after its last renewal. Default 5000 ms. */
  leaseTtlMs?: number;
  /** How long a session goes without work before its lease is given up. Default 10 000 ms. */
  idleReleaseMs?: number;
  /** How often sessions with turns waiting and no live lease (or ours) are looked for. Default 1000 ms. */
  scanEveryMs?: number;
}

/** What the holder asks of the worker it serves. None may throw. */
export interface LeaseHolderHooks {
  /** Whether a pass of the session runs, waits for a retry, or waits for the worker's start: its lease is kept. */
  busy(sessionId: string): boolean;
  /** Queue a pass of the session (a scan found it). */
  wake(sessionId: string): void;
  /** Another instance may have written the session's repo: open it afresh at the next pass. */
  forget(sessionId: string): void;
  /** Whether the worker has stopped (renewals and scans then do nothing). */
  stopped(): boolean;
}

export class LeaseHolder {
  /** The leases in the database, and which this instance holds. */
  readonly leases: SessionLeases;
  private readonly idleReleaseMs: number;
  private readonly scanEveryMs: number;
  /** When each held session last had work (epoch ms). */
  private readonly lastActive = new Map<string, number>();
  /** The lease tenure each session's running pass started under: its record is fenced on it. */
  private readonly passTenure = new Map<string, Date>();
  private readonly timers: NodeJS.Timeout[] = [];
  private renewing = false;
  private scanning = false;

  /** @param claimLimit sessions claimed per scan at most. */
  constructor(
    private readonly deps: { db: Db; logger: Logger; pubsub: PubSub },
    options: SharedMirrorOptions,
    private readonly claimLimit: number,
    private readonly hooks: LeaseHolderHooks,
  ) {
    this.leases = new SessionLeases(deps.db, deps.logger, { instanceId: options.instanceId, ttlMs: options.leaseTtlMs ?? 5000 });
    this.idleReleaseMs = options.idleReleaseMs ?? 10_000;
    this.scanEveryMs = options.scanEveryMs ?? 1000;
  }

  /** How many leases this instance holds. */
  get count(): number {
    return this.leases.count;
  }

  /** Whether this instance holds the session's lease now, by its own clock (no database). */
  holds(sessionId: string): boolean {
    return this.leases.holds(sessionId);
  }

  /** Starts the renewal and the scan, and runs the first scan. Never throws (a failed scan is logged). */
  async start(): Promise<void> {
    const every = (ms: number, tick: () => Promise<void>) => {
      const timer = setInterval(() => void tick(), ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(Math.max(1, Math.floor(this.leases.ttlMs / 3)), () => this.renew());
    every(this.scanEveryMs, () => this.scan());
    await this.scan();
  }

  /** Stops the renewal and the scan (the leases stay held until `releaseAll`). */
  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
  }

  /** Gives every lease up (another instance may claim them at once). Logs a failure, never throws. */
  releaseAll(): Promise<void> {
    return this.leases.release(this.leases.sessions());
  }

  /**
   * Runs `work` for a session whose lease this instance holds or can take now (at start-up, the
   * look at each repo that one server's reconcile does for all; a lease newly taken is a takeover
   * first), and gives the lease up again unless a pass was queued meanwhile (`work` queues one for
   * turns left waiting, so no other instance's scan takes the session in between); skips it
   * (false) when another instance holds it.
   * @throws what `work` throws, or the database's error when the lease cannot be asked for.
   */
  async whileLeased(sessionId: string, work: () => Promise<void>): Promise<boolean> {
    const outcome = await this.leases.acquire(sessionId);
    if (outcome === null) return false;
    if (outcome === 'acquired') await this.tookOver(sessionId);
    try {
      await work();
    } finally {
      if (!this.hooks.busy(sessionId)) await this.leases.release([sessionId]);
    }
    return true;
  }

  /**
   * Before a pass: whether this instance holds the session's lease, taking it when free (no
   * statement when held and not about to lapse); the pass's record is fenced on the tenure it
   * holds now. Logs a failure (the scan tries again while turns wait), never throws.
   */
  async take(sessionId: string): Promise<boolean> {
    if (this.leases.holds(sessionId)) {
      this.lastActive.set(sessionId, Date.now());
      this.passTenure.set(sessionId, this.leases.tenure(sessionId)!);
      return true;
    }
    try {
      const outcome = await this.leases.acquire(sessionId);
      if (outcome === null) {
        this.deps.logger.debug({ sessionId }, 'another instance holds the session\'s lease; left to it');
        return false;
      }
      if (outcome === 'acquired') await this.tookOver(sessionId);
      this.lastActive.set(sessionId, Date.now());
      this.passTenure.set(sessionId, this.leases.tenure(sessionId)!);
      return true;
    } catch (error) {
      this.deps.logger.warn({ err: error, sessionId }, 'could not take a session\'s lease; the scan tries again');
      return false;
    }
  }

  /** After a pass: the session is idle from now (its lease is given up after `idleReleaseMs`). */
  passEnded(sessionId: string): void {
    if (this.leases.holds(sessionId)) this.lastActive.set(sessionId, Date.now());
    this.passTenure.delete(sessionId);
  }

  /**
   * In the transaction recording a pass: checks that the lease is still this instance's, in the
   * tenure the pass started under, and extends it.
   * @throws LeaseLostError when it is not (the transaction then rolls back).
   */
  fence(tx: Prisma.TransactionClient, sessionId: string): Promise<void> {
    return this.leases.fence(tx, sessionId, this.passTenure.get(sessionId));
  }

  /** The session's lease turned out to be another instance's: this one no longer mirrors it. */
  lost(sessionId: string, why: string): void {
    // Another instance may write the repo from now on: open it afresh if it comes back.
    this.hooks.forget(sessionId);
    this.lastActive.delete(sessionId);
    this.deps.logger.warn({ sessionId, why }, 'lost a session\'s lease; this instance no longer mirrors it');
  }

  /**
   * Claims the sessions with turns due whose lease is missing or expired (a dead instance's: the
   * takeover) and wakes them, with those already ours that no pass or retry waits for. Logs a
   * failure, never throws.
   */
  async scan(): Promise<void> {
    if (this.scanning || this.hooks.stopped()) return;
    this.scanning = true;
    try {
      // Sessions draining or waiting for a retry here: no need to find them, nor to let them use up the limit.
      const busy = this.leases.sessions().filter((id) => this.hooks.busy(id));
      for (const { sessionId, outcome } of await this.leases.claimExpired(this.claimLimit, busy)) {
        if (outcome === 'acquired') await this.tookOver(sessionId);
        if (!this.hooks.busy(sessionId)) this.hooks.wake(sessionId);
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not look for sessions to mirror; looking again at the next scan');
    } finally {
      this.scanning = false;
    }
  }

  /**
   * Extends every lease held, drops those another instance took, and gives up those whose
   * session has been idle `idleReleaseMs`. Logs a failure (the leases then lapse by the clock and
   * passes stop before git until a renewal succeeds), never throws.
   */
  private async renew(): Promise<void> {
    if (this.renewing || this.hooks.stopped()) return;
    this.renewing = true;
    try {
      const lost = await this.leases.renewAll();
      for (const sessionId of lost) this.lost(sessionId, 'another instance took it over');
      const now = Date.now();
      const idle = this.leases.sessions().filter((id) => !this.hooks.busy(id) && now - (this.lastActive.get(id) ?? 0) >= this.idleReleaseMs);
      for (const id of idle) this.lastActive.delete(id);
      await this.leases.release(idle);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'could not renew session leases; mirroring of those sessions pauses until a renewal succeeds');
    } finally {
      this.renewing = false;
    }
  }

  /**
   * A lease newly taken: the previous holder may have died mid-pass, so its repo is opened as after
   * a restart; when the lease lapsed in another instance's hands (not given up), the turns that
   * instance recorded lately are announced again before any of this instance's:
   * it may have died between recording a commit and publishing it, and a subscriber must not
   * miss a turn. (Turns it committed in git but never recorded are recorded, and announced, by
   * the pass or the rebuild that finds them.) A subscriber may so get a
   * turn twice around a takeover, never a gap; the repeats come before the newer turns.
   */
  private async tookOver(sessionId: string): Promise<void> {
    this.hooks.forget(sessionId);
    this.deps.logger.debug({ sessionId }, 'took a session\'s lease; its repo is looked at before the first pass');
    // Only from an instance whose lease lapsed: one that gave its lease up had announced everything.
    if (!this.leases.takeAbandoned(sessionId)) return;
    try {
      // A dead holder recorded at most a lease's length before its lease expired; twice that, and a renewal's slack.
      const since = new Date(Date.now() - 3 * this.leases.ttlMs);
      const recent = await this.deps.db.turn.findMany({
        where: { sessionId, commitSha: { not: null }, mirroredAt: { gte: since } },
        orderBy: [{ mirroredAt: 'asc' }, { number: 'asc' }],
        select: { id: true, commitSha: true, branch: true },
      });
      await publishCommitted(this.deps, sessionId, recent.map((t) => ({ turnId: t.id, sha: t.commitSha!, branch: t.branch })));
    } catch (error) {
      this.deps.logger.warn({ err: error, sessionId }, 'could not announce again the turns a previous holder recorded lately');
    }
  }
}
