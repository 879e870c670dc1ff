/**
 * The Gemini CLI chat parser, on fixtures written from recorded Gemini CLI 0.61 chat files
 * (test/importers/fixtures/gemini/) and an older JSON chat (fixtures/gemini-legacy/): a message
 * written again as it grows, the history written again by --resume (nothing twice), a history
 * cut short (a fork), tool results, thoughts, and reading in parts giving what reading whole
 * gives at every cut.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GeminiChat, parseGeminiChat } from '../../src/importers/gemini/chat.js';
import type { ImportedMessage } from '../../src/importers/model.js';
import { cutPoints, expectWellOrdered, readInParts } from './in-parts.js';

const SESSION = '7a1b7ca5-dad9-4864-96c9-c2febb528024';
const chats = join(import.meta.dirname, 'fixtures', 'gemini', 'shop', 'chats');
const MAIN = join(chats, 'session-2026-12-04T16-39-7a1b7ca5.jsonl');
const SUBAGENT = join(chats, SESSION, '35b701c2-a5dd-4294-ba9b-11a6383b7ac7.jsonl');
const LEGACY = join(import.meta.dirname, 'fixtures', 'gemini-legacy', 'chats', 'session-2025-09-01T10-00-3f2c9a10.json');

const parse = (path: string) => parseGeminiChat(readFileSync(path), { path });

function get(messages: ImportedMessage[], id: string): ImportedMessage {
  const message = messages.find((m) => m.messageId === id);
  if (!message) throw new Error(`no message ${id}; have ${messages.map((m) => m.messageId).join(', ')}`);
  return message;
}

describe('a Gemini CLI 0.61 chat with tools, a resume and a rewind', () => {
  const result = parse(MAIN);
  const A1 = '560bcd9b-1d98-4049-8a8b-395463862858';

  it('is the session of its header, titled by its summary, with the model of its replies', () => {
    expect(result.session).toEqual({
      id: SESSION,
      title: 'Write a.txt',
      agentId: 'gemini',
      model: 'gemini-3.8-flash',
      metadata: { projectHash: '85e13a46d669b049748eed29ca942970a1c462010b02dcddc921333c84a99294', kind: 'main' },
    });
    expect(result.problems).toEqual([]);
  });

  it('reads each message once, though the reply is written twice and --resume writes the history again', () => {
    expectWellOrdered(result.messages);
    expect(result.messages.map((m) => [m.role, m.content.slice(0, 20)])).toEqual([
      ['USER', 'Create a.txt saying '],
      ['ASSISTANT', ''],
      ['TOOL', 'Successfully created'],
      ['ASSISTANT', 'Done.'],
      ['USER', 'Run the tests'],
      ['ASSISTANT', ''],
      ['TOOL', '<untrusted_context>\n'],
      ['SYSTEM', 'Request cancelled.'],
      ['ASSISTANT', 'One test fails.'],
      ['USER', 'Instead, make it say'],
      ['ASSISTANT', 'It says hello world '],
    ]);
    // The session context, and the tool responses the results already gave (the user record, the history's `_response`).
    expect(result.skipped).toMatchObject({ context: 1, 'tool-response': 3 });
  });

  it('keeps a reply its tool calls and thoughts, and makes each result a TOOL message it calls', () => {
    expect(get(result.messages, A1).metadata).toEqual({
      toolCalls: [{ id: 'write_file__gem_1', name: 'write_file', input: { file_path: '/home/dev/shop/a.txt', content: 'hello\n' }, status: 'success' }],
      thinking: ['Planning the file: Write a.txt first.'],
      usage: { input: 10, output: 5, cached: 0, thoughts: 0, tool: 0, total: 15 },
      model: 'gemini-3.8-flash',
    });
    const tools = result.messages.filter((m) => m.role === 'TOOL');
    expect(tools.map((m) => [m.messageId, m.callerId, m.toolName, m.toolCallId, m.metadata])).toEqual([
      [`${A1}-tool-1`, A1, 'write_file', 'write_file__gem_1', undefined],
      ['b92bfa0d-b49f-4daa-97de-d7e9bda3664d-tool-1', 'b92bfa0d-b49f-4daa-97de-d7e9bda3664d', 'run_shell_command', 'run_shell_command__gem_2', { isError: true }],
    ]);
    expect(get(result.messages, '5d0c1f4e-0000-4000-8000-000000000001')).toMatchObject({ role: 'SYSTEM', metadata: { kind: 'info' } });
  });

  it('after a history cut back to the first turn, grows the next prompt from there (a fork)', () => {
    expect(get(result.messages, 'c87b548a-5df6-4348-9b3e-be6650fb08c8').predecessorId).toBe('8efb38cf-274f-4847-9174-deaf8090dd76');
    expect(get(result.messages, '0c6a1f2e-0000-4000-8000-000000000002').predecessorId).toBe('8efb38cf-274f-4847-9174-deaf8090dd76');
    expect(result.newestLeafId).toBe('0c6a1f2e-0000-4000-8000-000000000003');
  });

  it('gives at every cut, read in parts, what it gives read whole', () => {
    const bytes = readFileSync(MAIN);
    let updated = 0;
    for (const cut of cutPoints(bytes)) {
      const parts = readInParts(new GeminiChat({ path: MAIN }), bytes, [cut]);
      expect(parts.messages, `cut at byte ${cut}`).toEqual(result.messages);
      updated += parts.updates;
    }
    // A reply read before its tool calls were written is updated with them: the test saw that happen.
    expect(updated).toBeGreaterThan(0);
    expect(readInParts(new GeminiChat({ path: MAIN }), bytes, cutPoints(bytes)).messages).toEqual(result.messages);
  });
});

describe('a sub-agent chat', () => {
  it('is its own session, linked to the session whose folder it is in', () => {
    const result = parse(SUBAGENT);
    expect(result.session).toMatchObject({
      id: '35b701c2-a5dd-4294-ba9b-11a6383b7ac7',
      parentSessionId: SESSION,
      title: 'SUBAGENT_TASK: write sub.txt',
      metadata: { kind: 'subagent', cwd: '/home/dev/shop' },
    });
    expect(result.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT', 'TOOL', 'ASSISTANT', 'TOOL']);
  });
});

describe('other shapes', () => {
  it('reads an older JSON chat file whole', () => {
    const result = parse(LEGACY);
    expect(result.session).toMatchObject({ id: '3f2c9a10-5b7e-4c1d-9a8b-0c1d2e3f4a5b', model: 'gemini-2.5-pro', title: 'What does cart.js do?' });
    expect(result.messages.map((m) => [m.messageId, m.role, m.predecessorId, m.callerId])).toEqual([
      ['m1', 'USER', null, undefined],
      ['m2', 'ASSISTANT', 'm1', undefined],
      ['m2-tool-1', 'TOOL', 'm2', 'm2'],
      ['m3', 'ASSISTANT', 'm2-tool-1', undefined],
    ]);
  });

  it('reports a malformed line and a message without id by line, and reads the rest', () => {
    const text = [
      '{"sessionId":"3f2c9a10-5b7e-4c1d-9a8b-0c1d2e3f4a5c","kind":"main"}',
      '{"id":"u1","type":"user","content":[{"text":"Hi"}]}',
      '{"type":"gemini","content":"lost"}',
      '{"id":"g1","type":"gem',
      '{"id":"g2","type":"gemini","content":"Hello."}',
      '',
    ].join('\n');
    const result = parseGeminiChat(text);
    expect(result.messages.map((m) => [m.messageId, m.predecessorId])).toEqual([
      ['u1', null],
      ['g2', 'u1'],
    ]);
    expect(result.problems).toEqual([
      { line: 3, message: 'gemini without id; line skipped' },
      { line: 4, message: expect.stringContaining('not valid JSON') },
    ]);
    expect(result.records).toBe(4);
  });
});
