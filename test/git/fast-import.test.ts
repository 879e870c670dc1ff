import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitArgumentError, GitError } from '../../src/git/errors.js';
import { fastImport, fastImportMark, STREAM_BATCH_BYTES, type FastImportCommit } from '../../src/git/fast-import.js';
import { SessionRepo } from '../../src/git/session-repo.js';
import { at, git, tempDir, turn } from './helpers.js';
import { fsck, indexCommitTurn } from './index-commit-oracle.js';

async function newRepo(): Promise<SessionRepo> {
  const repo = new SessionRepo(tempDir());
  await repo.init();
  return repo;
}

/** Turns 1..count on main, each the child of the previous one. */
function* mainLine(count: number): Generator<FastImportCommit> {
  for (let n = 1; n <= count; n++) {
    const t = turn(n);
    yield { branch: 'main', parent: n === 1 ? 'none' : fastImportMark(n - 2), files: t.files, message: t.message, author: at(n) };
  }
}

describe('fastImport', () => {
  it('imports 2,000 turns in seconds, byte-identical to a commit through the index', async () => {
    const imported = await newRepo();
    const started = performance.now();
    const { shas, tips } = await fastImport(imported.dir, mainLine(2000));
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(15_000);
    expect(shas).toHaveLength(2000);
    expect(tips).toEqual(new Map([['main', shas[1999]]]));
    expect(git(imported.dir, 'rev-parse', 'refs/heads/main')).toBe(shas[1999]);
    expect(await imported.countCommits('main')).toBe(2000);
    expect(git(imported.dir, 'ls-tree', '-r', '--name-only', 'main').split('\n')).toHaveLength(10_000);
    expect(git(imported.dir, 'ls-tree', '--name-only', 'main:messages').split('\n')).toEqual(['000', '001', '002', '003', '004', '005', '006', '007', '008', '009', '010']);
    // The marks file is temporary.
    expect(readdirSync(imported.gitDir).filter((f) => f.includes('marks'))).toEqual([]);

    // The same turns, the last 10 through the index (the oracle) on top of an import of the first 1990.
    const mixed = await newRepo();
    const head = await fastImport(mixed.dir, mainLine(1990));
    await mixed.resetWorkingTree();
    expect(git(mixed.dir, 'status', '--porcelain')).toBe('');
    let parent = head.shas[1989]!;
    for (let n = 1991; n <= 2000; n++) {
      const t = turn(n);
      parent = await indexCommitTurn(mixed, { branch: 'main', parent, files: t.files, message: t.message, author: at(n) });
      expect(git(mixed.dir, 'rev-parse', `${parent}^{tree}`)).toBe(git(imported.dir, 'rev-parse', `${shas[n - 1]}^{tree}`));
      expect(parent).toBe(shas[n - 1]);
    }
    expect(head.shas).toEqual(shas.slice(0, 1990));
    expect((await fsck(imported)).ok).toBe(true);
  });

  it('writes branches, retries and orphan roots exactly as a commit through the index does', async () => {
    const byCommit = await newRepo();
    const t1 = turn(1);
    const t2 = turn(2);
    const r2 = turn(2, { salt: 'r' });
    const o1 = turn(1, { salt: 'o' });
    const binary = { path: 'commits/commit_1.bin', content: Buffer.from([0, 1, 2, 255]) };
    const c1 = await indexCommitTurn(byCommit, { branch: 'main', parent: null, files: t1.files, message: t1.message, author: at(1) });
    const c2 = await indexCommitTurn(byCommit, { branch: 'main', parent: c1, files: [...t2.files, binary], message: t2.message, author: at(2) });
    const r = await indexCommitTurn(byCommit, { branch: 'retry-m7r', parent: c1, files: r2.files, message: r2.message, author: at(3), committer: at(4) });
    const o = await indexCommitTurn(byCommit, { branch: 'fork-o', parent: null, files: o1.files, message: 'no newline', author: at(5) });
    const c3 = await indexCommitTurn(byCommit, { branch: 'main', parent: c2, files: [], message: 'empty turn\n', author: at(6) });
    // Git strips "crud" around idents from the environment; fast-import gets the same cleaned values.
    const crud = { name: ' "Agent Inc." ', email: '<agent@example.invalid>;', date: at(7).date };
    const c4 = await indexCommitTurn(byCommit, { branch: 'main', parent: c3, files: [], message: 'crud', author: crud });
    expect(git(byCommit.dir, 'log', '-1', '--format=%an|%ae', c4)).toBe('Agent Inc|agent@example.invalid');

    const imported = await newRepo();
    const result = await fastImport(imported.dir, [
      { branch: 'main', parent: 'none', files: t1.files, message: t1.message, author: at(1) },
      { branch: 'main', parent: ':1', files: [...t2.files, binary], message: t2.message, author: at(2) },
      { branch: 'retry-m7r', parent: ':1', files: r2.files, message: r2.message, author: at(3), committer: at(4) },
      { branch: 'fork-o', parent: 'none', files: o1.files, message: 'no newline', author: at(5) },
      { branch: 'main', parent: ':2', files: [], message: 'empty turn\n', author: at(6) },
      { branch: 'main', parent: ':5', files: [], message: 'crud', author: crud },
    ]);
    expect(result.shas).toEqual([c1, c2, r, o, c3, c4]);
    expect(await imported.branchTips()).toEqual(await byCommit.branchTips());
  });

  it('continues from a commit already in the repo and takes async iterables', async () => {
    const repo = await newRepo();
    const t1 = turn(1);
    const c1 = await indexCommitTurn(repo, { branch: 'main', parent: null, files: t1.files, message: t1.message, author: at(1) });
    async function* more(): AsyncGenerator<FastImportCommit> {
      for (let n = 2; n <= 4; n++) {
        const t = turn(n);
        await new Promise((ok) => setTimeout(ok, 1));
        yield { branch: 'main', parent: n === 2 ? c1 : fastImportMark(n - 3), files: t.files, message: t.message, author: at(n) };
      }
    }
    const { shas } = await fastImport(repo.dir, more());
    expect(git(repo.dir, 'rev-list', 'main')).toBe([...shas].reverse().concat(c1).join('\n'));
    // HEAD already was on main: only the index and working tree lag behind.
    await repo.resetWorkingTree();
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(repo.dir, turn(4).files[4]!.path))).toBe(true);
  });

  it('refuses invalid commits and writes no ref then', async () => {
    const repo = await newRepo();
    const t = turn(1);
    const good: FastImportCommit = { branch: 'main', parent: 'none', files: t.files, message: t.message, author: at(1) };
    for (const bad of [
      [good, { ...good, parent: ':2' }],
      [good, { ...good, parent: 'HEAD' }],
      [good, { ...good, branch: 'feature' }],
      [good, { ...good, files: [{ path: '"x', content: '' }] }],
      [good, { ...good, author: { ...good.author, name: 'a\nb' } }],
    ]) {
      await expect(fastImport(repo.dir, bad)).rejects.toBeInstanceOf(GitArgumentError);
    }
    expect(git(repo.dir, 'for-each-ref')).toBe('');
    expect(readdirSync(repo.gitDir).filter((f) => f.includes('marks'))).toEqual([]);
  });

  it('writes a stream larger than a batch in several, whole; a bad commit after the first batch went out writes no ref', async () => {
    const big = (n: number): FastImportCommit => ({
      branch: 'main',
      parent: n === 1 ? 'none' : fastImportMark(n - 2),
      files: [{ path: `messages/000/${String(n).padStart(6, '0')}-t-big.json`, content: `${n}`.padEnd(1024 * 1024, 'x') }],
      message: `turn ${n}`,
      author: at(n),
    });
    const count = Math.ceil((3 * STREAM_BATCH_BYTES) / (1024 * 1024)) + 1;
    const repo = await newRepo();
    const { shas } = await fastImport(repo.dir, Array.from({ length: count }, (_, i) => big(i + 1)));
    expect(shas).toHaveLength(count);
    expect(git(repo.dir, 'rev-list', '--count', 'main')).toBe(String(count));
    expect(git(repo.dir, 'cat-file', '-s', `main:messages/000/${String(count).padStart(6, '0')}-t-big.json`)).toBe(String(1024 * 1024));

    const cut = await newRepo();
    const commits = Array.from({ length: count }, (_, i) => big(i + 1));
    commits[count - 1] = { ...commits[count - 1]!, parent: 'HEAD' };
    await expect(fastImport(cut.dir, commits)).rejects.toBeInstanceOf(GitArgumentError);
    expect(git(cut.dir, 'for-each-ref')).toBe('');
  });

  it('refuses to rewrite an existing branch unless forced', async () => {
    const repo = await newRepo();
    const t = turn(1);
    await fastImport(repo.dir, [{ branch: 'main', parent: 'none', files: t.files, message: t.message, author: at(1) }]);
    const other = { branch: 'main', parent: 'none', files: t.files, message: 'other root', author: at(2) };
    await expect(fastImport(repo.dir, [other])).rejects.toBeInstanceOf(GitError);
    const { shas } = await fastImport(repo.dir, [other], { force: true });
    expect(git(repo.dir, 'rev-parse', 'main')).toBe(shas[0]);
  });
});
