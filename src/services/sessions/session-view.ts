/**
 * After the database moves a session (a new branch, a switch, a checkout), the
 * session repo follows: HEAD on the current branch or detached at the viewed
 * commit. The database is the truth; if git fails here the mirror worker
 * tries again at its next pass.
 */
import { syncSessionView } from '../../mirror/index.js';
import type { TimelineKind } from '../../pubsub.js';
import type { Deps } from '../deps.js';

/** Call under the session's lock. Never throws. */
export async function moveRepoToView(deps: Deps, sessionId: string): Promise<void> {
  try {
    await syncSessionView(deps, sessionId);
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
