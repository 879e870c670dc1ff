/**
 * Who owns each changed path of a project's working tree: the rules of the
 * end-of-turn commit as pure functions, so they are tested with a table and
 * the committer around them only gathers inputs and carries the decision out.
 *
 * Two moments matter. At the turn's close (in the closing request) the agent's
 * paths are chosen and their content captured; at commit time (in the
 * background) the tree is looked at again to decide whether committing them
 * would take anything of the user's.
 */
import { listedPaths } from './agent-commits.js';

/** A touchedPaths entry as git names the path: without a leading `./` or trailing slashes. */
export function touchedPath(entry: string): string {
  return entry.replace(/^\.\//, '').replace(/\/+$/, '');
}

/** True when `path` is one of `touched` or lies under one of them (a folder). */
export function isTouched(path: string, touched: readonly string[]): boolean {
  return touched.some((t) => {
    const clean = touchedPath(t);
    return path === clean || path.startsWith(`${clean}/`);
  });
}

export interface CloseInput {
  /** Paths the runtime said the turn wrote (files or folders); null when it said nothing. */
  touched: readonly string[] | null;
  /** Dirty as the turn began: at the USER message, else at the previous turn's close. */
  dirtyAtStart: readonly string[];
  /** Dirty as the turn closed. */
  dirtyAtClose: readonly string[];
  /**
   * Of the paths dirty at close and clean at start, those last changed before
   * the turn's `startedAt` (recordTurn can say when the turn began): edits made
   * between the previous close and this turn, so the user's.
   */
  changedBeforeStart: readonly string[];
  /**
   * Paths the session's skipped turns left (kept in their snapshots, still uncommitted) that
   * hold exactly what the agent left: the agent's, whatever else the rules say.
   */
  carried?: readonly string[];
}

export interface CloseSplit {
  /** The agent's paths: captured now and committed later. */
  agent: string[];
  /** Dirty paths that may be the user's: if still dirty and unclaimed at commit time, the turn is skipped. */
  suspects: string[];
}

/**
 * Splits the tree at a turn's close.
 * - With touchedPaths: the agent's are the dirty paths inside them that were not dirty at the start
 *   (a file the user had changed is the user's even when the agent edits it too: one commit must
 *   never hold both); every other dirty path is a suspect.
 * - Without: the agent's are the paths that became dirty during the turn; what was dirty at its start
 *   (and still is) or changed before it began is a suspect.
 */
export function splitAtClose(input: CloseInput): CloseSplit {
  const before = new Set(input.changedBeforeStart);
  const carried = new Set(input.carried ?? []);
  const atStart = new Set(input.dirtyAtStart.filter((p) => !carried.has(p)));
  const isAgents = input.touched
    ? (p: string) => carried.has(p) || (isTouched(p, input.touched!) && !atStart.has(p))
    : (p: string) => carried.has(p) || (!atStart.has(p) && !before.has(p));
  return { agent: input.dirtyAtClose.filter(isAgents), suspects: input.dirtyAtClose.filter((p) => !isAgents(p)) };
}

export interface CommitInput {
  /** From `splitAtClose`. */
  agent: readonly string[];
  suspects: readonly string[];
  /** Dirty now, as the commit is about to be made. */
  dirtyNow: readonly string[];
  /** Paths other agent turns have claimed and not committed yet. */
  claimed: ReadonlySet<string>;
  /** A git operation of the user's in progress (merge, rebase, …), or null. */
  busy: string | null;
  /** A detached HEAD: there is no branch to commit to. */
  detached: boolean;
  /** The last look before deciding: a suspect then counts as the user's. */
  final: boolean;
}

export type CommitDecision =
  | { kind: 'commit'; paths: string[] }
  | { kind: 'nothing' }
  | { kind: 'busy'; reason: string }
  | { kind: 'dirty'; userPaths: string[] }
  /** Unclaimed suspects: another agent's turn may still claim them; look again shortly. */
  | { kind: 'wait'; userPaths: string[] };

/**
 * What to do at commit time. The user's operation in progress or a detached
 * HEAD wins over everything; then a suspect that is still dirty and claimed by
 * no other agent turn is the user's work, and nothing is committed.
 */
export function decideCommit(input: CommitInput): CommitDecision {
  if (input.busy) return { kind: 'busy', reason: input.busy };
  if (input.detached) return { kind: 'busy', reason: 'HEAD is detached (no branch is checked out)' };
  const now = new Set(input.dirtyNow);
  const userPaths = input.suspects.filter((p) => now.has(p) && !input.claimed.has(p));
  if (userPaths.length > 0) return input.final ? { kind: 'dirty', userPaths } : { kind: 'wait', userPaths };
  if (input.agent.length === 0) return { kind: 'nothing' };
  return { kind: 'commit', paths: [...input.agent] };
}

/** The text of a skip warning: what is in the way and what the user can do. */
export function skipWarningText(turn: number, decision: { kind: 'dirty'; userPaths: string[] } | { kind: 'busy'; reason: string }, hint?: string): string {
  if (decision.kind === 'busy') {
    return `The agent's edits from turn ${turn} were not committed: ${decision.reason}. Finish or abort it; the edits are kept as a snapshot.${hint ? ` ${hint}` : ''}`;
  }
  return `You have uncommitted changes (${listedPaths(decision.userPaths)}), so the agent's edits from turn ${turn} won't be auto-committed for now.${hint ? ` ${hint}` : ''}`;
}

/** The warning of a SKIPPED_UNATTRIBUTED turn: what was kept, and what the runtime should send. */
export function unattributedWarningText(turn: number, paths: readonly string[]): string {
  return (
    `The changes since the previous turn (${listedPaths(paths)}) were not committed as the agent's turn ${turn}: the turn was recorded ` +
    'without touchedPaths or startedAt, so they cannot be told from your own edits. They are kept as a snapshot; the runtime should send touchedPaths.'
  );
}
