import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { Logger } from '../logger.js';
import { pathsOf, readClaims } from './claims.js';
import { openProjectRepo } from './project-place.js';

/**
 * The dirty paths of a session's project working directory now, less the
 * paths the session's own earlier turns left and have not committed yet
 * (their claims): the user's uncommitted work as a new turn begins. Null when
 * the session has no project, the folder or its repo is refused now (nothing
 * is run there), or git cannot tell; the caller then falls back to the
 * session's baseline. Never throws.
 * @param options.asOf asked after the fact: the dirty paths that had changed by then (a path
 *   changed since cannot be told; it is left out, a deleted one kept).
 */
export async function projectDirtyNow(
  deps: { db: Db; logger: Logger; config: Config },
  sessionId: string,
  options: { asOf?: Date } = {},
): Promise<string[] | null> {
  const session = await deps.db.session.findUnique({
    where: { sessionId },
    select: { project: { select: { projectId: true, workdir: true, trustedConfig: true } } },
  });
  if (!session?.project) return null;
  try {
    const place = await openProjectRepo(session.project, deps.config);
    const dirty = (await place.repo.status()).dirtyPaths;
    const pending = pathsOf(await readClaims(place.location), sessionId, true);
    const mine = dirty.filter((p) => !pending.has(p));
    if (!options.asOf) return mine;
    // Asked after the fact (a turn's start replayed from the hooks' spool): what changed since then is
    // not what was dirty then. No slack after `asOf` (the hook's time, taken before it exits and the
    // agent goes on): with 50 ms, an agent answered at once wrote its file inside it, and its own
    // file was taken for the user's (a coarse mtime can only read earlier, the safe way: skipped).
    const until = options.asOf.getTime();
    const then = await Promise.all(
      mine.map(async (path) => {
        const stats = await lstat(join(place.workdir, path)).catch(() => null);
        return stats === null || Math.max(stats.mtimeMs, stats.ctimeMs) <= until;
      }),
    );
    return mine.filter((_, i) => then[i]);
  } catch (error) {
    deps.logger.warn({ err: error, sessionId }, 'could not read the project working tree');
    return null;
  }
}
