/**
 * The end-of-turn project commit, in the background. For each closed turn of
 * a session bound to a project (a PROJECT job in the outbox), in order, under
 * the working directory's lock:
 * - the user is in the middle of a git operation (merge, rebase, …) or HEAD is
 *   detached → SKIPPED_BUSY;
 * - a path that is not the agent's is still dirty (src/projects/ownership.ts)
 *   → SKIPPED_DIRTY;
 * - otherwise the agent's end-of-turn state, captured at the close
 *   (src/projects/turn-close.ts), becomes one commit built with a temporary
 *   index on HEAD; the branch moves by compare-and-swap and the user's index
 *   is brought up to date for exactly those paths.
 * A skipped turn's state is kept as a private snapshot commit
 * (`refs/entity-memory/snapshots/…`): the user's worktree, index, HEAD,
 * branches and stash are not touched. Since the commit is built from captured
 * blobs, nothing written after the close can end up in it, so transient
 * failures (a lock, the user's index.lock) are retried with backoff until a
 * deadline.
 */
import { classifyFault } from '../faults.js';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { ProjectCommitResult, Turn } from '../generated/prisma/client.js';
import { GitLockedError, GitRefConflictError } from '../git/errors.js';
import type { FileState } from '../git/project-plumbing.js';
import type { ProjectRepo } from '../git/project-repo.js';
import type { KeyedLocks } from '../locks.js';
import type { Logger } from '../logger.js';
import { KeyedDrains } from '../drains.js';
import type { PubSub } from '../pubsub.js';
import { agentIdentity, listedPaths, projectCommitMessage, REFLOG, snapshotMessage, snapshotRef } from './agent-commits.js';
import { claimedPaths, releaseClaim } from './claims.js';
import { captureLater } from './late-capture.js';
import type { LateCapture } from './turn-close.js';
import { initialCommitHint } from './initial-commit.js';
import { decideCommit, skipWarningText, unattributedWarningText } from './ownership.js';
import { withProjectLock } from './project-lock.js';
import { locateProjectRepoKept, openProjectRepo, refusalReason, type PlaceProject, type RepoPlace } from './project-place.js';
import type { RecordedState } from './restore-plan.js';

export interface ProjectCommitterDeps {
  db: Db;
  config: Config;
  logger: Logger;
  pubsub: PubSub;
  projectLocks: KeyedLocks;
}

/** A failure worth trying again: the same captured state may well commit in a moment. */
export class TransientProjectError extends Error {}

/** Whether a project commit that failed with `error` is tried again (with back-off, until the deadline) rather than FAILED. */
export function isTransient(error: unknown): boolean {
  if (error instanceof TransientProjectError || error instanceof GitLockedError || error instanceof GitRefConflictError) return true;
  // The machine's fault (git missing for a moment, the disk full, the database locked): retried, never FAILED at once.
  if (classifyFault(error)) return true;
  // proper-lockfile: another process held the working directory's lock for the whole wait.
  return (error as { code?: string } | null)?.code === 'ELOCKED';
}

export interface ProjectOutcome {
  result: Exclude<ProjectCommitResult, 'PENDING'>;
  sha: string | null;
  snapshotSha: string | null;
  /** The user's paths that were in the way (SKIPPED_DIRTY). */
  dirtyPaths: string[];
  message: string | null;
  reason: string | null;
}

function outcome(result: ProjectOutcome['result'], fields: Partial<ProjectOutcome> = {}): ProjectOutcome {
  return { result, sha: null, snapshotSha: null, dirtyPaths: [], message: null, reason: null, ...fields };
}

export interface ProjectCommitterOptions {
  /**
   * Servers sharing a database (PostgreSQL): a job is claimed before it runs, by moving its next
   * attempt this far ahead in one conditional update, so two servers notified for one session never
   * run the same job; a server that dies holding a claim leaves the job to whoever looks after it
   * (another turn of the session, or a start-up). Default: off (one server, nothing to claim).
   */
  claimMs?: number;
  /** Pause between looks at a tree that seems to hold the user's changes (default 500 ms). */
  settleMs?: number;
  /** Looks before deciding it does (default 6, so about 3 s). */
  settleAttempts?: number;
  /** First retry delay after a transient failure (default 500 ms), doubling up to `retryMaxMs` (default 15 s). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** How long after the turn's close a transient failure is still retried (default 10 min); then FAILED. */
  retryDeadlineMs?: number;
}

