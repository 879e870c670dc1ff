/**
 * Rewind: going back to a turn, for the code, the conversation or both, the
 * way the agents' own rewinds offer it, with a dry run first. Built on the
 * guarded restore (src/services/projects/project-restore.ts: only the
 * agent's paths, refused with CONFLICT where the user changed one) and on
 * checkout (the next user message forks from the turn; nothing is deleted).
 * Undone by rewinding to the turn it reports as `undoTurn`.
 */
import type { Session, Turn } from '../../generated/prisma/client.js';
import { BadUserInputError, ConflictError, NotFoundError } from '../../errors.js';
import { listedPaths } from '../../projects/agent-commits.js';
import { previewRestore, type PlannedPath } from '../../projects/restore.js';
import type { FileState } from '../../projects/restore-plan.js';
import { checkInput, restorePlan, restoreProjectFiles, sessionProject, turnOnPath, type ProjectFilesResult } from '../projects/project-restore.js';
import { branchSegments, turnFilter } from '../sessions/branch-path.js';
import { requireSession } from '../sessions/read-session.js';
import type { Deps } from '../deps.js';
import { checkout } from './checkout.js';

export interface RewindInput {
  sessionId: string;
  turn: number;
  /** Put the agent's project files back. With neither `code` nor `conversation` given, both. */
  code?: boolean | null;
  /** Make the next message fork from the turn. */
  conversation?: boolean | null;
  /** Only say what it would do. */
  dryRun?: boolean | null;
}

export interface RewindCode {
  /** Every path the restore changes, and what it becomes. */
  changes: PlannedPath[];
  /** Paths the user changed since the agent left them: the restore is refused while there are any. */
  conflicts: string[];
  /** What was written; null for a dry run. */
  done: ProjectFilesResult | null;
}

export interface RewindConversation {
  /** The turn the next message forks from. */
  fromTurn: Turn;
  branch: string;
  /** Turns after it on the branch: kept, on the branch, when the next message forks. */
  laterTurns: number;
  /** Whether the session's view was moved (false for a dry run). */
  moved: boolean;
}

export interface RewindResult {
  turn: number;
  dryRun: boolean;
  code: RewindCode | null;
  conversation: RewindConversation | null;
  /** The turn to rewind to (with the same choices) to undo this: the branch's newest closed turn; null if it is `turn`. */
  undoTurn: number | null;
  message: string;
}

/**
 * @throws BadUserInputError for a bad input, or code asked of a session without a project; NotFoundError for
 * an unknown session or turn; ConflictError for a turn not yet in the session repo, and (not a dry run)
 * while a turn is open or where the user changed a path the restore would write (extensions.paths).
 */
export async function rewind(input: RewindInput, deps: Deps): Promise<RewindResult> {
  checkInput(input);
  const { code, conversation } = choices(input);
  const dryRun = input.dryRun === true;
  const session = await requireSession(deps.db, input.sessionId);
  const newest = await newestClosedTurn(deps, session);
  const undoTurn = newest && newest.number !== input.turn ? newest.number : null;

  let talk: Omit<RewindConversation, 'moved'> | null = null;
  if (conversation) talk = await conversationPlan(deps, session, input.turn, newest);

  let plan: RewindCode | null = null;
  let expectWrites: FileState[] = [];
  if (code) {
    const { project } = await sessionProject(deps, session.sessionId);
    const restore = await restorePlan(deps, session, project, input.turn);
    expectWrites = restore.writes;
    const preview = await previewRestore(project, deps.config, restore);
    plan = { ...preview, done: null };
  }

  // The agent is at work: its files and its conversation are moving under a rewind.
  const busy = session.openTurnId !== null;
  if (dryRun) {
    const message = describe(input.turn, plan, talk, true) + (busy ? ' A turn is open now: the rewind can run once it ends.' : '');
    return { turn: input.turn, dryRun, code: plan, conversation: talk && { ...talk, moved: false }, undoTurn, message };
  }
  if (busy) throw new ConflictError('A turn is open (the agent is at work): rewind once it ends; nothing was written and the conversation did not move.');
  if (plan && plan.conflicts.length > 0) {
    throw new ConflictError(
      `Not rewound: ${listedPaths(plan.conflicts)} changed since the agent (or the last restore) left ${plan.conflicts.length === 1 ? 'it' : 'them'}; ` +
        'nothing was written and the conversation did not move. Commit, stash or undo your changes there first.',
      { paths: plan.conflicts },
    );
  }
  if (plan) {
    // The restore checks every path again under the project's lock, and refuses if its plan moved since this one.
    plan.done = await restoreProjectFiles({ sessionId: session.sessionId, turn: input.turn, expectWrites }, deps);
  }
  if (talk) {
    try {
      await checkout({ sessionId: session.sessionId, sha: talk.fromTurn.commitSha! }, deps);
    } catch (error) {
      if (!plan) throw error;
      throw new ConflictError(
        `The files were restored (${plan.done!.message}), but the conversation did not move: ${(error as Error).message} ` +
          `Rewind the conversation alone to turn ${input.turn} once that is solved.`,
        { paths: plan.done!.paths },
      );
    }
  }
  return {
    turn: input.turn,
    dryRun,
    code: plan,
    conversation: talk && { ...talk, moved: true },
    undoTurn,
    message: describe(input.turn, plan, talk, false),
  };
}

