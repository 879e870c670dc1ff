import { describe, expect, it } from 'vitest';
import { assertRepoPath } from '../../src/git/commit-input.js';
import { GitArgumentError } from '../../src/git/errors.js';
import { assertRev, assertSha, isFullSha, isShaPrefix, isValidBranchName } from '../../src/git/refs.js';

describe('isValidBranchName', () => {
  it('accepts only main, retry-<id> and fork-<id>', () => {
    for (const ok of ['main', 'retry-abc123', 'fork-fc_x', 'retry-A.b-c_d', `fork-${'x'.repeat(128)}`, 'retry-9']) {
      expect(isValidBranchName(ok), ok).toBe(true);
    }
    for (const bad of [
      '',
      'master',
      'Main',
      'main2',
      'retry-',
      'fork-.x',
      'fork--x',
      'fork-_x',
      'retry-a..b',
      'retry-a.lock',
      'fork-a.',
      'retry-a/b',
      'retry-a b',
      'retry-a@{1}',
      'retry-a~1',
      'retry-a^',
      'retry-a:b',
      'retry-é',
      '-main',
      'HEAD',
      'refs/heads/main',
      `fork-${'x'.repeat(129)}`,
      42,
      null,
    ]) {
      expect(isValidBranchName(bad), String(bad)).toBe(false);
    }
  });
});

describe('sha checks', () => {
  it('accepts 7–40 or 64 hex digits in either case', () => {
    expect(isShaPrefix('abcdef0')).toBe(true);
    expect(isShaPrefix('ABCDEF0123')).toBe(true);
    expect(isShaPrefix('a'.repeat(40))).toBe(true);
    expect(isShaPrefix('a'.repeat(64))).toBe(true);
    expect(isShaPrefix('abcdef')).toBe(false);
    expect(isShaPrefix('a'.repeat(41))).toBe(false);
    expect(isShaPrefix('abcdefg')).toBe(false);
    expect(isShaPrefix('--all')).toBe(false);
    expect(isShaPrefix('abcdef0^{tree}')).toBe(false);
    expect(isFullSha('a'.repeat(40))).toBe(true);
    expect(isFullSha('a'.repeat(39))).toBe(false);
    expect(() => assertSha('HEAD~1')).toThrow(GitArgumentError);
    expect(() => assertSha('abcdef0')).not.toThrow();
  });

  it('qualifies branch revisions and refuses anything else', () => {
    expect(assertRev('main')).toBe('refs/heads/main');
    expect(assertRev('HEAD')).toBe('HEAD');
    expect(assertRev('abcdef0')).toBe('abcdef0');
    for (const bad of ['HEAD~1', 'main^', '--all', '@', 'main..retry-x', '']) expect(() => assertRev(bad)).toThrow(GitArgumentError);
  });
});

describe('assertRepoPath', () => {
  it('accepts plain relative paths only', () => {
    for (const ok of ['meta.json', 'messages/000/000001-u-abc.json', 'commits/commit_1.json', 'a b/ü.json', 'x/.hidden']) {
      expect(() => assertRepoPath(ok), ok).not.toThrow();
    }
    for (const bad of ['', '/abs', 'a//b', 'a/', './a', 'a/../b', '..', '.git', 'x/.GIT/y', 'a\nb', 'a\0b', '"quoted', 'a\\b']) {
      expect(() => assertRepoPath(bad), JSON.stringify(bad)).toThrow(GitArgumentError);
    }
  });
});
