/**
 * The turn rules, in one pure function: what a message does to a session's DAG, for every
 * source of turns. SessionWriter asks it for the API (appendMessage, recordTurn, retryTurn) and
 * applies the answer; importSession asks it for each imported record, then hands the writer what
 * it keeps. The API refuses what does not fit (a typed error, nothing written); an import drops
 * it (a problem, not stored) or mends it, since a transcript cannot be sent again corrected.
 *
 * The caller answers what the rules need to know: the open turn up front, the rest when asked
 * (`need`), so a writer reads from the database only what the message at hand calls for.
 */
import type { Role } from '../../generated/prisma/client.js';
import { AppError, BadUserInputError, ConflictError, NotFoundError } from '../../errors.js';
import { branchRefNameError } from './validate.js';

/** A message of the open turn as the rules see it. */
export interface TurnMember {
  messageId: string;
  role: Role;
}

/** The open turn: its number and its messages in order, its user message first. */
export interface OpenTurnFacts {
  number: number;
  members: readonly TurnMember[];
}

/** A closed turn a new turn can grow from: its id and its last message (the caller's own fields ride along). */
export interface TurnEnd {
  turnId: string;
  tip: string;
}

/** A message named to be retried, as the session has it. */
export interface AnsweredFacts {
  role: Role;
  /** Whether its turn is closed and has an ASSISTANT message. */
  replied: boolean;
}

/** An imported message's predecessor, as the session (and the import so far) has it. */
export interface PredecessorFacts {
  role: Role;
  turnId: string | null;
  /** The last message of its turn, when it is in one. */
  turnTip: string | null;
  /** Whether it is a USER message that has a reply. */
  replied: boolean;
}

/** What the rules may ask the caller to look up, one at a time (see TurnState). */
export type TurnFact = 'head' | 'viewed' | 'point' | 'answered' | 'predecessor' | 'predecessorRole';

/**
 * What the session is like as the message arrives. The facts after `open` are looked up when
 * `classify` asks for them (undefined: not looked up yet; null: there is none).
 */
export interface TurnState<P extends TurnEnd = TurnEnd, A extends AnsweredFacts = AnsweredFacts> {
  /** The API refuses what does not fit; an import drops or mends it. */
  source: 'api' | 'import';
  sessionId: string;
  /** The session's current branch. */
  branch: string;
  /** The turn the session is viewing during replay, or null. */
  viewTurnId: string | null;
  open: OpenTurnFacts | null;
  /** The current branch's head turn. */
  head?: P | null;
  /** The viewed turn (asked for only when it is not the head). */
  viewed?: P;
  /** The closed turn whose last message is the incoming predecessorId. */
  point?: P | null;
  /** The message a retry answers (the incoming predecessorId). */
  answered?: A | null;
  /** An imported message's predecessor (the incoming predecessorId). */
  predecessor?: PredecessorFacts | null;
  /** The role of a message named as predecessor outside the open turn. */
  predecessorRole?: Role | null;
}

/**
 * A message to place.
 * - `message`: as it comes (appendMessage, an imported record): its role says what it does;
 * - `turn`: it opens a turn (recordTurn's user message, a prompt): where the turn grows from;
 * - `retry`: a new reply to the user message `predecessorId` (retryTurn);
 * - `join`: it joins the open turn (a reply, a tool result).
 */
export interface Incoming {
  via: 'message' | 'turn' | 'retry' | 'join';
  role: Role;
  /** Its id; the writer gives one to a message without, before asking. */
  messageId: string;
  predecessorId: string | null;
  callerId: string | null;
}

/**
 * What a message does. `need`: look the fact up, set it on the state, ask again. `close` (an
 * import): close the open turn, ask again. `newTurn`, `retryOf` and `joins` answer `message`:
 * ask again `via` turn, retry or join with the ids given. The others are final: `open` (the first
 * turn of the current branch), `continue` (a turn after `from`, on the current branch), `fork`
 * (a turn after `from` on the new branch `branch`), `retry`, `join` (after the open turn's
 * `predecessorId`, called by `callerId`), `drop` (an import's problem) and `refuse` (the API's error).
 */
export type TurnDecision<P extends TurnEnd = TurnEnd, A extends AnsweredFacts = AnsweredFacts> =
  | { kind: 'need'; fact: TurnFact }
  | { kind: 'close' }
  | { kind: 'newTurn'; predecessorId: string | null }
  | { kind: 'retryOf'; userMessageId: string }
  | { kind: 'joins'; predecessorId: string | null; callerId: string | null }
  | { kind: 'open' }
  | { kind: 'continue'; from: P }
  | { kind: 'fork'; from: P; branch: string }
  | { kind: 'retry'; answered: A; branch: string }
  | { kind: 'join'; predecessorId: string; callerId: string | null }
  | { kind: 'drop'; reason: string }
  | { kind: 'refuse'; error: AppError };

