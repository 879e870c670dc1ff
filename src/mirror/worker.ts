/**
 * The mirror worker: commits closed turns to their session repos, after the
 * database has them (the outbox in OutboxJob). Per session, jobs run in order
 * under the session's lock; sessions run in parallel up to a limit. A failure
 * is recorded (turn FAILED, job lastError), published, logged, and retried
 * with backoff; nothing is lost because the job stays until its commit lands,
 * and one session's failures never hold up another's.
 *
 * Before it touches a repo the worker looks at its files (src/mirror/health.ts):
 * a repo that is missing, corrupted or no longer at the commits the database
 * recorded is moved aside (never deleted) and rebuilt from the database, and
 * the turns waiting are committed with it.
 */
import { Semaphore } from 'async-mutex';
import { GitRefConflictError, type SessionRepo } from '../git/index.js';
import { KeyedDrains } from '../drains.js';
import { turnTrailers } from './commit-message.js';
import { clearRepoProblem, describeFault, diagnoseSessionRepo, looksLikeDamagedRepo, noteRepoProblem, type RepoFault, type RepoHealer } from './health.js';
import { rebuildSession, syncHead, writeBulk } from './rebuild.js';
import { openSessionRepo } from './session-repos.js';
import { loadTurnPlans, type TurnPlan } from './turn-plan.js';
import type { MirrorWorkerDeps } from './worker-deps.js';

export interface MirrorWorkerOptions {
  /** First retry delay; doubles per attempt. Default 500 ms. */
  retryBaseMs?: number;
  /** Longest retry delay. Default 30 000 ms (ten times that for a rebuild of a whole repo that keeps failing). */
  retryMaxMs?: number;
  /** Sessions mirrored at once. Default 4. */
  concurrency?: number;
  /** Pending turns of one session above which they are written in one fast-import stream. Default 20. */
  bulkThreshold?: number;
  /** Turn commits of a session after which its loose objects are packed (when its queue is empty). Default 500. */
  packEvery?: number;
}

/** About how many loose objects one turn commit leaves (blobs, three trees, the commit). */
const OBJECTS_PER_TURN = 9;

/** The branch is not where the database says and the tip is no commit of ours to adopt. */
class RepoDivergedError extends Error {}

export class MirrorWorker implements RepoHealer {
  private readonly semaphore: Semaphore;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly drains: KeyedDrains;
  private readonly initialised = new Set<string>();
  /** Turn commits since the session's loose objects were last packed (estimated at first use). */
  private readonly unpacked = new Map<string, number>();
  private readonly packEvery: number;
  /** Until start(), notifications are kept: reconcile runs first. */
  private started = false;
  private readonly early = new Set<string>();
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly bulkThreshold: number;
  /** Sessions whose repo is to be rebuilt at their next drain, and why. */
  private readonly rebuildDue = new Map<string, string>();
  /** Rebuilds that failed in a row, per session, and when the next may start (epoch ms). */
  private readonly rebuildFailures = new Map<string, { count: number; notBefore: number }>();

  constructor(
    private readonly deps: MirrorWorkerDeps,
    options: MirrorWorkerOptions = {},
  ) {
    this.semaphore = new Semaphore(options.concurrency ?? 4);
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.retryMaxMs = options.retryMaxMs ?? 30_000;
    this.bulkThreshold = options.bulkThreshold ?? 20;
    this.packEvery = options.packEvery ?? 500;
    this.drains = new KeyedDrains(
      (sessionId) => this.semaphore.runExclusive(() => this.drain(sessionId)),
      (error, sessionId) => this.deps.logger.error({ err: error, sessionId }, 'mirror worker failed'),
    );
  }

  private get stopped(): boolean {
    return this.drains.isStopped;
  }

  /** Schedules every session that has pending jobs (after a restart or a crash), and those notified before. */
  async start(): Promise<void> {
    this.started = true;
    for (const sessionId of this.early) this.notify(sessionId);
    this.early.clear();
    const sessions = await this.deps.db.outboxJob.findMany({
      where: { kind: 'SESSION' },
      select: { sessionId: true },
      distinct: ['sessionId'],
    });
    for (const { sessionId } of sessions) this.notify(sessionId);
  }

