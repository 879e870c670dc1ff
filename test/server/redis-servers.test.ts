/**
 * Issue 15, end to end: two servers on one Redis prefix (each with its own data dir and database
 * here). A graphql-ws subscriber on server B receives the events of a turn recorded on server A;
 * A's own subscriber receives them once, with everything its database has to show.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { TurnCommittedSubscription } from '../../src/client/operations.js';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { redisPrefix, TEST_REDIS_URL } from '../helpers/redis.js';
import { startTestServer } from '../helpers/server.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';

/**
 * What B can show of A's events: B's database does not hold A's sessions, so only what the
 * event itself carries (the timeline's kind and branch), not what is loaded from the database.
 */
const TurnCommittedAnywhere = parse('subscription { turnCommitted { __typename } }') as TypedDocumentNode<
  { turnCommitted: { __typename: string } },
  Record<string, never>
>;
const TimelineOf = parse('subscription ($sessionId: String!) { timeline(sessionId: $sessionId) { kind branch } }') as TypedDocumentNode<
  { timeline: { kind: string; branch: string } },
  { sessionId: string }
>;

describe('two servers on one Redis', () => {
  it("deliver a turn recorded on one to the other's subscribers, and to its own", async () => {
    const redis = { redisUrl: TEST_REDIS_URL, redisPrefix: redisPrefix() };
    const a = await startTestServer(redis);
    const b = await startTestServer(redis);
    expect(await a.server.app.health.report()).toMatchObject({ status: 'ok', redis: 'ok' });

    const atB = wsClient(b.url);
    const anyTurnAtB = wsSubscribe(atB, TurnCommittedAnywhere, {});
    const timelineAtB = wsSubscribe(atB, TimelineOf, { sessionId: 'across' });
    const otherTimelineAtB = wsSubscribe(atB, TimelineOf, { sessionId: 'elsewhere' });
    const atA = wsClient(a.url);
    const turnsAtA = wsSubscribe(atA, TurnCommittedSubscription, {});
    await Promise.all([anyTurnAtB.ready(), turnsAtA.ready()]);

    await a.ok(CreateSession, { input: { sessionId: 'across' } });
    await a.ok(RecordTurn, { input: { sessionId: 'across', user: { content: 'one' }, assistant: { content: 'answer' } } });
    const [atBEvent] = await anyTurnAtB.next(1);
    expect(atBEvent).toEqual({ data: { turnCommitted: { __typename: 'TurnCommittedEvent' } } });
    const [timeline] = await timelineAtB.next(1);
    expect(timeline).toEqual({ data: { timeline: { kind: 'COMMITTED', branch: 'main' } } });

    await a.ok(RecordTurn, { input: { sessionId: 'across', user: { content: 'two' }, assistant: { content: 'answer' } } });
    const [first, second] = await turnsAtA.next(2);
    expect(first?.errors).toBeUndefined();
    expect(first?.data?.turnCommitted).toMatchObject({ session: { sessionId: 'across' }, turn: { number: 1 } });
    expect(second?.data?.turnCommitted).toMatchObject({ turn: { number: 2 } });
    await anyTurnAtB.next(2);
    // Routed by session on B too: nothing reached another session's timeline. A's own events came back through
    // Redis only: an in-process copy would have come first, making three.
    expect(otherTimelineAtB.events).toEqual([]);
    expect(turnsAtA.events).toHaveLength(2);
  });
});
