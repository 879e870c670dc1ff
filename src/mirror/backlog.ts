/**
 * Backpressure on acknowledgements when the mirror falls behind (issue 31).
 *
 * The turns this server acknowledged through a request (recordTurn, endTurn, retryTurn, a hook's
 * Stop) whose commit has not been announced yet are the backlog. Past `limit` of them, the next
 * acknowledgements wait, after the write is durable, until the backlog is back at `limit` or
 * `maxWaitMs` have passed, whichever comes first: writers that outrun the mirror are slowed to its
 * pace instead of leaving it minutes behind, and a mirror that is stuck (a repo lock held, git
 * hung) costs an acknowledgement at most `maxWaitMs`, never more.
 *
 * - A turn leaves the backlog when its commit is announced (`turnCommitted`, from this server or,
 *   through Redis, another one), or after `forgetAfterMs` in any case (an announcement lost with a
 *   server that died).
 * - A session whose commit failed (`mirrorFailed`) is retried with backoff, and waiting would not
 *   make that faster: its turns leave the backlog (the later ones wait behind the failing one), and
 *   its closes are not counted until a commit of it is announced again.
 * - Imports are not paced (they write thousands of turns at once, and have their own progress);
 *   their turns are not counted either, so a large import never slows a live agent's hook.
 *   They do queue ahead of it in the mirror, which takes sessions in turn.
 * - The wait is bounded well under the hook command's budget (1 s, bin/entity-memory-hook.cjs),
 *   so a paced hook is answered, not spooled.
 */
import type { PubSub } from '../pubsub.js';

export interface MirrorBacklogOptions {
  /** Turns acknowledged and not yet committed above which acknowledgements wait. Default 16 (about a third of a second of the mirror's work here, bench/sustained.ts). */
  limit?: number;
  /** Longest wait of one acknowledgement (ms). Default 500. */
  maxWaitMs?: number;
  /** A turn counted this long without an announcement is no longer counted (ms). Default 30 000. */
  forgetAfterMs?: number;
  /** Told when answers start waiting (`behind`: the backlog then) and when the mirror is back within the limit (null). */
  onChange?: (behind: number | null) => void;
}

export class MirrorBacklog {
  readonly limit: number;
  readonly maxWaitMs: number;
  private readonly forgetAfterMs: number;
  private readonly onChange: ((behind: number | null) => void) | undefined;
  /** Whether answers wait now (from the first that waited until the backlog is back within the limit). */
  private behind = false;
  /** Turn id -> its session and when it was acknowledged (ms, monotonic); insertion order is acknowledgement order. */
  private readonly pending = new Map<string, { sessionId: string; at: number }>();
  /** Sessions whose last announcement was a failure. */
  private readonly failing = new Set<string>();
  /** Each waiting acknowledgement's look at the backlog, and its release. */
  private readonly waiters = new Map<() => void, () => void>();
  /** Acknowledgements that waited, since start (for the benches and the tests). */
  paced = 0;
  /** Of those, the ones answered at `maxWaitMs`, the mirror still behind. */
  timedOut = 0;

  constructor(options: MirrorBacklogOptions = {}) {
    this.limit = Math.max(0, options.limit ?? 16);
    this.maxWaitMs = Math.max(0, options.maxWaitMs ?? 500);
    this.forgetAfterMs = options.forgetAfterMs ?? 30_000;
    this.onChange = options.onChange;
  }

  /** Turns acknowledged here whose commit is not announced yet. */
  get size(): number {
    this.forgetOld();
    return this.pending.size;
  }

  /** Acknowledgements waiting now. */
  get waiting(): number {
    return this.waiters.size;
  }

  /** A turn closed by a request, durable now: counted until its commit is announced (unless its session's mirror is failing). */
  private closed(sessionId: string, turnId: string): void {
    if (!this.failing.has(sessionId)) this.pending.set(turnId, { sessionId, at: performance.now() });
  }

  /** `closed`, then `paceAcknowledgement()`: what a request's close awaits before it answers. */
  acknowledge(sessionId: string, turnId: string): Promise<void> {
    this.closed(sessionId, turnId);
    return this.paceAcknowledgement();
  }

  /** A turn's commit was announced. */
  private committed(sessionId: string, turnId: string): void {
    this.failing.delete(sessionId);
    if (this.pending.delete(turnId)) this.wake();
  }

  /** A commit of the session failed: none of its turns is counted until one of its commits is announced. */
  private failed(sessionId: string): void {
    this.failing.add(sessionId);
    let dropped = false;
    for (const [turnId, turn] of this.pending) {
      if (turn.sessionId === sessionId && this.pending.delete(turnId)) dropped = true;
    }
    if (dropped) this.wake();
  }

  /**
   * Resolves at once while the backlog is within the limit; else when it is back within it, or
   * after `maxWaitMs`. Never rejects.
   */
  private paceAcknowledgement(): Promise<void> {
    if (this.size <= this.limit || this.maxWaitMs === 0) return Promise.resolve();
    this.paced += 1;
    if (!this.behind) {
      this.behind = true;
      this.onChange?.(this.pending.size);
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const check = () => {
        if (this.size <= this.limit) done();
      };
      const timer = setTimeout(() => {
        this.timedOut += 1;
        done();
      }, this.maxWaitMs);
      this.waiters.set(check, done);
    });
  }

  /**
   * Follows the announcements of `pubsub` until the returned stop is called: every commit and
   * every failure, whichever server mirrored the session.
   */
  follow(pubsub: PubSub): () => Promise<void> {
    const committed = pubsub.subscribe('turnCommitted');
    const failed = pubsub.subscribe('mirrorFailed');
    const listening = Promise.all([
      (async () => {
        for await (const event of committed) this.committed(event.sessionId, event.turnId);
      })(),
      (async () => {
        for await (const event of failed) this.failed(event.sessionId);
      })(),
    ]);
    return async () => {
      await Promise.all([committed.return(undefined), failed.return(undefined)]);
      await listening;
      for (const release of [...this.waiters.values()]) release();
    };
  }

  private wake(): void {
    for (const check of [...this.waiters.keys()]) check();
    if (this.behind && this.waiters.size === 0 && this.pending.size <= this.limit) {
      this.behind = false;
      this.onChange?.(null);
    }
  }

  private forgetOld(): void {
    const horizon = performance.now() - this.forgetAfterMs;
    for (const [turnId, { at }] of this.pending) {
      if (at > horizon) break;
      this.pending.delete(turnId);
    }
  }
}
