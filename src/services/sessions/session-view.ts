/**
 * After the database moves a session (a new branch, a switch, a checkout), the
 * session repo follows: HEAD on the current branch or detached at the viewed
 * commit. The database is the truth; if git fails here the mirror worker
 * tries again at its next pass.
 */
import { syncSessionView } from '../../mirror/index.js';
import type { TimelineKind } from '../../pubsub.js';
import type { Deps } from '../deps.js';
import type { TurnUpdate, WriterOutcome } from './session-writer.js';

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

/**
 * What a writer's committed transaction announces: its new branches (publishNewBranches), then a
 * turnUpdated event for each turn it added messages to or closed, so a live view shows an open
 * turn growing before its commit.
 */
export async function publishWritten(deps: Deps, sessionId: string, outcome: Pick<WriterOutcome, 'createdBranches' | 'turnUpdates'>): Promise<void> {
  await publishNewBranches(deps, sessionId, outcome.createdBranches);
  publishTurnUpdates(deps, sessionId, outcome.turnUpdates);
}

/** turnUpdated for each of `updates`, in order. */
export function publishTurnUpdates(deps: Pick<Deps, 'pubsub'>, sessionId: string, updates: readonly TurnUpdate[]): void {
  for (const { turnId, messageIds, closed } of updates) deps.pubsub.publish('turnUpdated', { sessionId, turnId, messageIds, closed });
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
