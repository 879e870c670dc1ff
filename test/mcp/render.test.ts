/** How a turn's tool calls read for a model (src/mcp/render.ts toolCallsOf): pure. */
import { describe, expect, it } from 'vitest';
import { toolCallsOf, turnMarkdown, type TurnMessage } from '../../src/mcp/render.js';

const call = (id: string, name: string, input: object): TurnMessage => ({ role: 'ASSISTANT', content: '', toolName: name, toolCallId: id, metadata: { toolCalls: [{ id, name, input }] } });
const result = (id: string, content: string, metadata: object | null = null): TurnMessage => ({ role: 'TOOL', content, toolName: null, toolCallId: id, metadata });

describe('toolCallsOf', () => {
  it("gives each call its result's first line as a person reads it: a hooked tool's JSON as its values, a failed call marked", () => {
    const calls = toolCallsOf([
      call('t1', 'Bash', { command: 'npm test' }),
      // Claude Code's hooks record a Bash result as its object.
      result('t1', JSON.stringify({ stdout: '1 passing\n0 failing', stderr: '', interrupted: false }), { isError: false }),
      call('t2', 'Bash', { command: 'exit 3' }),
      result('t2', 'Exit code 3\n1 failing', { isError: true }),
      call('t3', 'Write', { file_path: '/app/a.txt' }),
      result('t3', 'File created successfully at: /app/a.txt'),
      call('t4', 'Read', { file_path: '/app/b.txt' }),
    ]);
    expect(calls).toEqual([
      { id: 't1', name: 'Bash', input: 'command: npm test', result: '1 passing' },
      { id: 't2', name: 'Bash', input: 'command: exit 3', result: 'failed: Exit code 3' },
      { id: 't3', name: 'Write', input: 'file_path: /app/a.txt', result: 'File created successfully at: /app/a.txt' },
      { id: 't4', name: 'Read', input: 'file_path: /app/b.txt', result: null },
    ]);
  });

  it('writes a turn as markdown with each result read the same way', () => {
    const markdown = turnMarkdown(
      2,
      [
        { role: 'USER', content: 'run the tests', toolName: null, toolCallId: null, metadata: null },
        call('t1', 'Bash', { command: 'npm test' }),
        result('t1', JSON.stringify({ stdout: '1 failing', stderr: 'npm ERR! Test failed.', interrupted: false }), { isError: true }),
      ],
      null,
      1000,
    );
    expect(markdown).toBe(['## Turn 2', '', '**User:**', '', 'run the tests', '', '- tool call `Bash`: command: npm test', '', '**Tool result (failed):**', '', '```', '1 failing', 'npm ERR! Test failed.', '```', ''].join('\n'));
  });
});
