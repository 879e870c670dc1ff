/**
 * Subscription messages are handed to their sockets a batch per event-loop turn. An event's
 * result is shared (src/schema/shared-events.ts), so once it is ready every subscriber's next
 * step runs in one burst of microtasks: at 1,000 subscribers that is some 100 ms of framing and
 * socket writes during which no request is read, so a `recordTurn` sent meanwhile waited for the
 * whole fan-out (×2 of its time with one subscriber). In batches, whatever else waits (a request,
 * `/health`) is served between two, and the fan-out still runs at full speed when nothing does.
 */

/** Messages handed over per event-loop turn: 64, a few milliseconds of writes. */
export const MESSAGES_PER_TURN = 64;

const waiting: (() => void)[] = [];
let scheduled = false;

function releaseBatch(): void {
  // Released in order: a subscriber's events keep theirs, and so does the order of subscribers.
  const batch = waiting.splice(0, MESSAGES_PER_TURN);
  for (const release of batch) release();
  if (waiting.length > 0) setImmediate(releaseBatch);
  else scheduled = false;
}

/**
 * Resolves with `value` in its turn: the first MESSAGES_PER_TURN waiting go at the end of this
 * event-loop turn (setImmediate), each further batch a turn later. Never rejects.
 */
export function inTurn<T>(value: T): Promise<T> {
  if (!scheduled) {
    scheduled = true;
    setImmediate(releaseBatch);
  }
  return new Promise<T>((resolve) => waiting.push(() => resolve(value)));
}
