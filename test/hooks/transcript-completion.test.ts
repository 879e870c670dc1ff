/**
 * A hooked Claude Code session takes from its transcript what the hooks do not carry: the text
 * and thinking of the response that made each tool call, the thinking of the final reply, and
 * the reply itself when the Stop was lost. The transcript is written here as Claude Code writes
 * it (one record per content block, sharing `message.id`), growing between the events, and with
 * Claude Code's race: the turn's last response often lands after the Stop hook ran.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { CreateProject } from '../projects/operations.js';
import { FAST_COMMITTER, outcome, userRepo } from '../projects/project-turns.js';
import { claudeEvents, runHook } from './hook-events.js';

const MESSAGES = `
  query Messages($sessionId: String!) {
    session(sessionId: $sessionId) {
      turns(first: 10) { edges { node { number open } } }
      messages(first: 50) { edges { node { messageId role content metadata } } }
    }
  }`;

interface Message {
  messageId: string;
  role: string;
  content: string;
  metadata: Record<string, unknown> | null;
}

/** Claude Code's transcript records: one per content block, a response's blocks sharing its `message.id`. */
function transcript(path: string) {
  writeFileSync(path, JSON.stringify({ type: 'queue-operation', operation: 'enqueue' }) + '\n');
  let n = 0;
  const line = (record: object) => appendFileSync(path, JSON.stringify({ uuid: `u-${++n}`, sessionId: 's', version: '2.1.197', ...record }) + '\n');
  return {
    prompt: (text: string) => line({ type: 'user', message: { role: 'user', content: text } }),
    block: (responseId: string, block: object) =>
      line({ type: 'assistant', message: { id: responseId, role: 'assistant', model: 'claude-test-1', content: [block] } }),
    toolResult: (id: string, content = 'ok', isError = false) =>
      line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError && { is_error: true }) }] } }),
  };
}

async function setUp(allowed: 'inside' | 'outside' = 'inside') {
  const root = tempDir('em-transcript-');
  const elsewhere = tempDir('em-elsewhere-');
  const api = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
  const dir = userRepo(root);
  await api.ok(CreateProject, { input: { name: 'App', workdir: dir } });
  const send = async (event: object) => expect(await runHook('claude-code', api.dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });
  const read = async (sessionId: string) => {
    const result = await api.raw(MESSAGES, { sessionId });
    if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
    const session = (result.data as { session: { turns: { edges: { node: { number: number; open: boolean } }[] }; messages: { edges: { node: Message }[] } } }).session;
    return { turns: session.turns.edges.map((e) => e.node), messages: session.messages.edges.map((e) => e.node) };
  };
  const events = (sessionId: string) => {
    const c = claudeEvents(sessionId, dir);
    const path = allowed === 'inside' ? join(root, `${sessionId}.jsonl`) : join(elsewhere, `${sessionId}.jsonl`);
    const withPath = <T extends object>(make: (...args: never[]) => T) => ((...args: never[]) => ({ ...make(...args), transcript_path: path })) as typeof make;
    return {
      path,
      c: Object.fromEntries(Object.entries(c).map(([name, make]) => [name, withPath(make as (...args: never[]) => object)])) as typeof c,
    };
  };
  return { api, dir, send, read, events };
}

