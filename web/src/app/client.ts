/**
 * The GraphQL client: queries and mutations over HTTP POST, subscriptions over graphql-ws
 * on the same origin, both with the token when there is one. A socket that drops is
 * reopened; `onReconnected` listeners then refetch what they show, since events sent
 * while it was down are not replayed.
 */
import { createClient as createWsClient } from 'graphql-ws';
import { Client, cacheExchange, fetchExchange, subscriptionExchange } from 'urql';
import { currentToken } from './token';

type Listener = () => void;
const reconnectListeners = new Set<Listener>();

/** Called after the live connection comes back from a drop (not on the first connect). */
export function onReconnected(listener: Listener): () => void {
  reconnectListeners.add(listener);
  return () => reconnectListeners.delete(listener);
}

export function createClient(origin: string = window.location.origin): Client {
  const wsUrl = `${origin.replace(/^http/, 'ws')}/graphql`;
  let connectedBefore = false;
  const ws = createWsClient({
    url: wsUrl,
    lazy: true,
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: () => true,
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
