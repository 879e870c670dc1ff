/**
 * The replay's pure logic, kept out of the components so it can be tested alone: where
 * Previous / Next / Back to latest go and when they make sense, which keys step through
 * turns, the position and read-only texts, the mirror state text, and the list cursors
 * the server's pagination uses (src/services/page.ts: base64url of "<kind>:<key>").
 */
import { isTextEntry } from '../../lib/text-entry';

/** What the page knows of the viewed commit (Session.head) and the session around it. */
export interface ViewState {
  detached: boolean;
  /** Turns on the current branch. */
  turnCount: number;
  head: {
    sha: string;
    parentShas: readonly string[];
    turn: { number: number } | null;
  } | null;
  /** The commit of the turn after the viewed one on the current branch, when known. */
  nextTurn: { sha: string; parentShas: readonly string[] } | null;
}

export interface Steps {
  /** The sha to check out for "Previous turn", or null when there is no earlier turn. */
  previous: string | null;
  /** The sha to check out for "Next turn", or null at the tip or when the next turn is not the viewed one's child. */
  next: string | null;
  /** Whether "Back to latest" has something to do (the view is an older commit). */
  backToLatest: boolean;
}

/**
 * Previous is the viewed commit's first parent, which is the turn before it whenever the
 * viewed turn is not the first (turn commits are a chain; turn 1's parent, if any, is the
 * repo's setup commit, not a turn). Next is the following turn of the current branch, only
 * when it really grows from the viewed commit (a commit of another branch has no Next).
 */
export function replaySteps(view: ViewState): Steps {
  const head = view.head;
  const number = head?.turn?.number ?? 0;
  const previous = head && number > 1 ? (head.parentShas[0] ?? null) : null;
  const next = head && view.detached && view.nextTurn && view.nextTurn.parentShas[0] === head.sha ? view.nextTurn.sha : null;
  return { previous, next, backToLatest: view.detached };
}

/**
 * "Turn X / Y": X the viewed turn, Y the turns on the current branch. At the tip while a turn is
 * being written (`openTurn`, its number), that turn is the one viewed: "Turn 3 / 3 (in progress)".
 */
export function positionText(view: Pick<ViewState, 'head' | 'turnCount'> & { detached?: boolean; openTurn?: number | null }): string {
  if (!view.detached && view.openTurn != null) return `Turn ${view.openTurn} / ${view.turnCount} (in progress)`;
  return `Turn ${view.head?.turn?.number ?? 0} / ${view.turnCount}`;
}

/**
 * The read-only notice shown while an older commit is viewed, or null at the tip. Viewing moves
 * nothing: `writesTo` says where the session's next message still goes ("main's latest turn").
 */
export function readOnlyText(view: Pick<ViewState, 'head' | 'turnCount' | 'detached'> & { writesTo: string }): string | null {
  if (!view.detached) return null;
  const number = view.head?.turn?.number ?? 0;
  return `Viewing turn ${number} of ${view.turnCount}, read-only: the next message still goes to ${view.writesTo} ("Continue from here" forks from this one)`;
}

export type StepKey = 'previous' | 'next';

/**
 * The replay step a key asks for: Left or `k` is Previous, Right or `j` is Next, and `g` then `l`
 * (`previousKey` the key pressed before) is the latest turn; nothing with a modifier held
 * (browser shortcuts), nothing while a text field, select or editable element has focus.
 */
export function arrowKeyStep(
  event: Pick<KeyboardEvent, 'key' | 'altKey' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'defaultPrevented'>,
  focused: Element | null,
  previousKey: string | null = null,
): StepKey | 'latest' | null {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return null;
  if (isTextEntry(focused)) return null;
  if (event.key === 'ArrowLeft' || event.key === 'k') return 'previous';
  if (event.key === 'ArrowRight' || event.key === 'j') return 'next';
  if (event.key === 'l' && previousKey === 'g') return 'latest';
  return null;
}

export interface MirrorShape {
  inSync: boolean;
  pending: number;
  lastError: string | null | undefined;
  dagTurns: number;
  gitCommits: number;
}

/**
 * The mirror state's text (ui.md): "Mirror in sync", "Mirror pending N" or
 * "Mirror failed: <lastError>". A failure heard live (mirrorFailed) wins until the
 * next status read says otherwise.
 */
export function mirrorStatusText(mirror: MirrorShape | null | undefined, liveFailure?: string | null): string {
  if (liveFailure) return `Mirror failed: ${liveFailure}`;
  if (!mirror) return 'Mirror …';
  if (mirror.lastError) return `Mirror failed: ${mirror.lastError}`;
  const behind = mirror.pending > 0 ? mirror.pending : Math.max(0, mirror.dagTurns - mirror.gitCommits);
  if (behind > 0 || !mirror.inSync) return `Mirror pending ${Math.max(behind, 1)}`;
  return 'Mirror in sync';
}