  /** A turn of this session was closed (or is due again): mirror it soon (once started). Never throws. */
  notify(sessionId: string): void {
    if (this.stopped) return;
    if (!this.started) {
      this.early.add(sessionId);
      return;
    }
    const timer = this.timers.get(sessionId);
    if (timer) {
      clearTimeout(timer);
      this.timers.delete(sessionId);
    }
    this.drains.notify(sessionId);
  }

  /** A session repo looks broken (the periodic check): the next drain looks again under the lock and heals it. Never throws. */
  check(sessionId: string, fault: RepoFault): void {
    // Often a commit landing between the look's two reads: the look under the lock decides, and logs.
    this.deps.logger.debug({ sessionId, fault }, 'a session repo looks broken; looking again under its lock');
    this.notify(sessionId);
  }

  /**
   * Rebuilds the session's repo from the database at its next drain, whatever
   * it looks like (reconcile could not finish it). Never throws.
   */
  repair(sessionId: string, reason: string): void {
    this.rebuildDue.set(sessionId, reason);
    this.notify(sessionId);
  }

  /**
   * Drains the sessions whose next attempt is due and that no retry timer
   * waits for: a safety net for a drain that stopped on an unexpected error.
   */
  async resumeDue(): Promise<void> {
    if (!this.started || this.stopped) return;
    const due = await this.deps.db.outboxJob.findMany({
      where: { kind: 'SESSION', nextAttemptAt: { lte: new Date() } },
      select: { sessionId: true },
      distinct: ['sessionId'],
    });
    for (const { sessionId } of due) if (!this.timers.has(sessionId)) this.notify(sessionId);
  }

  /** Resolves when nothing is running (scheduled retries may remain). */
  idle(): Promise<void> {
    return this.drains.idle();
  }

  /** Stops scheduling and waits for the commits in flight. */
  async stop(): Promise<void> {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await this.drains.stop();
  }

  private async repoFor(sessionId: string): Promise<SessionRepo> {
    const repo = openSessionRepo(this.deps.config, sessionId);
    // A repo deleted since (before its first commit, so no rebuild was due) is created again: one stat.
    if (!this.initialised.has(sessionId) || !repo.exists()) {
      await repo.init();
      // A git killed with us may have left its locks; no git of ours runs on this repo now.
      await repo.recoverStaleLocks(0);
      await repo.resetWorkingTree();
      const loose = await repo.looseObjects();
      this.unpacked.set(sessionId, Math.floor(loose.count / OBJECTS_PER_TURN));
      this.initialised.add(sessionId);
    }
    return repo;
  }

  private drain(sessionId: string): Promise<void> {
    // The repo lock, not the session's write lock: the turns are in the database already, and
    // requests writing the next ones never wait for this session's git work.
    return this.deps.repoLocks.run(sessionId, async () => {
      const { db } = this.deps;
      let committed = 0;
      if (!(await this.healIfBroken(sessionId))) return;
      for (;;) {
        if (this.stopped) return;
        if (this.rebuildDue.has(sessionId) && !(await this.healIfBroken(sessionId))) return;
        const due = await db.outboxJob.findMany({
          where: { sessionId, kind: 'SESSION' },
          orderBy: { id: 'asc' },
          take: this.bulkThreshold + 1,
        });
        const first = due[0];
        if (!first) {
          await this.afterDrain(sessionId);
          await this.packIfDue(sessionId, committed);
          return;
        }
        if (first.nextAttemptAt.getTime() > Date.now()) {
          this.retryLater(sessionId, first.nextAttemptAt.getTime() - Date.now());
          return;
        }
        const done =
          due.length > this.bulkThreshold ? await this.commitBulk(sessionId) : await this.commitOne(sessionId, first.id, first.turnId, first.attempts);
        if (done === 0) return;
        committed += done;
      }
    });
  }

