/**
 * Whether a session is being recorded now: its agent is live. The rule: the session has an open
 * turn, and the newest message of that turn (the prompt that opened it, a tool call, a result)
 * was written less than RECORDING_WINDOW_MS ago.
 *
 * Both halves matter. A turn stays open while the agent works; between turns the agent waits for
 * its user and nothing is being recorded. An open turn nothing has reached for a while is an agent
 * that stopped without saying so (killed, its Stop hook lost) or an import that ended mid-turn:
 * not live. A message's time is when its source wrote it (a hook event replayed from the spool:
 * when the hook received it; an imported transcript: the transcript's own time), so replaying an
 * old transcript never looks live.
 */
import type { Deps } from '../deps.js';
import { now } from '../deps.js';

/** How long after its newest message an open turn still counts as recording: 10 minutes, longer than most single tool calls run. */
export const RECORDING_WINDOW_MS = 10 * 60_000;

/** See the module comment. Reads one row, none when no turn is open. */
export async function isRecording(deps: Pick<Deps, 'db' | 'now'>, session: { openTurnId: string | null }): Promise<boolean> {
  if (session.openTurnId === null) return false;
  const newest = await deps.db.message.findFirst({
    where: { turnId: session.openTurnId },
    orderBy: { seq: 'desc' },
    select: { createdAt: true },
  });
  if (!newest) return false;
  return now(deps).getTime() - newest.createdAt.getTime() < RECORDING_WINDOW_MS;
}
