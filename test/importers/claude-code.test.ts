/**
 * Issue 13: the Claude Code transcript parser, on hand-written fixtures
 * (test/importers/fixtures/claude-code/, written from the format's public
 * description): roles and texts, predecessors through non-message records,
 * callers, merged responses, retry and fork shapes, incremental feeding,
 * partial and malformed lines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeCodeTranscript, parseTranscript } from '../../src/importers/claude-code/transcript.js';
import { splitLines } from '../../src/importers/jsonl.js';
import type { ImportedMessage, ImportResult } from '../../src/importers/model.js';
import { isValidId } from '../../src/ids.js';

const fixtures = join(import.meta.dirname, 'fixtures', 'claude-code');
const SUBAGENT = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e02/subagents/agent-a7f3c2.jsonl';
const ALL = ['plain.jsonl', 'tools.jsonl', 'interrupted.jsonl', 'retry-fork.jsonl', 'malformed.jsonl', 'partial.jsonl', SUBAGENT];

/** The fixtures' record uuids: u(7) = 00000000-0000-4000-8000-000000000007. */
const u = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function load(name: string): Buffer {
  return readFileSync(join(fixtures, name));
}

function parse(name: string): ImportResult {
  return parseTranscript(load(name), { path: join(fixtures, name) });
}

function byId(result: { messages: ImportedMessage[] }): Map<string, ImportedMessage> {
  return new Map(result.messages.map((m) => [m.messageId, m]));
}

function get(result: { messages: ImportedMessage[] }, id: string): ImportedMessage {
  const message = byId(result).get(id);
  if (!message) throw new Error(`no message ${id}; have ${result.messages.map((m) => m.messageId).join(', ')}`);
  return message;
}

/** Every predecessor and caller is emitted before the message naming it; ids are valid and unique. */
function expectWellOrdered(messages: ImportedMessage[]): void {
  const seen = new Set<string>();
  for (const m of messages) {
    expect(isValidId(m.messageId), m.messageId).toBe(true);
    expect(seen.has(m.messageId), `${m.messageId} emitted twice`).toBe(false);
    if (m.predecessorId !== null) expect(seen.has(m.predecessorId), `${m.messageId}'s predecessor first`).toBe(true);
    if (m.callerId !== undefined) expect(seen.has(m.callerId), `${m.messageId}'s caller first`).toBe(true);
    seen.add(m.messageId);
  }
}

function successors(result: { messages: ImportedMessage[] }, id: string): string[] {
  return result.messages.filter((m) => m.predecessorId === id).map((m) => m.messageId);
}

/**
 * Reads `bytes` as a follower would: the first `cut` bytes, then the rest from
 * where the first read stopped, then flush(). Returns the messages with every
 * update applied, in emit order.
 */
function followInTwo(name: string, cut: number): { messages: ImportedMessage[]; updates: number } {
  const bytes = load(name);
  const transcript = new ClaudeCodeTranscript({ path: join(fixtures, name) });
  const first = splitLines(bytes.subarray(0, cut), 1);
  const second = splitLines(bytes.subarray(first.consumedBytes), first.nextLine);
  const messages = new Map<string, ImportedMessage>();
  let updates = 0;
  for (const batch of [transcript.feed(first.lines), transcript.feed(second.lines), transcript.flush()]) {
    for (const update of batch.updates) {
      const known = messages.get(update.messageId);
      expect(known, `update of ${update.messageId} follows its message`).toBeDefined();
      messages.set(update.messageId, { ...known!, content: update.content, metadata: update.metadata });
      updates += 1;
    }
    for (const m of batch.messages) messages.set(m.messageId, m);
  }
  return { messages: [...messages.values()], updates };
}

