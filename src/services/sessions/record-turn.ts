import type { Turn } from '../../generated/prisma/client.js';
import { assertValidId } from '../../ids.js';
import type { Deps } from '../deps.js';
import { validateTurnClose } from './end-turn.js';
import { messageDraft, type MessageFields } from './message-draft.js';
import type { TurnClose } from './session-writer.js';
import { closeTurnWith } from './close-turn.js';
import { redactDrafts } from './redact-drafts.js';

export type TurnMessageInput = Omit<MessageFields, 'predecessorId' | 'callerId'>;

export interface RecordTurnInput extends TurnClose {
  sessionId: string;
  user: TurnMessageInput;
  assistant: TurnMessageInput;
  toolResults?: TurnMessageInput[] | null;
}

/**
 * A whole turn in one transaction: the user message, the reply, the tool
 * results (whose caller is the reply), then the close. All or nothing.
 */
export async function recordTurn(input: RecordTurnInput, deps: Deps): Promise<Turn> {
  assertValidId(input.sessionId, 'sessionId');
  const user = messageDraft('USER', input.user, deps, 'user');
  const assistant = messageDraft('ASSISTANT', input.assistant, deps, 'assistant');
  const tools = (input.toolResults ?? []).map((tool, i) => messageDraft('TOOL', tool, deps, `toolResults[${i}]`));
  const close = validateTurnClose(input);
  await redactDrafts(deps, [user, assistant, ...tools]);
  return closeTurnWith(deps, input.sessionId, close, async (writer) => {
    // Held: the turn is written once, already closed, with its five messages in one statement.
    await writer.openHeld(user);
    // The tools' caller is the reply, added first.
    await writer.appendJoining([assistant, ...tools]);
  });
}
