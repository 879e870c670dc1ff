/**
 * "What the model saw back then" (the seed's context commits), exported on request, never by
 * itself: for a turn, the messages that made up the model's context for its first call, written
 * into the session repo as `commits/commit_<turn id>.json` in a commit of its own.
 *
 * The context is the turn's branch path up to and including its user message, from the last
 * compaction on: an agent that compacted its conversation (Claude Code's compact summary, kept as a
 * SYSTEM message with `metadata.kind: "compact-summary"`) saw the summary and what follows it, not
 * what the summary replaced. The system prompt and tool definitions are the agent's and not
 * recorded, so not in it.
 *
 * The commit's parent is the turn's commit (its tree plus the one file) and it is kept on
 * `refs/contexts/<branch>/<turn number>`, beside the branches: the branch, the turn count, the
 * timeline and the next turn's commit are what they were, and `git show
 * refs/contexts/main/12:commits/commit_<id>.json` reads it. Exporting again writes the same commit
 * (its date is the turn's).
 */
import type { Message } from '../../generated/prisma/client.js';
import { BadUserInputError, ConflictError, NotFoundError } from '../../errors.js';
import { isValidBranchName } from '../../git/index.js';
import { assertValidId } from '../../ids.js';
import { MIRROR_IDENTITY, messageFile, openSessionRepo } from '../../mirror/index.js';
import type { Deps } from '../deps.js';
import { branchSegments, messageFilter, turnFilter } from '../sessions/branch-path.js';
import { requireSession } from '../sessions/read-session.js';

export interface ExportContextInput {
  sessionId: string;
  /** The turn's number along `branch`. */
  turn: number;
  /** Default: the session's current branch. */
  branch?: string | null;
}

export interface ContextExport {
  ref: string;
  sha: string;
  /** The file's path in the commit. */
  path: string;
  /** The messages written, oldest first. */
  messages: Message[];
  /** The compact summary the context starts with, when the conversation was compacted before the turn. */
  compaction: Message | null;
}

const COMPACT_SUMMARY = 'compact-summary';

/**
 * @throws BadUserInputError for a bad id, branch or number; NotFoundError for an unknown session,
 *   branch or turn; ConflictError while the turn's commit is not in the session repo yet (the
 *   mirror is behind, or the session is archived: open it first).
 */
export async function exportContext(input: ExportContextInput, deps: Deps): Promise<ContextExport> {
  assertValidId(input.sessionId, 'sessionId');
  if (!Number.isInteger(input.turn) || input.turn < 1) throw new BadUserInputError(`turn must be a turn number (1 or more), got ${input.turn}.`, { field: 'turn' });
  const session = await requireSession(deps.db, input.sessionId);
  const branch = input.branch ?? session.currentBranch;
  if (!isValidBranchName(branch)) throw new BadUserInputError(`${JSON.stringify(branch.slice(0, 80))} is not a session branch name.`, { field: 'branch' });
  const segments = await branchSegments(deps.db, session.sessionId, branch, { branch, number: input.turn });
  const turn = await deps.db.turn.findFirst({
    where: { ...turnFilter(session.sessionId, segments), number: input.turn },
    include: { userMessage: { select: { seq: true } } },
  });
  if (!turn) throw new NotFoundError(`Session ${session.sessionId} has no turn ${input.turn} on ${branch}.`, { field: 'turn' });
  if (!turn.commitSha) {
    throw new ConflictError(`Turn ${input.turn} has no commit yet (${turn.open ? 'it is still open' : 'the mirror is behind'}); try again once it is closed and Session.mirror says in sync.`);
  }
  const path = await deps.db.message.findMany({
    where: { AND: [await messageFilter(deps.db, session.sessionId, segments), { seq: { lte: turn.userMessage.seq } }] },
    orderBy: { seq: 'asc' },
  });
  const byId = new Map(path.map((m) => [m.id, m.messageId]));
  const last = path.findLastIndex((m) => m.role === 'SYSTEM' && kindOf(m.metadata) === COMPACT_SUMMARY);
  const messages = last >= 0 ? path.slice(last) : path;
  const compaction = last >= 0 ? path[last]! : null;
  const name = `commit_${turn.id}.json`;
  const content = `${JSON.stringify(
    {
      turn: { number: turn.number, branch: turn.branch, commit: turn.commitSha },
      compaction: compaction?.messageId ?? null,
      messages: messages.map((m) =>
        JSON.parse(
          messageFile({
            messageId: m.messageId,
            seq: m.seq,
            role: m.role,
            content: m.content,
            predecessorMessageId: m.predecessorId ? (byId.get(m.predecessorId) ?? null) : null,
            callerMessageId: m.callerId ? (byId.get(m.callerId) ?? null) : null,
            toolName: m.toolName,
            toolCallId: m.toolCallId,
            createdAt: m.createdAt,
            metadata: m.metadata,
          }).content,
        ) as unknown,
      ),
    },
    null,
    2,
  )}\n`;
  const ref = `refs/contexts/${turn.branch}/${turn.number}`;
  const repo = openSessionRepo(deps.config, session.sessionId);
  const sha = await deps.repoLocks.run(session.sessionId, async () => {
    if (!repo.exists() || (await repo.resolveCommit(turn.commitSha!)) === null) {
      throw new ConflictError(`Turn ${input.turn}'s commit is not in the session repo now (archived, or being rebuilt): open the session (unarchiveSession) and try again.`);
    }
    return repo.commitFileBeside({
      parent: turn.commitSha!,
      folder: 'commits',
      name,
      content,
      message: `Context of turn ${turn.number} (${messages.length} messages${compaction ? ', from its last compaction' : ''})\n`,
      ref,
      author: { ...MIRROR_IDENTITY, date: turn.closedAt ?? turn.createdAt },
    });
  });
  return { ref, sha, path: `commits/${name}`, messages, compaction };
}

function kindOf(metadata: string | null): unknown {
  if (metadata === null) return undefined;
  try {
    return (JSON.parse(metadata) as { kind?: unknown } | null)?.kind;
  } catch {
    return undefined;
  }
}
