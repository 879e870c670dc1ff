import { assertValidId } from '../../ids.js';
import type { Deps } from '../deps.js';
import type { MessageDraft } from './session-writer.js';
import type { Role } from '../../generated/prisma/client.js';
import { assertContentSize, assertShortText, assertWellFormed, metadataText, wellFormed } from './validate.js';

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
 * @param options.loneSurrogates `refuse` (the API: the caller can fix its text) or `replace` with
 *   U+FFFD (an agent's transcript or hook: its record is kept, never refused for a cut emoji).
 */
export function messageDraft(
  role: Role,
  fields: MessageFields,
  deps: Pick<Deps, 'config'>,
  field = '',
  options: { loneSurrogates?: 'refuse' | 'replace' } = {},
): MessageDraft {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  if (fields.messageId != null) assertValidId(fields.messageId, at('messageId'));
  if (fields.predecessorId != null) assertValidId(fields.predecessorId, at('predecessorId'));
  if (fields.callerId != null) assertValidId(fields.callerId, at('callerId'));
  assertContentSize(fields.content, deps.config.maxContentBytes, at('content'));
  assertShortText(fields.toolName, at('toolName'));
  assertShortText(fields.toolCallId, at('toolCallId'));
  const replace = options.loneSurrogates === 'replace';
  if (!replace) for (const name of ['content', 'toolName', 'toolCallId'] as const) assertWellFormed(fields[name], at(name));
  const text = (value: string | null | undefined) => (value == null ? null : replace ? wellFormed(value) : value);
  return {
    messageId: fields.messageId ?? null,
    role,
    content: text(fields.content)!,
    predecessorId: fields.predecessorId ?? null,
    callerId: fields.callerId ?? null,
    toolName: text(fields.toolName),
    toolCallId: text(fields.toolCallId),
    metadata: metadataText(fields.metadata, at('metadata')),
  };
}
