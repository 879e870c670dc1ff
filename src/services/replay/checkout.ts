import type { Session } from '../../generated/prisma/client.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { assertValidId } from '../../ids.js';
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
 *
 * The commit is found in the database (every mirrored turn keeps its sha), so
 * the write needs no git; the repo's HEAD follows after the write lock is let
 * go (`moveRepoToView`), before the mutation answers.
 * @throws BadUserInputError for a malformed sha, NotFoundError for one that is
 * not a turn commit of this session (or is the prefix of several), ConflictError while a turn is open.
 */
export async function checkout(input: CheckoutInput, deps: Deps): Promise<Session> {
  assertValidId(input.sessionId, 'sessionId');
  assertShaInput(input.sha);
  const sha = input.sha.toLowerCase();
  const { updated, turn } = await deps.sessionLocks.run(input.sessionId, async () => {
    const session = await requireSession(deps.db, input.sessionId);
    if (session.openTurnId) throw new ConflictError('A turn is open: end it (endTurn) before moving to another commit.');
    const matches = await deps.db.turn.findMany({
      where: { sessionId: session.sessionId, commitSha: sha.length === 40 ? sha : { startsWith: sha } },
      select: { id: true, branch: true, commitSha: true },
      take: 2,
    });
    const found = matches.length === 1 ? matches[0] : undefined;
    if (!found) {
      const why = matches.length > 1 ? ` (${sha} is the start of several; give more digits)` : '';
      throw new NotFoundError(`Session ${session.sessionId} has no turn commit ${input.sha}${why}.`, { field: 'sha' });
    }
    const branch = await deps.db.branch.findUnique({
      where: { sessionId_name: { sessionId: session.sessionId, name: session.currentBranch } },
    });
    const atTip = branch?.headTurnId === found.id;
    const written = await deps.db.session.update({
      where: { sessionId: session.sessionId },
      data: { viewTurnId: atTip ? null : found.id },
    });
    return { updated: written, turn: found };
  });
  await moveRepoToView(deps, updated.sessionId);
  await publishTimeline(deps, updated.sessionId, 'CHECKED_OUT', turn.branch, turn.commitSha);
  return updated;
}