/** What one look at a turn works from: its capture, and how to write its commit. */
export interface LookContext {
  files: RecordedState[];
  suspects: string[];
  /** The deciding look: unclaimed suspects are the user's now. */
  final: boolean;
  message: string;
  identity: { name: string; email: string };
  sessionId: string;
  projectId: string;
}

export class ProjectCommitter {
  private readonly drains: KeyedDrains;
  private readonly options: Required<Omit<ProjectCommitterOptions, 'claimMs'>> & Pick<ProjectCommitterOptions, 'claimMs'>;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly deps: ProjectCommitterDeps,
    options: ProjectCommitterOptions = {},
  ) {
    this.options = { settleMs: 500, settleAttempts: 6, retryBaseMs: 500, retryMaxMs: 15_000, retryDeadlineMs: 10 * 60_000, ...options };
    this.drains = new KeyedDrains(
      (sessionId) => this.drain(sessionId),
      (error, sessionId) => this.deps.logger.error({ err: error, sessionId }, 'project committer failed'),
    );
  }

  async start(): Promise<void> {
    const jobs = await this.deps.db.outboxJob.findMany({ where: { kind: 'PROJECT' }, select: { sessionId: true }, distinct: ['sessionId'] });
    for (const job of jobs) this.notify(job.sessionId);
  }

  /** A turn of this session closed: commit its project edits soon. Never throws. */
  notify(sessionId: string): void {
    this.drains.notify(sessionId);
  }

  idle(): Promise<void> {
    return this.drains.idle();
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.drains.stop();
  }

  /** A session's turns in order: a later turn's commit goes on top of an earlier one's. */
  private async drain(sessionId: string): Promise<void> {
    for (;;) {
      if (this.drains.isStopped) return;
      const job = await this.deps.db.outboxJob.findFirst({ where: { sessionId, kind: 'PROJECT' }, orderBy: { id: 'asc' } });
      if (!job) return;
      const wait = job.nextAttemptAt.getTime() - Date.now();
      if (wait > 0) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.notify(sessionId);
        }, wait);
        this.timers.add(timer);
        return;
      }
      if (this.options.claimMs !== undefined) {
        const { count } = await this.deps.db.outboxJob.updateMany({
          where: { id: job.id, nextAttemptAt: job.nextAttemptAt },
          data: { nextAttemptAt: new Date(Date.now() + this.options.claimMs) },
        });
        // Another server claimed it (or it changed): look again, which waits for its claim to end.
        if (count === 0) continue;
      }
      await this.runJob(job.id, job.turnId, job.attempts);
    }
  }

  private async runJob(jobId: number, turnId: string, attempts: number): Promise<void> {
    const { db, logger } = this.deps;
    const turn = await db.turn.findUnique({
      where: { id: turnId },
      include: { session: { include: { project: true } }, userMessage: { select: { content: true } } },
    });
    const project = turn?.session.project;
    if (!turn || !project) {
      await db.outboxJob.delete({ where: { id: jobId } });
      return;
    }
    let result: ProjectOutcome;
    let gitDir: string | null = null;
    try {
      const done = await this.commitTurn(turn, project, turn.session.sessionId, turn.session.model, turn.userMessage.content);
      result = done.outcome;
      gitDir = done.gitDir;
    } catch (error) {
      const reason = refusalReason(error);
      const closedAt = (turn.closedAt ?? turn.createdAt).getTime();
      if (isTransient(error) && Date.now() - closedAt < this.options.retryDeadlineMs) {
        const delay = Math.min(this.options.retryMaxMs, this.options.retryBaseMs * 2 ** Math.min(attempts, 20));
        logger.warn({ err: error, sessionId: turn.sessionId, turn: turn.number, retryInMs: delay }, 'project commit failed for now; will retry');
        await db.outboxJob.update({ where: { id: jobId }, data: { attempts: attempts + 1, lastError: reason, nextAttemptAt: new Date(Date.now() + delay) } });
        return;
      }
      logger.warn({ err: error, sessionId: turn.sessionId, turn: turn.number, workdir: project.workdir }, 'project commit failed');
      result = outcome('FAILED', { message: `The agent's edits from turn ${turn.number} were not committed: ${reason}`, reason });
    }
    await this.finish(jobId, turn, project.projectId, gitDir, result);
  }

  private async finish(jobId: number, turn: Turn & { session: { sessionId: string } }, projectId: string, gitDir: string | null, result: ProjectOutcome): Promise<void> {
    const { db, pubsub } = this.deps;
    // Only in a git directory that was checked: a refused folder is never written to.
    if (gitDir) await releaseClaim({ gitDir }, turn.id).catch(() => undefined);
    await db.$transaction([
      db.turn.update({
        where: { id: turn.id },
        data: {
          projectResult: result.result,
          projectCommitSha: result.sha,
          projectSnapshotSha: result.snapshotSha,
          projectDirtyPaths: JSON.stringify(result.dirtyPaths),
          projectMessage: result.message,
          projectReason: result.reason,
        },
      }),
      db.outboxJob.delete({ where: { id: jobId } }),
    ]);
    const sessionId = turn.session.sessionId;
    if (result.result === 'COMMITTED' && result.sha) {
      pubsub.publish('projectCommitted', { projectId, sessionId, turnNumber: turn.number, sha: result.sha });
    }
    if (result.result === 'SKIPPED_DIRTY' || result.result === 'SKIPPED_BUSY' || result.result === 'SKIPPED_UNATTRIBUTED') {
      pubsub.publish('dirtyTreeWarning', {
        projectId,
        sessionId,
        turnNumber: turn.number,
        dirtyPaths: result.dirtyPaths,
        message: result.message ?? '',
        reason: result.reason,
        at: new Date().toISOString(),
      });
    }
  }

  /** Decides and carries out one turn's commit; throws only what may be retried or must fail it. */
  private async commitTurn(
    turn: Turn,
    project: PlaceProject,
    sessionId: string,
    model: string | null,
    userContent: string,
  ): Promise<{ outcome: ProjectOutcome; gitDir: string | null }> {
    if (turn.projectFiles === null && turn.projectCaptureLater !== null) {
      // The close met a fault of the machine: the capture it could not make, made now (or thrown, tried again later).
      const late = await captureLater(project, this.deps.config, sessionId, JSON.parse(turn.projectCaptureLater) as LateCapture);
      if ('changed' in late) {
        const reason = `changed since the turn closed while git could not run (${turn.projectCaptureError ?? 'a fault of the machine'})`;
        const message =
          `Turn ${turn.number} was not committed: git could not run when it closed, and ${listedPaths(late.changed)} changed since, ` +
          'so what is there now may be your edit. Nothing was committed or touched.';
        await this.deps.db.turn.update({ where: { id: turn.id }, data: { projectCaptureLater: null } });
        return { outcome: outcome('SKIPPED_DIRTY', { dirtyPaths: late.changed, reason, message }), gitDir: null };
      }
      await late.claim(turn.id);
      const captured = {
        projectFiles: JSON.stringify(late.capture.files),
        projectSuspects: JSON.stringify(late.capture.suspects),
        projectHeadAtClose: late.capture.headAtClose,
        projectCaptureError: null,
        projectCaptureLater: null,
      };
      await this.deps.db.turn.update({ where: { id: turn.id }, data: captured });
      turn = { ...turn, ...captured };
    }
    if (turn.projectFiles === null) {
      const reason = turn.projectCaptureError ?? 'the turn closed before its edits could be captured';
      return { outcome: outcome('FAILED', { message: `The agent's edits from turn ${turn.number} were not committed: ${reason}`, reason }), gitDir: null };
    }
    const files = JSON.parse(turn.projectFiles) as RecordedState[];
    const suspects = JSON.parse(turn.projectSuspects ?? '[]') as string[];
    // Located before the lock file is made in the git directory (as last found, while what that rests
    // on is unchanged: no git process), and opened again under the lock, just before git runs (the
    // location checked again, the config read afresh): the folder, its repo and its config may all
    // have changed while we waited.
    const gitDir = (await locateProjectRepoKept(project, this.deps.config)).location.gitDir;
    const message = projectCommitMessage(sessionId, turn.number, userContent);
    const identity = agentIdentity(model);
    for (let look = 0; ; look++) {
      const final = look >= this.options.settleAttempts;
      const decided = await this.look(project, gitDir, turn, { files, suspects, final, message, identity, sessionId, projectId: project.projectId });
      if (decided) return { outcome: decided, gitDir };
      // Another agent's edits look like the user's until its turn closes and claims them:
      // give them a moment (outside the lock) before deciding they are the user's.
      await new Promise((r) => setTimeout(r, this.options.settleMs));
    }
  }

  /**
   * One look at the turn under the working directory's lock: the repo opened
   * again (its config read), then decided and, when it is time, carried out.
   * @returns null when the committer should look again in a moment.
   */
  async look(project: PlaceProject, gitDir: string, turn: Turn, ctx: LookContext): Promise<ProjectOutcome | null> {
    return withProjectLock(
      this.deps.projectLocks,
      project.workdir,
      async () => {
        const place = await openProjectRepo(project, this.deps.config);
        if (place.location.gitDir !== gitDir) {
          throw new Error(`The git directory of ${project.workdir} moved from ${gitDir} to ${place.location.gitDir} during the commit; nothing was committed.`);
        }
        if (place.autoCommit === 'DISABLED_UNSAFE_CONFIG') {
          const reason = `the repo's config defines filter drivers (${place.verdict.unsafeKeys.join(', ')}) that were not trusted`;
          return outcome('FAILED', { message: place.autoCommitMessage, reason });
        }
        return this.decideAndApply(place, turn, ctx);
      },
      { gitDir },
    );
  }

  /**
   * True when the branch moved over `paths` since `turn` closed only through
   * agent commits of turns that closed before it (this session's earlier turns,
   * committed after this one closed): that is not the user's doing, and this
   * turn's captured state is the newer one. A branch that no longer contains
   * the HEAD of the close (a reset, a rebase) is never explained this way.
   */
  private async movedByEarlierTurns(repo: ProjectRepo, turn: Turn, head: string, paths: readonly string[]): Promise<boolean> {
    const from = turn.projectHeadAtClose;
    if (from && !(await repo.isAncestor(from, head))) return false;
    const shas = await repo.commitsTouching(from, head, paths);
    if (shas.length === 0) return false;
    const ours = await this.deps.db.turn.count({
      where: { projectCommitSha: { in: shas }, closedAt: { lte: turn.closedAt ?? turn.createdAt } },
    });
    return ours === shas.length;
  }

  private async decideAndApply(place: RepoPlace, turn: Turn, ctx: LookContext): Promise<ProjectOutcome | null> {
    const repo = place.repo;
    const gitDir = place.location.gitDir;
    // The index is per working tree, so its lock is in this worktree's git directory (what
    // `git rev-parse --git-path index.lock` prints, without the process).
    const indexLock = join(gitDir, 'index.lock');
    // Independent looks, so in parallel: this is the commit's critical path, under the lock.
    // Only the suspects' state matters now (decideCommit): what the user changes after the close is
    // not this turn's business, and the agent's paths are committed from their captured blobs.
    const [locked, busy, head, dirtyNow, claimed] = await Promise.all([
      exists(indexLock),
      repo.operationInProgress(place.workdir),
      repo.readHead(),
      repo.dirtyAmong(ctx.suspects),
      claimedPaths(place.location, turn.id),
    ]);
    if (locked) throw new TransientProjectError(`another git is using the repository (${indexLock} exists)`);
    const decision = decideCommit({
      agent: ctx.files.map((f) => f.path),
      suspects: ctx.suspects,
      dirtyNow,
      claimed,
      busy,
      detached: head.ref === null,
      final: ctx.final,
    });
    const snapshot = async (reason: string): Promise<string | null> => {
      if (ctx.files.length === 0) return null;
      const built = await repo.buildCommit({ parent: head.sha, states: ctx.files, message: snapshotMessage(ctx.message, reason), identity: ctx.identity, scratchDir: gitDir });
      await repo.setRef(snapshotRef(ctx.sessionId, turn.branch, turn.number), built.sha, REFLOG.turnSnapshot);
      return built.sha;
    };
    // With no commit yet, every file of the folder is "the user's": say how to get out of that.
    const skipped = decision.kind === 'busy' || decision.kind === 'dirty';
    const hint = skipped && head.sha === null && (await repo.status()).dirtyPaths.length > 0 ? initialCommitHint(ctx.projectId) : undefined;
    // Whose the changes are cannot be told (no touchedPaths, no known start): nothing is committed
    // (a git operation of the user's in progress is said first: it is the one to act on).
    if (turn.projectUnattributed && decision.kind !== 'wait' && decision.kind !== 'busy') {
      if (ctx.files.length === 0) return outcome('NOTHING_TO_COMMIT');
      const paths = ctx.files.map((f) => f.path);
      const reason = `the turn said neither which paths it wrote (touchedPaths) nor when it began (startedAt), so ${listedPaths(paths)} cannot be told from your own edits`;
      const snapshotSha = await snapshot(reason);
      return outcome('SKIPPED_UNATTRIBUTED', { snapshotSha, dirtyPaths: paths, reason, message: unattributedWarningText(turn.number, paths) });
    }
    switch (decision.kind) {
      case 'wait':
        return null;
      case 'nothing':
        return outcome('NOTHING_TO_COMMIT');
      case 'busy': {
        const snapshotSha = await snapshot(decision.reason);
        return outcome('SKIPPED_BUSY', { snapshotSha, reason: decision.reason, message: skipWarningText(turn.number, decision, hint) });
      }
      case 'dirty': {
        const reason = `uncommitted changes that are not the agent's: ${listedPaths(decision.userPaths)}`;
        const snapshotSha = await snapshot(reason);
        return outcome('SKIPPED_DIRTY', { snapshotSha, dirtyPaths: decision.userPaths, reason, message: skipWarningText(turn.number, decision, hint) });
      }
      case 'commit':
        break;
    }
    if (head.sha !== turn.projectHeadAtClose) {
      // The user committed (or reset) since the close: build on their HEAD only if it left the agent's paths alone.
      const there = await repo.entriesAt(head.sha, ctx.files.map((f) => f.path));
      let moved = ctx.files.filter((f) => {
        const e = there.get(f.path);
        return (e?.oid ?? null) !== f.baseOid || (e ? e.mode !== f.baseMode : false);
      });
      if (moved.length > 0 && (await this.movedByEarlierTurns(repo, turn, head.sha!, moved.map((f) => f.path)))) moved = [];
      if (moved.length > 0) {
        const reason = `the branch moved since the turn closed and changes ${listedPaths(moved.map((f) => f.path))} too`;
        const snapshotSha = await snapshot(reason);
        return outcome('SKIPPED_BUSY', {
          snapshotSha,
          reason,
          message: skipWarningText(turn.number, { kind: 'busy', reason }, hint),
        });
      }
    }
    const paths = ctx.files.map((f) => f.path);
    // What the user has staged among the agent's paths is read while the commit is built (it
    // reads the index only): the index sync after the branch moves is then one process.
    const staged = repo.stagedSince(head.sha, paths);
    staged.catch(() => {});
    const built = await repo.buildCommit({ parent: head.sha, states: ctx.files, message: ctx.message, identity: ctx.identity, scratchDir: gitDir });
    if (built.unchanged) return outcome('NOTHING_TO_COMMIT');
    await repo.compareAndSwapRef(head.ref!, built.sha, head.sha, REFLOG.turn(turn.number));
    const synced = await syncIndexWithRetry(repo, head.sha, ctx.files, staged);
    const count = `${paths.length} ${paths.length === 1 ? 'path' : 'paths'}`;
    return outcome('COMMITTED', {
      sha: built.sha,
      message: synced
        ? `Committed ${count}.`
        : `Committed ${count}; another git held the index, so git status may list them as staged: run git reset -q -- ${paths.join(' ')} to refresh it.`,
    });
  }
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The branch has moved: the index must follow for the agent's paths. A user's
 * index.lock appearing right now is waited for (15 s); the commit stands either way.
 */
async function syncIndexWithRetry(repo: ProjectRepo, oldHead: string | null, states: readonly FileState[], staged: Promise<Set<string>>): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  for (let attempt = 1; ; attempt++) {
    try {
      // The first time with what was read while the commit was built; after a wait for the
      // user's index lock, read again (they may have staged more).
      if (attempt === 1) await repo.updateIndexPaths(states, await staged);
      else await repo.syncIndexPaths(oldHead, states);
      return true;
    } catch (error) {
      if (!(error instanceof GitLockedError) || Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
    }
  }
}
