/**
 * Issue 13: the generic chat-log parser (docs/importing.md, "Generic chat
 * logs") on hand-written fixtures (test/importers/fixtures/chat/): a linear
 * log, tool calls and results, explicit ids and parents making a retry and a
 * fork, default ids stable across parses, malformed lines, the header line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultId, parseChatLog } from '../../src/importers/chat/parse.js';
import type { ImportedMessage, ImportResult } from '../../src/importers/model.js';
import { isValidId } from '../../src/ids.js';

const fixtures = join(import.meta.dirname, 'fixtures', 'chat');

function parse(name: string): ImportResult {
  return parseChatLog(readFileSync(join(fixtures, name)), { path: join(fixtures, name) });
}

function get(result: ImportResult, id: string): ImportedMessage {
  const message = result.messages.find((m) => m.messageId === id);
  if (!message) throw new Error(`no message ${id}; have ${result.messages.map((m) => m.messageId).join(', ')}`);
  return message;
}

/** Every predecessor and caller names a message emitted before. */
function expectEmitOrder(result: ImportResult): void {
  const seen = new Set<string>();
  for (const message of result.messages) {
    if (message.predecessorId !== null) expect(seen.has(message.predecessorId), `${message.messageId}'s predecessor`).toBe(true);
    if (message.callerId !== undefined) expect(seen.has(message.callerId), `${message.messageId}'s caller`).toBe(true);
    expect(isValidId(message.messageId)).toBe(true);
    seen.add(message.messageId);
  }
}

