/**
 * In-process locks keyed by a string (a session id, a working directory).
 * Every write to a session, and every git operation on its repo, runs under
 * its lock, so turns are ordered and a checkout never sees a half-written repo.
 */
import { Mutex } from 'async-mutex';

export class KeyedLocks {
  private readonly entries = new Map<string, { mutex: Mutex; users: number }>();

  /** Runs `work` alone for `key`; other keys run in parallel. Rejections pass through. */
  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { mutex: new Mutex(), users: 0 };
      this.entries.set(key, entry);
    }
    entry.users += 1;
    try {
      return await entry.mutex.runExclusive(work);
    } finally {
      entry.users -= 1;
      if (entry.users === 0) this.entries.delete(key);
    }
  }
}
