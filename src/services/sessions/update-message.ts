import type { Message } from '../../generated/prisma/client.js';
import { BadUserInputError, ConflictError, NotFoundError } from '../../errors.js';
import { assertValidId } from '../../ids.js';
import type { Deps } from '../deps.js';
import { assertContentSize, assertWellFormed, metadataText } from './validate.js';
import { publishTurnUpdates } from './session-view.js';
import { redactUpdate } from './redact-drafts.js';
import { markerCounts, mergeCounts } from '../../redaction/message.js';

export interface UpdateMessageInput {
  sessionId: string;
  messageId: string;
  content?: string | null;
  metadata?: unknown;
}

/**
 * Changes a message of the open turn (the assistant placeholder being filled).
 * Closed turns are history: they never change.
 */
export async function updateMessage(input: UpdateMessageInput, deps: Deps): Promise<Message> {
  assertValidId(input.sessionId, 'sessionId');
  assertValidId(input.messageId, 'messageId');
  if (input.content == null && input.metadata === undefined) {
    throw new BadUserInputError('Give content, metadata or both to change.');
  }
  if (input.content != null) assertContentSize(input.content, deps.config.maxContentBytes);
  assertWellFormed(input.content, 'content');
  const metadataRaw = input.metadata === undefined ? undefined : metadataText(input.metadata);
  // Secrets out of what changes; what stays was redacted when it was stored (its markers count).
  const redacted = await redactUpdate(deps, input.content ?? '', metadataRaw ?? null);
  const content = input.content == null ? undefined : redacted.content;
  const metadata = metadataRaw === undefined ? undefined : redacted.metadata;
  const updated = await deps.sessionLocks.run(input.sessionId, () =>
    deps.db.$transaction(async (tx) => {
      const session = await tx.session.findUnique({ where: { sessionId: input.sessionId } });
      if (!session) throw new NotFoundError(`Session ${JSON.stringify(input.sessionId)} does not exist.`);
      const message = await tx.message.findUnique({
        where: { sessionId_messageId: { sessionId: input.sessionId, messageId: input.messageId } },
      });
      if (!message) {
        throw new NotFoundError(`Session ${input.sessionId} has no message ${JSON.stringify(input.messageId)}.`);
      }
      if (!session.openTurnId || message.turnId !== session.openTurnId) {
        throw new ConflictError(
          `Message ${input.messageId} belongs to a closed turn; only messages of the open turn can change.`,
        );
      }
      const kept = `${content === undefined ? message.content : ''}\n${metadata === undefined ? (message.metadata ?? '') : ''}`;
      const counts = mergeCounts(redacted.redactions, markerCounts(kept));
      return tx.message.update({
        where: { id: message.id },
        data: {
          ...(content !== undefined ? { content } : {}),
          ...(metadata !== undefined ? { metadata } : {}),
          redactions: counts,
        },
      });
    }),
  );
  if (updated.turnId !== null) publishTurnUpdates(deps, input.sessionId, [{ turnId: updated.turnId, messageIds: [updated.id], closed: false }]);
  return updated;
}
