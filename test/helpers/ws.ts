/**
 * A real graphql-ws client against a test server, disposed after the test.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type ExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { onCleanup } from './leftovers.js';

export function wsClient(httpUrl: string): Client {
  const client = createClient({
    url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
    // A server stopped on purpose (a restart test) closes the socket; that is not a failure to print.
    onNonLazyError: () => {},
  });
  onCleanup(() => client.dispose());
  return client;
}

/** Runs one query or mutation over the socket and returns its single result. */
export function wsRequest<T, V>(client: Client, document: TypedDocumentNode<T, V>, variables?: V): Promise<ExecutionResult<T>> {
  return new Promise((resolve, reject) => {
    let result: ExecutionResult<T> | undefined;
    client.subscribe<T>(
      { query: print(document), variables: variables as Record<string, unknown> | undefined },
      {
        next: (value) => (result = value as ExecutionResult<T>),
        error: reject,
        complete: () => (result ? resolve(result) : reject(new Error('no result'))),
      },
    );
  });
}

/**
 * Subscribes and collects events; `next(n)` waits until n have arrived.
 */
export function wsSubscribe<T, V>(client: Client, document: TypedDocumentNode<T, V>, variables?: V) {
  const events: ExecutionResult<T>[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let failure: unknown;
  const unsubscribe = client.subscribe<T>(
    { query: print(document), variables: variables as Record<string, unknown> | undefined },
    {
      next: (value) => {
        events.push(value as ExecutionResult<T>);
        for (const waiter of [...waiters]) {
          if (events.length >= waiter.count) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
      },
      error: (error) => (failure = error),
      complete: () => {},
    },
  );
  onCleanup(() => unsubscribe());
  return {
    events,
    /** Resolves with all events once at least `count` have arrived (rejects after `ms`). */
    async next(count: number, ms = 20_000): Promise<ExecutionResult<T>[]> {
      if (failure) throw failure;
      if (events.length < count) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`only ${events.length} of ${count} events arrived`)), ms);
          waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
        });
      }
      return events;
    },
    unsubscribe,
  };
}