describe('splitLines', () => {
  it('returns complete lines only, with numbers, tolerating CRLF and a BOM', () => {
    const split = splitLines('\uFEFF{"a":1}\r\n\r\n{"b":2}\n{"c":', 1);
    expect(split.lines).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 3, text: '{"b":2}' },
    ]);
    expect(split.consumedBytes).toBe(Buffer.byteLength('\uFEFF{"a":1}\r\n\r\n{"b":2}\n'));
    expect(split.nextLine).toBe(4);
    expect(splitLines(Buffer.from('{"no newline":1}'), 7)).toEqual({ lines: [], consumedBytes: 0, nextLine: 7 });
  });

  it('counts bytes, not characters, and does not split a multi-byte character', () => {
    const text = '{"t":"é€"}\n{"t":"ü';
    const bytes = Buffer.from(text);
    const split = splitLines(bytes.subarray(0, bytes.length - 1), 5);
    expect(split.lines).toEqual([{ line: 5, text: '{"t":"é€"}' }]);
    expect(split.consumedBytes).toBe(Buffer.byteLength('{"t":"é€"}\n'));
  });
});

describe('a plain session (plain.jsonl)', () => {
  const result = parse('plain.jsonl');

  it('is one session with the summary as title, the latest model and the first record context', () => {
    expect(result.session).toEqual({
      id: '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e01',
      title: 'Shop README and price formatting',
      agentId: 'claude-code',
      model: 'claude-opus-4-1-20250805',
      metadata: { cwd: '/home/dev/shop', gitBranch: 'main', version: '2.0.14' },
    });
    expect(result.problems).toEqual([]);
    expect(result.updates).toEqual([]);
    expect(result.skipped).toEqual({ 'file-history-snapshot': 1, system: 1, progress: 1 });
  });

  it('makes prompts USER messages that open turns and client notes SYSTEM messages', () => {
    expect(result.messages.map((m) => [m.messageId, m.role, m.opensTurn, m.metadata?.kind])).toEqual([
      [u(1), 'SYSTEM', false, 'command'],
      [u(2), 'SYSTEM', false, 'command-output'],
      [u(3), 'SYSTEM', false, 'meta'],
      [u(4), 'USER', true, undefined],
      [u(5), 'ASSISTANT', false, undefined],
      [u(7), 'USER', true, undefined],
      [u(9), 'ASSISTANT', false, undefined],
    ]);
    expect(get(result, u(4)).content).toBe('Write a short README for this shop project.\nKeep it under twenty lines.');
    expect(get(result, u(5)).content).toBe('Here is a README:\n\n# Shop\nA small web shop.');
    expect(get(result, u(4)).line).toBe(6);
    expect(get(result, u(4)).createdAt).toMatch(/^2026-03-02T09:00:\d\d\.\d{3}Z$/);
  });

  it('puts "[image]" for an image and says so in metadata', () => {
    const prompt = get(result, u(7));
    expect(prompt.content).toBe('Why are prices shown like this?\n\n[image]');
    expect(prompt.metadata).toEqual({ images: [{ sourceType: 'base64', mediaType: 'image/png' }] });
  });

  it('links each message to its nearest message ancestor, skipping system and progress records', () => {
    expect(result.messages.map((m) => m.predecessorId)).toEqual([null, u(1), u(2), u(3), u(4), u(5), u(7)]);
    expectWellOrdered(result.messages);
    expect(result.newestLeafId).toBe(u(9));
  });

  it('keeps the reply metadata: model, usage, stop reason, request id', () => {
    expect(get(result, u(9)).metadata).toMatchObject({
      responseId: 'msg_01PlainReplyTwo',
      model: 'claude-opus-4-1-20250805',
      stopReason: 'end_turn',
      requestId: 'req_01PlainReplyTwo',
      usage: { output_tokens: 22 },
      toolCalls: [],
      thinking: [],
    });
  });

  it('titles a session without summary by its first prompt', () => {
    const noSummary = load('plain.jsonl').toString('utf8').split('\n').slice(1).join('\n');
    expect(parseTranscript(noSummary).session.title).toBe('Write a short README for this shop project.');
    const long = JSON.stringify({ type: 'user', uuid: 'p1', parentUuid: null, sessionId: 's1', message: { role: 'user', content: `  ${'x'.repeat(100)}\nmore` } });
    expect(parseTranscript(`${long}\n`).session.title).toBe(`${'x'.repeat(79)}…`);
  });
});

