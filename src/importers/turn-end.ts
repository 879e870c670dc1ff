/**
 * When the turn left open at the end of what was read is over, for the importers that read a
 * transcript as it grows (a file imported now and again later, or followed): closing a turn
 * makes its commit, and a record of it that comes after is no longer part of it. So a turn is
 * closed when its reply says it ended (stop reason `end_turn`), when a text reply with no tool
 * call pending has had nothing after it for IDLE_CLOSE_MS (some transcripts record every reply
 * with a null stop reason), or when nothing at all has come for STALE_CLOSE_MS (a session that
 * stopped mid-turn: interrupted, or its agent gone). Otherwise it stays open for what follows.
 */

/** A text reply with nothing after it for this long ends its turn (`--follow`'s default). */
export const IDLE_CLOSE_MS = 5_000;
/** A transcript nothing was written to for this long has no turn still going on. */
export const STALE_CLOSE_MS = 10 * 60_000;

/** What the rule needs of the last message read. */
export interface LastMessage {
  role: string;
  stopReason: string | undefined;
  /** Whether it calls tools (its turn then waits for their results). */
  callsTools: boolean;
}

/** The LastMessage facts of an imported message (its metadata holds the reply's stop reason and tool calls). */
export function lastMessageOf(message: { role: string; metadata?: Record<string, unknown> | undefined }): LastMessage {
  return { role: message.role, stopReason: stopReasonOf(message.metadata), callsTools: callsTools(message.metadata) };
}

/** The reply's stop reason, if it has one. */
export function stopReasonOf(metadata: Record<string, unknown> | undefined): string | undefined {
  const value = metadata?.stopReason;
  return typeof value === 'string' ? value : undefined;
}

/** Whether a reply calls tools (its turn then waits for their results). */
export function callsTools(metadata: Record<string, unknown> | undefined): boolean {
  const calls = metadata?.toolCalls;
  return Array.isArray(calls) && calls.length > 0;
}

/**
 * Whether the turn ending with `last` is over, nothing having been written for `quietMs`.
 * @param idleMs the IDLE_CLOSE_MS to use (a follower may be given another).
 */
export function turnIsOver(last: LastMessage | undefined, quietMs: number, idleMs = IDLE_CLOSE_MS): boolean {
  if (last === undefined) return false;
  if (quietMs >= STALE_CLOSE_MS) return true;
  if (last.role !== 'ASSISTANT') return false;
  if (last.stopReason === 'end_turn') return true;
  return !last.callsTools && quietMs >= idleMs;
}
