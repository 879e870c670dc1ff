/**
 * The end-of-turn project commit. For each closed turn of a session bound to
 * a project (a PROJECT job in the outbox), under the working directory's lock:
 * - the user had uncommitted changes when the turn began: nothing is touched,
 *   the outcome is SKIPPED_DIRTY and a dirty-tree warning is published;
 * - otherwise the turn's changes (exactly its touchedPaths when the runtime
 *   gave them, else every change) become one commit by the agent.
 * A failed commit is recorded as FAILED with the reason and not retried: a
 * later attempt could sweep up changes made after the turn. So is a folder
 * or repo refused now (src/projects/project-place.ts: nothing is written
 * there, not even the lock file) and a repo whose config defines filter
 * drivers the user has not trusted (src/projects/repo-config.ts: no `git add`).
 */
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { KeyedLocks } from '../locks.js';
import type { Logger } from '../logger.js';
import { excerpt } from '../mirror/commit-message.js';
import { KeyedDrains } from '../drains.js';
import type { PubSub } from '../pubsub.js';
import { claimedPaths, releaseClaim } from './claims.js';
import { withProjectLock } from './project-lock.js';
import { openProjectRepo } from './project-place.js';

export interface ProjectCommitterDeps {
  db: Db;
  config: Config;
  logger: Logger;
  pubsub: PubSub;
  projectLocks: KeyedLocks;
}

export type ProjectResult = 'COMMITTED' | 'NOTHING_TO_COMMIT' | 'SKIPPED_DIRTY' | 'FAILED';

export const AGENT_EMAIL = 'agent@openprogram.invalid';

export function agentName(model: string | null): string {
  return `agent (${model ?? 'unknown model'} via OpenProgram)`;
}

export function projectCommitMessage(sessionId: string, turn: number, userContent: string): string {
  return `[agent ${sessionId}] turn ${turn}: ${excerpt(userContent, 60)}\n\nSession-Id: ${sessionId}\nTurn: ${turn}\n`;
}

