/**
 * Bringing an archived session's repo back (`entity-memory archive` made it a bundle): what the
 * web UI asks when an archived session is opened, and what an API client asks before reading its
 * git-backed fields. A session that is not archived is answered as it is.
 */
import type { Session } from '../../generated/prisma/client.js';
import { ConflictError } from '../../errors.js';
import { assertValidId } from '../../ids.js';
import { ArchiveDamagedError, unarchiveSession as restore } from '../../mirror/index.js';
import type { Deps } from '../deps.js';
import { requireSession } from './read-session.js';

export interface UnarchiveSessionInput {
  sessionId: string;
}

/**
 * @throws BadUserInputError for a malformed id, NotFoundError for an unknown session,
 *   ConflictError (`extensions.archive: "damaged"`) when the archive cannot give the repo back
 *   (left as it is; `entity-memory verify` names what is wrong).
 */
export async function unarchiveSession(input: UnarchiveSessionInput, deps: Deps): Promise<Session> {
  assertValidId(input.sessionId, 'sessionId');
  const session = await requireSession(deps.db, input.sessionId);
  try {
    if (await restore(deps, session.sessionId)) deps.logger.info({ sessionId: session.sessionId }, 'brought an archived session repo back');
  } catch (error) {
    if (error instanceof ArchiveDamagedError) throw new ConflictError(`${error.message}. Run entity-memory verify to see what is wrong.`, { archive: 'damaged' });
    throw error;
  }
  return session;
}
