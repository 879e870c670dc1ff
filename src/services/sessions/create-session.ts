import type { Session } from '../../generated/prisma/client.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { assertValidId, newId } from '../../ids.js';
import { now, type Deps } from '../deps.js';
import { dirtyAtJoin } from '../../projects/working-tree.js';
import { assertShortText, assertWellFormed, metadataText } from './validate.js';
import { redactSessionFields } from './redact-drafts.js';

export interface CreateSessionInput {
  sessionId?: string | null;
  title?: string | null;
  agentId?: string | null;
  model?: string | null;
  projectId?: string | null;
  /** What the session's source said about it (hooks: the agent's cwd and transcript), kept as JSON text. */
  metadata?: unknown;
}

/**
 * Creates a session with its `main` branch.
 * @throws BadUserInputError for a malformed id or text, ConflictError when the
 * id is taken, NotFoundError for an unknown project.
 */
export async function createSession(input: CreateSessionInput, deps: Deps): Promise<Session> {
  const sessionId = input.sessionId != null ? assertValidId(input.sessionId, 'sessionId') : newId();
  assertShortText(input.title, 'title');
  assertWellFormed(input.title, 'title');
  assertShortText(input.agentId, 'agentId');
  assertShortText(input.model, 'model');
  if (input.projectId != null) assertValidId(input.projectId, 'projectId');
  const { title, metadata } = await redactSessionFields(deps, input.title ?? null, input.metadata === undefined ? null : metadataText(input.metadata, 'metadata'));
  const at = now(deps);
  // What the project's tree already has uncommitted is the user's, not this session's.
  const project = input.projectId != null ? await deps.db.project.findUnique({ where: { projectId: input.projectId } }) : null;
  const baseline = project ? JSON.stringify(await dirtyAtJoin(project, deps)) : null;
  return deps.sessionLocks.run(sessionId, () =>
    deps.db.$transaction(async (tx) => {
      if (await tx.session.findUnique({ where: { sessionId }, select: { sessionId: true } })) {
        throw new ConflictError(`A session ${sessionId} already exists; choose another sessionId or leave it out.`, { sessionId });
      }
      if (input.projectId != null) {
        const project = await tx.project.findUnique({ where: { projectId: input.projectId }, select: { projectId: true } });
        if (!project) throw new NotFoundError(`Project ${JSON.stringify(input.projectId)} does not exist.`, { projectId: input.projectId });
      }
      const session = await tx.session.create({
        data: {
          sessionId,
          title,
          agentId: input.agentId ?? null,
          model: input.model ?? null,
          projectId: input.projectId ?? null,
          projectJoinedAt: input.projectId != null ? at : null,
          projectDirtyBaseline: baseline,
          createdAt: at,
          metadata,
        },
      });
      await tx.branch.create({ data: { sessionId, name: 'main', kind: 'MAIN', createdAt: at } });
      return session;
    }),
  );
}
