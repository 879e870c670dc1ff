/**
 * One lock per working directory, held only around status, add and commit:
 * an in-process mutex (sessions of this server) and a lock file in the repo's
 * git directory (other server processes). proper-lockfile does the file lock
 * (atomic mkdir, staleness by mtime) rather than a hand-rolled one.
 */
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import type { KeyedLocks } from '../locks.js';
import { gitDirOf } from './project-place.js';

/**
 * Runs `work` holding the working directory's locks.
 * @param options.waitMs how long to wait for another process's lock (default 60 s);
 * @param options.gitDir where the lock file goes: a git directory already checked
 * (`RepoPlace.location.gitDir`). Default: located now, unchecked (tests, benchmarks).
 */
export async function withProjectLock<T>(
  locks: KeyedLocks,
  workdir: string,
  work: () => Promise<T>,
  options: { waitMs?: number; gitDir?: string } = {},
): Promise<T> {
  const waitMs = options.waitMs ?? 60_000;
  return locks.run(workdir, async () => {
    const target = join(await gitDirOf(options.gitDir ? { gitDir: options.gitDir } : workdir), 'entity-memory-commit');
    const release = await lockfile.lock(target, {
      realpath: false,
      stale: 30_000,
      update: 5_000,
      retries: { retries: Math.ceil(waitMs / 100), minTimeout: 20, maxTimeout: 100, factor: 1.2 },
    });
    try {
      return await work();
    } finally {
      await release();
    }
  });
}
