/**
 * Issue 14, "resolve each event once": an event's data is computed once and shared by every
 * subscriber (no git process per subscriber), and a subscriber that stops reading is closed
 * without holding up the others. Real server, real git, real sockets; no timing.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse, type ExecutionResult } from 'graphql';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { onGitSpawn, type GitSpawnEvent } from '../../src/git/run.js';
import { TurnCommittedSubscription } from '../../src/client/operations.js';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { git } from '../helpers/git.js';
import { capturedLogger } from '../helpers/logger.js';
import { onCleanup } from '../helpers/leftovers.js';
import { startTestServer } from '../helpers/server.js';
import { rawWs, wsClient, wsSubscribe } from '../helpers/ws.js';

type Event = { turnCommitted: { turn: { number: number }; commit: { sha: string; headline: string } } };

/** Selections unlike the client's, each with the commit: they share the event's loads, not its result. */
const OTHER_SELECTIONS = [
  'subscription { turnCommitted { commit { sha headline message author { name email } } turn { number } } }',
  'subscription { turnCommitted { c: commit { sha headline } turn { number } session { sessionId } } }',
  'subscription Named($sessionId: String) { turnCommitted(sessionId: $sessionId) { commit { sha headline shortSha } turn { number } } }',
].map((text) => parse(text) as TypedDocumentNode<Event, { sessionId?: string }>);

