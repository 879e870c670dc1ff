/**
 * A subscription's events are executed as they arrive, not one after the other as they are sent.
 * graphql's own mapping of a source stream asks for the next event only once the previous result
 * has been sent, so the events of a burst were resolved in a row: the mirror announces a backlog
 * of turns together (one fast-import stream), and at 1 subscriber the 10th event of a burst of
 * 10 waited for 9 resolutions (database rows and a git process each, some 25 ms apiece at load
 * 5) before its own began. Started on arrival, a burst's executions run together, and their
 * commit reads share one git process (reads asked in the same tick are batched per repo).
 *
 * Results still come out in the order of their events. At most AHEAD results wait to be taken;
 * past that the source is not read, and its own bound applies (the pubsub's queue per
 * subscription, src/pubsub.ts).
 */

/** Results executed ahead of the subscriber, at most: 32, more than a mirror pass announces at once here. */
export const AHEAD = 32;

type Step<T> = IteratorResult<T, undefined>;

/**
 * The results of `run` over `source`'s events, in order, each run started as soon as its event
 * arrives. Reading starts at the first `next()`. `return()` ends it at once, waiting or not (and
 * returns the source), which graphql-ws calls when the subscription or its socket ends. A `run`
 * or source that throws ends the iteration: the next `next()` rejects with the error and the
 * source is returned.
 */
export function executeAhead<T>(source: AsyncIterator<unknown>, run: (event: unknown) => Promise<T>): AsyncGenerator<T, undefined> {
  /** Started runs nobody has asked for yet, oldest first. */
  const ready: Promise<T>[] = [];
  /** `next()` calls waiting for an event, oldest first. */
  const takers: ((step: Promise<Step<T>>) => void)[] = [];
  let reading = false;
  let ended = false;
  let failure: { error: unknown } | undefined;
  let returned: Promise<unknown> | undefined;

  const close = async (): Promise<Step<T>> => {
    ended = true;
    ready.length = 0;
    for (const take of takers.splice(0)) take(Promise.resolve({ value: undefined, done: true }));
    await (returned ??= Promise.resolve(source.return?.()));
    return { value: undefined, done: true };
  };

  const taken = (result: Promise<T>): Promise<Step<T>> =>
    result.then(
      (value) => ({ value, done: false }),
      async (error: unknown) => {
        await close();
        throw error;
      },
    );

  const read = (): void => {
    if (reading || ended || ready.length >= AHEAD) return;
    reading = true;
    source.next().then(
      (step) => {
        reading = false;
        if (ended) return;
        if (step.done) {
          void close();
          return;
        }
        let result: Promise<T>;
        try {
          result = run(step.value);
        } catch (error) {
          result = Promise.reject(error);
        }
        // Handled by whoever takes it; not an unhandled rejection while it waits.
        result.catch(() => {});
        const take = takers.shift();
        if (take) take(taken(result));
        else ready.push(result);
        read();
      },
      (error: unknown) => {
        reading = false;
        if (ended) return;
        const take = takers.shift();
        if (take) take(Promise.reject(error));
        else failure = { error };
        void close();
      },
    );
  };

  const iterator: AsyncGenerator<T, undefined> = {
    next() {
      const result = ready.shift();
      if (result) {
        read();
        return taken(result);
      }
      if (failure) {
        const { error } = failure;
        failure = undefined;
        return Promise.reject(error);
      }
      if (ended) return Promise.resolve({ value: undefined, done: true });
      const step = new Promise<Step<T>>((resolve) => takers.push(resolve));
      read();
      return step;
    },
    return: () => close(),
    async throw(error: unknown) {
      await close();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
