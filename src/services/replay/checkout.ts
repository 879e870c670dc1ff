import type { Session } from '../../generated/prisma/client.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { assertValidId } from '../../ids.js';
import { openSessionRepo } from '../../mirror/index.js';
import type { Deps } from '../deps.js';
import { assertShaInput } from './read-commits.js';
import { requireSession } from '../sessions/read-session.js';
import { moveRepoToView, publishTimeline } from '../sessions/session-view.js';

export interface CheckoutInput {
  sessionId: string;
  sha: string;
}

/**
 * Moves the session's view to a turn commit of any branch (read-only replay):
 * nothing is deleted or rewritten; the next USER message forks from there.
 * Checking out the tip of the current branch leaves replay.
 * @throws BadUserInputError for a malformed sha, NotFoundError for one that is
 * not a turn commit of this session, ConflictError while a turn is open.
 */
export async function checkout(input: CheckoutInput, deps: Deps): Promise<Session> {
  assertValidId(input.sessionId, 'sessionId');
  assertShaInput(input.sha);
  return deps.sessionLocks.run(input.sessionId, async () => {
    const session = await requireSession(deps.db, input.sessionId);
    if (session.openTurnId) throw new ConflictError('A turn is open: end it (endTurn) before moving to another commit.');
    const repo = openSessionRepo(deps.config, session.sessionId);
    const full = repo.exists() ? await repo.resolveCommit(input.sha) : null;
    const turn = full ? await deps.db.turn.findFirst({ where: { sessionId: session.sessionId, commitSha: full } }) : null;
    if (!full || !turn) {
      throw new NotFoundError(`Session ${session.sessionId} has no turn commit ${input.sha}.`, { field: 'sha' });
    }
    const branch = await deps.db.branch.findUnique({
      where: { sessionId_name: { sessionId: session.sessionId, name: session.currentBranch } },
    });
    const atTip = branch?.headTurnId === turn.id;
    const updated = await deps.db.session.update({
      where: { sessionId: session.sessionId },
      data: { viewTurnId: atTip ? null : turn.id },
    });
    await moveRepoToView(deps, session.sessionId);
    await publishTimeline(deps, session.sessionId, 'CHECKED_OUT', turn.branch, full);
    return updated;
  });
}
