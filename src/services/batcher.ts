/**
 * Per-key loads gathered into one batch: every `load` made before the current
 * tick's promise jobs run out is answered by one call of the batch function,
 * so the fields of a page's 50 rows (resolved side by side by GraphQL) cost
 * one query between them instead of 50.
 *
 * Nothing is cached beyond a batch: a key asked for twice in the same batch is
 * loaded once, but a later load reads again. A subscription's context outlives
 * many events, and a cache there would answer from before the write.
 *
 * The `dataloader` package does the same and also caches; it is not used
 * because the cache is what must not happen here, and this is all of it that
 * is needed (keys made of several values, one error per key).
 */
export type BatchResult<V> = V | Error;

export class Batcher<K, V> {
  private pending: Map<string, { key: K; waiters: { resolve: (value: V) => void; reject: (error: unknown) => void }[] }> | null = null;

  /**
   * @param loadMany the values of `keys` (distinct, in the order first asked
   *   for), one per key in that order; an Error at a key rejects that key's
   *   loads only, a throw rejects the whole batch.
   * @param keyOf what makes two keys the same (default: `String(key)`).
   */
  constructor(
    private readonly loadMany: (keys: K[]) => Promise<BatchResult<V>[]>,
    private readonly keyOf: (key: K) => string = String,
  ) {}

  /** The value of `key`, loaded with every other key asked for in the same tick. */
  load(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      if (this.pending === null) {
        this.pending = new Map();
        // After the promise jobs queued now: resolvers awaiting an earlier batch ask in this one too.
        process.nextTick(() => void this.flush());
      }
      const id = this.keyOf(key);
      const entry = this.pending.get(id);
      if (entry) entry.waiters.push({ resolve, reject });
      else this.pending.set(id, { key, waiters: [{ resolve, reject }] });
    });
  }

  private async flush(): Promise<void> {
    const entries = [...this.pending!.values()];
    this.pending = null;
    try {
      const values = await this.loadMany(entries.map((e) => e.key));
      for (const [i, { waiters }] of entries.entries()) {
        const value = values[i];
        for (const w of waiters) {
          if (value instanceof Error) w.reject(value);
          else if (i >= values.length) w.reject(new Error('A batch load answered fewer values than keys.'));
          else w.resolve(value as V);
        }
      }
    } catch (error) {
      for (const { waiters } of entries) for (const w of waiters) w.reject(error);
    }
  }
}

/** `items` in slices of at most `size`, for `IN (...)` lists and compound selects kept under SQLite's limits. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
