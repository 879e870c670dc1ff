import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitRepo } from '../../src/git/git-repo.js';
import { onGitSpawn } from '../../src/git/run.js';
import { cachedAnswer, clearShaCache, keepAnswer, SHA_CACHE_MAX_BYTES, SHA_CACHE_MAX_ENTRIES, shaCacheSize } from '../../src/git/sha-cache.js';
import { git, tempDir } from './helpers.js';

const userGit = (dir: string, ...args: string[]) => git(dir, '-c', 'user.name=Dana', '-c', 'user.email=dana@example.com', ...args);

/** A repo with two commits of one file, as a user makes them. */
function twoCommits(): { dir: string; first: string; second: string } {
  const dir = tempDir();
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'a.txt'), 'one\n');
  git(dir, 'add', '-A');
  userGit(dir, 'commit', '-q', '-m', 'first');
  const first = git(dir, 'rev-parse', 'HEAD');
  writeFileSync(join(dir, 'a.txt'), 'two\n');
  userGit(dir, 'commit', '-q', '-am', 'second');
  return { dir, first, second: git(dir, 'rev-parse', 'HEAD') };
}

const SUBCOMMANDS = ['log', 'diff-tree', 'rev-parse', 'cat-file'];

/** The git subcommands run while `read` runs. */
async function spawnsOf(read: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const off = onGitSpawn((event) => seen.push(event.argv.find((arg) => SUBCOMMANDS.includes(arg)) ?? event.argv.join(' ')));
  try {
    await read();
  } finally {
    off();
  }
  return seen;
}

describe('answers fixed by a sha (sha-cache.ts)', () => {
  afterEach(clearShaCache);

  it('reads a commit, a diff between two commits and a log from a commit once, and a ref every time', async () => {
    const { dir, first, second } = twoCommits();
    const repo = new GitRepo(dir);
    await repo.gitDirs();
    expect(await spawnsOf(() => repo.commitInfo(second))).toEqual(['log']);
    expect(await spawnsOf(() => repo.commitInfo(second))).toEqual([]);
    expect((await repo.commitInfo(second))?.message).toBe('second\n');

    expect(await spawnsOf(() => repo.diffFilesAndPatches(second, first))).toEqual(['diff-tree']);
    // Each half from the whole, the whole kept.
    expect(await spawnsOf(() => repo.diffFiles(second, first))).toEqual([]);
    expect(await spawnsOf(() => repo.diffPatches(second, first))).toEqual([]);
    expect((await repo.diffFiles(second, first)).map((f) => [f.path, f.additions, f.deletions])).toEqual([['a.txt', 1, 1]]);

    expect(await spawnsOf(() => repo.log({ ref: second, limit: 5 }))).toEqual(['log']);
    expect(await spawnsOf(() => repo.log({ ref: second, limit: 5 }))).toEqual([]);
    // Another page of it is another answer.
    expect(await spawnsOf(() => repo.log({ ref: second, skip: 1, limit: 5 }))).toEqual(['log']);
    // HEAD and branches move: asked again each time.
    expect(await spawnsOf(() => repo.log({ ref: 'HEAD', limit: 5 }))).toEqual(['log']);
    expect(await spawnsOf(() => repo.log({ ref: 'HEAD', limit: 5 }))).toEqual(['log']);
    expect(await spawnsOf(() => repo.log({ ref: 'main', limit: 5 }))).toEqual(['log']);
  });

  it('keeps an answer for its own repo only', async () => {
    const a = twoCommits();
    const b = twoCommits();
    await new GitRepo(a.dir).commitInfo(a.second);
    const other = new GitRepo(b.dir);
    await other.gitDirs();
    // b's repo is asked (and has no such commit, unless the two were made in the same second).
    expect(await spawnsOf(() => other.commitInfo(a.second))).toContain('log');
  });

  it('keeps nothing across a repo made anew at the same path (rebuilt, moved aside, redacted)', async () => {
    const { dir, second } = twoCommits();
    const repo = new GitRepo(dir);
    expect((await repo.commitInfo(second))?.message).toBe('second\n');
    // The repo goes (moved aside, as a rebuild does) and another is made in its place, without that commit.
    renameSync(join(dir, '.git'), join(tempDir(), 'old-git'));
    git(dir, 'init', '-q', '-b', 'main');
    userGit(dir, 'commit', '-q', '--allow-empty', '-m', 'another history');
    const again = new GitRepo(dir);
    await again.gitDirs();
    expect(await spawnsOf(() => again.commitInfo(second))).toContain('log');
    expect(await again.commitInfo(second)).toBeNull();
  });

  it('gives answers no caller can change', async () => {
    const { dir, first, second } = twoCommits();
    const repo = new GitRepo(dir);
    const files = await repo.diffFiles(second, first);
    expect(() => (files as unknown[]).push('x')).toThrow(TypeError);
    const info = (await repo.commitInfo(second))!;
    expect(() => {
      (info.author as { name: string }).name = 'Mallory';
    }).toThrow(TypeError);
    expect((await repo.commitInfo(second))!.author.name).not.toBe('Mallory');
  });

  it('stays within its count and its bytes, the least recently used out first', () => {
    for (let i = 0; i < SHA_CACHE_MAX_ENTRIES + 10; i++) keepAnswer('/repo', `log ${i}`, []);
    expect(shaCacheSize().entries).toBe(SHA_CACHE_MAX_ENTRIES);
    expect(cachedAnswer('/repo', 'log 0')).toBeUndefined();
    expect(cachedAnswer('/repo', `log ${SHA_CACHE_MAX_ENTRIES + 9}`)).toEqual([]);

    clearShaCache();
    // Ten of these fit, with room for their keys; the eleventh pushes one out.
    const patch = 'x'.repeat(SHA_CACHE_MAX_BYTES / 10 - 1000);
    keepAnswer('/repo', 'patches 0', [patch]);
    keepAnswer('/repo', 'patches 1', [patch]);
    // Used again: 0 is now more recent than 1, so 1 goes first.
    cachedAnswer('/repo', 'patches 0');
    for (let i = 2; i <= 10; i++) keepAnswer('/repo', `patches ${i}`, [patch]);
    expect(shaCacheSize()).toEqual({ entries: 10, bytes: expect.any(Number) });
    expect(shaCacheSize().bytes).toBeLessThanOrEqual(SHA_CACHE_MAX_BYTES);
    expect(cachedAnswer('/repo', 'patches 1')).toBeUndefined();
    expect(cachedAnswer('/repo', 'patches 0')).toBeDefined();
    expect(cachedAnswer('/repo', 'patches 10')).toBeDefined();
    // One answer above a quarter of the budget is given, not kept.
    clearShaCache();
    keepAnswer('/repo', 'patches big', ['y'.repeat(SHA_CACHE_MAX_BYTES / 2)]);
    expect(shaCacheSize().entries).toBe(0);
  });
});