/**
 * Decides what `incoming` does to the session described by `state`; pure, it never throws.
 * @returns a decision; `need` and `close` ask the caller to act and ask again.
 */
export function classify<P extends TurnEnd, A extends AnsweredFacts>(state: TurnState<P, A>, incoming: Incoming): TurnDecision<P, A> {
  switch (incoming.via) {
    case 'message':
      return state.source === 'api' ? messageFromApi(state, incoming) : messageFromImport(state, incoming);
    case 'turn':
      return placeTurn(state, incoming);
    case 'retry':
      return placeRetry(state, incoming);
    case 'join':
      return placeJoin(state, incoming);
  }
}

/** The API: a USER message opens a turn; an ASSISTANT message answering an earlier one outside a turn is a retry. */
function messageFromApi(state: TurnState<TurnEnd, AnsweredFacts>, m: Incoming): TurnDecision<never, never> {
  if (m.role === 'USER') return { kind: 'newTurn', predecessorId: m.predecessorId };
  if (m.role === 'ASSISTANT' && !state.open && m.predecessorId !== null) return { kind: 'retryOf', userMessageId: m.predecessorId };
  return { kind: 'joins', predecessorId: m.predecessorId, callerId: m.callerId };
}

/**
 * An import: as the API, except that a record that cannot be placed is dropped, a new turn or a
 * retry first closes the open one, a SYSTEM record outside any turn opens one (a local command
 * before the first prompt), a prompt after the middle of a turn grows from that turn's end, a
 * record following a closed turn (a late record) is the next turn or joins the open one, and a
 * tool result naming no caller of its turn is called by the turn's last reply.
 */
function messageFromImport(state: TurnState<TurnEnd, AnsweredFacts>, m: Incoming): TurnDecision<never, never> {
  const pred = m.predecessorId;
  if (pred !== null && state.predecessor === undefined) return { kind: 'need', fact: 'predecessor' };
  const known = state.predecessor ?? null;
  if (pred !== null && !known) return { kind: 'drop', reason: `its predecessor ${pred} is not in the session` };
  const open = state.open;
  if (m.role === 'USER' || (m.role === 'SYSTEM' && !open)) {
    if (open) return { kind: 'close' };
    if (pred !== null && !known!.turnId) return { kind: 'drop', reason: `its predecessor ${pred} is in no turn` };
    // Turns are whole; not the tip of the current branch, the turn forks as appendMessage makes it.
    return { kind: 'newTurn', predecessorId: pred !== null ? (known!.turnTip ?? pred) : null };
  }
  if (m.role === 'ASSISTANT' && pred !== null && known!.role === 'USER' && known!.replied) {
    if (open) return { kind: 'close' };
    return { kind: 'retryOf', userMessageId: pred };
  }
  if (!open && pred === null) return { kind: 'drop', reason: 'it comes before any prompt' };
  // A late record (its turn already closed: by a follower's idle rule, or at the end of an
  // import) is never dropped: with no turn open it is the next turn, on the current branch; while
  // another is open it joins that one, after its last message.
  if (!open) return { kind: 'newTurn', predecessorId: null };
  const late = pred !== null && !open.members.some((x) => x.messageId === pred);
  const joinAfter = late ? null : pred;
  if (m.role !== 'TOOL') return { kind: 'joins', predecessorId: joinAfter, callerId: null };
  const caller = open.members.find((x) => x.messageId === m.callerId && x.role === 'ASSISTANT');
  if (!caller && !open.members.some((x) => x.role === 'ASSISTANT')) {
    return { kind: 'drop', reason: 'a tool result with no assistant message in its turn to be its caller' };
  }
  return { kind: 'joins', predecessorId: joinAfter, callerId: caller?.messageId ?? null };
}

/**
 * Where a new turn grows from: the viewed turn during replay (a fork), the closed turn ending
 * with an explicit predecessorId (a fork unless it is the head), or the current branch's head.
 */
