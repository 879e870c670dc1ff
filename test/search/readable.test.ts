/**
 * What a search hit shows of a message stored as JSON (a hooked tool's result, the tool calls'
 * inputs): its string values, one a line, ids left out; JSON too long to parse keeps its text with
 * its escapes undone; other text as it is. At most what the index reads of a text.
 */
import { describe, expect, it } from 'vitest';
import { readableText } from '../../src/services/search/readable.js';
import { INDEXED_LENGTH } from '../../src/services/search/snippet.js';

describe('readableText', () => {
  it("shows JSON as its string values, one a line, in order, without ids, numbers or booleans", () => {
    const stored = JSON.stringify({ toolCalls: [{ id: 'toolu_1', name: 'Bash', input: { command: 'cargo build\ncargo test', description: '' } }], responseId: 'msg_1', exitCode: 1, ok: false });
    expect(readableText(stored)).toBe('Bash\ncargo build\ncargo test');
  });

  it('undoes the escapes of JSON too long to parse, and leaves other text as it is', () => {
    const long = JSON.stringify({ stdout: `first line\nerror: "quoted" C:\\new\\dir\n${'x'.repeat(3 * INDEXED_LENGTH)}` });
    const shown = readableText(long);
    expect(shown.startsWith('{"stdout":"first line\nerror: "quoted" C:\\new\\dir\n')).toBe(true);
    // The first INDEXED_LENGTH characters as stored, each of their six escapes one character now.
    expect(shown).toHaveLength(INDEXED_LENGTH - 6);
    expect(readableText('[WIP] not JSON: a\\nb')).toBe('[WIP] not JSON: a\nb');
    expect(readableText('Plain text with a literal \\n stays')).toBe('Plain text with a literal \\n stays');
  });
});
