/**
 * A real graphql-ws client against a test server, disposed after the test.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse, print, type ExecutionResult } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { onCleanup } from './leftovers.js';

/** How a test socket presents itself (all optional). */
export interface WsClientOptions {
  /** graphql-ws `connectionParams`, e.g. `{ token }`. */
  connectionParams?: Record<string, unknown>;
  /** Headers on the upgrade request, e.g. `origin` or `host`. */
  headers?: Record<string, string>;
  /** Local address to connect from (any 127.x.y.z works on Linux), to look like another client. */
  localAddress?: string;
}

function socketImpl(options: WsClientOptions): unknown {
  if (!options.headers && !options.localAddress) return WebSocket;
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols, { headers: options.headers, localAddress: options.localAddress });
    }
  };
}

export function wsClient(httpUrl: string, options: WsClientOptions = {}): Client {
  const client = createClient({
    url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: socketImpl(options),
    connectionParams: options.connectionParams,
    retryAttempts: 0,
    lazy: false,
    // A server stopped on purpose (a restart test) closes the socket; that is not a failure to print.
    onNonLazyError: () => {},
  });
  onCleanup(() => client.dispose());
  return client;
}

/** How a raw graphql-ws socket ended up: acknowledged, closed by the server, or refused at the upgrade. */
export type RawOutcome =
  | { kind: 'acked' }
  | { kind: 'closed'; code: number; reason: string }
  | { kind: 'refused'; status: number; body: string };

/**
 * A bare `ws` socket speaking graphql-transport-ws just far enough to be initialised: it sends
 * `connection_init` on open. Cheaper than a graphql-ws client when a test needs thousands.
 * `outcome` settles on the ack, a close or a refused upgrade; `closed` when the socket closes.
 */
export function rawWs(httpUrl: string, options: WsClientOptions = {}) {
  const socket = new WebSocket(`${httpUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', {
    headers: options.headers,
    localAddress: options.localAddress,
  });
  onCleanup(() => socket.terminate());
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const outcome = new Promise<RawOutcome>((resolve, reject) => {
    socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: options.connectionParams ?? {} })));
    socket.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type: string }).type === 'connection_ack') resolve({ kind: 'acked' });
    });
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        resolve({ kind: 'refused', status: res.statusCode ?? 0, body });
        socket.terminate();
      });
    });
    // Terminating a refused socket reports an error too; by then the outcome is settled and this is a no-op.
    socket.on('error', reject);
    void closed.then(({ code, reason }) => resolve({ kind: 'closed', code, reason }));
  });
  return { socket, outcome, closed };
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

const PING: TypedDocumentNode<{ __typename: string }, Record<string, never>> = parse('{ __typename }');

/**
 * Resolves once the server has set up every operation sent on `client` before this call. The
 * server takes a socket's messages in order, and setting a subscription up (parse, validate,
 * subscribing to the pubsub) waits on no I/O, so it is done before the answer to a query sent
 * after it on the same socket can be read. Use it instead of a pause before causing an event.
 */
export async function wsSettled(client: Client): Promise<void> {
  const result = await wsRequest(client, PING);
  if (result.errors?.length) throw new Error(`ping failed: ${JSON.stringify(result.errors)}`);
}

/**
 * Subscribes and collects events; `next(n)` waits until n have arrived, and `ready()` until
 * the server listens (see wsSettled).
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
    /** Resolves once the subscription is live on the server, so events caused after it arrive. */
    ready: () => wsSettled(client),
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