describe("a hooked Claude Code session's transcript", () => {
  it("gives each tool call its response's text and thinking, and the reply its thinking; the last response written after the Stop is not recorded twice", async () => {
    const { api, dir, send, read, events } = await setUp();
    const { c, path } = events('cc-t1');
    const t = transcript(path);
    await send(c.sessionStart());
    await send(c.prompt('p1', 'write two files'));
    t.prompt('write two files');
    // One response: thinking, text, then two tool calls (Claude Code writes them before it runs the tools).
    t.block('msg_1', { type: 'thinking', thinking: 'Two files, in one go.' });
    t.block('msg_1', { type: 'text', text: "I'll write a.txt and b.txt." });
    t.block('msg_1', { type: 'tool_use', id: 'toolu_a', name: 'Write', input: {} });
    t.block('msg_1', { type: 'tool_use', id: 'toolu_b', name: 'Write', input: {} });
    for (const [id, file] of [['toolu_b', 'b.txt'], ['toolu_a', 'a.txt']] as const) {
      const input = { file_path: join(dir, file), content: `${file}\n` };
      writeFileSync(input.file_path, input.content);
      await send(c.postTool('p1', id, 'Write', input, { type: 'create' }));
    }
    t.toolResult('toolu_a');
    t.toolResult('toolu_b');
    // The race: Stop runs before the final response is in the transcript.
    await send(c.stop('p1', 'Both written.'));
    t.block('msg_2', { type: 'thinking', thinking: 'Done; say so.' });
    t.block('msg_2', { type: 'text', text: 'Both written.' });
    await send(c.sessionEnd());

    const first = await read('cc-t1');
    expect(first.turns).toEqual([{ number: 1, open: false }]);
    const byId = new Map(first.messages.map((m) => [m.messageId, m]));
    // Parallel calls: the response's words go with its first call, whatever order their hooks came in.
    expect(byId.get('call-toolu_a')).toMatchObject({ content: "I'll write a.txt and b.txt.", metadata: { responseId: 'msg_1', thinking: ['Two files, in one go.'], model: 'claude-test-1' } });
    expect(byId.get('call-toolu_b')).toMatchObject({ content: '', metadata: { responseId: 'msg_1' } });
    expect(byId.get('call-toolu_b')!.metadata).not.toHaveProperty('thinking');
    const replies = first.messages.filter((m) => m.role === 'ASSISTANT' && m.messageId.startsWith('reply-'));
    expect(replies.map((m) => m.content)).toEqual(['Both written.']);
    // Its thinking was not in the transcript yet at Stop: the reply is the payload's, and nothing is added later.
    expect(replies[0]!.metadata ?? {}).not.toHaveProperty('thinking');
    expect(first.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT', 'TOOL', 'ASSISTANT', 'TOOL', 'ASSISTANT']);
    expect(await outcome(api, 'cc-t1', 1)).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'b.txt'] });

    // The next turn: this time the final response is written before the Stop.
    await send(c.sessionStart('resume'));
    await send(c.prompt('p2', 'anything else?'));
    t.prompt('anything else?');
    t.block('msg_3', { type: 'thinking', thinking: 'Nothing to do.' });
    t.block('msg_3', { type: 'text', text: 'No, all done.' });
    await send(c.stop('p2', 'No, all done.'));
    const second = await read('cc-t1');
    expect(second.turns).toEqual([
      { number: 1, open: false },
      { number: 2, open: false },
    ]);
    expect(second.messages.slice(first.messages.length)).toMatchObject([
      { role: 'USER', content: 'anything else?' },
      { role: 'ASSISTANT', content: 'No, all done.', metadata: { responseId: 'msg_3', thinking: ['Nothing to do.'] } },
    ]);
  }, 60_000);

  it('closes a turn whose Stop was lost with the final response of the transcript, at SessionEnd', async () => {
    const { send, read, events } = await setUp();
    const { c, path } = events('cc-t2');
    const t = transcript(path);
    await send(c.prompt('p1', 'just answer'));
    t.prompt('just answer');
    t.block('msg_1', { type: 'text', text: 'Here is the answer.' });
    await send(c.sessionEnd());
    const { turns, messages } = await read('cc-t2');
    expect(turns).toEqual([{ number: 1, open: false }]);
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['USER', 'just answer'],
      ['ASSISTANT', 'Here is the answer.'],
    ]);
  }, 60_000);

  it('records the calls Claude Code refused before running them (no hook fires) from the transcript, each where it was made, and a failed call its hook recorded once', async () => {
    const { api, dir, send, read, events } = await setUp();
    const { c, path } = events('cc-t4');
    const t = transcript(path);
    await send(c.prompt('p1', 'fix a.txt'));
    t.prompt('fix a.txt');
    const edit = { file_path: join(dir, 'a.txt'), old_string: 'two', new_string: '2' };
    // Refused: the text is not in the file. Claude Code answers the call itself, and no hook fires.
    t.block('msg_1', { type: 'text', text: 'Editing a.txt.' });
    t.block('msg_1', { type: 'tool_use', id: 'toolu_refused', name: 'Edit', input: edit });
    t.toolResult('toolu_refused', '<tool_use_error>String to replace not found in file.\nString: two</tool_use_error>', true);
    // A command that ran and failed: its hook (PostToolUseFailure) records it, and the transcript has it too.
    t.block('msg_2', { type: 'tool_use', id: 'toolu_failed', name: 'Bash', input: { command: 'false' } });
    await send({ ...c.postTool('p1', 'toolu_failed', 'Bash', { command: 'false' }, undefined), hook_event_name: 'PostToolUseFailure', error: 'Exit code 1' });
    t.toolResult('toolu_failed', 'Exit code 1', true);
    t.block('msg_3', { type: 'tool_use', id: 'toolu_write', name: 'Write', input: {} });
    writeFileSync(join(dir, 'a.txt'), 'one\n2\n');
    await send(c.postTool('p1', 'toolu_write', 'Write', { file_path: join(dir, 'a.txt'), content: 'one\n2\n' }, { type: 'create' }));
    t.toolResult('toolu_write');
    // The turn's last call, refused by permissions: at Stop.
    t.block('msg_4', { type: 'tool_use', id: 'toolu_denied', name: 'WebFetch', input: { url: 'https://example.com' } });
    t.toolResult('toolu_denied', "Claude requested permissions to use WebFetch, but you haven't granted it yet.", true);
    t.block('msg_5', { type: 'text', text: 'a.txt is fixed.' });
    await send(c.stop('p1', 'a.txt is fixed.'));
    // Sent again (a hook retried), nothing is added.
    await send(c.stop('p1', 'a.txt is fixed.'));

    const { turns, messages } = await read('cc-t4');
    expect(turns).toEqual([{ number: 1, open: false }]);
    expect(messages.map((m) => [m.messageId, m.role, m.content, m.metadata])).toEqual([
      [expect.any(String), 'USER', 'fix a.txt', null],
      ['call-toolu_refused', 'ASSISTANT', 'Editing a.txt.', expect.objectContaining({ toolCalls: [{ id: 'toolu_refused', name: 'Edit', input: edit }], touchedPaths: [], responseId: 'msg_1' })],
      ['result-toolu_refused', 'TOOL', 'String to replace not found in file.\nString: two', { isError: true }],
      ['call-toolu_failed', 'ASSISTANT', '', expect.objectContaining({ responseId: 'msg_2' })],
      ['result-toolu_failed', 'TOOL', 'Exit code 1', { isError: true }],
      ['call-toolu_write', 'ASSISTANT', '', expect.objectContaining({ touchedPaths: ['a.txt'] })],
      ['result-toolu_write', 'TOOL', '{"type":"create"}', null],
      ['call-toolu_denied', 'ASSISTANT', '', expect.objectContaining({ toolCalls: [{ id: 'toolu_denied', name: 'WebFetch', input: { url: 'https://example.com' } }] })],
      ['result-toolu_denied', 'TOOL', "Claude requested permissions to use WebFetch, but you haven't granted it yet.", { isError: true }],
      [expect.stringMatching(/^reply-/), 'ASSISTANT', 'a.txt is fixed.', expect.anything()],
    ]);
    expect(await outcome(api, 'cc-t4', 1)).toMatchObject({ result: 'COMMITTED', paths: ['a.txt'] });
  }, 60_000);

  it('never reads a transcript outside the allowed roots: the hooks alone are recorded', async () => {
    const { dir, send, read, events } = await setUp('outside');
    const { c, path } = events('cc-t3');
    const t = transcript(path);
    await send(c.prompt('p1', 'write a.txt'));
    t.prompt('write a.txt');
    t.block('msg_1', { type: 'text', text: 'Secret narration.' });
    t.block('msg_1', { type: 'tool_use', id: 'toolu_a', name: 'Write', input: {} });
    const input = { file_path: join(dir, 'a.txt'), content: 'a\n' };
    writeFileSync(input.file_path, input.content);
    await send(c.postTool('p1', 'toolu_a', 'Write', input, {}));
    await send(c.sessionEnd());
    const { messages } = await read('cc-t3');
    expect(messages.map((m) => [m.role, m.content])).toEqual([
      ['USER', 'write a.txt'],
      ['ASSISTANT', ''],
      ['TOOL', '{}'],
    ]);
  }, 60_000);
});
