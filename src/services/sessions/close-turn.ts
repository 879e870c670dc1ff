import type { Turn } from '../../generated/prisma/client.js';
import { CAPTURE_BASIS, captureBasis, closeProjectTurn, type ProjectClose } from '../../projects/turn-close.js';
import { now, type Deps } from '../deps.js';
import { SessionWriter, type TurnClose } from './session-writer.js';
import { publishWritten } from './session-view.js';

/**
 * What endTurn, recordTurn and retryTurn share: under the session's write
 * lock, in one transaction, `fill` adds what the call carries, then the open
 * turn is closed with its outbox jobs. Before it, outside the lock, the
 * agent's end-of-turn state in the project is captured (git runs there); after
 * it: timeline events for new branches, the claim of the agent's paths in its
 * project, and the background work. No git process runs under the lock, except
 * when another close of the same session landed between the capture and the
 * lock: then the capture is taken again, under it, from the new state.
 *
 * Most sessions have no project: their close does not look for one first. The
 * transaction finds out (it reads the session anyway); when the session turns
 * out to capture, it is undone, the capture is taken outside the lock, and the
 * close runs again. Sessions seen capturing are remembered (a hint only), so
 * their next closes capture first, as before.
 *
 * Once durable, a close asked by a live request (`paced`, the default) is paced by the mirror's
 * backlog before it returns (Deps.paceAcknowledgement); a hook event replayed from the spool is not.
 */
export async function closeTurnWith(
  deps: Deps,
  sessionId: string,
  close: TurnClose,
  fill: (writer: SessionWriter) => Promise<void>,
  options: { paced?: boolean } = {},
): Promise<Turn> {
  // The agent's files are written by now: capture its paths; what else is dirty is where the next turn begins.
  const capture = () => closeProjectTurn(deps, sessionId, { touched: close.touchedPaths ?? null, startedAt: close.startedAt ?? null });
  const capturing = capturingSessions(deps);
  let turn: { closed: Turn; project: boolean };
  try {
    turn = await closeUnderLock(deps, sessionId, close, fill, capturing.has(sessionId) ? await capture() : undefined, capture);
  } catch (error) {
    if (!(error instanceof CaptureFirst)) throw error;
    capturing.add(sessionId);
    turn = await closeUnderLock(deps, sessionId, close, fill, await capture(), capture);
  }
  deps.onTurnClosed?.(sessionId, { project: turn.project });
  if (options.paced !== false) await deps.paceAcknowledgement?.(sessionId, turn.closed.id);
  return turn.closed;
}

/** The close's transaction found a session that captures, and no capture was taken: undone, to take it outside the lock. */
class CaptureFirst extends Error {}

/** Per database: sessions whose closes captured in this process. */
const capturingByDb = new WeakMap<Deps['db'], Set<string>>();

function capturingSessions(deps: Pick<Deps, 'db'>): Set<string> {
  let sessions = capturingByDb.get(deps.db);
  if (!sessions) {
    sessions = new Set();
    capturingByDb.set(deps.db, sessions);
  }
  return sessions;
}

/**
 * The close under the session's write lock.
 * @param early the capture taken before the lock; null when it found nothing to capture,
 *   undefined when none was tried (then a session that captures throws CaptureFirst).
 */
async function closeUnderLock(
  deps: Deps,
  sessionId: string,
  close: TurnClose,
  fill: (writer: SessionWriter) => Promise<void>,
  early: ProjectClose | null | undefined,
  capture: () => Promise<ProjectClose | null>,
): Promise<{ closed: Turn; project: boolean }> {
  return deps.sessionLocks.run(sessionId, async () => {
    let project = early ?? null;
    if (project) {
      const current = await deps.db.session.findUnique({ where: { sessionId }, select: CAPTURE_BASIS });
      // Rare: a close of this session landed meanwhile (the next turn starts where it ended).
      if (!current || captureBasis(current) !== project.basis) project = await capture();
    }
    const written = await deps.db.$transaction(async (tx) => {
      const writer = await SessionWriter.load(tx, sessionId, now(deps));
      if (early === undefined && writer.capturesProject) throw new CaptureFirst();
      await fill(writer);
      const turnClosed = await writer.closeTurn(close, project);
      const outcome = await writer.flush();
      return { closed: turnClosed, outcome, project: outcome.projectJobsQueued };
    });
    await publishWritten(deps, sessionId, written.outcome);
    await project?.claim(written.closed.id);
    return written;
  });
}
