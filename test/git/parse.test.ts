import { describe, expect, it } from 'vitest';
import type { FileDiff } from '../../src/git/index.js';
import {
  parseIdentity,
  parseLines,
  parseBlamePorcelain,
  parseLog,
  parseLsTree,
  parseNonBlobs,
  parsePatches,
  parseRawDiffPaths,
  parseRawNumstat,
  parseStagedPaths,
  parseStatus,
  parseStatusV2,
  parseTrailers,
  parseTreeListing,
  splitPatch,
} from '../../src/git/parse.js';

/**
 * Gives each file its patch section. Raw and patch output come from the same
 * diff queue, so the n-th section belongs to the n-th file (as commitDiff pairs them).
 */
function attachPatches(files: FileDiff[], patch: string): FileDiff[] {
  const sections = parsePatches(patch);
  if (sections.length !== files.length) throw new Error(`${sections.length} patch sections for ${files.length} files`);
  return files.map((file, n) => ({ ...file, patch: sections[n]! }));
}

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('parseLog', () => {
  it('splits records by field count, so messages may hold any non-NUL byte', () => {
    const msg1 = 'title\n\n\u001e\u001f weird\n%x00\n';
    const msg2 = 'second\n';
    const out =
      [A, B, 'Ann', 'a@x', '1700000000', 'Cy', 'c@x', '1700000001', 'Turn: 2\n', msg1].join('\0') + '\0' +
      [B, '', 'Ann', 'a@x', '1', 'Cy', 'c@x', '2', '', msg2].join('\0') + '\0';
    const commits = parseLog(out);
    expect(commits).toHaveLength(2);
    expect(commits[0]).toMatchObject({ sha: A, parents: [B], message: msg1, trailers: { Turn: '2' } });
    expect(commits[0]!.author.date.toISOString()).toBe('2023-11-14T22:13:20.000Z');
    expect(commits[1]).toMatchObject({ sha: B, parents: [], message: msg2, trailers: {} });
    expect(parseLog('')).toEqual([]);
    expect(() => parseLog('x\0y\0')).toThrow();
  });

  it('parses trailers, last key winning', () => {
    expect(parseTrailers('Session-Id: s\nTurn: 3\nMessage-Ids: a,b, c\nTurn: 4\n')).toEqual({ 'Session-Id': 's', Turn: '4', 'Message-Ids': 'a,b, c' });
  });
});

describe('diff parsing', () => {
  it('pairs raw and numstat entries, renames included', () => {
    const raw =
      `:100644 100644 ${A} ${B} M\0keep.txt\0` +
      `:100644 100644 ${A} ${A} R100\0old name\0new\tname\0` +
      `:000000 100644 ${'0'.repeat(40)} ${B} A\0bin\0` +
      `2\t1\tkeep.txt\0` +
      `0\t0\t\0old name\0new\tname\0` +
      `-\t-\tbin\0`;
    expect(parseRawNumstat(raw)).toEqual([
      { path: 'keep.txt', oldPath: null, status: 'MODIFIED', additions: 2, deletions: 1, patch: null },
      { path: 'new\tname', oldPath: 'old name', status: 'RENAMED', additions: 0, deletions: 0, patch: null },
      { path: 'bin', oldPath: null, status: 'ADDED', additions: 0, deletions: 0, patch: null },
    ]);
    expect(parseRawNumstat('')).toEqual([]);
  });

  it('splits a patch per file and nulls binary sections', () => {
    const patch =
      'diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-diff --git a/y b/y\n+z\n' +
      'diff --git a/bin b/bin\nindex 1..2 100644\nBinary files a/bin and b/bin differ\n';
    expect(splitPatch(patch)).toHaveLength(2);
    const files = attachPatches(
      [
        { path: 'x', oldPath: null, status: 'MODIFIED', additions: 1, deletions: 1, patch: null },
        { path: 'bin', oldPath: null, status: 'MODIFIED', additions: 0, deletions: 0, patch: null },
      ],
      patch,
    );
    expect(files[0]!.patch).toContain('-diff --git a/y b/y\n+z\n');
    expect(files[1]!.patch).toBeNull();
  });
});

