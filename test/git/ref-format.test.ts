import { execFile } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refFormatProblem, type RefFormatOptions, type RefFormatRule } from '../../src/git/ref-format.js';

/** True when git accepts `name` as a ref name, by our reading of its rules. */
function isValidRefName(name: string, options: RefFormatOptions = {}): boolean {
  return refFormatProblem(name, options) === null;
}

/** The real `git check-ref-format`: true when it exits 0. */
function gitAccepts(name: string, allowOneLevel: boolean): Promise<boolean> {
  const args = ['check-ref-format', ...(allowOneLevel ? ['--allow-onelevel'] : []), name];
  return new Promise((resolve, reject) => {
    execFile('git', args, { env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }, (error) => {
      if (!error) return resolve(true);
      // 1 is "not a valid ref name"; anything else (a usage error, 129) is the test's fault.
      if (error.code === 1) return resolve(false);
      reject(error);
    });
  });
}

/** Runs `work` over `items`, at most `limit` at a time, keeping order. */
async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

/**
 * Pieces names are built from: every character git treats specially, the
 * sequences its rules look for, and ordinary and non-ASCII text, so about
 * half the names come out valid.
 */
const PIECES = [
  'a', 'b', 'Z', '0', '-', '_', 'lock', 'HEAD', 'refs/', 'heads/', 'é', '日本', '😀',
  '.', '..', '.lock', '/', '//', '@', '@{', '{', '}', ']',
  '~', '^', ':', '?', '*', '[', '\\', ' ', '\t', '\x01', '\x1f', '\x7f', '\u0085',
];
const plain = fc.constantFrom('a', 'b', 'Z', '0', '-', '_', 'lock', 'é', 'refs/', 'heads/', 'x/', 'a.', '.a');
const names = fc
  .array(fc.oneof({ weight: 4, arbitrary: plain }, { weight: 1, arbitrary: fc.constantFrom(...PIECES) }), { minLength: 1, maxLength: 7 })
  .map((parts) => parts.join(''))
  // git's command line reads a leading '-' as an option and has no "--": not comparable there.
  .filter((name) => !name.startsWith('-'));

describe('refFormatProblem', () => {
  it('names the rule each of these breaks, and accepts the rest', () => {
    const table: [string, RefFormatRule | null][] = [
      ['refs/heads/main', null],
      ['refs/heads/retry-x..y', 'double-dot'],
      ['refs/heads/retry-z.lock', 'lock-suffix'],
      ['refs/heads/retry-w.', 'trailing-dot'],
      ['refs/entity-memory/snapshots/z.lock/turn-1', 'lock-suffix'],
      ['refs/entity-memory/snapshots/x..y/turn-1', 'double-dot'],
      // A dot may end a part that is not the last one.
      ['refs/entity-memory/snapshots/w./turn-1', null],
      ['refs/heads/.hidden', 'leading-dot'],
      ['refs/heads/a.lock.b', null],
      ['refs//heads', 'empty-component'],
      ['/refs/heads', 'empty-component'],
      ['refs/heads/', 'empty-component'],
      ['refs/heads/a@{1}', 'at-brace'],
      ['refs/heads/@', null],
      ['@', 'at-sign'],
      ['', 'empty'],
      ['main', 'one-level'],
      ['refs/heads/a b', 'forbidden-character'],
      ['refs/heads/a\u0000b', 'forbidden-character'],
      ['refs/heads/a\tb', 'forbidden-character'],
      ['refs/heads/a\x7f', 'forbidden-character'],
      ['refs/heads/a~1', 'forbidden-character'],
      ['refs/heads/a^', 'forbidden-character'],
      ['refs/heads/a:b', 'forbidden-character'],
      ['refs/heads/a?', 'forbidden-character'],
      ['refs/heads/a*', 'forbidden-character'],
      ['refs/heads/a[b', 'forbidden-character'],
      ['refs/heads/a\\b', 'forbidden-character'],
      ['refs/heads/日本語-😀', null],
      ['refs/heads/a]b}c{d', null],
    ];
    for (const [name, rule] of table) {
      expect({ name, rule: refFormatProblem(name)?.rule ?? null }).toEqual({ name, rule });
    }
    expect(refFormatProblem('main', { allowOneLevel: true })).toBeNull();
    expect(refFormatProblem('refs/heads/retry-x..y')?.message).toBe('contains ".."');
    expect(refFormatProblem('refs/heads/a\u0000b')?.message).toBe('contains the control character U+0000');
  });

  it('agrees with the table above as git check-ref-format reads it', async () => {
    const names = ['refs/heads/retry-x..y', 'refs/heads/retry-z.lock', 'refs/heads/retry-w.', 'refs/x./y', 'refs/heads/@', '@', 'main', 'refs/a@{b', 'refs//a'];
    const expected = names.map((name) => isValidRefName(name));
    expect(await mapLimited(names, 4, (name) => gitAccepts(name, false))).toEqual(expected);
  });

  it('agrees with the real git check-ref-format on 400 generated names, with and without --allow-onelevel', async () => {
    const generated = [...new Set(fc.sample(names, { numRuns: 600, seed: 20260510 }))].slice(0, 400);
    expect(generated.length).toBe(400);
    const cases = generated.flatMap((name) => [
      { name, allowOneLevel: false },
      { name, allowOneLevel: true },
    ]);
    const git = await mapLimited(cases, 8, (c) => gitAccepts(c.name, c.allowOneLevel));
    const ours = cases.map((c) => isValidRefName(c.name, { allowOneLevel: c.allowOneLevel }));
    const disagreements = cases.map((c, i) => ({ ...c, git: git[i], ours: ours[i] })).filter((c) => c.git !== c.ours);
    expect(disagreements).toEqual([]);
    // Valid names and each rule (but the two single names, '' and '@') occur often enough to mean something.
    const seen = new Map<string, number>();
    for (const c of cases) {
      const rule = refFormatProblem(c.name, { allowOneLevel: c.allowOneLevel })?.rule ?? 'valid';
      seen.set(rule, (seen.get(rule) ?? 0) + 1);
    }
    const rules: (RefFormatRule | 'valid')[] = ['valid', 'forbidden-character', 'double-dot', 'at-brace', 'empty-component', 'leading-dot', 'lock-suffix', 'trailing-dot', 'one-level'];
    for (const rule of rules) expect({ rule, count: Math.min(seen.get(rule) ?? 0, 5) }).toEqual({ rule, count: 5 });
  });
});
