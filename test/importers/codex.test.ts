/**
 * The Codex CLI rollout parser, on fixtures written from recorded Codex 0.171 rollouts
 * (test/importers/fixtures/codex/) and an older rollout shape (fixtures/codex-legacy/): the
 * session header, roles, one ASSISTANT message per response with its thinking and tool calls,
 * TOOL messages called by it, a rollback's fork, and reading in parts giving what reading whole
 * gives at every cut.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodexRollout, parseRollout } from '../../src/importers/codex/rollout.js';
import type { ImportedMessage } from '../../src/importers/model.js';
import { cutPoints, expectWellOrdered, readInParts } from './in-parts.js';

const day = join(import.meta.dirname, 'fixtures', 'codex', '2026', '12', '04');
const MAIN = join(day, 'rollout-2026-12-04T16-32-40-01a241e6-968d-7220-bfa2-5111bc4f04a1.jsonl');
const SUBAGENT = join(day, 'rollout-2026-12-04T16-34-57-01a241e8-ac9c-7ab2-968e-762f064bef29.jsonl');
const LEGACY = join(import.meta.dirname, 'fixtures', 'codex-legacy', 'rollout-2025-10-29T00-59-38-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl');

const parse = (path: string) => parseRollout(readFileSync(path), { path });

function get(messages: ImportedMessage[], id: string): ImportedMessage {
  const message = messages.find((m) => m.messageId === id);
  if (!message) throw new Error(`no message ${id}; have ${messages.map((m) => m.messageId).join(', ')}`);
  return message;
}

describe('a Codex 0.171 rollout with tools, a second turn and a rollback', () => {
  const result = parse(MAIN);

  it('is the thread, titled by its thread name, with the model of its turns and where it ran', () => {
    expect(result.session).toEqual({
      id: '01a241e6-968d-7220-bfa2-5111bc4f04a1',
      title: 'Fix the rounding bug',
      agentId: 'codex',
      model: 'gpt-5.5',
      metadata: { cwd: '/home/dev/shop', gitBranch: 'main', version: '0.171.0', originator: 'codex_exec' },
    });
    expect(result.problems).toEqual([]);
  });

  it('makes prompts USER messages, and skips the harness context and the developer instructions', () => {
    expectWellOrdered(result.messages);
    expect(result.messages.map((m) => [m.role, m.content.slice(0, 25)])).toEqual([
      ['USER', 'Why is the total off by a'],
      ['ASSISTANT', ''],
      ['TOOL', 'Exit code: 0\nOutput:\ntota'],
      ['ASSISTANT', ''],
      ['TOOL', 'Exit code: 0\nOutput:\nSucc'],
      ['ASSISTANT', 'It multiplied floats; it '],
      ['USER', 'Add a test for it.'],
      ['ASSISTANT', ''],
      ['TOOL', '1 failing'],
      ['ASSISTANT', 'The test fails on the old'],
      ['USER', 'Instead, explain the fix '],
      ['ASSISTANT', 'Added a comment above the'],
    ]);
    expect(result.messages.filter((m) => m.opensTurn).map((m) => m.role)).toEqual(['USER', 'USER', 'USER']);
    expect(result.skipped).toMatchObject({ developer: 1, context: 1, world_state: 1, turn_context: 3, item_completed: 1, task_complete: 3 });
  });

  it('keeps the items own ids, a response its reasoning as thinking and its calls as toolCalls', () => {
    const first = get(result.messages, 'rs_01a241e6-9900-7000-8000-000000000001');
    expect(first.predecessorId).toBe('msg_01a241e6-98a5-7160-8101-de29a101a30a');
    expect(first.metadata).toEqual({
      toolCalls: [{ id: 'call_1', name: 'exec_command', input: { cmd: 'cat cart.js' }, type: 'function_call' }],
      thinking: ['Look at cart.js first.'],
      usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5, reasoning_output_tokens: 0, total_tokens: 15 },
      responseId: 'resp_1',
    });
    const patch = get(result.messages, 'ctc_call_2');
    expect(patch.metadata?.toolCalls).toEqual([expect.objectContaining({ id: 'call_2', name: 'apply_patch', type: 'custom_tool_call' })]);
  });

  it('makes each output a TOOL message called by the response holding its call', () => {
    const tools = result.messages.filter((m) => m.role === 'TOOL');
    expect(tools.map((m) => [m.callerId, m.toolName, m.toolCallId, m.predecessorId])).toEqual([
      ['rs_01a241e6-9900-7000-8000-000000000001', 'exec_command', 'call_1', 'rs_01a241e6-9900-7000-8000-000000000001'],
      ['ctc_call_2', 'apply_patch', 'call_2', 'ctc_call_2'],
      ['fc_call_5', 'exec_command', 'call_5', 'fc_call_5'],
    ]);
    expect(get(result.messages, 'fco_01a241e6-a6ac-7870-96b5-dfa40a92d010').metadata).toEqual({ isError: true });
  });

  it('after a rollback of one turn, grows the next prompt from the end of the turn kept (a fork)', () => {
    expect(get(result.messages, 'msg_01a241e6-b100-7000-8000-000000000010').predecessorId).toBe('msg_fake_4');
    expect(result.newestLeafId).toBe('msg_fake_7');
    expect(result.lastTurnEnded).toBe(true);
  });

  it('gives at every cut, read in parts, what it gives read whole', () => {
    const bytes = readFileSync(MAIN);
    let updated = 0;
    for (const cut of cutPoints(bytes)) {
      const parts = readInParts(new CodexRollout({ path: MAIN }), bytes, [cut]);
      expect(parts.messages, `cut at byte ${cut}`).toEqual(result.messages);
      updated += parts.updates;
    }
    // A response cut between its items is sent whole first, then updated: the test saw that happen.
    expect(updated).toBeGreaterThan(0);
    expect(readInParts(new CodexRollout({ path: MAIN }), bytes, cutPoints(bytes)).messages).toEqual(result.messages);
  });

  it('gives the same ids every time (importing again finds the messages it has)', () => {
    expect(parse(MAIN).messages.map((m) => m.messageId)).toEqual(result.messages.map((m) => m.messageId));
  });
});

describe('a sub-agent rollout', () => {
  it('is its own session, linked to the thread that spawned it', () => {
    const result = parse(SUBAGENT);
    expect(result.session).toMatchObject({
      id: '01a241e8-ac9c-7ab2-968e-762f064bef29',
      parentSessionId: '01a241e8-ab26-7592-9d56-4bcea9840882',
      title: 'SUBAGENT_TASK: write sub.txt',
      metadata: { agentNickname: 'Hooke' },
    });
    expect(result.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT', 'TOOL', 'ASSISTANT']);
  });
});

describe('an older rollout (no item ids, shell output wrapped in JSON, a malformed line)', () => {
  const result = parse(LEGACY);

  it('names messages by their line, unwraps the output and reports the bad line', () => {
    expectWellOrdered(result.messages);
    expect(result.messages.map((m) => [m.messageId, m.role])).toEqual([
      ['line-3', 'USER'],
      ['line-7', 'ASSISTANT'],
      ['line-9', 'TOOL'],
      ['line-12', 'ASSISTANT'],
      ['line-14', 'USER'],
    ]);
    expect(get(result.messages, 'line-7').metadata).toMatchObject({ thinking: ['**Listing files**'], usage: { input_tokens: 2946 } });
    expect(get(result.messages, 'line-9')).toMatchObject({ content: 'cart.js\nREADME.md\n', callerId: 'line-7', toolName: 'shell', metadata: { isError: false } });
    expect(result.problems).toEqual([{ line: 13, message: expect.stringContaining('not valid JSON') }]);
    // Every line but the bad one was a record, used or not.
    expect(result.records).toBe(13);
    expect(result.session).toMatchObject({ id: '5973b6c0-94b8-487b-a530-2aeb6098ae0e', model: 'gpt-5-codex', title: 'List the files.' });
  });

  it('leaves its last turn open: no task_complete came', () => {
    expect(result.lastTurnEnded).toBe(false);
  });
});