describe('parseLsTree', () => {
  it('reads sizes and paths with spaces and tabs, skipping non-blobs', () => {
    const out = `100644 blob ${A}     432\ta b\tc\x00160000 commit ${B}       -\tsub\x00100644 blob ${B}       0\te\0`;
    expect(parseLsTree(out)).toEqual([
      { path: 'a b\tc', size: 432 },
      { path: 'e', size: 0 },
    ]);
  });
});

describe("a user's project: status, identity and listings", () => {
  it('reads porcelain v1 and v2 status byte for byte: branch, staged, HEAD entries, paths with spaces', () => {
    const v1 = '## main...origin/main\0M  staged.txt\0 M with space .txt\0?? new.txt\0';
    expect(parseStatus(v1)).toEqual({ branch: 'main', paths: ['new.txt', 'staged.txt', 'with space .txt'], staged: ['staged.txt'] });
    expect(parseStatus('## No commits yet on trunk\0')).toEqual({ branch: 'trunk', paths: [], staged: [] });
    expect(parseStatus('## HEAD (no branch)\0').branch).toBeNull();
    const v2 = `# branch.oid ${A}\0# branch.head main\0` + `1 .M N... 100644 100644 100644 ${B} ${B} a b.txt\0` + `1 A. N... 000000 100644 100644 ${'0'.repeat(40)} ${B} added.txt\0` + '? new.txt\0';
    const got = parseStatusV2(v2);
    expect(got.headSha).toBe(A);
    expect(got.dirtyPaths).toEqual(['a b.txt', 'added.txt', 'new.txt']);
    expect([...got.headEntries]).toEqual([['a b.txt', { mode: '100644', oid: B }], ['added.txt', null], ['new.txt', null]]);
    expect(parseStatusV2('# branch.oid (initial)\0').headSha).toBeNull();
  });

  it('reads the configured identity (last value winning, both needed) and the listings the plumbing gets back', () => {
    expect(parseIdentity('user.name\nOld\0user.email\nme@x\0user.name\n Ann \0')).toEqual({ name: 'Ann', email: 'me@x' });
    expect(parseIdentity('user.name\nAnn\0')).toBeNull();
    expect(parseTreeListing(`100644 blob ${A}\tdir/a b\x00040000 tree ${B}\td\0`)).toEqual([
      { path: 'dir/a b', entry: { mode: '100644', type: 'blob', oid: A } },
      { path: 'd', entry: { mode: '040000', type: 'tree', oid: B } },
    ]);
    expect(parseRawDiffPaths(`:100644 100644 ${A} ${B} M\0x y\0:000000 100644 ${A} ${B} A\0z\0`)).toEqual(['x y', 'z']);
    expect(parseStagedPaths(`100644 ${A} 0\tone\x00100644 ${B} 0\ttwo\tthree\0`)).toEqual(['one', 'two\tthree']);
    expect(parseNonBlobs(`${A} blob\n${B} missing\n`)).toEqual(new Set([B]));
    expect(parseLines('a\n\nb\n')).toEqual(['a', 'b']);
  });
});

describe('parseBlamePorcelain', () => {
  const A = 'a'.repeat(40);
  const B = 'b'.repeat(40);
  it('gives each commit its runs of lines and their text, in line order', () => {
    const out = [
      `${A} 1 1 2`,
      'author x',
      'summary first',
      'filename f',
      '\tline one',
      `${A} 2 2`,
      '\tline two',
      `${B} 3 3 1`,
      'author y',
      'summary second',
      'filename f',
      // A line whose text looks like a header is text: it comes after a TAB.
      `\t${A} 9 9 9`,
      `${A} 3 4 1`,
      '\tline four',
      '',
    ].join('\n');
    expect(parseBlamePorcelain(out)).toEqual([
      { sha: A, startLine: 1, endLine: 2, lines: ['line one', 'line two'] },
      { sha: B, startLine: 3, endLine: 3, lines: [`${A} 9 9 9`] },
      { sha: A, startLine: 4, endLine: 4, lines: ['line four'] },
    ]);
  });
  it('gives nothing for an empty file', () => {
    expect(parseBlamePorcelain('')).toEqual([]);
  });
});
