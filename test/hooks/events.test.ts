/** What each agent's hook payload becomes (src/hooks/events.ts, src/hooks/tool-paths.ts): pure, table-tested. */
import { describe, expect, it } from 'vitest';
import { readHookEvent } from '../../src/hooks/events.js';
import { editedPaths, patchPaths } from '../../src/hooks/tool-paths.js';

const base = { session_id: 's-1', cwd: '/work/app', transcript_path: '/home/u/t.jsonl' };

describe('readHookEvent', () => {
  it.each([
    ['claude-code', { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'hi', prompt_id: 'p1' }, { kind: 'prompt', prompt: 'hi', promptId: 'p1' }],
    ['codex', { ...base, hook_event_name: 'UserPromptSubmit', prompt: 'hi', turn_id: 't1' }, { kind: 'prompt', promptId: 't1' }],
    ['gemini', { ...base, hook_event_name: 'BeforeAgent', prompt: 'hi' }, { kind: 'prompt', promptId: undefined }],
    ['claude-code', { ...base, hook_event_name: 'Stop', stop_hook_active: true, last_assistant_message: 'Done.' }, { kind: 'stop', reply: 'Done.', again: true }],
    ['gemini', { ...base, hook_event_name: 'AfterAgent', prompt_response: 'Done.' }, { kind: 'stop', reply: 'Done.', again: false }],
    ['codex', { ...base, hook_event_name: 'SessionStart', source: 'resume', model: 'gpt' }, { kind: 'session-start', source: 'resume', model: 'gpt' }],
    ['gemini', { ...base, hook_event_name: 'SessionEnd', reason: 'exit' }, { kind: 'session-end', reason: 'exit' }],
  ] as const)('%s %#', (agent, payload, expected) => {
    const read = readHookEvent(agent, payload);
    expect(read).toHaveProperty('event');
    expect((read as { event: object }).event).toMatchObject({ agent, sessionId: 's-1', cwd: '/work/app', ...expected });
  });

  it('reads a tool call with the paths its tool names', () => {
    const read = readHookEvent('claude-code', { ...base, hook_event_name: 'PostToolUse', tool_name: 'Write', tool_use_id: 'toolu_1', tool_input: { file_path: '/work/app/a.txt' }, tool_response: {} });
    expect(read).toMatchObject({ event: { kind: 'tool-end', tool: { name: 'Write', id: 'toolu_1', paths: { files: ['/work/app/a.txt'] } } } });
  });

  it("reads Claude Code's failed call (PostToolUseFailure) as the call's end, its error as the result", () => {
    const failure = { ...base, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_use_id: 'toolu_2', tool_input: { command: 'npm test' } };
    expect(readHookEvent('claude-code', { ...failure, error: 'Exit code 1\n1 failing', is_interrupt: false })).toMatchObject({
      event: { kind: 'tool-end', tool: { name: 'Bash', id: 'toolu_2', paths: { shell: true } }, response: 'Exit code 1\n1 failing', failed: true },
    });
    expect(readHookEvent('claude-code', { ...failure, error: 'Interrupted', is_interrupt: true })).toMatchObject({ event: { response: 'Interrupted\n[interrupted]', failed: true } });
    expect(readHookEvent('claude-code', failure)).toMatchObject({ event: { response: 'the tool failed', failed: true } });
    // Only Claude Code has it.
    expect(readHookEvent('codex', { ...failure, error: 'x' })).toEqual({ ignored: 'PostToolUseFailure is not an event entity-memory records' });
  });

  it("reads Gemini CLI's failed call from its response: a tool's error, a command's exit code, signal or process error", () => {
    const after = (tool_name: string, tool_response: unknown) => readHookEvent('gemini', { ...base, hook_event_name: 'AfterTool', tool_name, tool_input: {}, tool_response });
    const shell = (llmContent: string) => after('run_shell_command', { llmContent: `<untrusted_context>\n${llmContent}\n</untrusted_context>`, returnDisplay: '' });
    const replaced = { llmContent: 'Could not find an exact match', error: { message: 'Could not find an exact match', type: 'edit_no_occurrence_found' } };
    expect(after('replace', replaced)).toMatchObject({ event: { kind: 'tool-end', response: replaced, failed: true } });
    expect(shell('Output: 1 failing\nExit Code: 3\nProcess Group PGID: 15629')).toMatchObject({ event: { failed: true, exitCode: 3 } });
    expect(shell('Output: (empty)\nSignal: 9\nProcess Group PGID: 1')).toMatchObject({ event: { failed: true } });
    expect(shell('Output: (empty)\nError: spawn bash ENOENT')).toMatchObject({ event: { failed: true } });
    // Gemini writes the exit code only when it is not 0; a command that printed such a line itself did not fail for it.
    for (const ok of ['Output: hi\nProcess Group PGID: 15629', 'Output: Exit Code: 3\nall good\nProcess Group PGID: 2', 'Output: (empty)']) {
      expect((shell(ok) as { event: object }).event).not.toHaveProperty('failed');
    }
    expect((after('write_file', { llmContent: 'Successfully created' }) as { event: object }).event).not.toHaveProperty('failed');
  });

  it.each([
    [null, { error: 'the payload is not a JSON object' }],
    [[1], { error: 'the payload is not a JSON object' }],
    [{ ...base }, { error: 'the payload has no hook_event_name' }],
    [{ hook_event_name: 'Stop' }, { error: 'Stop has no session_id' }],
    [{ ...base, hook_event_name: 'UserPromptSubmit' }, { error: 'UserPromptSubmit has no prompt' }],
    [{ ...base, hook_event_name: 'PostToolUse' }, { error: 'PostToolUse has no tool_name' }],
    [{ ...base, hook_event_name: 'Notification' }, { ignored: 'Notification is not an event entity-memory records' }],
  ])('refuses or ignores %j', (payload, expected) => {
    expect(readHookEvent('claude-code', payload)).toEqual(expected);
  });
});

describe('editedPaths', () => {
  it.each([
    ['claude-code', 'Edit', { file_path: 'a.ts' }, { files: ['a.ts'] }],
    ['claude-code', 'MultiEdit', { file_path: 'b.ts', edits: [] }, { files: ['b.ts'] }],
    ['claude-code', 'NotebookEdit', { notebook_path: 'n.ipynb' }, { files: ['n.ipynb'] }],
    ['claude-code', 'Bash', { command: 'make' }, { shell: true }],
    ['claude-code', 'Read', { file_path: 'a.ts' }, { none: true }],
    ['claude-code', 'Write', {}, { none: true }],
    ['gemini', 'write_file', { file_path: '/x/a' }, { files: ['/x/a'] }],
    ['gemini', 'replace', { file_path: '/x/b' }, { files: ['/x/b'] }],
    ['gemini', 'run_shell_command', { command: 'ls' }, { shell: true }],
    ['codex', 'apply_patch', { command: '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n' }, { files: ['a.txt'] }],
    ['codex', 'Bash', { command: 'ls' }, { shell: true }],
  ] as const)('%s %s', (agent, tool, input, expected) => {
    expect(editedPaths(agent, tool, input)).toEqual(expected);
  });

  it('reads every path a patch adds, updates, deletes or moves to, each once', () => {
    const patch = ['*** Begin Patch', '*** Update File: src/a.ts', '@@', '-x', '+y', '*** Move to: src/b.ts', '*** Delete File: old.txt', '*** Add File: src/a.ts', '*** End Patch', ''].join('\n');
    expect(patchPaths(patch)).toEqual(['src/a.ts', 'src/b.ts', 'old.txt']);
  });
});
