/**
 * Starting a process holds the event loop: Node forks, and fork copies the
 * server's page tables, about 7 ms per 100 MB of resident memory (measured
 * here: 1 ms at 46 MB, 22 ms at 360 MB). A query whose 28 diffs resolve in
 * one tick started 28 git processes back to back and held `/health` for
 * 400 ms. Runs that go through `paced` start one per event-loop turn, so
 * whatever else is waiting (another request, `/health`) is served between
 * two spawns, and at most `MAX_RUNNING` at a time, in the order asked.
 */
import { AsyncResource } from 'node:async_hooks';

/** Git processes started through `paced` that may run at once: 8 (more does not help on a few cores). */
export const MAX_RUNNING = 8;

let running = 0;
const waiting: (() => void)[] = [];
let dispatching = false;

/**
 * Runs `start` (which spawns one process and settles when it exits) in its
 * turn. It runs in the async context of the caller, so the request that
 * asked is the one whose budget it spends. Settles as `start` does.
 */
export function paced<T>(start: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const startInContext = AsyncResource.bind(() => {
      let run: Promise<T>;
      try {
        run = start();
      } catch (error) {
        run = Promise.reject(error);
      }
      return run;
    });
    waiting.push(() => {
      running += 1;
      startInContext()
        .then(resolve, reject)
        .finally(() => {
          running -= 1;
          dispatch();
        });
    });
    dispatch();
  });
}

function dispatch(): void {
  if (dispatching || running >= MAX_RUNNING || waiting.length === 0) return;
  dispatching = true;
  // An immediate queued from an immediate runs on the next loop turn, after pending I/O.
  setImmediate(() => {
    dispatching = false;
    if (running < MAX_RUNNING) waiting.shift()?.();
    dispatch();
  });
}
