/**
 * The GraphQL client: queries and mutations over HTTP POST, subscriptions over graphql-ws
 * on the same origin, both with the token when there is one. A socket that drops is
 * reopened; `onReconnected` listeners then refetch what they show, since events sent
 * while it was down are not replayed.
 */
import { createClient as createWsClient } from 'graphql-ws';
import { Client, cacheExchange, fetchExchange, subscriptionExchange } from 'urql';
import { takePreloaded } from './preloaded';
import { currentToken } from './token';

type Listener = () => void;
const reconnectListeners = new Set<Listener>();

/**
 * The wait before reconnect attempt `retries` (0 first): 0.5 s, 1 s, 2 s, 4 s, then 5 s at most,
 * each plus up to a quarter more at random. graphql-ws's own backoff doubles without a cap, so
 * with endless retries a server that was down for a minute could be noticed a minute late.
 */
export function retryDelayMs(retries: number, random: () => number = Math.random): number {
  const base = Math.min(500 * 2 ** retries, 5000);
  return base + Math.floor(random() * base * 0.25);
}

/** Called after the live connection comes back from a drop (not on the first connect). */
export function onReconnected(listener: Listener): () => void {
  reconnectListeners.add(listener);
  return () => reconnectListeners.delete(listener);
}

/**
 * fetch, or the answer the preload script already has for the same request (lib/preloaded.ts),
 * once; when that answer failed, the request is sent as usual.
 */
function fetchOrPreloaded(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const preloaded = takePreloaded(init?.body);
  if (!preloaded) return fetch(input, init);
  return preloaded.then(
    (response) => (response?.ok ? response : fetch(input, init)),
    () => fetch(input, init),
  );
}

export function createClient(origin: string = window.location.origin): Client {
  const wsUrl = `${origin.replace(/^http/, 'ws')}/graphql`;
  let connectedBefore = false;
  const ws = createWsClient({
    url: wsUrl,
    lazy: true,
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: () => true,
    retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, retryDelayMs(retries))),
    connectionParams: () => {
      const token = currentToken();
      return token ? { token } : {};
    },
    on: {
      connected: () => {
        if (connectedBefore) for (const listener of reconnectListeners) listener();
        connectedBefore = true;
      },
    },
  });
  return new Client({
    url: `${origin}/graphql`,
    preferGetMethod: false,
    fetch: fetchOrPreloaded,
    fetchOptions: (): RequestInit => {
      const token = currentToken();
      return token ? { headers: { authorization: `Bearer ${token}` } } : {};
    },
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
}