/** Neither given: both. Otherwise what is given, the other left out. */
function choices(input: RewindInput): { code: boolean; conversation: boolean } {
  const neither = input.code == null && input.conversation == null;
  const code = neither || input.code === true;
  const conversation = neither || input.conversation === true;
  if (!code && !conversation) {
    throw new BadUserInputError('Nothing to rewind: ask for the code, the conversation, or both.', { field: 'code' });
  }
  return { code, conversation };
}

async function conversationPlan(deps: Deps, session: Session, number: number, newest: Turn | null): Promise<Omit<RewindConversation, 'moved'>> {
  if (number < 1) {
    throw new BadUserInputError('The conversation rewinds to a turn (1 or more): turn 0 has no messages to continue from. Rewind the code alone to 0.', {
      field: 'turn',
    });
  }
  const turn = await turnOnPath(deps, session, number);
  if (!turn) throw new NotFoundError(`Session ${session.sessionId} has no turn ${number} on its branch ${session.currentBranch}.`, { field: 'turn' });
  if (!turn.commitSha) {
    throw new ConflictError(`Turn ${number} is not in the session repo yet (the mirror is writing it); try again in a moment.`);
  }
  return { fromTurn: turn, branch: session.currentBranch, laterTurns: Math.max(0, (newest?.number ?? number) - number) };
}

/** The newest closed turn on the path to the tip of the session's current branch. */
async function newestClosedTurn(deps: Pick<Deps, 'db'>, session: Session): Promise<Turn | null> {
  const segments = await branchSegments(deps.db, session.sessionId, session.currentBranch);
  return deps.db.turn.findFirst({ where: { AND: [turnFilter(session.sessionId, segments), { open: false }] }, orderBy: { number: 'desc' } });
}

function describe(turn: number, code: RewindCode | null, talk: Omit<RewindConversation, 'moved'> | null, dryRun: boolean): string {
  const parts: string[] = [];
  if (code) {
    const n = code.changes.length;
    const target = turn === 0 ? 'before the first turn' : `after turn ${turn}`;
    if (dryRun) {
      parts.push(
        n === 0
          ? `The agent's files already hold their state ${target}: nothing to write.`
          : `${n} ${n === 1 ? 'path goes' : 'paths go'} back to ${n === 1 ? 'its' : 'their'} state ${target}.`,
      );
      if (code.conflicts.length > 0) parts.push(`Refused while you have changes in ${listedPaths(code.conflicts)}.`);
    } else {
      parts.push(code.done!.message);
    }
  }
  if (talk) {
    const first = talk.fromTurn.number + 1;
    const later = talk.laterTurns === 1 ? ` Turn ${first} stays on ${talk.branch}.` : ` Turns ${first}–${first + talk.laterTurns - 1} stay on ${talk.branch}.`;
    parts.push(
      talk.laterTurns === 0
        ? `Turn ${talk.fromTurn.number} is the latest turn: the conversation continues from it.`
        : `${dryRun ? 'The next message will fork' : 'The next message forks'} from turn ${talk.fromTurn.number} on a new branch.${later}`,
    );
  }
  return parts.join(' ');
}
