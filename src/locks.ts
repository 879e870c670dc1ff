/**
 * In-process locks keyed by a string (a session id, a working directory).
 *
 * A session has two, never held the other way round:
 * - its write lock (`Deps.sessionLocks`): every database write to the session,
 *   so turns are numbered and closed in order. Held for database work only: no
 *   git process runs under it, so a request never waits for the mirror.
 * - its repo lock (`Deps.repoLocks`): every git write to the session repo (the
 *   mirror's commits, a checkout's HEAD move, a rebuild), so git never sees two
 *   writers. Taken alone, or inside the write lock (reconcile, an import's
 *   branch switch), never around it.
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
