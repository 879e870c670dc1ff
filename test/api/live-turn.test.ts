/**
 * Issue 25 item 7, "live means live": the messages of an open turn reach a session's watchers as
 * they are stored, before the turn closes (Subscription.turnUpdated), however they come: the API,
 * the agents' hooks, or an import sent batch by batch as `import --follow` sends it. Real server
 * and graphql-ws client; on PostgreSQL the events go through Redis.
 */
import { describe, expect, it } from 'vitest';
import { graphql } from '../graphql/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';
import { claudeEvents, runHook } from '../hooks/hook-events.js';
import { AppendMessage, CreateSession, EndTurn } from './operations.js';

const TurnUpdated = graphql(`
  subscription LiveTurnUpdated($sessionId: String) {
    turnUpdated(sessionId: $sessionId) {
      session {
        sessionId
      }
      turn {
        number
        open
      }
      messages {
        messageId
        role
        content
      }
      closed
    }
  }
`);

const LiveSession = graphql(`
  query LiveSession($sessionId: String!) {
    session(sessionId: $sessionId) {
      agentId
      source
      recording
      openTurn {
        number
        open
        messages {
          messageId
        }
      }
    }
  }
`);

const ImportBatch = graphql(`
  mutation LiveImportBatch($input: ImportSessionInput!) {
    importSession(input: $input) {
      messagesAdded
    }
  }
`);

type Events = ReturnType<typeof wsSubscribe<{ turnUpdated: { turn: { number: number; open: boolean }; messages: { messageId: string; role: string; content: string }[]; closed: boolean; session: { sessionId: string } } }, { sessionId?: string | null }>>;

/** Each event as "turn N: ids" or "turn N closed: ids", with no errors. */
function summary(subscription: Events): string[] {
  return subscription.events.map((event) => {
    expect(event.errors).toBeUndefined();
    const e = event.data!.turnUpdated;
    return `turn ${e.turn.number}${e.closed ? ' closed' : ''}: ${e.messages.map((m) => m.messageId).join(' ')}`;
  });
}

async function watch(api: TestServer, sessionId: string): Promise<Events> {
  const subscription = wsSubscribe(wsClient(api.url), TurnUpdated, { sessionId });
  await subscription.ready();
  return subscription;
}

describe('an open turn, live', () => {
  it('streams the messages appended to an open turn before it closes, then its close', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'live', agentId: 'codex' } });
    await api.ok(CreateSession, { input: { sessionId: 'other' } });
    const events = await watch(api, 'live');
    const everything = wsSubscribe(wsClient(api.url), TurnUpdated, {});
    await everything.ready();

    await api.ok(AppendMessage, { input: { sessionId: 'live', messageId: 'u1', role: 'USER', content: 'build it' } });
    await api.ok(AppendMessage, { input: { sessionId: 'other', messageId: 'x1', role: 'USER', content: 'elsewhere' } });
    await events.next(1);
    for (let i = 1; i <= 3; i++) {
      await api.ok(AppendMessage, { input: { sessionId: 'live', messageId: `a${i}`, role: 'ASSISTANT', content: `step ${i}` } });
      // Each message arrives while the turn is still open.
      const seen = await events.next(1 + i);
      expect(seen[i]!.data!.turnUpdated).toMatchObject({ turn: { number: 1, open: true }, closed: false, messages: [{ messageId: `a${i}`, role: 'ASSISTANT', content: `step ${i}` }] });
    }
    const open = await api.ok(LiveSession, { sessionId: 'live' });
    expect(open.session).toMatchObject({ agentId: 'codex', recording: true, openTurn: { number: 1, open: true, messages: [{ messageId: 'u1' }, { messageId: 'a1' }, { messageId: 'a2' }, { messageId: 'a3' }] } });

    await api.ok(EndTurn, { input: { sessionId: 'live' } });
    await events.next(5);
    expect(summary(events)).toEqual(['turn 1: u1', 'turn 1: a1', 'turn 1: a2', 'turn 1: a3', 'turn 1 closed: ']);
    // The other session's message went to the unscoped subscription only.
    await everything.next(6);
    expect(everything.events.map((e) => e.data!.turnUpdated.session.sessionId)).toEqual(['live', 'other', 'live', 'live', 'live', 'live']);
    const closed = await api.ok(LiveSession, { sessionId: 'live' });
    expect(closed.session).toMatchObject({ recording: false, openTurn: null });
  });

  it("streams a hooked agent's prompt, tool calls and results as their events arrive, and the turn's close at Stop", async () => {
    const root = tempDir('em-live-hooks-');
    const api = await startTestServer({ allowedRoots: [root] });
    const events = await watch(api, 'hooked');
    const c = claudeEvents('hooked', root);
    const send = async (event: object) => expect(await runHook('claude-code', api.dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });

    await send(c.sessionStart());
    await send(c.prompt('p1', 'list the files'));
    await events.next(1);
    for (let i = 1; i <= 2; i++) {
      await send(c.postTool('p1', `toolu_${i}`, 'Bash', { command: `ls ${i}` }, { stdout: `file${i}` }));
      await events.next(1 + i);
    }
    const open = await api.ok(LiveSession, { sessionId: 'hooked' });
    expect(open.session).toMatchObject({ agentId: 'claude-code', source: null, recording: true, openTurn: { number: 1, open: true } });
    expect(open.session!.openTurn!.messages).toHaveLength(5);

    await send(c.stop('p1', 'Two files.'));
    await events.next(4);
    expect(summary(events)).toEqual([
      'turn 1: prompt-p1',
      'turn 1: call-toolu_1 result-toolu_1',
      'turn 1: call-toolu_2 result-toolu_2',
      expect.stringMatching(/^turn 1 closed: reply-/),
    ]);
    expect(events.events[1]!.data!.turnUpdated.messages.map((m) => m.content)).toEqual(['', '{"stdout":"file1"}']);
    expect((await api.ok(LiveSession, { sessionId: 'hooked' })).session).toMatchObject({ recording: false, openTurn: null });
  });

  it('streams an import sent batch by batch (as import --follow sends it) while its last turn stays open', async () => {
    const api = await startTestServer();
    const events = await watch(api, 'followed');
    const now = new Date().toISOString();
    const message = (line: number, messageId: string, role: 'USER' | 'ASSISTANT', predecessorId: string | null) => ({
      line,
      messageId,
      role,
      content: `${role} ${line}`,
      predecessorId,
      opensTurn: role === 'USER',
      createdAt: now,
    });
    const batch = (messages: ReturnType<typeof message>[], closeLastTurn = false) =>
      api.ok(ImportBatch, {
        input: { source: 'claude-code', session: { id: 'followed', agentId: 'claude-code' }, messages, updates: [], closeLastTurn },
      });

    await batch([message(1, 'm1', 'USER', null), message(2, 'm2', 'ASSISTANT', 'm1')]);
    await events.next(1);
    await batch([message(3, 'm3', 'ASSISTANT', 'm2')]);
    await events.next(2);
    expect((await api.ok(LiveSession, { sessionId: 'followed' })).session).toMatchObject({ source: 'claude-code', recording: true, openTurn: { number: 1 } });
    // The next prompt closes turn 1 and opens turn 2, in one batch.
    await batch([message(4, 'm4', 'USER', 'm3'), message(5, 'm5', 'ASSISTANT', 'm4')], true);
    await events.next(4);
    expect(summary(events)).toEqual(['turn 1: m1 m2', 'turn 1: m3', 'turn 1 closed: ', 'turn 2 closed: m4 m5']);
  });
});
