import type { Turn } from '../../generated/prisma/client.js';
import { CAPTURE_BASIS, captureBasis, closeProjectTurn } from '../../projects/turn-close.js';
import { now, type Deps } from '../deps.js';
import { SessionWriter, type TurnClose } from './session-writer.js';
import { publishNewBranches } from './session-view.js';

/**
 * What endTurn, recordTurn and retryTurn share: under the session's write
 * lock, in one transaction, `fill` adds what the call carries, then the open
 * turn is closed with its outbox jobs. Before it, outside the lock, the
 * agent's end-of-turn state in the project is captured (git runs there); after
 * it: timeline events for new branches, the claim of the agent's paths in its
 * project, and the background work. No git process runs under the lock, except
 * when another close of the same session landed between the capture and the
 * lock: then the capture is taken again, under it, from the new state.
 */
export async function closeTurnWith(
  deps: Deps,
  sessionId: string,
  close: TurnClose,
  fill: (writer: SessionWriter) => Promise<void>,
): Promise<Turn> {
  // The agent's files are written by now: capture its paths; what else is dirty is where the next turn begins.
  const capture = () => closeProjectTurn(deps, sessionId, { touched: close.touchedPaths ?? null, startedAt: close.startedAt ?? null });
  const early = await capture();
  const turn = await deps.sessionLocks.run(sessionId, async () => {
    let project = early;
    if (project) {
      const current = await deps.db.session.findUnique({ where: { sessionId }, select: CAPTURE_BASIS });
      // Rare: a close of this session landed meanwhile (the next turn starts where it ended).
      if (!current || captureBasis(current) !== project.basis) project = await capture();
    }
    const written = await deps.db.$transaction(async (tx) => {
      const writer = await SessionWriter.load(tx, sessionId, now(deps));
      writer.projectDirtyAtClose = project?.baseline ?? null;
      writer.projectCapture = project;
      await fill(writer);
      const turnClosed = await writer.closeTurn(close);
      await writer.flush();
      return { closed: turnClosed, branches: writer.createdBranches, project: writer.projectJobsQueued };
    });
    await publishNewBranches(deps, sessionId, written.branches);
    await project?.claim(written.closed.id);
    return written;
  });
  deps.onTurnClosed?.(sessionId, { project: turn.project });
  return turn.closed;
}
