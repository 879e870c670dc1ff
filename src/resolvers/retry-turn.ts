import type { Turn } from '../generated/prisma/client.js';
import { assertValidId } from '../ids.js';
import { now, type Deps } from './deps.js';
import { validateTurnClose } from './end-turn.js';
import { messageDraft } from './message-draft.js';
import type { TurnMessageInput } from './record-turn.js';
import { SessionWriter, type TurnClose } from './session-writer.js';
import { publishNewBranches } from './session-view.js';
import { claimTurn } from '../projects/claims.js';
import { projectDirtyNow } from '../projects/project-state.js';

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
  const turn = await deps.sessionLocks.run(input.sessionId, async () => {
    // The agent's files are written by now; what else is dirty is where the next turn begins.
    const dirtyAtClose = await projectDirtyNow(deps.db, deps.logger, input.sessionId);
    const { closed, branches } = await deps.db.$transaction(async (tx) => {
      const writer = await SessionWriter.load(tx, input.sessionId, now(deps));
      writer.projectDirtyAtClose = dirtyAtClose;
      await writer.retry(input.userMessageId, assistant);
      for (const tool of tools) await writer.append(tool);
      const turnClosed = await writer.closeTurn(close);
      await writer.flush();
      return { closed: turnClosed, branches: writer.createdBranches };
    });
    await publishNewBranches(deps, input.sessionId, branches);
    await claimTurn(deps.db, deps.logger, closed);
    return closed;
  });
  deps.onTurnClosed?.(input.sessionId);
  return turn;
}
