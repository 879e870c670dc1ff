import type { Turn } from '../../generated/prisma/client.js';
import { assertValidId } from '../../ids.js';
import type { Deps } from '../deps.js';
import { validateTurnClose } from './end-turn.js';
import { messageDraft } from './message-draft.js';
import type { TurnMessageInput } from './record-turn.js';
import type { TurnClose } from './session-writer.js';
import { closeTurnWith } from './close-turn.js';
import { redactDrafts } from './redact-drafts.js';

export interface RetryTurnInput extends TurnClose {
  sessionId: string;
  userMessageId: string;
  assistant: TurnMessageInput;
  toolResults?: TurnMessageInput[] | null;
}

/**
 * Records a new reply to an earlier user message on a new branch
 * retry-<assistant messageId>, which becomes current; all or nothing.
 * @throws BadUserInputError unless the message is an answered user message, ConflictError while a turn is open.
 */
export async function retryTurn(input: RetryTurnInput, deps: Deps): Promise<Turn> {
  assertValidId(input.sessionId, 'sessionId');
  assertValidId(input.userMessageId, 'userMessageId');
  const assistant = messageDraft('ASSISTANT', input.assistant, deps, 'assistant');
  const tools = (input.toolResults ?? []).map((tool, i) => messageDraft('TOOL', tool, deps, `toolResults[${i}]`));
  const close = validateTurnClose(input);
  await redactDrafts(deps, [assistant, ...tools]);
  return closeTurnWith(deps, input.sessionId, close, async (writer) => {
    await writer.retry(input.userMessageId, assistant);
    await writer.appendJoining(tools);
  });
}
