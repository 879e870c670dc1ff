/**
 * After the database moves a session (a new branch, a switch, a checkout), the
 * session repo follows: HEAD on the current branch or detached at the viewed
 * commit. The database is the truth; if git fails here the mirror worker
 * tries again at its next pass.
 */
import { syncSessionView } from '../../mirror/index.js';
import type { TimelineKind } from '../../pubsub.js';
import type { Deps } from '../deps.js';

/**
 * Takes the session's repo lock (waiting for a mirror pass in flight); call it
 * after the database write, outside the session's write lock, so writers never
 * wait for git. It reads the view from the database under the repo lock, so of
 * two moves in a row the repo ends where the later one put the session.
 * Never throws.
 */
export async function moveRepoToView(deps: Deps, sessionId: string): Promise<void> {
  try {
    await deps.repoLocks.run(sessionId, () => syncSessionView(deps, sessionId));
  } catch (error) {
    deps.logger.warn({ err: error, sessionId }, 'could not move the session repo to the session view; the mirror will retry');
    deps.onViewChanged?.(sessionId);
  }
}

export async function publishTimeline(deps: Deps, sessionId: string, kind: TimelineKind, branch: string, sha: string | null): Promise<void> {
  deps.pubsub.publish('timeline', { kind, sessionId, branch, sha });
}

/** BRANCH_CREATED for each new branch (with its fork point), then BRANCH_SWITCHED to it. */
export async function publishNewBranches(deps: Deps, sessionId: string, branches: readonly string[]): Promise<void> {
  for (const name of branches) {
    const branch = await deps.db.branch.findUnique({ where: { sessionId_name: { sessionId, name } } });
    const fork = branch?.forkTurnId ? await deps.db.turn.findUnique({ where: { id: branch.forkTurnId }, select: { commitSha: true } }) : null;
    await publishTimeline(deps, sessionId, 'BRANCH_CREATED', name, fork?.commitSha ?? null);
    await publishTimeline(deps, sessionId, 'BRANCH_SWITCHED', name, fork?.commitSha ?? null);
  }
}
