import type { Message, Role } from '../../generated/prisma/client.js';
import { assertValidId } from '../../ids.js';
import { now, type Deps } from '../deps.js';
import { messageDraft, type MessageFields } from './message-draft.js';
import { SessionWriter } from './session-writer.js';
import { publishWritten } from './session-view.js';
import { redactDrafts } from './redact-drafts.js';
import { projectDirtyNow } from '../../projects/project-state.js';

export interface AppendMessageInput extends MessageFields {
  sessionId: string;
  role: Role;
}

/**
 * Appends one message: a USER message opens a turn, the others join the open one.
 * @throws NotFoundError, BadUserInputError or ConflictError; nothing is written then.
 */
/**
 * @param options.startedAt for a USER message recorded after the fact (a hook event replayed from
 *   the spool): when the turn began, so the project's dirty paths are told as of then.
 * @param options.loneSurrogates as messageDraft's (`replace` for what an agent's hook sent).
 */
export async function appendMessage(
  input: AppendMessageInput,
  deps: Deps,
  options: { startedAt?: Date; loneSurrogates?: 'refuse' | 'replace' } = {},
): Promise<Message> {
  assertValidId(input.sessionId, 'sessionId');
  const [draft] = await redactDrafts(deps, [messageDraft(input.role, input, deps, '', { loneSurrogates: options.loneSurrogates ?? 'refuse' })]);
  return deps.sessionLocks.run(input.sessionId, async () => {
    // A USER message starts a turn: note what the user had uncommitted in the project now.
    const dirty = input.role === 'USER' ? await projectDirtyNow(deps, input.sessionId, { asOf: options.startedAt }) : null;
    const { message, outcome } = await deps.db.$transaction(async (tx) => {
      const writer = await SessionWriter.load(tx, input.sessionId, now(deps), { projectDirtyAtStart: dirty });
      const appended = await writer.append(draft!);
      return { message: appended, outcome: await writer.flush() };
    });
    await publishWritten(deps, input.sessionId, outcome);
    return message;
  });
}

/**
 * Appends several messages of one session in one transaction, in order (a tool call and its
 * result, as the hooks record them): all or none. None may be a USER message (a turn is opened
 * by `appendMessage`, which notes the project's state first).
 * @throws as appendMessage; nothing is written then.
 */
export async function appendMessages(
  sessionId: string,
  inputs: readonly Omit<AppendMessageInput, 'sessionId'>[],
  deps: Deps,
  options: { loneSurrogates?: 'refuse' | 'replace' } = {},
): Promise<Message[]> {
  assertValidId(sessionId, 'sessionId');
  const drafts = inputs.map((input, i) => {
    if (input.role === 'USER') throw new Error('appendMessages takes no USER message: open the turn with appendMessage');
    return messageDraft(input.role, input, deps, `messages[${i}]`, { loneSurrogates: options.loneSurrogates ?? 'refuse' });
  });
  await redactDrafts(deps, drafts);
  return deps.sessionLocks.run(sessionId, async () => {
    const { messages, outcome } = await deps.db.$transaction(async (tx) => {
      const writer = await SessionWriter.load(tx, sessionId, now(deps), { projectDirtyAtStart: null });
      const appended: Message[] = [];
      for (const draft of drafts) appended.push(await writer.append(draft));
      return { messages: appended, outcome: await writer.flush() };
    });
    await publishWritten(deps, sessionId, outcome);
    return messages;
  });
}
