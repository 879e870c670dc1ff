import { describe, expect, it } from 'vitest';
import { callSummary, describeCall, diffLines, leadingTag, patchFiles, patchLines, plainText, relativePath, thinkingOf, toolCallsOf, toolOutput } from './tools';

describe('tool calls as the agents send them', () => {
  it('reads the calls and the thinking from the metadata the three agents share, and nothing from anything else', () => {
    expect(toolCallsOf({ toolCalls: [{ id: 'a', name: 'Bash', input: {} }, { nope: 1 }] })).toEqual([{ id: 'a', name: 'Bash', input: {} }]);
    expect(toolCallsOf(null)).toEqual([]);
    expect(toolCallsOf({ toolCalls: 'x' })).toEqual([]);
    expect(thinkingOf({ thinking: ['a', '', 3] })).toEqual(['a']);
  });

  it('shows shell calls as their command: Claude Code Bash, Codex argv (bash -lc unwrapped) and JSON-text input, Gemini run_shell_command', () => {
    expect(describeCall({ id: null, name: 'Bash', input: { command: 'npm test', description: 'Run tests' } })).toEqual({ kind: 'shell', command: 'npm test', description: 'Run tests' });
    expect(describeCall({ id: null, name: 'shell', input: { command: ['bash', '-lc', 'ls -la | wc -l'] } })).toMatchObject({ command: 'ls -la | wc -l' });
    expect(describeCall({ id: null, name: 'shell', input: { command: ['git', 'commit', '-m', "it's done"] } })).toMatchObject({ command: "git commit -m 'it'\\''s done'" });
    expect(describeCall({ id: null, name: 'exec_command', input: '{"cmd":"cat README.md"}' })).toMatchObject({ kind: 'shell', command: 'cat README.md' });
    expect(describeCall({ id: null, name: 'run_shell_command', input: { command: 'wc -l a.txt' } })).toMatchObject({ kind: 'shell', command: 'wc -l a.txt' });
  });

  it('shows edits as diffs with counts: Edit, MultiEdit, Gemini replace, Write as a new file, apply_patch as its text', () => {
    expect(describeCall({ id: null, name: 'Edit', input: { file_path: 'a.ts', old_string: 'x\ny\n', new_string: 'x\nz\n' } })).toEqual({
      kind: 'edit',
      path: 'a.ts',
      lines: [
        { sign: ' ', text: 'x' },
        { sign: '-', text: 'y' },
        { sign: '+', text: 'z' },
      ],
      added: 1,
      removed: 1,
    });
    const multi = describeCall({ id: null, name: 'MultiEdit', input: { file_path: 'a.ts', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: 'd' }] } });
    expect(multi).toMatchObject({ kind: 'edit', added: 2, removed: 2 });
    expect(describeCall({ id: null, name: 'replace', input: { file_path: '/w/a.ts', old_string: 'a', new_string: 'b' } })).toMatchObject({ kind: 'edit', path: '/w/a.ts' });
    expect(describeCall({ id: null, name: 'Write', input: { file_path: 'n.md', content: 'one\ntwo\n' } })).toMatchObject({ kind: 'write', added: 2, lines: [{ sign: '+', text: 'one' }, { sign: '+', text: 'two' }] });
    expect(describeCall({ id: null, name: 'apply_patch', input: '*** Begin Patch\n*** Update File: a.ts\n' })).toEqual({ kind: 'patch', text: '*** Begin Patch\n*** Update File: a.ts\n' });
    // Codex's hooks send the patch as tool_input.command.
    const hooked = '*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** End Patch\n';
    expect(describeCall({ id: null, name: 'apply_patch', input: { command: hooked } })).toEqual({ kind: 'patch', text: hooked });
    expect(patchLines(hooked)).toEqual([
      { sign: ' ', text: '*** Begin Patch' },
      { sign: ' ', text: '*** Update File: a.txt' },
      { sign: ' ', text: '@@' },
      { sign: '-', text: 'one' },
      { sign: '+', text: 'uno' },
      { sign: ' ', text: '*** End Patch' },
    ]);
    expect(patchFiles('*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: b.txt\n*** Update File: a.txt\n')).toEqual(['a.txt', 'b.txt']);
    expect(patchFiles('--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1 +1 @@\n-a\n+b\n')).toEqual(['src/x.ts']);
    // A file Codex moves: its Update line, then where it goes.
    expect(patchFiles('*** Begin Patch\n*** Update File: src/old.ts\n*** Move to: src/new.ts\n@@\n-a\n+b\n*** Add File: c.txt\n+c\n*** End Patch')).toEqual([
      'src/old.ts → src/new.ts',
      'c.txt',
    ]);
    expect(callSummary({ id: null, name: 'apply_patch', input: { command: hooked } })).toBe('a.txt');
  });

  it("shows a path inside the project's folder relative to it, any other as sent", () => {
    expect(relativePath('/home/me/app/src/a.ts', '/home/me/app')).toBe('src/a.ts');
    expect(relativePath('/home/me/app/src/a.ts', '/home/me/app/')).toBe('src/a.ts');
    expect(relativePath('/home/me/app2/a.ts', '/home/me/app')).toBe('/home/me/app2/a.ts');
    expect(relativePath('/home/me/app', '/home/me/app')).toBe('/home/me/app');
    expect(relativePath('src/a.ts', '/home/me/app')).toBe('src/a.ts');
    expect(relativePath('/etc/hosts', null)).toBe('/etc/hosts');
    expect(callSummary({ id: null, name: 'Read', input: { file_path: '/home/me/app/README.md' } }, '/home/me/app')).toBe('README.md');
    expect(diffLines('same\n', 'same\n')).toEqual({ lines: [], added: 0, removed: 0 });
  });

  it('shows reads as path and lines, searches as the pattern, anything else as pretty JSON; one line for a result', () => {
    expect(describeCall({ id: null, name: 'Read', input: { file_path: 'a.ts', offset: 5, limit: 10 } })).toEqual({ kind: 'read', path: 'a.ts', range: 'lines 5–14' });
    expect(describeCall({ id: null, name: 'read_file', input: { absolute_path: '/w/a.ts' } })).toEqual({ kind: 'read', path: '/w/a.ts', range: null });
    expect(describeCall({ id: null, name: 'Grep', input: { pattern: 'TODO', path: 'src' } })).toEqual({ kind: 'search', pattern: 'TODO', where: 'src' });
    expect(describeCall({ id: null, name: 'Task', input: { prompt: 'go' } })).toEqual({ kind: 'json', text: '{\n  "prompt": "go"\n}' });
    expect(callSummary({ id: null, name: 'Bash', input: { command: 'a\nb' } })).toBe('a');
    expect(callSummary({ id: null, name: 'Task', input: {} })).toBe('');
  });

  it('takes terminal codes out, and names a leading tag', () => {
    expect(plainText('\u001b[1m\u001b[31mred\u001b[0m done')).toBe('red done');
    expect(leadingTag('<task-notification>\n<x/>')).toBe('task-notification');
    expect(leadingTag('<command-name>/clear</command-name>')).toBe('command-name');
    expect(leadingTag('a < b')).toBeNull();
  });

  it("reads a hooked agent's tool output sent as an object as the agent shows it; other output is left as it is", () => {
    const root = '/home/dev/app';
    // Claude Code's Bash, Read, Write and Edit answers, as its PostToolUse hook sends them.
    expect(toolOutput(JSON.stringify({ stdout: 'compiling\nok', stderr: 'warning: x', interrupted: false, isImage: false }))).toBe('compiling\nok\nwarning: x');
    expect(toolOutput(JSON.stringify({ stdout: '', stderr: '', interrupted: false }))).toBe('(no output)');
    expect(toolOutput(JSON.stringify({ stdout: 'partial', stderr: '', interrupted: true }))).toBe('partial\n[interrupted]');
    expect(toolOutput(JSON.stringify({ type: 'text', file: { filePath: `${root}/a.ts`, content: 'export {};\n', numLines: 1, startLine: 1, totalLines: 1 } }))).toBe('export {};\n');
    const note = '[image/png, 13,414 bytes of base64: not kept]';
    expect(toolOutput(JSON.stringify({ type: 'image', file: { base64: note, type: 'image/png', originalSize: 13414, dimensions: { originalWidth: 300 } } }))).toBe(note);
    expect(toolOutput(JSON.stringify({ type: 'create', filePath: `${root}/src/a.ts`, content: 'x', structuredPatch: [], originalFile: null }), root)).toBe('Wrote src/a.ts');
    expect(toolOutput(JSON.stringify({ filePath: `${root}/a.ts`, oldString: 'a', newString: 'b', originalFile: 'a\n', structuredPatch: [] }), root)).toBe('Edited a.ts');
    // Gemini CLI's: what the model was told.
    expect(toolOutput(JSON.stringify({ llmContent: 'Successfully modified file: a.txt', returnDisplay: { fileDiff: '...' } }))).toBe('Successfully modified file: a.txt');
    expect(toolOutput(JSON.stringify({ llmContent: [{ text: 'Subagent finished.' }], returnDisplay: {} }))).toBe('Subagent finished.');
    // Any other object: its strings, one a line, ids left out.
    expect(toolOutput(JSON.stringify({ id: 'toolu_1', results: [{ title: 'Docs', url: 'https://example.com' }] }))).toBe('Docs\nhttps://example.com');
    // Codex's output and an imported transcript's are text already; broken JSON is shown as it is.
    expect(toolOutput('Exit code: 0\nOutput:\nok')).toBeNull();
    expect(toolOutput('{"stdout": "cut by entity-memory')).toBeNull();
    expect(toolOutput('[1, 2]')).toBeNull();
  });
});