describe('tool use (tools.jsonl)', () => {
  const result = parse('tools.jsonl');

  it('merges the records of one response into one ASSISTANT message named by its first record', () => {
    const reply = get(result, u(102));
    expect(reply.role).toBe('ASSISTANT');
    expect(reply.content).toBe('I will run the test suite first.');
    expect(reply.metadata).toMatchObject({
      responseId: 'msg_01ToolsA',
      thinking: ['The user wants the tests run. Start with npm test.'],
      toolCalls: [{ id: 'toolu_01Run', name: 'Bash', input: { command: 'npm test', description: 'Run tests' } }],
      stopReason: 'tool_use',
      usage: { output_tokens: 61 },
    });
    for (const merged of [103, 104, 108, 109, 112]) expect(byId(result).has(u(merged))).toBe(false);
    expect(result.messages.filter((m) => m.role === 'ASSISTANT').map((m) => m.messageId)).toEqual([u(102), u(107), u(111), u(116)]);
  });

  it('gives each tool result its caller, tool call id and tool name, following the records past progress', () => {
    const tools = result.messages.filter((m) => m.role === 'TOOL');
    expect(tools.map((m) => [m.messageId, m.callerId, m.toolCallId, m.toolName, m.predecessorId])).toEqual([
      [u(106), u(102), 'toolu_01Run', 'Bash', u(102)],
      [u(110), u(107), 'toolu_01ReadSrc', 'Read', u(107)],
      [`${u(110)}-2`, u(107), 'toolu_01ReadTest', 'Read', u(110)],
      [u(113), u(111), 'toolu_01Edit', 'Edit', u(111)],
      [u(114), u(111), 'toolu_01Rerun', 'Bash', u(113)],
    ]);
    expect(get(result, u(106)).content).toBe('FAIL test/price.test.ts\n  expected "1.00" got "100"');
    expect(get(result, `${u(110)}-2`).content).toBe("expect(price(100)).toBe('1.00');");
    expect(get(result, u(106)).metadata).toEqual({ isError: false });
  });

  it('chains the next reply off the last result of a record with two results', () => {
    expect(get(result, u(111)).predecessorId).toBe(`${u(110)}-2`);
    expect(get(result, u(116)).predecessorId).toBe(u(114));
    expect(get(result, u(107)).metadata).toMatchObject({ toolCalls: [{ id: 'toolu_01ReadSrc' }, { id: 'toolu_01ReadTest' }] });
    expectWellOrdered(result.messages);
    expect(result.skipped).toEqual({ 'queue-operation': 2, progress: 1, system: 1 });
    expect(result.session.title).toBe('Run the tests and fix what fails');
    expect(result.newestLeafId).toBe(u(116));
  });
});

describe('parallel tool results written as siblings', () => {
  it('puts them in one line (each after the previous result), not side by side like a retry', () => {
    const call = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { file_path: id } });
    const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: `contents of ${id}` });
    const records = [
      { type: 'user', uuid: 'p1', parentUuid: null, sessionId: 's', message: { role: 'user', content: 'read a and b' } },
      { type: 'assistant', uuid: 'a1', parentUuid: 'p1', message: { id: 'msg_1', role: 'assistant', content: [call('toolu_a')] } },
      { type: 'assistant', uuid: 'a2', parentUuid: 'a1', message: { id: 'msg_1', role: 'assistant', content: [call('toolu_b')] } },
      { type: 'user', uuid: 'r1', parentUuid: 'a2', message: { role: 'user', content: [result('toolu_a')] } },
      { type: 'user', uuid: 'r2', parentUuid: 'a2', message: { role: 'user', content: [result('toolu_b')] } },
      { type: 'assistant', uuid: 'a3', parentUuid: 'r2', message: { id: 'msg_2', role: 'assistant', content: [{ type: 'text', text: 'done' }] } },
    ];
    const parsed = parseTranscript(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    expect(parsed.messages.map((m) => [m.messageId, m.predecessorId, m.callerId])).toEqual([
      ['p1', null, undefined],
      ['a1', 'p1', undefined],
      ['r1', 'a1', 'a1'],
      ['r2', 'r1', 'a1'],
      ['a3', 'r2', undefined],
    ]);
    expect(parsed.newestLeafId).toBe('a3');
  });
});

