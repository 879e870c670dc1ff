/**
 * Background work that drains a queue per key (a session's outbox jobs): at
 * most one drain per key at a time; a key notified while its drain runs is
 * drained once more right after, so no notification is lost.
 */
import { outsideRequest } from './request-context.js';

export class KeyedDrains {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private stopped = false;

  /**
   * @param drain empties the queue of one key; a rejection is passed to `onError`, never thrown.
   */
  constructor(
    private readonly drain: (key: string) => Promise<void>,
    private readonly onError: (error: unknown, key: string) => void,
  ) {}

  /** Keys with a drain running or queued now. */
  get active(): number {
    return this.running.size;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Whether a drain of `key` is running (or queued for its slot). */
  isRunning(key: string): boolean {
    return this.running.has(key);
  }

  /** Drains `key` now, or again after the drain that is running. No-op once stopped. */
  notify(key: string): void {
    if (this.stopped) return;
    if (this.running.has(key)) {
      this.again.add(key);
      return;
    }
    // A request that notifies must not lend the drain its budgets (or its id).
    const run = outsideRequest(() => this.drain(key))
      .catch((error: unknown) => this.onError(error, key))
      .finally(() => {
        this.running.delete(key);
        if (this.again.delete(key)) this.notify(key);
      });
    this.running.set(key, run);
  }

  /** Resolves when no drain is running. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  /** Stops taking notifications and waits for the drains in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
  }
}
