/**
 * One lock per working directory, held only around status, add and commit:
 * an in-process mutex (sessions of this server) and a lock file in the repo's
 * git directory (other server processes). proper-lockfile does the file lock
 * (atomic mkdir, staleness by mtime) rather than a hand-rolled one.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { ProjectRepo } from '../git/index.js';
import type { KeyedLocks } from '../locks.js';

async function gitDirOf(workdir: string): Promise<string> {
  const location = await new ProjectRepo(workdir).locate();
  if (!location) throw new Error(`${workdir} is not a git repository`);
  return location.gitDir;
}

/**
 * Runs `work` holding the working directory's locks.
 * @param waitMs how long to wait for another process's lock (default 60 s).
 */
export async function withProjectLock<T>(locks: KeyedLocks, workdir: string, work: () => Promise<T>, waitMs = 60_000): Promise<T> {
  return locks.run(workdir, async () => {
    const gitDir = await gitDirOf(workdir);
    await mkdir(gitDir, { recursive: true });
    const target = join(gitDir, 'entity-memory-commit');
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
