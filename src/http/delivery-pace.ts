/**
 * Subscription messages are written a batch per event-loop turn (src/http/fan-out.ts). At 1,000
 * subscribers an event's writes take tens of milliseconds; in one burst no request is read
 * meanwhile, so a `recordTurn` sent then waited for the whole fan-out. In short batches, whatever
 * else waits (a request, `/health`) is served between two, and the fan-out still runs at full
 * speed when nothing does.
 */

/** Jobs run per event-loop turn, at most: 64. */
export const JOBS_PER_TURN = 64;
/**
 * A turn's jobs stop once they have taken this long (at least one runs): 2 ms. A member's job
 * writes every result of its round, so 64 of them took 1.6 ms for one result and 9 ms for the 9
 * of a burst (p50 and p90 of the batches at 1,000 subscribers, load 5); a request in progress
 * waits at most about this long per step.
 */
export const TURN_BUDGET_MS = 2;

let waiting: (() => void)[] = [];
let next = 0;
let scheduled = false;

function runBatch(): void {
  // In order: a subscriber's messages keep theirs, and so does the order of subscribers.
  const end = Math.min(next + JOBS_PER_TURN, waiting.length);
  const until = performance.now() + TURN_BUDGET_MS;
  while (next < end) {
    const job = waiting[next++]!;
    try {
      job();
    } catch {
      // A job's failure is its own; the others still run.
    }
    if (performance.now() >= until) break;
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
 * Runs `job` in its turn: the first waiting (JOBS_PER_TURN at most, TURN_BUDGET_MS of them) run
 * in the next event-loop turn (setImmediate), each further batch a turn later, in the order
 * given. A job that throws is ignored.
 */
export function inTurn(job: () => void): void {
  waiting.push(job);
  if (!scheduled) {
    scheduled = true;
    setImmediate(runBatch);
  }
}
