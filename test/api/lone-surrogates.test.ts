/**
 * Issue 26 item 7: a lone UTF-16 surrogate (half an emoji, cut) cannot be stored in a UTF-8
 * database or file. Through the API it is refused, naming the field and the position, and
 * nothing is written; from an agent (its hooks, its transcripts imported) the record is kept,
 * the half replaced by U+FFFD. Whole emoji are stored exactly.
 */
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { claudeEvents, runHook } from '../hooks/hook-events.js';

const HALF = '\ud83d'; // the first half of 😀 (\ud83d\ude00)

describe('lone UTF-16 surrogates', () => {
  it('are refused through the API with the field and position, nothing stored; whole emoji are kept exactly', async () => {
    const api = await startTestServer();
    expect((await api.raw(`mutation { createSession(input: { sessionId: "s" }) { sessionId } }`)).errors).toBeUndefined();
    const record = `mutation($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`;
    const refused = await api.raw(record, { input: { sessionId: 's', user: { content: `cut here ${HALF}` }, assistant: { content: 'ok' } } });
    expect(refused.errors?.map((e) => [e.extensions?.code, e.extensions?.field, e.extensions?.position])).toEqual([['BAD_USER_INPUT', 'user.content', 9]]);
    expect(refused.errors![0]!.message).toContain('lone UTF-16 surrogate (\\uD83D) at character 9');
    const append = await api.raw(`mutation($input: AppendMessageInput!) { appendMessage(input: $input) { seq } }`, {
      input: { sessionId: 's', role: 'USER', content: 'a\ude00b' },
    });
    expect(append.errors?.map((e) => e.extensions?.field)).toEqual(['content']);
    const title = await api.raw(`mutation($title: String) { createSession(input: { sessionId: "t", title: $title }) { sessionId } }`, { title: `x${HALF}` });
    expect(title.errors?.map((e) => e.extensions?.field)).toEqual(['title']);

    const read = `{ session(sessionId: "s") { messages(first: 10) { totalCount edges { node { content } } } } }`;
    expect((await api.raw(read)).data).toEqual({ session: { messages: { totalCount: 0, edges: [] } } });
    expect((await api.raw(record, { input: { sessionId: 's', user: { content: 'smile 😀' }, assistant: { content: '👍🏽 done' } } })).errors).toBeUndefined();
    expect((await api.raw(read)).data).toEqual({ session: { messages: { totalCount: 2, edges: [{ node: { content: 'smile 😀' } }, { node: { content: '👍🏽 done' } }] } } });
  });

  it("keep an agent's record, the half replaced by U+FFFD: a hook's prompt and an imported transcript", async () => {
    const root = tempDir('em-surrogate-');
    const api = await startTestServer({ allowedRoots: [root] });
    const c = claudeEvents('hooked', root);
    for (const event of [c.sessionStart(), c.prompt('p1', `tail of a cut emoji ${HALF}`)]) {
      expect(await runHook('claude-code', api.dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    const hooked = await api.raw(`{ session(sessionId: "hooked") { openTurn { messages { content } } } }`);
    expect(hooked.data).toEqual({ session: { openTurn: { messages: [{ content: 'tail of a cut emoji \ufffd' }] } } });

    const imported = await api.raw(`mutation($input: ImportSessionInput!) { importSession(input: $input) { messagesAdded } }`, {
      input: {
        source: 'chat',
        closeLastTurn: true,
        session: { id: 'imported', agentId: 'chat' },
        updates: [],
        messages: [
          { messageId: 'u1', line: 1, role: 'USER', opensTurn: true, content: `half ${HALF} here` },
          { messageId: 'a1', line: 2, role: 'ASSISTANT', opensTurn: false, content: 'whole 😀' },
        ],
      },
    });
    expect(imported.errors).toBeUndefined();
    const read = await api.raw(`{ session(sessionId: "imported") { messages(first: 10) { edges { node { content } } } } }`);
    expect(read.data).toEqual({ session: { messages: { edges: [{ node: { content: 'half \ufffd here' } }, { node: { content: 'whole 😀' } }] } } });
  });
});