describe('compaction and summaries', () => {
  it('links past a compaction boundary by its logicalParentUuid and makes the compact summary a SYSTEM message', () => {
    const records = [
      { type: 'summary', summary: 'Another conversation', leafUuid: 'elsewhere' },
      { type: 'user', uuid: 'c1', parentUuid: null, sessionId: 's', message: { role: 'user', content: 'long task' } },
      { type: 'assistant', uuid: 'c2', parentUuid: 'c1', message: { id: 'msg_c', role: 'assistant', content: [{ type: 'text', text: 'working' }] } },
      { type: 'system', subtype: 'compact_boundary', uuid: 'c3', parentUuid: null, logicalParentUuid: 'c2', content: 'Conversation compacted' },
      { type: 'user', uuid: 'c4', parentUuid: 'c3', isCompactSummary: true, message: { role: 'user', content: 'This session is being continued from a previous conversation that ran out of context. …' } },
      { type: 'user', uuid: 'c5', parentUuid: 'c4', message: { role: 'user', content: 'go on' } },
      { type: 'summary', summary: 'Long task, compacted once', leafUuid: 'c2' },
    ];
    const parsed = parseTranscript(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    expect(parsed.messages.map((m) => [m.messageId, m.role, m.predecessorId, m.metadata?.kind])).toEqual([
      ['c1', 'USER', null, undefined],
      ['c2', 'ASSISTANT', 'c1', undefined],
      ['c4', 'SYSTEM', 'c2', 'compact-summary'],
      ['c5', 'USER', 'c4', undefined],
    ]);
    expect(parsed.session.title).toBe('Long task, compacted once');
    const foreignOnly = parseTranscript(records.slice(0, 6).map((r) => `${JSON.stringify(r)}\n`).join(''));
    expect(foreignOnly.session.title).toBe('Another conversation');
  });
});

describe('an interrupted tool use (interrupted.jsonl)', () => {
  const result = parse('interrupted.jsonl');

  it('keeps the rejected result as an error TOOL message and the notice as a SYSTEM message', () => {
    expect(result.messages.map((m) => [m.messageId, m.role, m.predecessorId, m.opensTurn])).toEqual([
      [u(201), 'USER', null, true],
      [u(202), 'ASSISTANT', u(201), false],
      [u(203), 'TOOL', u(202), false],
      [u(204), 'SYSTEM', u(203), false],
      [u(205), 'USER', u(204), true],
      [u(206), 'ASSISTANT', u(205), false],
    ]);
    expect(get(result, u(203))).toMatchObject({ callerId: u(202), toolCallId: 'toolu_01Rm', toolName: 'Bash', metadata: { isError: true } });
    expect(get(result, u(204))).toMatchObject({ content: '[Request interrupted by user for tool use]', metadata: { kind: 'interruption' } });
    expect(get(result, u(202)).content).toBe('');
  });
});

describe('retry and fork (retry-fork.jsonl)', () => {
  const result = parse('retry-fork.jsonl');

  it('gives a prompt answered twice two ASSISTANT successors (a retry)', () => {
    expect(successors(result, u(301))).toEqual([u(302), u(303)]);
    expect(result.messages.filter((m) => m.role === 'ASSISTANT').map((m) => m.predecessorId)).toEqual([u(301), u(301), u(304), u(307)]);
  });

  it('gives the earlier reply a second USER successor (a fork), found through a system record', () => {
    expect(get(result, u(307)).predecessorId).toBe(u(302));
    expect(get(result, u(304)).predecessorId).toBe(u(303));
    expect(successors(result, u(302))).toEqual([u(307)]);
    expectWellOrdered(result.messages);
  });

  it('names the newest leaf as the branch hint', () => {
    expect(result.newestLeafId).toBe(u(308));
  });
});

describe('a sub-agent transcript (<session>/subagents/agent-*.jsonl)', () => {
  const result = parse(SUBAGENT);

  it('is its own session linked to the parent session', () => {
    expect(result.session).toEqual({
      id: '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e02-a7f3c2',
      parentSessionId: '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e02',
      title: 'Find every caller of price() in src/ and list the files.',
      agentId: 'claude-code',
      model: 'claude-haiku-4-5-20251001',
      metadata: { cwd: '/home/dev/shop', gitBranch: 'main', version: '2.0.14', agentId: 'a7f3c2' },
    });
    expect(result.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT', 'TOOL', 'ASSISTANT']);
    expect(get(result, u(403))).toMatchObject({ callerId: u(402), toolName: 'Grep', content: 'src/cart.ts\nsrc/checkout.ts' });
  });

  it('is recognised from its records when no path is given', () => {
    const pathless = parseTranscript(load(SUBAGENT));
    expect(pathless.session.id).toBe('7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e02-a7f3c2');
    expect(pathless.session.parentSessionId).toBe('7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e02');
  });

  it('falls back to the file name when the records name no agent', () => {
    const text = JSON.stringify({ type: 'user', uuid: 'q1', parentUuid: null, sessionId: 'parent-1', isSidechain: true, message: { role: 'user', content: 'go' } });
    const result = parseTranscript(`${text}\n`, { path: '/p/parent-1/subagents/agent-b9.jsonl' });
    expect(result.session).toMatchObject({ id: 'agent-b9', parentSessionId: 'parent-1' });
  });

  it('skips sub-agent records found inside a main transcript', () => {
    const records = [
      { type: 'user', uuid: 'm1', parentUuid: null, sessionId: 's', message: { role: 'user', content: 'main prompt' } },
      { type: 'user', uuid: 'side1', parentUuid: null, sessionId: 's', isSidechain: true, message: { role: 'user', content: 'sidechain task' } },
    ];
    const result = parseTranscript(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    expect(result.messages.map((m) => m.messageId)).toEqual(['m1']);
    expect(result.skipped).toEqual({ sidechain: 1 });
  });
});

describe('malformed and partial input', () => {
  it('reports a bad line and a message record without uuid by line number, and reads the rest (malformed.jsonl)', () => {
    const result = parse('malformed.jsonl');
    expect(result.problems).toEqual([
      { line: 2, message: expect.stringMatching(/^not valid JSON/) },
      { line: 3, message: 'user record without uuid; line skipped' },
    ]);
    expect(result.messages.map((m) => [m.messageId, m.role, m.predecessorId, m.line])).toEqual([
      [u(501), 'USER', null, 1],
      [u(502), 'ASSISTANT', u(501), 4],
      [u(504), 'USER', u(502), 6],
    ]);
    expect(result.skipped).toEqual({ 'mystery-record': 1 });
    expect(result.session.id).toBe('7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e05');
  });

  it('does not consume a partial last line, and reads it once it is complete (partial.jsonl)', () => {
    const bytes = load('partial.jsonl');
    const result = parseTranscript(bytes);
    expect(result.messages.map((m) => m.messageId)).toEqual([u(601), u(602)]);
    expect(result.problems).toEqual([]);
    const complete = bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1);
    expect(result.consumedBytes).toBe(complete.length);
    expect(result.consumedBytes).toBeLessThan(bytes.length);
    expect(result.nextLine).toBe(3);

    // The writer finishes the line (the fixture stops inside "sessionId"); a follower resumes at consumedBytes.
    expect(bytes.toString('utf8').endsWith(`"parentUuid":"${u(602)}","isSidechain":false,"userType":"external","cwd":"/home/dev/shop","s`)).toBe(true);
    const end = `essionId":"7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e06","type":"assistant","uuid":"${u(603)}","timestamp":"2026-03-02T10:00:00.000Z","message":{"id":"msg_01PartB","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"Still writing"}],"stop_reason":"end_turn"}}\n`;
    const finished = Buffer.concat([bytes, Buffer.from(end)]);
    const transcript = new ClaudeCodeTranscript();
    transcript.feed(splitLines(bytes, 1).lines);
    const rest = splitLines(finished.subarray(result.consumedBytes), result.nextLine);
    expect(rest.lines.map((l) => l.line)).toEqual([3]);
    const later = transcript.feed(rest.lines);
    expect(later.problems).toEqual([]);
    expect(later.messages.map((m) => [m.messageId, m.predecessorId, m.content, m.line])).toEqual([[u(603), u(602), 'Still writing', 3]]);
    expect(transcript.newestLeafId()).toBe(u(603));
  });

  it('leaves a message whose ancestor never appears waiting, and flush() makes it a root with a problem', () => {
    const transcript = new ClaudeCodeTranscript();
    const lines = [
      { line: 1, text: JSON.stringify({ type: 'user', uuid: 'c1', parentUuid: 'gone', sessionId: 's', message: { role: 'user', content: 'continued' } }) },
      { line: 2, text: JSON.stringify({ type: 'user', uuid: 'c2', parentUuid: 'c1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'late' }] } }) },
    ];
    expect(transcript.feed(lines).messages).toEqual([]);
    const flushed = transcript.flush();
    expect(flushed.messages.map((m) => [m.messageId, m.predecessorId, m.callerId])).toEqual([
      ['c1', null, undefined],
      ['c2', 'c1', undefined],
    ]);
    expect(flushed.problems.map((p) => p.line)).toEqual([1, 2]);
  });
});

describe('incremental feeding', () => {
  it('waits for an ancestor that arrives in a later feed', () => {
    const transcript = new ClaudeCodeTranscript();
    const child = { type: 'user', uuid: 'k2', parentUuid: 'k1', sessionId: 's', message: { role: 'user', content: 'second' } };
    const parent = { type: 'progress', uuid: 'k1', parentUuid: 'k0', sessionId: 's' };
    const root = { type: 'user', uuid: 'k0', parentUuid: null, sessionId: 's', message: { role: 'user', content: 'first' } };
    expect(transcript.feed([{ line: 2, text: JSON.stringify(child) }]).messages).toEqual([]);
    expect(transcript.feed([{ line: 3, text: JSON.stringify(parent) }]).messages).toEqual([]);
    const batch = transcript.feed([{ line: 1, text: JSON.stringify(root) }]);
    expect(batch.messages.map((m) => [m.messageId, m.predecessorId])).toEqual([
      ['k0', null],
      ['k2', 'k0'],
    ]);
  });

  it('updates a reply whose later records arrive in a later feed (split mid-response)', () => {
    const bytes = load('tools.jsonl');
    const lines = splitLines(bytes, 1).lines;
    const transcript = new ClaudeCodeTranscript();
    const first = transcript.feed(lines.slice(0, 4)); // queue ×2, prompt, thinking record
    expect(get(first, u(102)).content).toBe('');
    const second = transcript.feed(lines.slice(4, 6)); // the text and tool_use records of the same response
    expect(second.messages).toEqual([]);
    expect(second.updates).toEqual([
      {
        messageId: u(102),
        content: 'I will run the test suite first.',
        metadata: expect.objectContaining({ toolCalls: [expect.objectContaining({ id: 'toolu_01Run' })] }),
        line: 6,
      },
    ]);
    expect(get(first, u(102)).metadata).toMatchObject({ toolCalls: [] }); // what was handed out earlier does not change
  });

  it('keeps a long chain under a missing root waiting through line-by-line feeds, then flushes it in order', () => {
    const transcript = new ClaudeCodeTranscript({ path: '/p/continued-1.jsonl' });
    expect(transcript.session().id).toBe('continued-1'); // the file name until a record names the session
    let parent = 'before-this-file';
    let emitted = 0;
    for (let i = 1; i <= 3000; i += 1) {
      const type = i % 3 === 0 ? 'progress' : i % 3 === 1 ? 'user' : 'assistant';
      const message = type === 'user' ? { role: 'user', content: `prompt ${i}` } : { id: `msg_${i}`, role: 'assistant', content: [{ type: 'text', text: `reply ${i}` }] };
      const record = { type, uuid: `n${i}`, parentUuid: parent, sessionId: 'long-1', ...(type === 'progress' ? {} : { message }) };
      emitted += transcript.feed([{ line: i, text: JSON.stringify(record) }]).messages.length;
      parent = `n${i}`;
    }
    expect(emitted).toBe(0);
    const flushed = transcript.flush();
    expect(flushed.messages).toHaveLength(2000);
    expectWellOrdered(flushed.messages);
    expect(flushed.messages[0]).toMatchObject({ messageId: 'n1', predecessorId: null });
    expect(flushed.messages[2]).toMatchObject({ messageId: 'n4', predecessorId: 'n2' });
    expect(flushed.problems).toEqual([{ line: 1, message: 'message n1: ancestor before-this-file never appeared; made a root' }]);
    expect(transcript.session().id).toBe('long-1');
  });

  it.each(ALL)('gives the same final messages for %s read in two parts, at any cut', (name) => {
    const whole = parse(name);
    expectWellOrdered(whole.messages);
    const size = load(name).length;
    let withUpdates = 0;
    for (let cut = 0; cut <= size; cut += 37) {
      const parts = followInTwo(name, cut);
      expectWellOrdered(parts.messages);
      expect(parts.messages).toEqual(whole.messages);
      if (parts.updates > 0) withUpdates += 1;
    }
    if (name === 'tools.jsonl') expect(withUpdates).toBeGreaterThan(0);
  });
});

describe("a compaction agent's transcript (<session>/subagents/agent-acompact-*.jsonl)", () => {
  const SESSION = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e09';
  const path = join(import.meta.dirname, 'fixtures', 'claude-projects', '-home-dev-shop', SESSION, 'subagents', 'agent-acompact-7e21c4.jsonl');

  it('starts its session where its first record names the parent session, a note and no error, read whole or line by line', () => {
    const result = parseTranscript(readFileSync(path), { path });
    expect(result.session).toMatchObject({ id: `${SESSION}-acompact-7e21c4`, parentSessionId: SESSION });
    expect(result.problems).toEqual([{ line: 1, severity: 'info', message: expect.stringContaining(`continues record ${u(904)} of the parent session ${SESSION}`) }]);
    expect(result.messages.map((m) => [m.messageId, m.role, m.predecessorId])).toEqual([
      [u(951), 'USER', null],
      [u(952), 'ASSISTANT', u(951)],
    ]);
    expect(result.messages[0]?.metadata).toEqual({ parentSessionRecord: u(904) });

    // Followed line by line, nothing waits for the parent's record (it is in another file).
    const transcript = new ClaudeCodeTranscript({ path });
    const first = transcript.feed(splitLines(readFileSync(path), 1).lines.slice(0, 1));
    expect(first.messages.map((m) => m.messageId)).toEqual([u(951)]);
  });

  it('still reports an ancestor missing from a main transcript as an error', () => {
    const text = JSON.stringify({ type: 'user', uuid: 'n1', parentUuid: 'before-this-file', sessionId: 's', message: { role: 'user', content: 'hi' } });
    const result = parseTranscript(`${text}\n`, { path: '/p/s.jsonl' });
    expect(result.problems).toEqual([{ line: 1, message: 'message n1: ancestor before-this-file never appeared; made a root' }]);
  });
});