  /**
   * Looks at the session's repo (files only) and, when it is broken or a
   * rebuild is due, moves it aside and rebuilds it from the database. Call
   * under the session's lock.
   * @returns false when the repo is broken and could not be rebuilt (recorded, retried with backoff).
   */
  private async healIfBroken(sessionId: string): Promise<boolean> {
    let reason = this.rebuildDue.get(sessionId);
    const failed = this.rebuildFailures.get(sessionId);
    if (reason !== undefined && failed && failed.notBefore > Date.now()) {
      // A new turn or a look must not restart a failing rebuild before its backoff is over.
      this.retryLater(sessionId, failed.notBefore - Date.now());
      return false;
    }
    if (reason === undefined) {
      let fault: RepoFault | null;
      try {
        fault = await diagnoseSessionRepo(this.deps, sessionId);
      } catch (error) {
        // Cannot tell (the database is busy, say): commit as usual; git reports what is wrong.
        this.deps.logger.warn({ err: error, sessionId }, 'could not check a session repo');
        return true;
      }
      if (fault === null) return true;
      reason = describeFault(fault);
    }
    return this.rebuild(sessionId, reason);
  }

  private async rebuild(sessionId: string, reason: string): Promise<boolean> {
    const { db, logger } = this.deps;
    logger.warn({ sessionId, reason }, 'rebuilding a session repo from the database; what is there is moved aside, never deleted');
    this.initialised.delete(sessionId);
    this.unpacked.delete(sessionId);
    try {
      const waiting = await db.outboxJob.findMany({ where: { sessionId, kind: 'SESSION' }, select: { turnId: true }, orderBy: { id: 'asc' } });
      const started = Date.now();
      const turns = await rebuildSession(this.deps, sessionId, { moveAside: true });
      this.rebuildDue.delete(sessionId);
      this.rebuildFailures.delete(sessionId);
      clearRepoProblem(this.deps.config, sessionId);
      logger.info({ sessionId, turns, ms: Date.now() - started }, 'rebuilt a session repo from the database');
      // The turns that were waiting are in the rebuilt repo: announce them as if committed one by one.
      const landed = await db.turn.findMany({ where: { id: { in: waiting.map((j) => j.turnId) } }, select: { id: true, commitSha: true } });
      const shaOf = new Map(landed.map((t) => [t.id, t.commitSha]));
      await this.publishCommitted(
        sessionId,
        waiting.flatMap(({ turnId }) => {
          const sha = shaOf.get(turnId);
          return sha ? [{ turnId, sha }] : [];
        }),
      );
      return true;
    } catch (error) {
      const failures = (this.rebuildFailures.get(sessionId)?.count ?? 0) + 1;
      // A rebuild rewrites the whole session: one that keeps failing is retried ten times less often than a commit.
      const delay = Math.min(this.retryMaxMs * 10, this.retryBaseMs * 2 ** Math.min(failures, 20));
      this.rebuildFailures.set(sessionId, { count: failures, notBefore: Date.now() + delay });
      this.rebuildDue.set(sessionId, reason);
      const message = `${reason}; rebuilding it from the database failed: ${error instanceof Error ? error.message : String(error)}`;
      noteRepoProblem(this.deps.config, sessionId, message);
      logger.error({ err: error, sessionId, attempts: failures, retryInMs: delay }, 'rebuilding a session repo failed; will retry');
      // The turns waiting show it too, as after a failed commit (and it outlives this process).
      await db
        .$transaction(async (tx) => {
          const jobs = await tx.outboxJob.findMany({ where: { sessionId, kind: 'SESSION' }, select: { turnId: true } });
          await tx.outboxJob.updateMany({ where: { sessionId, kind: 'SESSION' }, data: { lastError: message } });
          await tx.turn.updateMany({ where: { id: { in: jobs.map((j) => j.turnId) } }, data: { mirrorState: 'FAILED' } });
        })
        .catch((dbError: unknown) => logger.error({ err: dbError, sessionId }, 'could not record a failed rebuild'));
      const turn = await db.turn
        .findFirst({ where: { sessionId, open: false }, orderBy: { closedAt: 'desc' }, select: { id: true, number: true } })
        .catch(() => null);
      this.deps.pubsub.publish('mirrorFailed', { sessionId, turnId: turn?.id ?? '', turnNumber: turn?.number ?? 0, error: message, willRetry: !this.stopped });
      this.retryLater(sessionId, delay);
      return false;
    }
  }

