/**
 * Subscription messages are written a batch per event-loop turn (src/http/fan-out.ts). At 1,000
 * subscribers an event's writes take tens of milliseconds; in one burst no request is read
 * meanwhile, so a `recordTurn` sent then waited for the whole fan-out. In batches, whatever else
 * waits (a request, `/health`) is served between two, and the fan-out still runs at full speed
 * when nothing does.
 */

/** Jobs run per event-loop turn: 64, a few milliseconds of writes. */
export const JOBS_PER_TURN = 64;

let waiting: (() => void)[] = [];
let next = 0;
let scheduled = false;

function runBatch(): void {
  // In order: a subscriber's messages keep theirs, and so does the order of subscribers.
  const end = Math.min(next + JOBS_PER_TURN, waiting.length);
  for (; next < end; next++) {
    const job = waiting[next]!;
    try {
      job();
    } catch {
      // A job's failure is its own; the others still run.
    }
  }
  if (next < waiting.length) {
    setImmediate(runBatch);
    return;
  }
  waiting = [];
  next = 0;
  scheduled = false;
}

/**
 * Runs `job` in its turn: the first JOBS_PER_TURN waiting run in the next event-loop turn
 * (setImmediate), each further batch a turn later, in the order given. A job that throws is
 * ignored.
 */
export function inTurn(job: () => void): void {
  waiting.push(job);
  if (!scheduled) {
    scheduled = true;
    setImmediate(runBatch);
  }
}
