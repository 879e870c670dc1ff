/**
 * WebSocket caps and graphql-ws error handling against a real server: thousands of idle
 * initialised sockets hit a clean close code while HTTP keeps answering; one client address
 * cannot take every slot; one connection cannot run unbounded operations; a bad document is
 * answered on its own id and the connection stays open.
 */
import { print, type GraphQLFormattedError } from 'graphql';
import type { Client } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import { CreateSession, RecordTurn, SessionView } from '../api/operations.js';
import { TurnCommitted } from '../mirror/operations.js';
import { startTestServer } from '../helpers/server.js';
import { rawWs, wsClient, wsRequest, wsSubscribe, type RawOutcome } from '../helpers/ws.js';
import { send } from './boundary-helpers.js';

/** Polls a condition on the server (no event to wait on from outside); fails after `ms`. */
async function until(condition: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Opens `count` raw initialised sockets, `batch` at a time (a listen backlog is finite). */
async function openMany(url: string, count: number, batch = 200) {
  const sockets: ReturnType<typeof rawWs>[] = [];
  const outcomes: RawOutcome[] = [];
  for (let start = 0; start < count; start += batch) {
    const group = Array.from({ length: Math.min(batch, count - start) }, () => rawWs(url));
    sockets.push(...group);
    outcomes.push(...(await Promise.all(group.map((s) => s.outcome))));
  }
  return { sockets, outcomes };
}

/** The first thing an operation gets: its errors, or its first result. */
function firstAnswer(client: Client, query: string, variables?: Record<string, unknown>) {
  return new Promise<{ errors?: readonly GraphQLFormattedError[]; data?: unknown }>((resolve) => {
    const unsubscribe = client.subscribe(
      { query, variables },
      {
        next: (value) => {
          resolve({ data: value.data, errors: value.errors });
          unsubscribe();
        },
        error: (error) => resolve({ errors: error as readonly GraphQLFormattedError[] }),
        complete: () => {},
      },
    );
  });
}

describe('WebSocket connection caps', () => {
  it('holds the total cap against 2,000 idle initialised sockets with 4429, keeps HTTP answering, and takes new sockets once they close', async () => {
    const api = await startTestServer({ maxWsConnections: 1000, maxWsPerAddress: 5000 });
    const { sockets, outcomes } = await openMany(api.url, 2000);
    const acked = outcomes.filter((o) => o.kind === 'acked').length;
    const refused = outcomes.filter((o): o is Extract<RawOutcome, { kind: 'closed' }> => o.kind === 'closed');
    expect(acked).toBe(1000);
    expect(refused).toHaveLength(1000);
    for (const close of refused) {
      expect(close.code).toBe(4429);
      expect(close.reason).toBe('too many connections: the server takes 1000');
    }
    expect(api.server.openWebSockets()).toBe(1000);

    // With every slot taken, HTTP still answers: /health and a real query.
    const started = performance.now();
    const health = await send(`${api.url}/health`);
    const healthMs = performance.now() - started;
    expect(health.status).toBe(200);
    expect(healthMs).toBeLessThan(2000);
    await api.ok(CreateSession, { input: { sessionId: 'while-full' } });
    expect((await api.ok(SessionView, { sessionId: 'while-full' })).session?.sessionId).toBe('while-full');

    const open = sockets.filter((_, i) => outcomes[i]?.kind === 'acked');
    for (const { socket } of open) socket.close(1000);
    await Promise.all(open.map((s) => s.closed));
    await until(() => api.server.openWebSockets() === 0, 'the server to release every slot');

    const again = await openMany(api.url, 300);
    expect(again.outcomes.every((o) => o.kind === 'acked')).toBe(true);
    expect(api.server.openWebSockets()).toBe(300);
  }, 180_000);

  it('caps connections per remote address, and another address still gets in', async () => {
    const api = await startTestServer({ maxWsPerAddress: 3 });
    const mine = await openMany(api.url, 4, 1);
    expect(mine.outcomes.slice(0, 3).map((o) => o.kind)).toEqual(['acked', 'acked', 'acked']);
    expect(mine.outcomes[3]).toEqual({ kind: 'closed', code: 4429, reason: 'too many connections from 127.0.0.1: 3 at most' });
    expect((await rawWs(api.url, { localAddress: '127.0.0.2' }).outcome).kind).toBe('acked');

    // A slot freed by a close is free again.
    mine.sockets[0]!.socket.close(1000);
    await mine.sockets[0]!.closed;
    await until(() => api.server.openWebSockets() === 3, 'the closed socket to free its slot');
    expect((await rawWs(api.url).outcome).kind).toBe('acked');
  });

  it('closes a socket that never sends connection_init, and one that sends a frame over maxPayload', async () => {
    const api = await startTestServer({ maxContentBytes: 1000 });
    const silent = rawWs(api.url);
    silent.socket.removeAllListeners('open'); // never initialise
    expect(await silent.closed).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });

    const big = rawWs(api.url);
    expect((await big.outcome).kind).toBe('acked');
    big.socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: `{ sessions(first: 1) { totalCount } } #${'x'.repeat(2 * 1024 * 1024)}` } }));
    expect((await big.closed).code).toBe(1009);
    expect((await send(`${api.url}/health`)).status).toBe(200);
  }, 30_000);
});

describe('operations per graphql-ws connection', () => {
  it('answers the operation over the cap with BAD_USER_INPUT and keeps the others and the connection running', async () => {
    const api = await startTestServer({ maxSubscriptionsPerConnection: 2 });
    await api.ok(CreateSession, { input: { sessionId: 'subs' } });
    const client = wsClient(api.url);
    let closes = 0;
    client.on('closed', () => (closes += 1));
    const first = wsSubscribe(client, TurnCommitted, { sessionId: 'subs' });
    const second = wsSubscribe(client, TurnCommitted, { sessionId: 'subs' });
    const third = await firstAnswer(client, print(TurnCommitted), { sessionId: 'subs' });
    expect(third.errors?.[0]?.message).toContain('already runs 2 operations');
    expect(third.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 2 });

    // Completing one frees its place (the server reads the complete before the next subscribe).
    first.unsubscribe();
    const query = await wsRequest(client, SessionView, { sessionId: 'subs' });
    expect(query.data?.session?.sessionId).toBe('subs');
    // The remaining subscription still delivers.
    await api.ok(RecordTurn, { input: { sessionId: 'subs', user: { content: 'q' }, assistant: { content: 'a' } } });
    const [event] = await second.next(1);
    expect(event?.data?.turnCommitted.turn.number).toBe(1);
    expect(closes).toBe(0);
  });
});

describe('graphql-ws errors', () => {
  it('answers a syntax or validation error on its own id with BAD_USER_INPUT, and the connection stays open', async () => {
    const api = await startTestServer();
    const client = wsClient(api.url);
    let closes = 0;
    client.on('closed', () => (closes += 1));
    for (const bad of ['subscription { turnCommitted(', '{ sessions(first: 1) { nope } }', 'query { ', '"x']) {
      const answer = await firstAnswer(client, bad);
      expect(answer.errors?.length, bad).toBeGreaterThan(0);
      expect(answer.errors?.[0]?.extensions?.code, bad).toBe('BAD_USER_INPUT');
    }
    const good = await wsRequest(client, CreateSession, { input: { sessionId: 'after-bad' } });
    expect(good.errors).toBeUndefined();
    expect(good.data?.createSession.sessionId).toBe('after-bad');
    expect(closes).toBe(0);
  });
});
