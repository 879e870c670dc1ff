import type { Turn } from '../generated/prisma/client.js';
import { assertValidId } from '../ids.js';
import { now, type Deps } from './deps.js';
import { validateTurnClose } from './end-turn.js';
import { messageDraft, type MessageFields } from './message-draft.js';
import { SessionWriter, type TurnClose } from './session-writer.js';
import { publishNewBranches } from './session-view.js';
import { claimTurn } from '../projects/claims.js';
import { projectDirtyNow } from '../projects/project-state.js';

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
  const turn = await deps.sessionLocks.run(input.sessionId, async () => {
    // The agent's files are written by now; what else is dirty is where the next turn begins.
    const dirtyAtClose = await projectDirtyNow(deps.db, deps.logger, input.sessionId);
    const { closed, branches } = await deps.db.$transaction(async (tx) => {
      const writer = await SessionWriter.load(tx, input.sessionId, now(deps));
      writer.projectDirtyAtClose = dirtyAtClose;
      await writer.append(user);
      await writer.append(assistant);
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
