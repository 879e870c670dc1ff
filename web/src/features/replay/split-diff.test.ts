import { describe, expect, it } from 'vitest';
import { splitRows } from './split-diff';

const cell = (kind: string, number: number | null, text: string) => ({ kind, number, text });

describe('splitRows', () => {
  it('pairs removed lines with the added lines that replace them, numbers from the hunk header', () => {
    const patch = [
      'diff --git a/src/price.js b/src/price.js',
      'index 1111111..2222222 100644',
      '--- a/src/price.js',
      '+++ b/src/price.js',
      '@@ -3,4 +3,5 @@ export const x = 1;',
      ' const a = 1;',
      '-const b = 2;',
      '-const c = 3;',
      '+const b = 20;',
      ' const d = 4;',
      '+const e = 5;',
      '\\ No newline at end of file',
      '',
    ].join('\n');
    const rows = splitRows(patch);
    expect(rows[0]!.left).toEqual(cell('hunk', null, '@@ -3,4 +3,5 @@ export const x = 1;'));
    expect(rows.slice(1)).toEqual([
      { left: cell('ctx', 3, 'const a = 1;'), right: cell('ctx', 3, 'const a = 1;') },
      { left: cell('del', 4, 'const b = 2;'), right: cell('add', 4, 'const b = 20;') },
      { left: cell('del', 5, 'const c = 3;'), right: null },
      { left: cell('ctx', 6, 'const d = 4;'), right: cell('ctx', 5, 'const d = 4;') },
      { left: null, right: cell('add', 6, 'const e = 5;') },
    ]);
  });

  it('reads a patch without file headers, and a new file with only additions', () => {
    expect(splitRows('@@ -0,0 +1,2 @@\n+one\n+two\n').slice(1)).toEqual([
      { left: null, right: cell('add', 1, 'one') },
      { left: null, right: cell('add', 2, 'two') },
    ]);
  });
});
