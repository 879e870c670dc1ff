import type { Message, Role } from '../../generated/prisma/client.js';
import { assertValidId } from '../../ids.js';
import { now, type Deps } from '../deps.js';
import { messageDraft, type MessageFields } from './message-draft.js';
import { SessionWriter } from './session-writer.js';
import { publishNewBranches } from './session-view.js';
import { projectDirtyNow } from '../../projects/project-state.js';

export interface AppendMessageInput extends MessageFields {
  sessionId: string;
  role: Role;
}

/**
 * Appends one message: a USER message opens a turn, the others join the open one.
 * @throws NotFoundError, BadUserInputError or ConflictError; nothing is written then.
 */
export async function appendMessage(input: AppendMessageInput, deps: Deps): Promise<Message> {
  assertValidId(input.sessionId, 'sessionId');
  const draft = messageDraft(input.role, input, deps);
  return deps.sessionLocks.run(input.sessionId, async () => {
    // A USER message starts a turn: note what the user had uncommitted in the project now.
    const dirty = input.role === 'USER' ? await projectDirtyNow(deps, input.sessionId) : null;
    const { message, branches } = await deps.db.$transaction(async (tx) => {
      const writer = await SessionWriter.load(tx, input.sessionId, now(deps), { projectDirtyAtStart: dirty });
      const appended = await writer.append(draft);
      const { createdBranches } = await writer.flush();
      return { message: appended, branches: createdBranches };
    });
    await publishNewBranches(deps, input.sessionId, branches);
    return message;
  });
}
