/**
 * The live view's pure logic: the open turn as the page knows it, put together from its read
 * (OpenTurnQuery) and the events that followed (Subscription.turnUpdated), and the agent's name.
 */

/** A message as the live turn shows it: what it is ordered and told apart by. */
export interface LiveMessage {
  id: string;
  seq: number;
}

/** The turn being written, as far as the page knows. */
export interface LiveTurn<M extends LiveMessage = LiveMessage> {
  number: number;
  /** Its messages so far, in seq order. */
  messages: M[];
  /** Its close was heard: it waits for its commit to show as a committed turn. */
  closed: boolean;
}

/** One turnUpdated event, as the page selects it. */
export interface TurnUpdate<M extends LiveMessage = LiveMessage> {
  turn: { number: number };
  messages: M[];
  closed: boolean;
}

/** `current` with `incoming` added or replacing the same message (a message changed while open), in seq order. */
export function mergeMessages<M extends LiveMessage>(current: readonly M[], incoming: readonly M[]): M[] {
  if (incoming.length === 0) return [...current];
  const byId = new Map(current.map((message) => [message.id, message]));
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * The live turn after one more event: the event's turn, with the messages heard for it so far.
 * A later turn replaces an earlier one (its prompt closed it); an event of an earlier turn
 * (late, or of another branch's) changes nothing.
 */
export function applyTurnUpdate<M extends LiveMessage>(live: LiveTurn<M> | undefined, update: TurnUpdate<M>): LiveTurn<M> {
  if (!live || update.turn.number > live.number) return { number: update.turn.number, messages: mergeMessages([], update.messages), closed: update.closed };
  if (update.turn.number < live.number) return live;
  return { number: live.number, messages: mergeMessages(live.messages, update.messages), closed: live.closed || update.closed };
}

/**
 * The live turn to show: the read one and the heard one together when they are the same turn
 * (events may have come before or after the read), otherwise the later of the two.
 */
export function combineLive<M extends LiveMessage>(read: LiveTurn<M> | null | undefined, heard: LiveTurn<M> | null | undefined): LiveTurn<M> | null {
  if (!read) return heard ?? null;
  if (!heard || heard.number < read.number) return read;
  if (heard.number > read.number) return heard;
  return { number: read.number, messages: mergeMessages(read.messages, heard.messages), closed: read.closed || heard.closed };
}

/**
 * Whether the live turn is shown after the committed ones: while open, and once closed until
 * the page's latest commit is that turn's (then the committed view shows it).
 */
export function showsLive(live: LiveTurn | null, latestCommittedTurn: number): boolean {
  return live !== null && live.number > latestCommittedTurn;
}