function placeTurn<P extends TurnEnd>(state: TurnState<P, AnsweredFacts>, m: Incoming): TurnDecision<P, never> {
  if (state.open) {
    return refuse(new ConflictError(
      `Turn ${state.open.number} of session ${state.sessionId} is still open: end it (endTurn) before sending the next user message.`,
    ));
  }
  if (m.callerId) return refuse(new BadUserInputError('callerId is only for TOOL messages.', { field: 'callerId' }));
  if (state.head === undefined) return { kind: 'need', fact: 'head' };
  const head = state.head;
  let from: P | null = head;
  let fork = false;
  if (state.viewTurnId !== null && state.viewTurnId !== head?.turnId) {
    if (state.viewed === undefined) return { kind: 'need', fact: 'viewed' };
    from = state.viewed;
    fork = true;
  }
  if (m.predecessorId !== null && m.predecessorId !== from?.tip) {
    if (state.point === undefined) return { kind: 'need', fact: 'point' };
    if (!state.point) {
      return refuse(new BadUserInputError(
        from
          ? `predecessorId must be the last message of a closed turn (here ${from.tip}); leave it out to continue from there.`
          : `This is the first message of branch ${state.branch}: leave predecessorId out.`,
        { field: 'predecessorId' },
      ));
    }
    from = state.point;
    fork = state.point.turnId !== head?.turnId;
  }
  if (fork) {
    const branch = `fork-${m.messageId}`;
    const bad = branchRefNameError(branch, 'messageId');
    return bad ? refuse(bad) : { kind: 'fork', from: from!, branch };
  }
  return from ? { kind: 'continue', from } : { kind: 'open' };
}

/** A new reply to an answered user message: a turn on branch retry-<reply id>. */
function placeRetry<A extends AnsweredFacts>(state: TurnState<TurnEnd, A>, m: Incoming): TurnDecision<never, A> {
  if (state.open) {
    return refuse(new ConflictError(`Session ${state.sessionId} has an open turn: end it (endTurn) before retrying an earlier one.`));
  }
  const userMessageId = m.predecessorId ?? '';
  if (state.answered === undefined) return { kind: 'need', fact: 'answered' };
  if (state.answered === null) {
    return refuse(new NotFoundError(`Session ${state.sessionId} has no message ${JSON.stringify(userMessageId)}.`, { field: 'userMessageId' }));
  }
  if (state.answered.role !== 'USER' || !state.answered.replied) {
    return refuse(new BadUserInputError(
      `Message ${userMessageId} is not a user message with a reply; only an answered user message can be retried.`,
      { field: 'userMessageId' },
    ));
  }
  const branch = `retry-${m.messageId}`;
  const bad = branchRefNameError(branch, 'messageId');
  return bad ? refuse(bad) : { kind: 'retry', answered: state.answered, branch };
}

/** Where a message joining the open turn attaches: its predecessor (default: the turn's last message) and, for a tool result, its caller. */
function placeJoin(state: TurnState<TurnEnd, AnsweredFacts>, m: Incoming): TurnDecision<never, never> {
  const open = state.open;
  if (!open) {
    return refuse(new BadUserInputError(`Session ${state.sessionId} has no open turn to add a ${m.role} message: a USER message opens one.`));
  }
  let predecessor = open.members[open.members.length - 1];
  if (m.predecessorId !== null) {
    predecessor = open.members.find((x) => x.messageId === m.predecessorId);
    if (!predecessor && m.role === 'ASSISTANT') {
      if (state.predecessorRole === undefined) return { kind: 'need', fact: 'predecessorRole' };
      if (state.predecessorRole === 'USER') {
        return refuse(new ConflictError(`Turn ${open.number} is open: end it (endTurn) before retrying an earlier user message.`));
      }
    }
    if (!predecessor) {
      return refuse(new BadUserInputError(
        `predecessorId ${JSON.stringify(m.predecessorId)} is not a message of the open turn ${open.number}; leave it out to follow the turn's last message.`,
        { field: 'predecessorId' },
      ));
    }
  }
  let callerId: string | null = null;
  if (m.role === 'TOOL') {
    // A turn's first message is its user message, never a caller, except in an imported turn
    // opened by a late reply (messageFromImport): that reply calls the tools that follow it.
    const replies = open.members.filter((x) => x.role === 'ASSISTANT');
    const caller = m.callerId !== null ? replies.find((x) => x.messageId === m.callerId) : replies[replies.length - 1];
    if (!caller) {
      return refuse(new BadUserInputError(
        m.callerId !== null
          ? `callerId ${JSON.stringify(m.callerId)} is not an ASSISTANT message of the open turn ${open.number}.`
          : `A TOOL message needs an ASSISTANT message in the open turn to be its caller; append the assistant message first.`,
        { field: 'callerId' },
      ));
    }
    callerId = caller.messageId;
  } else if (m.callerId !== null) {
    return refuse(new BadUserInputError('callerId is only for TOOL messages.', { field: 'callerId' }));
  }
  return { kind: 'join', predecessorId: predecessor!.messageId, callerId };
}

function refuse(error: AppError): { kind: 'refuse'; error: AppError } {
  return { kind: 'refuse', error };
}
