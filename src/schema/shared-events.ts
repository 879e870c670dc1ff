/**
 * One event, resolved once: every subscriber of a subscription gets the same
 * published payload object, so what a subscriber's event costs (database rows,
 * git processes) is computed once per event and shared.
 *
 * - Whole results: subscribers whose operation is the same (document,
 *   operation name, variables) share one execution per event. 1,000 web UIs
 *   watching `turnCommitted` cost one execution, not 1,000.
 * - Fields: subscribers with different selections still share what the event's
 *   fields load (`eventField`): the session and turn rows, and the commit read
 *   from git, once per event whatever the selections.
 *
 * Sharing is safe because an event's answer depends only on the payload, the
 * operation and its variables: the context carries the same dependencies for
 * every subscriber, and the cost was checked for each when it subscribed.
 * Both memos are keyed by the payload object (a WeakMap), so they go when the
 * last subscriber is done with the event.
 */
import { createSourceEventStream, execute, print, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { executeAhead } from './execute-ahead.js';

/** payload -> operation key -> its execution. */
const results = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();
/** payload -> field name -> what the field loaded. */
const fields = new WeakMap<object, Map<string, Promise<unknown>>>();
/** Printing a document once, however many subscriptions share it (yoga caches parsed documents by text). */
const printed = new WeakMap<DocumentNode, string>();

/** What makes two subscriptions' answers to one event the same: the operation and its variables. */
export function operationKey(args: Pick<ExecutionArgs, 'document' | 'operationName' | 'variableValues'>): string {
  let text = printed.get(args.document);
  if (text === undefined) printed.set(args.document, (text = print(args.document)));
  return JSON.stringify([text, args.operationName ?? null, args.variableValues ?? null]);
}

/**
 * `graphql`'s `subscribe`, but each event is executed once per distinct operation and the
 * result handed to every subscription that asked the same, and executed when it arrives rather
 * than after the previous event was sent (src/schema/execute-ahead.ts).
 */
export async function sharedSubscribe(args: ExecutionArgs): Promise<AsyncIterable<ExecutionResult> | ExecutionResult> {
  const source = await createSourceEventStream(args);
  if (!isAsyncIterable(source)) return source as ExecutionResult;
  const key = operationKey(args);
  return executeAhead((source as AsyncIterable<unknown>)[Symbol.asyncIterator](), (payload) => executeOnce(payload, key, args));
}

function executeOnce(payload: unknown, key: string, args: ExecutionArgs): Promise<ExecutionResult> {
  const run = async () => execute({ ...args, rootValue: payload }) as ExecutionResult;
  if (payload === null || typeof payload !== 'object') return run();
  let byOperation = results.get(payload);
  if (!byOperation) results.set(payload, (byOperation = new Map()));
  let result = byOperation.get(key);
  if (!result) byOperation.set(key, (result = run()));
  return result;
}

/**
 * What a field of an event loads, once per event: `load` runs for the first subscriber that
 * asks and every other one gets the same promise (a failure too, which is the event's failure).
 */
export function eventField<T>(payload: object, field: string, load: () => Promise<T>): Promise<T> {
  let byField = fields.get(payload);
  if (!byField) fields.set(payload, (byField = new Map()));
  let loaded = byField.get(field) as Promise<T> | undefined;
  if (!loaded) byField.set(field, (loaded = load()));
  return loaded;
}

/** The yoga plugin that makes every subscription use `sharedSubscribe`. */
export function useSharedEvents(): Plugin {
  return {
    onSubscribe({ setSubscribeFn }) {
      setSubscribeFn(sharedSubscribe as never);
    },
  };
}