describe('turnCommitted fan-out', () => {
  it('reads each commit from git once per event, whatever the number of subscribers and selections', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'fan' } });
    const spawned: GitSpawnEvent[] = [];
    onCleanup(onGitSpawn((event) => spawned.push(event)));

    // 100 subscribers of the client's documented selection over 10 sockets, and 3 of other selections.
    const clients = Array.from({ length: 10 }, () => wsClient(api.url));
    const same = Array.from({ length: 100 }, (_, i) => wsSubscribe(clients[i % 10]!, TurnCommittedSubscription, { sessionId: 'fan' }));
    const others = OTHER_SELECTIONS.map((document, i) => wsSubscribe(clients[i]!, document, { sessionId: 'fan' }));
    await Promise.all([...same, ...others].map((s) => s.ready()));

    // Turns back to back, as an agent sends them, with 128 KiB prompts: events come while the sockets are
    // still writing the last ones, so the subscribers do not all take an event in the same tick.
    const turns = 6;
    const prompt = 'p'.repeat(128 * 1024);
    for (let n = 1; n <= turns; n++) {
      await api.ok(RecordTurn, { input: { sessionId: 'fan', user: { content: `${n} ${prompt}` }, assistant: { content: `answer ${n}` } } });
    }
    await Promise.all([...same, ...others].map((s) => s.next(turns)));

    const shas = same[0]!.events.map((e) => e.data!.turnCommitted.commit.sha);
    expect(new Set(shas).size).toBe(turns);
    for (const subscription of same) {
      expect(subscription.events.map((e) => e.errors)).toEqual(Array.from({ length: turns }, () => undefined));
      // The same answer for every subscriber of the same operation.
      expect(subscription.events).toEqual(same[0]!.events);
    }
    for (const subscription of others) {
      expect(subscription.events.map((e) => e.errors)).toEqual(Array.from({ length: turns }, () => undefined));
      const data = subscription.events.map((e) => e.data as unknown as { turnCommitted: Record<string, { sha?: string }> });
      expect(data.map((d) => (d.turnCommitted.commit ?? d.turnCommitted.c)!.sha)).toEqual(shas);
    }
    // The commits were read by at most one git process per event for all 103 subscribers (the reads of
    // events resolved in the same tick share one process). The mirror itself runs no `git log`.
    const reads = spawned.filter((event) => event.cwd.endsWith('/sessions/fan') && event.argv.includes('log'));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.length).toBeLessThanOrEqual(turns);
  });

  it('runs no git process for a selection git does not hold (the client’s: sha, shortSha, headline, the turn)', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'no-git' } });
    const client = wsClient(api.url);
    const subscriptions = [wsSubscribe(client, TurnCommittedSubscription, { sessionId: 'no-git' }), wsSubscribe(client, OTHER_SELECTIONS[1]!, { sessionId: 'no-git' })];
    await Promise.all(subscriptions.map((s) => s.ready()));
    const spawned: GitSpawnEvent[] = [];
    onCleanup(onGitSpawn((event) => spawned.push(event)));

    const turns = 3;
    for (let n = 1; n <= turns; n++) await api.ok(RecordTurn, { input: { sessionId: 'no-git', user: { content: `question ${n}` }, assistant: { content: `answer ${n}` } } });
    await Promise.all(subscriptions.map((s) => s.next(turns)));

    const events = subscriptions[0]!.events.map((e) => e.data!.turnCommitted);
    expect(events.map((e) => e.turn.number)).toEqual([1, 2, 3]);
    // What the events said is what git holds: the branch's commits and their subjects, read after the events.
    const log = git(join(api.dataDir, 'sessions', 'no-git'), 'log', '--format=%H %s', '--reverse', 'main').trim().split('\n');
    expect(events.map((e) => `${e.commit.sha} ${e.commit.headline}`)).toEqual(log);
    expect(log[0]).toMatch(/question 1$/);
    // Only the mirror's own processes ran on the repo while the events went out: no read of a commit.
    const reads = spawned.filter((event) => event.cwd.endsWith('/sessions/no-git') && (event.argv.includes('log') || event.argv.includes('cat-file')));
    expect(reads).toEqual([]);
  });

  it('answers each event of a burst with its own turn, read together; a turn that is gone fails its event only', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'burst' } });
    const client = wsClient(api.url);
    const live = wsSubscribe(client, TurnCommittedSubscription, { sessionId: 'burst' });
    await live.ready();
    for (let n = 1; n <= 5; n++) await api.ok(RecordTurn, { input: { sessionId: 'burst', user: { content: `question ${n}` }, assistant: { content: `answer ${n}` } } });
    const committed = (await live.next(5)).map((e) => e.data!.turnCommitted);
    const turns = await api.server.app.deps.db.turn.findMany({ where: { sessionId: 'burst' }, orderBy: { number: 'asc' } });

    // Two selections of the turn (the client's, and its messages' content with the session), both
    // subscribed now; then the five turns announced together, newest first, with one whose turn is gone
    // in the middle, as the mirror announces a backlog: in one tick.
    const clientSelection = wsSubscribe(client, TurnCommittedSubscription, { sessionId: 'burst' });
    const contentSelection = wsSubscribe(
      client,
      parse('subscription { turnCommitted(sessionId: "burst") { session { sessionId } turn { number messages { role content } } } }') as TypedDocumentNode<{
        turnCommitted: { session: { sessionId: string }; turn: { number: number; messages: { role: string; content: string }[] } };
      }>,
    );
    const selections = [clientSelection, contentSelection];
    await Promise.all(selections.map((s) => s.ready()));
    const payloads = [...turns].reverse().map((turn, i) => ({ sessionId: 'burst', turnId: turn.id, sha: committed[4 - i]!.commit.sha }));
    payloads.splice(2, 0, { sessionId: 'burst', turnId: 'gone-turn', sha: committed[0]!.commit.sha });
    for (const payload of payloads) api.server.app.deps.pubsub.publish('turnCommitted', payload);

    const [clients, contents] = await Promise.all([clientSelection.next(6), contentSelection.next(6)]);
    const failed = 2;
    for (const events of [clients, contents] as ExecutionResult[][]) {
      expect(events.map((e) => (e.errors ? 'error' : 'ok'))).toEqual(['ok', 'ok', 'error', 'ok', 'ok', 'ok']);
      expect(events[failed]!.errors![0]!).toMatchObject({ message: 'Turn "gone-turn" does not exist.', extensions: { code: 'NOT_FOUND' } });
    }
    const answered = clients.filter((_, i) => i !== failed).map((e) => e.data!.turnCommitted);
    expect(answered.map((e) => [e.turn.number, e.commit.sha, e.turn.userMessage?.content, e.turn.assistantMessage?.content])).toEqual(
      [5, 4, 3, 2, 1].map((n) => [n, committed[n - 1]!.commit.sha, `question ${n}`, `answer ${n}`]),
    );
    // The client's selection reads as the live event did.
    expect(answered.at(-1)).toEqual(committed[0]);
    const read = contents.filter((_, i) => i !== failed).map((e) => e.data!.turnCommitted);
    expect(read.map((e) => [e.session.sessionId, e.turn.number, e.turn.messages.map((m) => `${m.role} ${m.content}`)])).toEqual(
      [5, 4, 3, 2, 1].map((n) => ['burst', n, [`USER question ${n}`, `ASSISTANT answer ${n}`]]),
    );
  });

  it('closes a subscriber that stops reading (1013, a log line) while another one gets every event', async () => {
    const { logger, lines } = capturedLogger();
    const api = await startTestServer({ maxWsBufferedBytes: 64 * 1024 }, {}, { logger });
    await api.ok(CreateSession, { input: { sessionId: 'slow' } });

    const healthy = wsSubscribe(wsClient(api.url), TurnCommittedSubscription, { sessionId: 'slow' });
    await healthy.ready();

    // A raw socket that subscribes 20 times to the turn's content, then stops reading.
    const stuck = rawWs(api.url);
    expect(await stuck.outcome).toEqual({ kind: 'acked' });
    const setUp = new Promise<void>((resolve) =>
      stuck.socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { id?: string; type: string };
        if (message.id === 'ping' && message.type === 'complete') resolve();
      }),
    );
    for (let i = 0; i < 20; i++) {
      const query = 'subscription { turnCommitted(sessionId: "slow") { turn { number userMessage { content } } } }';
      stuck.socket.send(JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query } }));
    }
    stuck.socket.send(JSON.stringify({ id: 'ping', type: 'subscribe', payload: { query: '{ __typename }' } }));
    await setUp;
    (stuck.socket as WebSocket & { _socket: { pause(): void } })._socket.pause();
    expect(api.server.openWebSockets()).toBe(2);

    const tooSlow = () => lines.find((line) => String(line.msg).startsWith('closing a WebSocket that fell behind'));
    const content = 'x'.repeat(512 * 1024);
    let n = 0;
    // Each turn sends the stuck socket 20 × 512 KiB; the kernel's buffers take some MiB, then the cap trips.
    while (!tooSlow() && n < 40) {
      n += 1;
      await api.ok(RecordTurn, { input: { sessionId: 'slow', user: { content: `${n} ${content}` }, assistant: { content: `answer ${n}` } } });
      // The healthy subscriber gets this turn's event while the other one is stuck.
      await healthy.next(n);
    }
    expect(tooSlow()).toMatchObject({ level: 40, code: 1013, maxBufferedBytes: 64 * 1024 });
    // Closed (cut off once it does not read the close frame either); the healthy socket stays.
    await expect.poll(() => api.server.openWebSockets(), { timeout: 20_000 }).toBe(1);

    // And keeps getting events.
    await api.ok(RecordTurn, { input: { sessionId: 'slow', user: { content: 'after' }, assistant: { content: 'the close' } } });
    const events: ExecutionResult<{ turnCommitted: { turn: { number: number } } }>[] = await healthy.next(n + 1);
    expect(events.map((e) => e.errors)).toEqual(Array.from({ length: n + 1 }, () => undefined));
    expect(events.map((e) => e.data!.turnCommitted.turn.number)).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1));
  });
});