  private backoff(attempts: number): number {
    return Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** Math.min(attempts - 1, 20));
  }

  private async afterDrain(sessionId: string): Promise<void> {
    try {
      await syncHead(this.deps.db, await this.repoFor(sessionId), sessionId);
    } catch (error) {
      this.deps.logger.warn({ err: error, sessionId }, 'could not move the session repo to its current branch');
    }
  }

  /**
   * Once a session has made `packEvery` commits, packs its loose objects (they
   * are ~9 files and ~25 KB of disk per turn, never packed otherwise since
   * automatic gc is off). Runs when the session's queue is empty; a failure
   * is logged and tried again after the next commits.
   */
  private async packIfDue(sessionId: string, committed: number): Promise<void> {
    const count = (this.unpacked.get(sessionId) ?? 0) + committed;
    this.unpacked.set(sessionId, count);
    if (count < this.packEvery) return;
    try {
      const started = Date.now();
      await (await this.repoFor(sessionId)).packLooseObjects();
      this.unpacked.set(sessionId, 0);
      this.deps.logger.info({ sessionId, turns: count, ms: Date.now() - started }, 'packed the loose objects of a session repo');
    } catch (error) {
      this.deps.logger.warn({ err: error, sessionId }, 'could not pack a session repo');
    }
  }

  /** Commits one turn; 0 when it failed (and was rescheduled), else 1. */
  private async commitOne(sessionId: string, jobId: number, turnId: string, attempts: number): Promise<number> {
    let plan: TurnPlan | undefined;
    try {
      [plan] = await loadTurnPlans(this.deps.db, sessionId, [turnId]);
      if (!plan) throw new Error(`turn ${turnId} is missing`);
      if (plan.parentSha === undefined) throw new Error(`the turn before turn ${plan.number} is not mirrored yet`);
      const repo = await this.repoFor(sessionId);
      const { sha, checkedOut } = await this.commitOrAdopt(repo, plan, plan.parentSha);
      // The repo shows what the API shows by the time the commit is announced.
      if (!checkedOut) await this.afterDrain(sessionId);
      await this.recordCommitted(sessionId, [{ turnId, sha }]);
      return 1;
    } catch (error) {
      if (error instanceof RepoDivergedError) {
        // Rebuilt at once by the drain's next pass; the turn lands with it.
        this.rebuildDue.set(sessionId, error.message);
        return 1;
      }
      if (looksLikeDamagedRepo(error)) this.rebuildDue.set(sessionId, `git says the session repo is damaged: ${(error as Error).message}`);
      await this.recordFailure(sessionId, jobId, turnId, plan?.number, attempts + 1, error);
      return 0;
    }
  }

  /**
   * Commits, or adopts the branch tip when it already is this turn's commit
   * (git landed, then the process died before the database heard of it).
   */
  private async commitOrAdopt(repo: SessionRepo, plan: TurnPlan, parent: string | null): Promise<{ sha: string; checkedOut: boolean }> {
    try {
      // One fast-import: flat cost at any session length; the checkout follows when HEAD is on the branch.
      return await repo.commitTurn({ branch: plan.branch, parent, files: plan.files, message: plan.message, author: plan.author });
    } catch (error) {
      if (!(error instanceof GitRefConflictError)) throw error;
      const tip = (await repo.branchTips()).get(plan.branch);
      const info = tip ? await repo.commitInfo(tip) : null;
      const trailers = info ? turnTrailers(info.trailers) : null;
      const parentOk = info && (parent === null ? info.parents.length === 0 : info.parents[0] === parent);
      if (tip && trailers && parentOk && trailers.sessionId === plan.sessionId && trailers.messageIds.join(',') === plan.messageIds.join(',')) {
        this.deps.logger.info({ sessionId: plan.sessionId, turn: plan.number, sha: tip }, 'adopted a turn commit made before a crash');
        await repo.resetWorkingTree();
        return { sha: tip, checkedOut: false };
      }
      // The repo disagrees with the database: keep it aside and rebuild from the truth.
      throw new RepoDivergedError(`the session repo is diverged: ${error.message}`, { cause: error });
    }
  }

  /** Writes every pending turn of a session in one fast-import stream; returns how many (0 on failure). */
  private async commitBulk(sessionId: string): Promise<number> {
    const jobs = await this.deps.db.outboxJob.findMany({ where: { sessionId, kind: 'SESSION' }, orderBy: { id: 'asc' } });
    try {
      const repo = await this.repoFor(sessionId);
      const written = await writeBulk(this.deps.db, repo, sessionId, jobs.map((j) => j.turnId));
      await this.afterDrain(sessionId);
      await this.recordCommitted(sessionId, written);
      return written.length;
    } catch (error) {
      const first = jobs[0]!;
      this.initialised.delete(sessionId);
      if (looksLikeDamagedRepo(error)) this.rebuildDue.set(sessionId, `git says the session repo is damaged: ${(error as Error).message}`);
      await this.recordFailure(sessionId, first.id, first.turnId, undefined, first.attempts + 1, error);
      return 0;
    }
  }

  private async recordCommitted(sessionId: string, commits: { turnId: string; sha: string }[]): Promise<void> {
    const { db } = this.deps;
    const at = new Date();
    await db.$transaction(async (tx) => {
      for (const { turnId, sha } of commits) {
        await tx.turn.update({ where: { id: turnId }, data: { mirrorState: 'COMMITTED', commitSha: sha, mirroredAt: at } });
      }
      await tx.outboxJob.deleteMany({ where: { kind: 'SESSION', turnId: { in: commits.map((c) => c.turnId) } } });
    });
    clearRepoProblem(this.deps.config, sessionId);
    await this.publishCommitted(sessionId, commits);
  }

  private async publishCommitted(sessionId: string, commits: { turnId: string; sha: string }[]): Promise<void> {
    if (commits.length === 0) return;
    const { db, pubsub } = this.deps;
    const turns = await db.turn.findMany({ where: { id: { in: commits.map((c) => c.turnId) } }, select: { id: true, branch: true } });
    const branchOf = new Map(turns.map((t) => [t.id, t.branch]));
    for (const { turnId, sha } of commits) {
      pubsub.publish('turnCommitted', { sessionId, turnId, sha });
      pubsub.publish('timeline', { kind: 'COMMITTED', sessionId, branch: branchOf.get(turnId) ?? 'main', sha });
    }
  }

  private async recordFailure(
    sessionId: string,
    jobId: number,
    turnId: string,
    turnNumber: number | undefined,
    attempts: number,
    error: unknown,
  ): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    const delay = this.backoff(attempts);
    const { db, logger, pubsub } = this.deps;
    logger.warn({ sessionId, turnId, attempts, retryInMs: delay, err: error }, 'mirroring a turn failed; will retry');
    let number = turnNumber;
    try {
      await db.$transaction([
        db.outboxJob.update({
          where: { id: jobId },
          data: { attempts, lastError: message, nextAttemptAt: new Date(Date.now() + delay) },
        }),
        db.turn.update({ where: { id: turnId }, data: { mirrorState: 'FAILED' } }),
      ]);
      number ??= (await db.turn.findUnique({ where: { id: turnId }, select: { number: true } }))?.number;
    } catch (dbError) {
      logger.error({ err: dbError, sessionId }, 'could not record a mirror failure');
    }
    pubsub.publish('mirrorFailed', { sessionId, turnId, turnNumber: number ?? 0, error: message, willRetry: !this.stopped });
    this.retryLater(sessionId, delay);
  }

  private retryLater(sessionId: string, delayMs: number): void {
    if (this.stopped) return;
    const existing = this.timers.get(sessionId);
    if (existing) clearTimeout(existing);
    const timer = setTimeout(() => {
      this.timers.delete(sessionId);
      this.notify(sessionId);
    }, delayMs);
    timer.unref();
    this.timers.set(sessionId, timer);
  }
}
