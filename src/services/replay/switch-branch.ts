import type { Session } from '../../generated/prisma/client.js';
import { BadUserInputError, ConflictError, NotFoundError } from '../../errors.js';
import { isValidBranchName } from '../../git/index.js';
import { assertValidId } from '../../ids.js';
import type { Deps } from '../deps.js';
import { requireSession } from '../sessions/read-session.js';
import { moveRepoToView, publishTimeline } from '../sessions/session-view.js';

export interface SwitchBranchInput {
  sessionId: string;
  branch: string;
}

/**
 * Makes a branch current (and leaves replay): new messages go to its tip.
 * @throws BadUserInputError for a name that is not a session branch name, NotFoundError for an unknown branch, ConflictError while a turn is open.
 */
export async function switchBranch(input: SwitchBranchInput, deps: Deps): Promise<Session> {
  assertValidId(input.sessionId, 'sessionId');
  if (!isValidBranchName(input.branch)) {
    throw new BadUserInputError(
      `${JSON.stringify(input.branch.slice(0, 80))} is not a session branch name (main, retry-<id> or fork-<id>).`,
      { field: 'branch' },
    );
  }
  const { updated, branch } = await deps.sessionLocks.run(input.sessionId, async () => {
    const session = await requireSession(deps.db, input.sessionId);
    if (session.openTurnId) throw new ConflictError('A turn is open: end it (endTurn) before switching branches.');
    const branch = await deps.db.branch.findUnique({ where: { sessionId_name: { sessionId: session.sessionId, name: input.branch } } });
    if (!branch) throw new NotFoundError(`Session ${session.sessionId} has no branch ${input.branch}.`, { field: 'branch' });
    const written = await deps.db.session.update({
      where: { sessionId: session.sessionId },
      data: { currentBranch: branch.name, viewTurnId: null },
    });
    return { updated: written, branch };
  });
  // The repo follows once the write lock is let go: writers never wait for git.
  await moveRepoToView(deps, updated.sessionId);
  const head = branch.headTurnId ? await deps.db.turn.findUnique({ where: { id: branch.headTurnId }, select: { commitSha: true } }) : null;
  await publishTimeline(deps, updated.sessionId, 'BRANCH_SWITCHED', branch.name, head?.commitSha ?? null);
  return updated;
}
