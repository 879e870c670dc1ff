import type { Turn } from '../generated/prisma/client.js';
import { claimTurn } from '../projects/claims.js';
import { projectDirtyNow } from '../projects/project-state.js';
import { now, type Deps } from './deps.js';
import { SessionWriter, type TurnClose } from './session-writer.js';
import { publishNewBranches } from './session-view.js';

/**
 * What endTurn, recordTurn and retryTurn share: under the session's lock, in
 * one transaction, `fill` adds what the call carries, then the open turn is
 * closed with its outbox jobs. After the commit: timeline events for new
 * branches, the turn's path claims in its project, and the background work.
 */
export async function closeTurnWith(
  deps: Deps,
  sessionId: string,
  close: TurnClose,
  fill: (writer: SessionWriter) => Promise<void>,
): Promise<Turn> {
  const turn = await deps.sessionLocks.run(sessionId, async () => {
    // The agent's files are written by now; what else is dirty is where the next turn begins.
    const dirtyAtClose = await projectDirtyNow(deps, sessionId);
    const { closed, branches } = await deps.db.$transaction(async (tx) => {
      const writer = await SessionWriter.load(tx, sessionId, now(deps));
      writer.projectDirtyAtClose = dirtyAtClose;
      await fill(writer);
      const turnClosed = await writer.closeTurn(close);
      await writer.flush();
      return { closed: turnClosed, branches: writer.createdBranches };
    });
    await publishNewBranches(deps, sessionId, branches);
    await claimTurn(deps, closed);
    return closed;
  });
  deps.onTurnClosed?.(sessionId);
  return turn;
}
