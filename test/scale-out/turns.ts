/**
 * What the scale-out tests share: writing a turn through whichever instance answers (a retry on
 * another when a request gets no answer, idempotent through the turn's own message ids),
 * subscribers to a session's turnCommitted on a given instance, and the session's turns as the
 * database has them.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { onCleanup } from '../helpers/leftovers.js';
import { postGraphQL, type HttpAnswer } from '../helpers/instance-process.js';

export const RECORD_TURN = `mutation Record($input: RecordTurnInput!) { recordTurn(input: $input) { number userMessage { messageId } } }`;

const TURN_COMMITTED = `subscription Committed($sessionId: String) { turnCommitted(sessionId: $sessionId) { session { sessionId } turn { number } commit { sha } } }`;

const TURNS = `query Turns($sessionId: String!) {
  session(sessionId: $sessionId) {
    repoPath
    turns(first: 500) { totalCount edges { node { number branch open mirrorState userMessage { messageId } commit { sha } } } }
  }
}`;

/** The message ids of a session's turn `n`: fixed, so a retried turn is the same turn. */
export const userMessageId = (n: number) => `u${n}`;
export const assistantMessageId = (n: number) => `a${n}`;

/** How a turn got written: acknowledged (a 200 with its data), or found written by an earlier request whose answer was lost. */
export type TurnOutcome = 'acknowledged' | 'landed-unanswered';

/** What writing turns through several instances met on the way. */
export interface WriteLog {
  /** Requests that got no answer (the instance was down or died while answering). */
  unanswered: number;
  /** Turns whose first answer was lost but which had landed: the retry met its own message id (CONFLICT). */
  landedUnanswered: number;
}

/**
 * Records turn `n` of `sessionId` through the instances in `urls()` order from `first`: on no answer it
 * tries the next one (the request may or may not have landed). A retry of a turn that landed meets its own
 * user message id and is answered CONFLICT naming it: that is the turn written, not a second one.
 * @throws on any other error: the test failed.
 */
export async function writeTurn(
  urls: () => string[],
  first: number,
  sessionId: string,
  n: number,
  extra: Record<string, unknown>,
  log: WriteLog,
  maxAttempts = 200,
): Promise<{ outcome: TurnOutcome; number: number | null }> {
  const input = {
    sessionId,
    user: { messageId: userMessageId(n), content: `question ${n} of ${sessionId}` },
    assistant: { messageId: assistantMessageId(n), content: `answer ${n}` },
    ...extra,
  };
  let retried = false;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const all = urls();
    const url = all[(first + attempt) % all.length]!;
    let answer: HttpAnswer<{ recordTurn: { number: number; userMessage: { messageId: string } } }>;
    try {
      answer = await postGraphQL(url, RECORD_TURN, { input });
    } catch {
      log.unanswered += 1;
      retried = true;
      // No answer: a refused connection comes back at once, so going round the instances is no busy wait
      // for long; one that died while answering is skipped the same way.
      continue;
    }
    const error = answer.errors?.[0];
    if (!error && answer.status === 200 && answer.data?.recordTurn) return { outcome: 'acknowledged', number: answer.data.recordTurn.number };
    if (retried && error?.extensions?.code === 'CONFLICT' && error.extensions.messageId === userMessageId(n)) {
      log.landedUnanswered += 1;
      return { outcome: 'landed-unanswered', number: null };
    }
    throw new Error(`turn ${n} of ${sessionId} on ${url}: HTTP ${answer.status} ${JSON.stringify(answer.errors ?? answer.data)}`);
  }
  throw new Error(`turn ${n} of ${sessionId}: no instance answered in ${maxAttempts} attempts`);
}

export interface TurnRow {
  number: number;
  branch: string;
  open: boolean;
  mirrorState: string;
  userMessage: { messageId: string };
  commit: { sha: string } | null;
}

/** The session's turns and repo path, as the database has them (through instance `url`). */
export async function readTurns(url: string, sessionId: string): Promise<{ repoPath: string; turns: TurnRow[] }> {
  const answer = await postGraphQL<{ session: { repoPath: string; turns: { edges: { node: TurnRow }[] } } | null }>(url, TURNS, { sessionId });
  if (answer.errors?.length || !answer.data?.session) throw new Error(`reading ${sessionId}: ${JSON.stringify(answer.errors ?? answer.data)}`);
  return { repoPath: answer.data.session.repoPath, turns: answer.data.session.turns.edges.map((e) => e.node) };
}

/** A graphql-ws connection to one instance (no retries: a dead instance ends it), disposed after the test. */
export function socketTo(url: string): Client {
  const client = createClient({
    url: `${url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
    // An instance killed on purpose closes the socket: the subscriptions record it, nothing to print.
    onNonLazyError: () => {},
  });
  onCleanup(() => client.dispose());
  return client;
}

/** The turn numbers one subscription received, in order, and how it ended (if it did). */
export interface Subscriber {
  readonly sessionId: string;
  readonly numbers: number[];
  /** Set when the subscription ended with an error or its socket closed. */
  ended: string | undefined;
  /** Resolves once `predicate(numbers)` holds; rejects after `ms`, or at once when the subscription has ended. */
  until(predicate: (numbers: number[]) => boolean, ms: number): Promise<void>;
}

/** Subscribes to turnCommitted of `sessionId` on `client`; every event is checked to be that session's. */
export function subscribeTurns(client: Client, sessionId: string): Subscriber {
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const subscriber: Subscriber = {
    sessionId,
    numbers: [],
    ended: undefined,
    until(predicate, ms) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (predicate(subscriber.numbers)) done(resolve);
          else if (subscriber.ended) done(() => reject(new Error(`the subscription to ${sessionId} ended (${subscriber.ended}) after turns ${subscriber.numbers.join(',')}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`${sessionId}: turns received ${subscriber.numbers.join(',')}; condition not met in ${ms} ms`))), ms);
        const done = (then: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          then();
        };
        waiters.add(check);
        check();
      });
    },
  };
  const unsubscribe = client.subscribe<{ turnCommitted: { session: { sessionId: string }; turn: { number: number }; commit: { sha: string } } }>(
    { query: TURN_COMMITTED, variables: { sessionId } },
    {
      next: (result) => {
        if (result.errors?.length || result.data?.turnCommitted.session.sessionId !== sessionId) {
          subscriber.ended = `a bad event: ${JSON.stringify(result)}`;
        } else {
          subscriber.numbers.push(result.data.turnCommitted.turn.number);
        }
        wake();
      },
      error: (error) => {
        subscriber.ended = String((error as { reason?: string; code?: number }).code ?? error);
        wake();
      },
      complete: () => {
        subscriber.ended ??= 'completed';
        wake();
      },
    },
  );
  onCleanup(() => unsubscribe());
  return subscriber;
}

