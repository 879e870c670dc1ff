/**
 * Issue 15, end to end: two servers on one Redis prefix (each with its own data dir and database
 * here, B's holding A's events secret as a database they shared would). A graphql-ws subscriber on
 * server B receives the events of a turn recorded on server A; A's own subscriber receives them
 * once, with everything its database has to show. A server of another database on the same
 * prefix (another secret) is heard by nobody (issue 26 item 5b).
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { TurnCommittedSubscription } from '../../src/client/operations.js';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { databaseFile } from '../../src/config.js';
import { openDb } from '../../src/db/index.js';
import { sharedSecret } from '../../src/db/shared-secrets.js';
import { onPostgres } from '../helpers/database.js';
import { capturedLogger } from '../helpers/logger.js';
import { redisPrefix, TEST_REDIS_URL } from '../helpers/redis.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
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

/**
 * A server on its own data dir whose database already holds `a`'s events secret: what sharing
 * `a`'s database gives (on PostgreSQL it shares it; an embedded SQLite file cannot be shared, so
 * the secret is written into a fresh one before the server opens it).
 */
async function startBeside(a: TestServer, redis: { redisUrl: string; redisPrefix: string }, logger = capturedLogger().logger): Promise<TestServer> {
  const secret = await sharedSecret(a.server.app.deps.db, 'events');
  if (onPostgres) return startTestServer({ ...redis, databaseUrl: a.server.app.config.databaseUrl }, {}, { logger });
  const dataDir = tempDir('em-data-');
  const db = await openDb({ file: databaseFile({ dataDir }) });
  await db.sharedSecret.create({ data: { name: 'events', value: secret.toString('hex') } });
  await db.$disconnect();
  return startTestServer({ ...redis, dataDir, databaseUrl: undefined }, {}, { logger });
}

describe('two servers on one Redis', () => {
  it("deliver a turn recorded on one to the other's subscribers, and to its own", async () => {
    const redis = { redisUrl: TEST_REDIS_URL, redisPrefix: redisPrefix() };
    const a = await startTestServer(redis);
    const b = await startBeside(a, redis);
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

  it("deliver nothing to a server of another database on the same prefix: its secret is not theirs, and it says so", async () => {
    const redis = { redisUrl: TEST_REDIS_URL, redisPrefix: redisPrefix() };
    const a = await startTestServer(redis);
    const { logger, lines } = capturedLogger<{ msg: string }>();
    const b = await startTestServer(redis, {}, { logger });
    const atB = wsClient(b.url);
    const anyTurnAtB = wsSubscribe(atB, TurnCommittedAnywhere, {});
    const turnsAtA = wsSubscribe(wsClient(a.url), TurnCommittedAnywhere, {});
    await Promise.all([anyTurnAtB.ready(), turnsAtA.ready()]);

    await a.ok(CreateSession, { input: { sessionId: 'across' } });
    await a.ok(RecordTurn, { input: { sessionId: 'across', user: { content: 'one' }, assistant: { content: 'answer' } } });
    // A's event went through Redis (A heard it from there); B's own, published after it, reaches B's
    // subscription connection after it: by then B had dropped A's.
    await turnsAtA.next(1);
    await b.ok(CreateSession, { input: { sessionId: 'at-b' } });
    await b.ok(RecordTurn, { input: { sessionId: 'at-b', user: { content: 'one' }, assistant: { content: 'answer' } } });
    await anyTurnAtB.next(1);
    expect(anyTurnAtB.events).toHaveLength(1);
    expect(lines.some((line) => line.msg === 'dropped a message from Redis: signed with another secret (not an instance of this database)')).toBe(true);
  });
});
