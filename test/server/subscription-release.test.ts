/**
 * Issue 14, "memory of closed subscriptions released": once its subscriptions end (completed by
 * the client, or the socket closed or cut off, even with an event on its way), the server holds
 * nothing for them: no pubsub listener, no connection slot. Counted, not weighed: a leftover
 * listener keeps its whole subscription (socket, context, iterators) alive.
 */
import { parse } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { describe, expect, it } from 'vitest';
import { TimelineSubscription, TurnCommittedSubscription } from '../../src/client/operations.js';
import type { Events } from '../../src/pubsub.js';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { startTestServer } from '../helpers/server.js';
import { rawWs, wsClient, wsSubscribe } from '../helpers/ws.js';

const TOPICS: (keyof Events)[] = ['turnCommitted', 'mirrorFailed', 'timeline', 'projectCommitted', 'dirtyTreeWarning'];

/** One of each other topic, to count their listeners too. */
const OTHERS = [
  'subscription { mirrorFailed { turnNumber error } }',
  'subscription { projectCommitted { turnNumber } }',
  'subscription { dirtyTreeWarning { turnNumber } }',
  'subscription { turnCommitted { turn { number } } }',
].map((text) => parse(text) as TypedDocumentNode<Record<string, unknown>, Record<string, never>>);

describe('closed subscriptions', () => {
  it('leave no pubsub listener and no connection slot behind, however they end', async () => {
    const api = await startTestServer();
    const { pubsub } = api.server.app.deps;
    // The server's own, for its life: the mirror's backlog follows every commit and failure (src/mirror/backlog.ts).
    const own: Partial<Record<keyof Events, number>> = { turnCommitted: 1, mirrorFailed: 1 };
    const listeners = () => Object.fromEntries(TOPICS.map((topic) => [topic, pubsub.listenerCount(topic) - (own[topic] ?? 0)]));
    expect(listeners()).toEqual({ turnCommitted: 0, timeline: 0, mirrorFailed: 0, projectCommitted: 0, dirtyTreeWarning: 0 });
    await api.ok(CreateSession, { input: { sessionId: 'rel' } });

    // 6 sockets, each with the client's turnCommitted and timeline subscriptions and one of the others.
    const sockets = Array.from({ length: 6 }, (_, i) => {
      const client = wsClient(api.url);
      const subscriptions = [
        wsSubscribe(client, TurnCommittedSubscription, { sessionId: 'rel' }),
        wsSubscribe(client, TimelineSubscription, { sessionId: 'rel' }),
        wsSubscribe(client, OTHERS[i % OTHERS.length]!, {}),
      ];
      return { client, subscriptions };
    });
    await Promise.all(sockets.flatMap((s) => s.subscriptions.map((sub) => sub.ready())));
    // A raw socket subscribed too, to be cut off without a close frame.
    const raw = rawWs(api.url);
    expect(await raw.outcome).toEqual({ kind: 'acked' });
    const rawReady = new Promise<void>((resolve) =>
      raw.socket.on('message', (data) => {
        if ((JSON.parse(String(data)) as { id?: string; type: string }).id === 'ping') resolve();
      }),
    );
    raw.socket.send(JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: 'subscription { turnCommitted(sessionId: "rel") { turn { number } } }' } }));
    raw.socket.send(JSON.stringify({ id: 'ping', type: 'subscribe', payload: { query: '{ __typename }' } }));
    await rawReady;
    // One listener per distinct operation, which its subscribers share (src/http/fan-out.ts): turnCommitted is
    // the client's operation on 6 sockets, the raw socket's and OTHERS[3]'s; sockets 0-5 take mirrorFailed,
    // projectCommitted, dirtyTreeWarning, turnCommitted, mirrorFailed, projectCommitted.
    expect(listeners()).toEqual({ turnCommitted: 3, timeline: 1, mirrorFailed: 1, projectCommitted: 1, dirtyTreeWarning: 1 });

    // Events flow, so the shared executions of an event have run.
    await api.ok(RecordTurn, { input: { sessionId: 'rel', user: { content: 'one' }, assistant: { content: 'answer' } } });
    await Promise.all(sockets.map((s) => s.subscriptions[0]!.next(1)));

    // Completed by the client while the socket stays open: the operations it shared still listen for the others,
    // and the one only it had (dirtyTreeWarning, socket 2) stops listening.
    for (const subscription of sockets[0]!.subscriptions) subscription.unsubscribe();
    for (const subscription of sockets[2]!.subscriptions) subscription.unsubscribe();
    await expect.poll(listeners).toEqual({ turnCommitted: 3, timeline: 1, mirrorFailed: 1, projectCommitted: 1, dirtyTreeWarning: 0 });

    // Closed with an event on its way: a turn is recorded and the sockets go before it is delivered.
    const recording = api.ok(RecordTurn, { input: { sessionId: 'rel', user: { content: 'two' }, assistant: { content: 'answer' } } });
    await Promise.all(sockets.slice(1, 4).map((s) => s.client.dispose()));
    raw.socket.terminate();
    await recording;
    await Promise.all(sockets.slice(4).map((s) => s.subscriptions[0]!.next(2)));
    await Promise.all(sockets.slice(4).map((s) => s.client.dispose()));
    await sockets[0]!.client.dispose();

    await expect.poll(listeners).toEqual({ turnCommitted: 0, timeline: 0, mirrorFailed: 0, projectCommitted: 0, dirtyTreeWarning: 0 });
    await expect.poll(() => api.server.openWebSockets()).toBe(0);
  });
});