export function dirtyWarningText(turn: number, paths: string[]): string {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, and ${paths.length - 5} more` : '');
  return `You have uncommitted changes (${shown}), so the agent's edits from turn ${turn} won't be auto-committed for now.`;
}

/** True when `path` is one of `touched` or lies under one of them (a folder). */
export function isTouched(path: string, touched: string[]): boolean {
  return touched.some((t) => {
    const clean = t.replace(/^\.\//, '').replace(/\/+$/, '');
    return path === clean || path.startsWith(`${clean}/`);
  });
}

export class ProjectCommitter {
  private readonly drains: KeyedDrains;
  private readonly settleMs: number;
  private readonly settleAttempts: number;

  /**
   * @param options.settleMs pause between looks at a tree that seems to hold the user's changes (default 500 ms);
   * @param options.settleAttempts looks before deciding it does (default 6, so about 3 s).
   */
  constructor(
    private readonly deps: ProjectCommitterDeps,
    options: { settleMs?: number; settleAttempts?: number } = {},
  ) {
    this.settleMs = options.settleMs ?? 500;
    this.settleAttempts = options.settleAttempts ?? 6;
    this.drains = new KeyedDrains(
      (sessionId) => this.drain(sessionId),
      (error, sessionId) => this.deps.logger.error({ err: error, sessionId }, 'project committer failed'),
    );
  }

  async start(): Promise<void> {
    const jobs = await this.deps.db.mirrorJob.findMany({ where: { kind: 'PROJECT' }, select: { sessionId: true }, distinct: ['sessionId'] });
    for (const job of jobs) this.notify(job.sessionId);
  }

  /** A turn of this session closed: commit its project edits soon. Never throws. */
  notify(sessionId: string): void {
    this.drains.notify(sessionId);
  }

  idle(): Promise<void> {
    return this.drains.idle();
  }

  stop(): Promise<void> {
    return this.drains.stop();
  }

  private async drain(sessionId: string): Promise<void> {
    for (;;) {
      if (this.drains.isStopped) return;
      const job = await this.deps.db.mirrorJob.findFirst({ where: { sessionId, kind: 'PROJECT' }, orderBy: { id: 'asc' } });
      if (!job) return;
      await this.commitTurn(job.id, job.turnId);
    }
  }

  private async commitTurn(jobId: number, turnId: string): Promise<void> {
    const { db, logger, pubsub } = this.deps;
    const turn = await db.turn.findUnique({
      where: { id: turnId },
      include: { session: { include: { project: true } }, userMessage: { select: { content: true } } },
    });
    const project = turn?.session.project;
    if (!turn || !project) {
      await db.mirrorJob.delete({ where: { id: jobId } });
      return;
    }
    const session = turn.session;
    type Outcome = { result: ProjectResult; sha: string | null; dirtyPaths: string[]; message: string | null };
    const claims: { at: { gitDir: string } | null } = { at: null };
    const attempt = async (final: boolean): Promise<Outcome | null> => {
      // Checked before the lock file is made in the git directory, and again under the lock, just before
      // git runs: the folder, its repo and its config may all have changed while we waited.
      const before = await openProjectRepo(project, this.deps.config, { init: true });
      claims.at = before.location;
      if (before.autoCommit === 'DISABLED_UNSAFE_CONFIG') return { result: 'FAILED', sha: null, dirtyPaths: [], message: before.autoCommitMessage };
      return withProjectLock(
        this.deps.projectLocks,
        project.workdir,
        async (): Promise<Outcome | null> => {
          const place = await openProjectRepo(project, this.deps.config);
          if (place.location.gitDir !== before.location.gitDir) {
            throw new Error(`The git directory of ${project.workdir} moved from ${before.location.gitDir} to ${place.location.gitDir} during the commit; nothing was committed.`);
          }
          if (place.autoCommit === 'DISABLED_UNSAFE_CONFIG') return { result: 'FAILED', sha: null, dirtyPaths: [], message: place.autoCommitMessage };
          const repo = place.repo;
          const touched = turn.touchedPaths ? (JSON.parse(turn.touchedPaths) as string[]) : null;
          const now = await repo.status();
          // The user's work: dirty as the turn began and still dirty (what was committed since is no one's
          // pending work), less what other agent turns have claimed as theirs.
          const claimed = await claimedPaths(place.location, turn.id);
          const stillDirty = new Set(now.dirtyPaths);
          const dirtyAtStart = (JSON.parse(turn.dirtyAtStart ?? '[]') as string[]).filter((p) => stillDirty.has(p) && !claimed.has(p));
          if (dirtyAtStart.length > 0) {
            // Another agent's edits look like the user's until its turn is recorded and claims them:
            // give them a moment (outside the lock) before deciding they are the user's.
            if (!final) return null;
            return { result: 'SKIPPED_DIRTY', sha: null, dirtyPaths: dirtyAtStart, message: dirtyWarningText(turn.number, dirtyAtStart) };
          }
          const paths = touched ? now.dirtyPaths.filter((p) => isTouched(p, touched)) : now.dirtyPaths;
          if (paths.length === 0) {
            return { result: 'NOTHING_TO_COMMIT', sha: null, dirtyPaths: [], message: null };
          }
          const ours = new Set(paths);
          // The paths status listed, even without touchedPaths: `add` then looks at those, not the whole tree.
          const sha = await repo.commit(
            paths,
            projectCommitMessage(session.sessionId, turn.number, turn.userMessage.content),
            { name: agentName(session.model), email: AGENT_EMAIL },
            { onlyPaths: now.staged.some((p) => !ours.has(p)), gitDir: place.location.gitDir },
          );
          return { result: 'COMMITTED', sha, dirtyPaths: [], message: `Committed ${paths.length} ${paths.length === 1 ? 'path' : 'paths'}.` };
        },
        { gitDir: before.location.gitDir },
      );
    };
    let outcome: Outcome;
    try {
      let decided: Outcome | null = null;
      for (let i = 0; decided === null; i++) {
        const final = i >= this.settleAttempts;
        decided = await attempt(final);
        if (decided === null) await new Promise((r) => setTimeout(r, this.settleMs));
      }
      outcome = decided;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // Not retried, so not pending either.
      logger.warn({ err: error, sessionId: session.sessionId, turn: turn.number, workdir: project.workdir }, 'project commit failed');
      outcome = { result: 'FAILED', sha: null, dirtyPaths: [], message: reason };
    }
    // Only in a git directory that was checked: a refused folder is never written to.
    if (claims.at) await releaseClaim(claims.at, turn.id).catch(() => undefined);
    await db.$transaction([
      db.turn.update({
        where: { id: turn.id },
        data: {
          projectResult: outcome.result,
          projectCommitSha: outcome.sha,
          projectDirtyPaths: JSON.stringify(outcome.dirtyPaths),
          projectMessage: outcome.message,
        },
      }),
      db.mirrorJob.delete({ where: { id: jobId } }),
    ]);
    if (outcome.result === 'COMMITTED' && outcome.sha) {
      pubsub.publish('projectCommitted', { projectId: project.projectId, sessionId: session.sessionId, turnNumber: turn.number, sha: outcome.sha });
    }
    if (outcome.result === 'SKIPPED_DIRTY') {
      pubsub.publish('dirtyTreeWarning', {
        projectId: project.projectId,
        sessionId: session.sessionId,
        turnNumber: turn.number,
        dirtyPaths: outcome.dirtyPaths,
        message: outcome.message ?? '',
        at: new Date().toISOString(),
      });
    }
  }
}