describe('parseChatLog', () => {
  it('reads a plain log as a linear conversation named after the file', () => {
    const result = parse('linear.jsonl');
    expect(result.problems).toEqual([]);
    expect(result.session).toEqual({
      id: 'linear',
      title: 'What is the capital of France?',
      agentId: 'chat',
      model: null,
      metadata: {},
    });
    expect(result.messages.map((m) => [m.messageId, m.role, m.content, m.predecessorId, m.opensTurn, m.line])).toEqual([
      ['linear-1', 'SYSTEM', 'You are a terse assistant.', null, false, 1],
      ['linear-2', 'USER', 'What is the capital of France?\nAnswer in one word.', 'linear-1', true, 2],
      ['linear-3', 'ASSISTANT', 'Paris.', 'linear-2', false, 3],
      // Line 4 is blank: counted, not a message.
      ['linear-5', 'USER', 'And of Italy?', 'linear-3', true, 5],
      ['linear-6', 'ASSISTANT', 'Rome.', 'linear-5', false, 6],
    ]);
    expect(result.newestLeafId).toBe('linear-6');
    expect(result.updates).toEqual([]);
    expect(result.consumedBytes).toBe(readFileSync(join(fixtures, 'linear.jsonl')).length);
    expect(result.nextLine).toBe(7);
    expectEmitOrder(result);
  });

  it('links tool results to the assistant message that called them, with the tool name from the call', () => {
    const result = parse('tools.jsonl');
    const call = get(result, 'tools-2');
    expect(call.role).toBe('ASSISTANT');
    expect(call.content).toBe('');
    expect(call.metadata).toEqual({
      toolCalls: [
        { id: 'call_1', name: 'count_lines', input: { path: 'README.md' } },
        { id: 'call_2', name: 'read_file', input: { path: 'package.json' } },
      ],
    });
    expect(get(result, 'tools-3')).toMatchObject({ role: 'TOOL', callerId: 'tools-2', toolCallId: 'call_1', toolName: 'count_lines', predecessorId: 'tools-2', content: '42' });
    expect(get(result, 'tools-4')).toMatchObject({ role: 'TOOL', callerId: 'tools-2', toolCallId: 'call_2', toolName: 'read_file', predecessorId: 'tools-3', opensTurn: false });
    // A number created_at is seconds since 1970.
    expect(get(result, 'tools-4').createdAt).toBe('2025-03-01T10:00:04.000Z');
    expect(get(result, 'tools-5')).toMatchObject({ predecessorId: 'tools-4', metadata: { usage: { total_tokens: 120 } }, createdAt: '2025-03-01T10:00:05.000Z' });
    // Arguments that are not JSON stay as written.
    expect(get(result, 'tools-7').metadata).toEqual({ toolCalls: [{ id: 'call_3', name: 'shell', input: 'npm test --' }] });
    expect(get(result, 'tools-8')).toMatchObject({ callerId: 'tools-7', toolName: 'shell' });
    // A result for a call nobody made: kept, without caller, and reported.
    const stray = get(result, 'tools-9');
    expect(stray.callerId).toBeUndefined();
    expect(stray).toMatchObject({ toolCallId: 'call_9', toolName: 'shell' });
    expect(result.problems).toEqual([{ line: 9, message: expect.stringContaining('call_9') }]);
    expect(result.messages.filter((m) => m.opensTurn).map((m) => m.messageId)).toEqual(['tools-1', 'tools-6']);
    // Later lines have no time: the newest leaf is the last one written.
    expect(result.newestLeafId).toBe('tools-10');
    expectEmitOrder(result);
  });

  it('takes the header line and explicit ids and parents: a second reply is a retry, a prompt under an earlier reply a fork', () => {
    const result = parse('branches.jsonl');
    expect(result.problems).toEqual([]);
    expect(result.session).toEqual({
      id: 'trip-planner',
      title: 'Planning a trip',
      agentId: 'my-agent',
      model: 'gpt-4o',
      metadata: { cwd: '/home/me/trip' },
    });
    expect(result.skipped).toEqual({ session: 1 });
    expect(result.messages.map((m) => [m.messageId, m.predecessorId])).toEqual([
      ['u1', null],
      ['a1', 'u1'],
      ['a2', 'u1'],
      ['u2', 'a2'],
      ['a3', 'u2'],
      ['u3', 'a1'],
      ['a4', 'u3'],
    ]);
    // Leaves a3 (09:06:01) and a4 (09:10:02): the newest is the fork's reply.
    expect(result.newestLeafId).toBe('a4');
    expectEmitOrder(result);
  });

  it('gives the same default ids on every parse, and ids derived from the session id', () => {
    const text = readFileSync(join(fixtures, 'tools.jsonl'));
    const first = parseChatLog(text, { path: '/logs/run-7.jsonl' });
    const second = parseChatLog(text.toString('utf8'), { path: '/elsewhere/run-7.jsonl' });
    expect(second.messages).toEqual(first.messages);
    expect(first.messages[0]!.messageId).toBe('run-7-1');
    // Another session's log gets other ids.
    const other = parseChatLog(text, { path: '/logs/run-8.jsonl' });
    expect(other.messages[0]!.messageId).toBe('run-8-1');

    const long = `s${'x'.repeat(127)}`;
    const ids = [1, 2, 12345].map((line) => defaultId(long, line));
    for (const id of ids) {
      expect(isValidId(id), id).toBe(true);
      expect(id.length).toBeLessThanOrEqual(128);
    }
    expect(new Set(ids).size).toBe(3);
    expect(defaultId(long, 1)).toBe(defaultId(long, 1));
    expect(defaultId(`${long.slice(0, 127)}y`, 1)).not.toBe(defaultId(long, 1));
    expect(defaultId(null, 4)).toBe('m-4');
  });

  it('reports each unusable line by number and reads on', () => {
    const result = parse('malformed.jsonl');
    expect(result.problems.map((p) => p.line)).toEqual([2, 3, 5, 6, 7, 8, 9]);
    expect(result.problems[0]!.message).toMatch(/not valid JSON/i);
    expect(result.problems[1]!.message).toMatch(/unknown role "robot"/i);
    expect(result.problems[2]!.message).toMatch(/unknown parent "nope"/i);
    expect(result.problems[3]!.message).toMatch(/header must be the first line/i);
    expect(result.problems[4]!.message).toMatch(/not a JSON object/i);
    expect(result.problems[5]!.message).toMatch(/created_at/);
    // Line 4 follows line 1, the last line that became a message.
    expect(result.messages.map((m) => [m.messageId, m.predecessorId, m.createdAt])).toEqual([
      ['malformed-1', null, null],
      ['malformed-4', 'malformed-1', null],
      ['malformed-8', 'malformed-4', null],
    ]);
    expect(result.session.id).toBe('malformed');
    expectEmitOrder(result);
  });

  it('reads a last line without newline when it is complete JSON', () => {
    const result = parse('no-newline.jsonl');
    expect(result.problems).toEqual([]);
    expect(result.messages.map((m) => m.content)).toEqual(['no newline at the end', 'fine']);
    expect(result.consumedBytes).toBe(readFileSync(join(fixtures, 'no-newline.jsonl')).length);

    const cut = parseChatLog('{"role": "user", "content": "a"}\n{"role": "assis', { path: 'cut.jsonl' });
    expect(cut.messages.map((m) => m.messageId)).toEqual(['cut-1']);
    expect(cut.consumedBytes).toBe('{"role": "user", "content": "a"}\n'.length);
    expect(cut.problems).toEqual([{ line: 2, message: expect.stringMatching(/no newline/) }]);
  });

  it('falls back to the file name for a bad header id, and reports a file name that is no id', () => {
    const header = parseChatLog('{"session": {"id": "a..b", "title": "T"}}\n{"role": "user", "content": "hi"}\n', { path: '/x/good-name.jsonl' });
    expect(header.session.id).toBe('good-name');
    expect(header.session.title).toBe('T');
    expect(header.problems).toEqual([{ line: 1, message: expect.stringContaining('a..b') }]);
    expect(header.messages[0]!.messageId).toBe('good-name-2');

    const nameless = parseChatLog('{"role": "user", "content": "hi"}\n', { path: '/x/bad name.jsonl' });
    expect(nameless.session.id).toBeNull();
    expect(nameless.problems).toEqual([{ line: 0, message: expect.stringContaining('bad name') }]);
    expect(nameless.messages[0]!.messageId).toBe('m-1');
  });

  it('refuses a duplicate id, maps an invalid one to its default and keeps a non-text part as a placeholder', () => {
    const text = [
      '{"id": "p", "role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "x"}}], "name": "ann"}',
      '{"id": "bad id", "role": "assistant", "content": "ok"}',
      '{"id": "p", "role": "user", "content": "dup"}',
      '{"parent": "bad id", "role": "user", "content": "again"}',
      '',
    ].join('\n');
    const result = parseChatLog(text, { path: 's.jsonl' });
    expect(result.messages.map((m) => [m.messageId, m.predecessorId])).toEqual([
      ['p', null],
      ['s-2', 'p'],
      ['s-4', 's-2'],
    ]);
    expect(result.messages[0]!.content).toBe('look\n[image_url]');
    expect(result.messages[0]!.metadata).toEqual({ contentParts: ['image_url'], name: 'ann' });
    expect(result.problems.map((p) => p.line)).toEqual([2, 3]);
    expect(result.newestLeafId).toBe('s-4');
  });
});
