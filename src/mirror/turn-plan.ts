/**
 * What a turn's commit holds, read from the database: its branch, its parent
 * commit, the files it adds and its message. The worker and the bulk rebuild
 * both commit from these plans, so both write the same commits.
 */
import type { Db } from '../db/index.js';
import type { Identity, RepoFile } from '../git/index.js';
import { turnCommitMessage } from './commit-message.js';
import { messageFile, metaFile, type MessageRecord } from './files.js';

/** Who session-repo commits are by; the dates are the turn's close. */
export const MIRROR_IDENTITY = { name: 'entity-memory', email: 'entity-memory@openprogram.invalid' } as const;

export interface TurnPlan {
  turnId: string;
  sessionId: string;
  number: number;
  branch: string;
  parentTurnId: string | null;
  /** The parent turn's commit; null for a first turn (a root commit), undefined when the parent is not mirrored yet. */
  parentSha: string | null | undefined;
  files: RepoFile[];
  message: string;
  messageIds: string[];
  author: Identity;
}

const messageSelect = {
  messageId: true,
  seq: true,
  role: true,
  content: true,
  toolName: true,
  toolCallId: true,
  createdAt: true,
  metadata: true,
  predecessorId: true,
  callerId: true,
} as const;

type LoadedMessage = {
  messageId: string;
  seq: number;
  role: string;
  content: string;
  toolName: string | null;
  toolCallId: string | null;
  createdAt: Date;
  metadata: string | null;
  predecessorId: string | null;
  callerId: string | null;
};

/** `messageIdOf` maps the internal ids of predecessors and callers to their public ids. */
function record(m: LoadedMessage, messageIdOf: ReadonlyMap<string, string>): MessageRecord {
  return {
    messageId: m.messageId,
    seq: m.seq,
    role: m.role,
    content: m.content,
    predecessorMessageId: m.predecessorId === null ? null : (messageIdOf.get(m.predecessorId) ?? null),
    callerMessageId: m.callerId === null ? null : (messageIdOf.get(m.callerId) ?? null),
    toolName: m.toolName,
    toolCallId: m.toolCallId,
    createdAt: m.createdAt,
    metadata: m.metadata,
  };
}

/**
 * Plans for closed turns of one session, in the order given.
 * @param parentShas commits already known for turns (e.g. earlier in the same bulk rebuild).
 */
export async function loadTurnPlans(db: Db, sessionId: string, turnIds: string[]): Promise<TurnPlan[]> {
  if (turnIds.length === 0) return [];
  const session = await db.session.findUniqueOrThrow({ where: { sessionId } });
  const meta = metaFile(session);
  const plans: TurnPlan[] = [];
  // Chunks keep each query's parameter list small however long the session.
  for (let start = 0; start < turnIds.length; start += 500) {
    const ids = turnIds.slice(start, start + 500);
    const turns = await db.turn.findMany({
      where: { id: { in: ids } },
      include: {
        parentTurn: { select: { commitSha: true } },
        userMessage: { select: messageSelect },
        messages: { select: messageSelect, orderBy: { seq: 'asc' } },
      },
    });
    const byId = new Map(turns.map((t) => [t.id, t]));
    // Predecessors' and callers' public ids in one statement, where a relation each on the user
    // message and on the others took four (a one-turn mirror pass ran 15 statements, now 12).
    const linked = [...new Set(turns.flatMap((t) => [t.userMessage, ...t.messages].flatMap((m) => [m.predecessorId, m.callerId]).filter((id): id is string => id !== null)))];
    const messageIdOf = new Map<string, string>();
    for (let at = 0; at < linked.length; at += 500) {
      const rows = await db.message.findMany({ where: { id: { in: linked.slice(at, at + 500) } }, select: { id: true, messageId: true } });
      for (const row of rows) messageIdOf.set(row.id, row.messageId);
    }
    for (const id of ids) {
      const turn = byId.get(id);
      if (!turn) throw new Error(`turn ${id} of session ${sessionId} is not in the database`);
      const messages = [turn.userMessage, ...turn.messages.filter((m) => m.messageId !== turn.userMessage.messageId)];
      const replies = turn.messages.filter((m) => m.role === 'ASSISTANT');
      const tools = turn.messages.filter((m) => m.role === 'TOOL');
      const closedAt = turn.closedAt ?? turn.createdAt;
      plans.push({
        turnId: turn.id,
        sessionId,
        number: turn.number,
        branch: turn.branch,
        parentTurnId: turn.parentTurnId,
        parentSha: turn.parentTurnId === null ? null : (turn.parentTurn?.commitSha ?? undefined),
        files: [meta, ...messages.map((m) => messageFile(record(m, messageIdOf)))],
        messageIds: messages.map((m) => m.messageId),
        message: turnCommitMessage({
          sessionId,
          number: turn.number,
          userContent: turn.userMessage.content,
          assistantContent: replies.at(-1)?.content ?? null,
          toolNames: tools.map((t) => t.toolName),
          toolCount: tools.length,
          durationMs: turn.durationMs,
          tokens: turn.tokens,
          messageIds: messages.map((m) => m.messageId),
        }),
        author: { ...MIRROR_IDENTITY, date: closedAt },
      });
    }
  }
  return plans;
}
