import { assertValidId } from '../../ids.js';
import type { Deps } from '../deps.js';
import type { MessageDraft } from './session-writer.js';
import type { Role } from '../../generated/prisma/client.js';
import { assertContentSize, assertShortText, metadataText } from './validate.js';

/** What every message input carries (AppendMessageInput, TurnMessageInput). */
export interface MessageFields {
  messageId?: string | null;
  content: string;
  predecessorId?: string | null;
  callerId?: string | null;
  toolName?: string | null;
  toolCallId?: string | null;
  metadata?: unknown;
}

/**
 * Validates a message's fields before any database work.
 * @param field prefix naming the input in error messages, e.g. "toolResults[2]".
 */
export function messageDraft(role: Role, fields: MessageFields, deps: Pick<Deps, 'config'>, field = ''): MessageDraft {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  if (fields.messageId != null) assertValidId(fields.messageId, at('messageId'));
  if (fields.predecessorId != null) assertValidId(fields.predecessorId, at('predecessorId'));
  if (fields.callerId != null) assertValidId(fields.callerId, at('callerId'));
  assertContentSize(fields.content, deps.config.maxContentBytes, at('content'));
  assertShortText(fields.toolName, at('toolName'));
  assertShortText(fields.toolCallId, at('toolCallId'));
  return {
    messageId: fields.messageId ?? null,
    role,
    content: fields.content,
    predecessorId: fields.predecessorId ?? null,
    callerId: fields.callerId ?? null,
    toolName: fields.toolName ?? null,
    toolCallId: fields.toolCallId ?? null,
    metadata: metadataText(fields.metadata, at('metadata')),
  };
}
