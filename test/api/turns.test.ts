import { describe, expect, it } from 'vitest';
import { onlyError, startTestServer, type TestServer } from '../helpers/server.js';
import { AppendMessage, CreateSession, EndTurn, RecordTurn, SessionView, UpdateMessage } from './operations.js';

async function sessionWith(api: TestServer, sessionId = 's1'): Promise<string> {
  await api.ok(CreateSession, { input: { sessionId } });
  return sessionId;
}

async function messageCount(api: TestServer, sessionId: string): Promise<number> {
  return (await api.ok(SessionView, { sessionId })).session!.messages.totalCount;
}

describe('turn rules', () => {
  it('a USER message opens a turn, ASSISTANT and TOOL join it, endTurn closes it', async () => {
    const api = await startTestServer();
    const sessionId = await sessionWith(api);
    const user = await api.ok(AppendMessage, {
      input: { sessionId, role: 'USER', content: 'read the file', messageId: 'u1', metadata: { lang: 'en' } },
    });
    expect(user.appendMessage).toMatchObject({
      seq: 1,
      role: 'USER',
      predecessor: null,
      turn: { number: 1, open: true },
      path: 'messages/000/000001-u-u1.json',
      metadata: { lang: 'en' },
    });
    const assistant = await api.ok(AppendMessage, { input: { sessionId, role: 'ASSISTANT', content: '', messageId: 'a1' } });
    expect(assistant.appendMessage).toMatchObject({ seq: 2, predecessor: { messageId: 'u1' }, path: 'messages/000/000002-a-a1.json' });
    const tool = await api.ok(AppendMessage, {
      input: { sessionId, role: 'TOOL', content: 'file body', messageId: 'fc_1', toolName: 'read', toolCallId: 'call-1' },
    });
    expect(tool.appendMessage).toMatchObject({
      seq: 3,
      caller: { messageId: 'a1' },
      predecessor: { messageId: 'a1' },
      toolName: 'read',
      toolCallId: 'call-1',
      path: 'messages/000/000003-t-fc_1.json',
    });
    // The assistant placeholder is filled while the turn is open.
    const filled = await api.ok(UpdateMessage, { input: { sessionId, messageId: 'a1', content: 'Here it is.' } });
    expect(filled.updateMessage.content).toBe('Here it is.');

    const ended = await api.ok(EndTurn, { input: { sessionId, durationMs: 1234, tokens: 99 } });
    expect(ended.endTurn).toMatchObject({
      number: 1,
      branch: 'main',
      open: false,
      durationMs: 1234,
      tokens: 99,
      mirrorState: 'PENDING',
      userMessage: { messageId: 'u1' },
      assistantMessage: { messageId: 'a1', content: 'Here it is.' },
      toolResults: [{ messageId: 'fc_1', caller: { messageId: 'a1' } }],
      messages: [
        { messageId: 'u1', seq: 1 },
        { messageId: 'a1', seq: 2 },
        { messageId: 'fc_1', seq: 3 },
      ],
    });

    // The next turn follows the last message of the one before.
    const next = await api.ok(AppendMessage, { input: { sessionId, role: 'USER', content: 'thanks' } });
    expect(next.appendMessage).toMatchObject({ seq: 4, predecessor: { messageId: 'fc_1' }, turn: { number: 2 } });
  });

  it("gives each turn the cursor its edge has, which pages after and before it", async () => {
    const api = await startTestServer();
    const sessionId = await sessionWith(api);
    for (let i = 1; i <= 4; i++) await api.ok(RecordTurn, { input: { sessionId, user: { content: `u${i}` }, assistant: { content: `a${i}` } } });
    type Edges = { edges: { cursor: string; node: { number: number; cursor: string } }[] };
    const turns = async (args: string) => {
      const result = await api.raw(`query($id: String!) { session(sessionId: $id) { turns(${args}) { edges { cursor node { number cursor } } } } }`, { id: sessionId });
      expect(result.errors).toBeUndefined();
      return (result.data as { session: { turns: Edges } }).session.turns.edges;
    };
    const all = await turns('first: 10');
    expect(all.map((e) => e.node.cursor)).toEqual(all.map((e) => e.cursor));
    const second = all[1]!.node.cursor;
    expect((await turns(`first: 10, after: "${second}"`)).map((e) => e.node.number)).toEqual([3, 4]);
    expect((await turns(`last: 10, before: "${second}"`)).map((e) => e.node.number)).toEqual([1]);
  });

  it('refuses a second USER message while a turn is open (CONFLICT)', async () => {
    const api = await startTestServer();
    const sessionId = await sessionWith(api);
    await api.ok(AppendMessage, { input: { sessionId, role: 'USER', content: 'one' } });
    const error = onlyError(await api.request(AppendMessage, { input: { sessionId, role: 'USER', content: 'two' } }));
    expect(error.extensions?.code).toBe('CONFLICT');
    expect(error.message).toMatch(/still open.*endTurn/);
    expect(await messageCount(api, sessionId)).toBe(1);
  });

  it('refuses ASSISTANT, TOOL and endTurn when no turn is open (BAD_USER_INPUT)', async () => {
    const api = await startTestServer();
    const sessionId = await sessionWith(api);
    for (const role of ['ASSISTANT', 'TOOL', 'SYSTEM'] as const) {
      const error = onlyError(await api.request(AppendMessage, { input: { sessionId, role, content: 'x' } }));
      expect(error.extensions?.code, role).toBe('BAD_USER_INPUT');
      expect(error.message).toContain('no open turn');
    }
    expect(onlyError(await api.request(EndTurn, { input: { sessionId } })).extensions?.code).toBe('BAD_USER_INPUT');
    expect(await messageCount(api, sessionId)).toBe(0);
  });

  it("checks a TOOL message's caller: the turn's latest assistant by default, an assistant of the same turn if given", async () => {
    const api = await startTestServer();
    const sessionId = await sessionWith(api);
    await api.ok(AppendMessage, { input: { sessionId, role: 'USER', content: 'go', messageId: 'u1' } });
    const orphan = onlyError(await api.request(AppendMessage, { input: { sessionId, role: 'TOOL', content: 'x' } }));
    expect(orphan.extensions?.code).toBe('BAD_USER_INPUT');
    expect(orphan.message).toContain('ASSISTANT');
    await api.ok(AppendMessage, { input: { sessionId, role: 'ASSISTANT', content: 'first', messageId: 'a1' } });
    await api.ok(AppendMessage, { input: { sessionId, role: 'TOOL', content: 'r1', messageId: 't1' } });
    await api.ok(AppendMessage, { input: { sessionId, role: 'ASSISTANT', content: 'second', messageId: 'a2' } });
    const byDefault = await api.ok(AppendMessage, { input: { sessionId, role: 'TOOL', content: 'r2', messageId: 't2' } });
    expect(byDefault.appendMessage.caller?.messageId).toBe('a2');
    const explicit = await api.ok(AppendMessage, {
      input: { sessionId, role: 'TOOL', content: 'r3', messageId: 't3', callerId: 'a1' },
    });
    expect(explicit.appendMessage.caller?.messageId).toBe('a1');
    for (const callerId of ['u1', 't1', 'missing']) {
      const error = onlyError(
        await api.request(AppendMessage, { input: { sessionId, role: 'TOOL', content: 'x', callerId } }),
      );
      expect(error.extensions?.code, callerId).toBe('BAD_USER_INPUT');
    }
    const onAssistant = onlyError(
      await api.request(AppendMessage, { input: { sessionId, role: 'ASSISTANT', content: 'x', callerId: 'a1' } }),
    );
    expect(onAssistant.extensions?.code).toBe('BAD_USER_INPUT');
    // A caller from an earlier turn is not of this turn.
    await api.ok(EndTurn, { input: { sessionId } });
    await api.ok(AppendMessage, { input: { sessionId, role: 'USER', content: 'again' } });
    await api.ok(AppendMessage, { input: { sessionId, role: 'ASSISTANT', content: 'ok' } });
    const stale = onlyError(
      await api.request(AppendMessage, { input: { sessionId, role: 'TOOL', content: 'x', callerId: 'a1' } }),
    );
    expect(stale.extensions?.code).toBe('BAD_USER_INPUT');
    expect(await messageCount(api, sessionId)).toBe(8);
  });

  it('updateMessage changes only messages of the open turn', async () => {
    const api = await startTestServer();
    const sessionId = await sessionWith(api);
    await api.ok(RecordTurn, {
      input: { sessionId, user: { content: 'q', messageId: 'u1' }, assistant: { content: 'a', messageId: 'a1' } },
    });
    const closed = onlyError(await api.request(UpdateMessage, { input: { sessionId, messageId: 'a1', content: 'rewritten' } }));
    expect(closed.extensions?.code).toBe('CONFLICT');
    expect(closed.message).toContain('closed turn');
    const missing = onlyError(await api.request(UpdateMessage, { input: { sessionId, messageId: 'nope', content: 'x' } }));
    expect(missing.extensions?.code).toBe('NOT_FOUND');
    const nothing = onlyError(await api.request(UpdateMessage, { input: { sessionId, messageId: 'a1' } }));
    expect(nothing.extensions?.code).toBe('BAD_USER_INPUT');
    const view = await api.ok(SessionView, { sessionId });
    expect(view.session?.messages.edges.map((e) => e.node.content)).toEqual(['q', 'a']);
  });

  it('recordTurn writes user, assistant and tool results and closes the turn, atomically', async () => {
    const api = await startTestServer();
    const sessionId = await sessionWith(api);
    const { recordTurn } = await api.ok(RecordTurn, {
      input: {
        sessionId,
        user: { content: 'list files', messageId: 'u1' },
        assistant: { content: 'Listing.', messageId: 'a1' },
        toolResults: [
          { content: 'a.txt', messageId: 't1', toolName: 'list', toolCallId: 'c1', metadata: { exit: 0 } },
          { content: 'b.txt', messageId: 't2', toolName: 'read' },
        ],
        durationMs: 10,
        tokens: 20,
      },
    });
    expect(recordTurn).toMatchObject({
      number: 1,
      open: false,
      durationMs: 10,
      tokens: 20,
      userMessage: { messageId: 'u1', seq: 1, role: 'USER' },
      assistantMessage: { messageId: 'a1', seq: 2, predecessor: { messageId: 'u1' } },
      toolResults: [
        { messageId: 't1', seq: 3, role: 'TOOL', toolName: 'list', toolCallId: 'c1', caller: { messageId: 'a1' }, metadata: { exit: 0 } },
        { messageId: 't2', seq: 4, caller: { messageId: 'a1' }, predecessor: { messageId: 't1' } },
      ],
    });

    // A duplicate id in the last tool result fails the whole call: nothing is written, no seq is used.
    const failed = onlyError(
      await api.request(RecordTurn, {
        input: {
          sessionId,
          user: { content: 'again', messageId: 'u2' },
          assistant: { content: 'ok', messageId: 'a2' },
          toolResults: [{ content: 'x', messageId: 't1' }],
        },
      }),
    );
    expect(failed.extensions?.code).toBe('CONFLICT');
    const view = await api.ok(SessionView, { sessionId });
    expect(view.session?.messages.totalCount).toBe(4);
    expect(view.session?.turns.totalCount).toBe(1);
    expect(view.session?.turns.edges.every((e) => !e.node.open)).toBe(true);

    const next = await api.ok(RecordTurn, {
      input: { sessionId, user: { content: 'again', messageId: 'u2' }, assistant: { content: 'ok', messageId: 'a2' } },
    });
    expect(next.recordTurn).toMatchObject({ number: 2, userMessage: { seq: 5 }, assistantMessage: { seq: 6 } });
  });

  it('recordTurn refuses to run while a turn is open', async () => {
    const api = await startTestServer();
    const sessionId = await sessionWith(api);
    await api.ok(AppendMessage, { input: { sessionId, role: 'USER', content: 'open' } });
    const error = onlyError(
      await api.request(RecordTurn, { input: { sessionId, user: { content: 'q' }, assistant: { content: 'a' } } }),
    );
    expect(error.extensions?.code).toBe('CONFLICT');
    expect(await messageCount(api, sessionId)).toBe(1);
  });

  it('never reuses a seq and keeps message ids unique within a session', async () => {
    const api = await startTestServer();
    const sessionId = await sessionWith(api);
    const other = await sessionWith(api, 's2');
    await api.ok(AppendMessage, { input: { sessionId, role: 'USER', content: 'a', messageId: 'm1' } });
    const duplicate = onlyError(
      await api.request(AppendMessage, { input: { sessionId, role: 'ASSISTANT', content: 'b', messageId: 'm1' } }),
    );
    expect(duplicate.extensions?.code).toBe('CONFLICT');
    // The same id in another session is fine, and seqs count per session.
    const elsewhere = await api.ok(AppendMessage, { input: { sessionId: other, role: 'USER', content: 'a', messageId: 'm1' } });
    expect(elsewhere.appendMessage.seq).toBe(1);
    const after = await api.ok(AppendMessage, { input: { sessionId, role: 'ASSISTANT', content: 'b', messageId: 'm2' } });
    expect(after.appendMessage.seq).toBe(2);
  });

  it('refuses bad input with BAD_USER_INPUT or NOT_FOUND and changes nothing', async () => {
    const api = await startTestServer({ maxContentBytes: 1000 });
    const sessionId = await sessionWith(api);
    await api.ok(AppendMessage, { input: { sessionId, role: 'USER', content: 'start', messageId: 'u1' } });

    const cases: { input: Parameters<typeof api.request<unknown, { input: Record<string, unknown> }>>[1]; code: string; text: RegExp }[] = [
      { input: { input: { sessionId: 'ghost', role: 'ASSISTANT', content: 'x' } }, code: 'NOT_FOUND', text: /does not exist/ },
      { input: { input: { sessionId: '../../etc', role: 'ASSISTANT', content: 'x' } }, code: 'BAD_USER_INPUT', text: /sessionId/ },
      { input: { input: { sessionId, role: 'ASSISTANT', content: 'x', messageId: '-n' } }, code: 'BAD_USER_INPUT', text: /messageId/ },
      { input: { input: { sessionId, role: 'ASSISTANT', content: 'x', messageId: 'a/b' } }, code: 'BAD_USER_INPUT', text: /messageId/ },
      { input: { input: { sessionId, role: 'ASSISTANT', content: 'é'.repeat(501) } }, code: 'BAD_USER_INPUT', text: /1002 bytes.*1000/ },
      { input: { input: { sessionId, role: 'ASSISTANT', content: 'x', metadata: '{not json' } }, code: 'BAD_USER_INPUT', text: /metadata/ },
      { input: { input: { sessionId, role: 'ASSISTANT', content: 'x', metadata: [1, 2] } }, code: 'BAD_USER_INPUT', text: /JSON object/ },
      { input: { input: { sessionId, role: 'ASSISTANT', content: 'x', metadata: 42 } }, code: 'BAD_USER_INPUT', text: /JSON object/ },
      { input: { input: { sessionId, role: 'ASSISTANT', content: 'x', predecessorId: 'nope' } }, code: 'BAD_USER_INPUT', text: /predecessorId/ },
      { input: { input: { sessionId, role: 'ASSISTANT', content: 'x', toolName: 'a\u0000b' } }, code: 'BAD_USER_INPUT', text: /toolName/ },
      { input: { input: { sessionId, role: 'WIZARD', content: 'x' } }, code: 'BAD_USER_INPUT', text: /Role/ },
      { input: { input: { sessionId, role: 'ASSISTANT' } }, code: 'BAD_USER_INPUT', text: /content/ },
    ];
    for (const { input, code, text } of cases) {
      const error = onlyError(await api.request(AppendMessage, input as never));
      expect(error.extensions?.code, JSON.stringify(input)).toBe(code);
      expect(error.message, JSON.stringify(input)).toMatch(text);
    }
    const endBad = onlyError(await api.request(EndTurn, { input: { sessionId, durationMs: -5 } }));
    expect(endBad.extensions?.code).toBe('BAD_USER_INPUT');
    for (const path of ['/etc/passwd', '../outside', 'a/../../b', '.git/config', '']) {
      const error = onlyError(await api.request(EndTurn, { input: { sessionId, touchedPaths: [path] } }));
      expect(error.extensions?.code, path).toBe('BAD_USER_INPUT');
    }
    const view = await api.ok(SessionView, { sessionId });
    expect(view.session?.messages.totalCount).toBe(1);
    expect(view.session?.turns.edges[0]?.node.open).toBe(true);
    // Exactly at the limit is fine.
    const atLimit = await api.ok(AppendMessage, { input: { sessionId, role: 'ASSISTANT', content: 'é'.repeat(500) } });
    expect(atLimit.appendMessage.seq).toBe(2);
  });

  it('serializes concurrent writers to one session: every seq distinct, every turn whole', async () => {
    const api = await startTestServer();
    const sessionId = await sessionWith(api);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api.request(RecordTurn, {
          input: { sessionId, user: { content: `q${i}` }, assistant: { content: `a${i}` }, toolResults: [{ content: `t${i}` }] },
        }),
      ),
    );
    expect(results.filter((r) => r.errors)).toEqual([]);
    const numbers = results.map((r) => r.data!.recordTurn.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const view = await api.ok(SessionView, { sessionId, first: 100 });
    const seqs = view.session!.messages.edges.map((e) => e.node.seq);
    expect(seqs).toEqual(Array.from({ length: 36 }, (_, i) => i + 1));
  });
});
