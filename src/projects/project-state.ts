import type { Db } from '../db/index.js';
import { ProjectRepo } from '../git/index.js';
import type { Logger } from '../logger.js';

/**
 * The dirty paths of a session's project working directory now, or null when
 * the session has no project or git cannot tell (the caller falls back to the
 * session's baseline). Never throws.
 */
export async function projectDirtyNow(db: Db, logger: Logger, sessionId: string): Promise<string[] | null> {
  const session = await db.session.findUnique({ where: { sessionId }, select: { project: { select: { workdir: true } } } });
  if (!session?.project) return null;
  try {
    const state = await new ProjectRepo(session.project.workdir).state();
    return state.isRepo ? state.dirtyPaths : [];
  } catch (error) {
    logger.warn({ err: error, sessionId }, 'could not read the project working tree at the start of a turn');
    return null;
  }
}
