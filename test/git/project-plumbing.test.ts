import { chmodSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  captureFileStates,
  compareAndSwapRef,
  entriesAt,
  operationInProgress,
  readHead,
  stagedSince,
  syncIndexPaths,
  updateIndexPaths,
  type FileState,
  type ProjectGitRun,
} from '../../src/git/project-plumbing.js';
import { GitRefConflictError } from '../../src/git/errors.js';
import { ProjectRepo } from '../../src/git/project-repo.js';
import { buildCommit } from '../../src/git/project-tree.js';
import { onGitSpawn, runGit } from '../../src/git/run.js';
import { git, tempDir } from './helpers.js';

/** True when every state equals what `entries` holds for its path (a deletion equals an absent path). */
function sameAs(states: readonly FileState[], entries: ReadonlyMap<string, { mode: string; oid: string }>): boolean {
  return states.every((s) => {
    const e = entries.get(s.path);
    return s.oid === null ? e === undefined : e !== undefined && e.oid === s.oid && e.mode === s.mode;
  });
}

const WHO = { name: 'agent (m via OpenProgram)', email: 'agent@openprogram.invalid' };

function repo(): { dir: string; run: ProjectGitRun } {
  const dir = tempDir('em-plumbing-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'User');
  git(dir, 'config', 'user.email', 'user@example.com');
  writeFileSync(join(dir, 'a.txt'), 'a1\n');
  writeFileSync(join(dir, 'b.txt'), 'b1\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'init');
  const run: ProjectGitRun = (args, opts = {}) => runGit(args, { cwd: dir, input: opts.input, okExitCodes: opts.okExitCodes, env: { ...process.env, ...opts.env } });
  return { dir, run };
}

describe('project plumbing', () => {
  it('captures content at one moment and commits exactly that, whatever the tree holds later', async () => {
    const { dir, run } = repo();
    writeFileSync(join(dir, 'a.txt'), 'agent\n');
    writeFileSync(join(dir, 'new.sh'), '#!/bin/sh\n');
    chmodSync(join(dir, 'new.sh'), 0o755);
    symlinkSync('a.txt', join(dir, 'link'));
    unlinkSync(join(dir, 'b.txt'));
    const states = await captureFileStates(run, dir, join(dir, '.git'), ['a.txt', 'b.txt', 'link', 'new.sh']);
    expect(states.map((s) => [s.path, s.mode])).toEqual([
      ['a.txt', '100644'],
      ['b.txt', null],
      ['link', '120000'],
      ['new.sh', '100755'],
    ]);
    // The user edits after the capture: the commit must not carry it.
    writeFileSync(join(dir, 'a.txt'), 'user later\n');
    const head = await readHead(run);
    expect(head.ref).toBe('refs/heads/main');
    const built = await buildCommit(run, { parent: head.sha, states, message: 'turn 1\n', identity: WHO });
    expect(built.unchanged).toBe(false);
    await compareAndSwapRef(run, 'refs/heads/main', built.sha, head.sha, 'agent');
    await syncIndexPaths(run, head.sha, states);
    expect(git(dir, 'show', 'HEAD:a.txt')).toBe('agent');
    expect(git(dir, 'ls-tree', '--name-only', 'HEAD')).toBe(['a.txt', 'link', 'new.sh'].join('\n'));
    expect(git(dir, 'log', '-1', '--format=%an|%cn')).toBe(`${WHO.name}|${WHO.name}`);
    // Only the user's later edit is left as a change; nothing staged.
    expect(git(dir, 'status', '--porcelain')).toBe(' M a.txt');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('user later\n');
    expect(sameAs(states, await entriesAt(run, 'HEAD', states.map((s) => s.path)))).toBe(true);
  });

  it('hashes as git add would, with the attributes of the top and of every folder on the way (git reads a private copy)', async () => {
    const { dir, run } = repo();
    writeFileSync(join(dir, '.gitattributes'), '*.md text\n');
    mkdirSync(join(dir, 'sub', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'sub', '.gitattributes'), 'deep/*.txt text\n');
    for (const file of ['a.md', 'sub/deep/x.txt', 'sub/y.txt']) writeFileSync(join(dir, file), 'one\r\ntwo\r\n');
    const paths = ['a.md', 'sub/deep/x.txt', 'sub/y.txt'];
    const states = await captureFileStates(run, dir, join(dir, '.git'), paths);
    // git itself, reading the tree: CRLF normalised for the two with the text attribute, kept for the third.
    const expected = git(dir, 'hash-object', ...paths).split('\n');
    expect(states.map((s) => s.oid)).toEqual(expected);
    expect(new Set(expected).size).toBe(2);
  });

  it('leaves out a path beyond a symlinked folder (as git add does), reading nothing through it, and captures the rest', async () => {
    const { dir, run } = repo();
    const outside = tempDir('em-plumbing-outside-');
    writeFileSync(join(outside, 'x.txt'), 'outside secret\n');
    symlinkSync(outside, join(dir, 'linked'));
    writeFileSync(join(dir, 'a.txt'), 'agent\n');
    const states = await captureFileStates(run, dir, join(dir, '.git'), ['a.txt', 'linked/x.txt']);
    expect(states.map((s) => s.path)).toEqual(['a.txt']);
    expect((await run(['cat-file', '--batch-all-objects', '--batch'])).stdout.includes('outside secret')).toBe(false);
  });

  it('refuses to move a branch that moved meanwhile', async () => {
    const { dir, run } = repo();
    const head = await readHead(run);
    writeFileSync(join(dir, 'a.txt'), 'agent\n');
    const states = await captureFileStates(run, dir, join(dir, '.git'), ['a.txt']);
    const built = await buildCommit(run, { parent: head.sha, states, message: 'x\n', identity: WHO });
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'user moved on');
    await expect(compareAndSwapRef(run, 'refs/heads/main', built.sha, head.sha, 'agent')).rejects.toBeInstanceOf(GitRefConflictError);
  });

  it('leaves an entry the user staged since alone', async () => {
    const { dir, run } = repo();
    const head = await readHead(run);
    writeFileSync(join(dir, 'a.txt'), 'agent\n');
    const states = await captureFileStates(run, dir, join(dir, '.git'), ['a.txt']);
    writeFileSync(join(dir, 'a.txt'), 'user staged\n');
    git(dir, 'add', 'a.txt');
    const built = await buildCommit(run, { parent: head.sha, states, message: 'x\n', identity: WHO });
    await compareAndSwapRef(run, 'refs/heads/main', built.sha, head.sha, 'agent');
    await syncIndexPaths(run, head.sha, states);
    expect(git(dir, 'show', ':a.txt')).toBe('user staged');
  });

  it("reads what the user staged while the commit is built, and after the branch moved updates only the rest (the committer's order)", async () => {
    const { dir, run } = repo();
    const head = await readHead(run);
    writeFileSync(join(dir, 'a.txt'), 'agent a\n');
    writeFileSync(join(dir, 'b.txt'), 'agent b\n');
    const states = await captureFileStates(run, dir, join(dir, '.git'), ['a.txt', 'b.txt']);
    writeFileSync(join(dir, 'a.txt'), 'user staged\n');
    git(dir, 'add', 'a.txt');
    const staged = stagedSince(run, head.sha, ['a.txt', 'b.txt']);
    const built = await buildCommit(run, { parent: head.sha, states, message: 'x\n', identity: WHO });
    await compareAndSwapRef(run, 'refs/heads/main', built.sha, head.sha, 'agent');
    expect([...(await staged)]).toEqual(['a.txt']);
    await updateIndexPaths(run, states, await staged);
    expect(git(dir, 'show', ':a.txt')).toBe('user staged');
    expect(git(dir, 'show', ':b.txt')).toBe('agent b');
    expect(git(dir, 'status', '--porcelain')).toBe('M  a.txt');
  });

  it('names the operation in progress, and sees none in a quiet repo', async () => {
    const { dir, run } = repo();
    expect(await operationInProgress(run, dir)).toBeNull();
    git(dir, 'checkout', '-q', '-b', 'side');
    writeFileSync(join(dir, 'a.txt'), 'side\n');
    git(dir, 'commit', '-q', '-am', 'side');
    git(dir, 'checkout', '-q', 'main');
    writeFileSync(join(dir, 'b.txt'), 'main\n');
    git(dir, 'commit', '-q', '-am', 'main');
    git(dir, 'merge', '--no-commit', '--no-ff', '-q', 'side');
    expect(await operationInProgress(run, dir)).toBe('a merge is in progress');
    git(dir, 'merge', '--abort');
    git(dir, 'bisect', 'start');
    expect(await operationInProgress(run, dir)).toBe('a bisect is in progress');
    git(dir, 'bisect', 'reset');
    git(dir, 'checkout', '-q', '--detach');
    expect((await readHead(run)).ref).toBeNull();
  });
});

describe('ProjectRepo.dirtyAmong', () => {
  it('answers for the given paths only, literally, and runs no git for none', async () => {
    const { dir } = repo();
    mkdirSync(join(dir, 'd'));
    writeFileSync(join(dir, 'a.txt'), 'changed\n');
    writeFileSync(join(dir, 'b.txt'), 'changed too\n');
    writeFileSync(join(dir, 'd', 'new.txt'), 'untracked\n');
    writeFileSync(join(dir, '*.txt'), 'a file named like a glob\n');
    const repo2 = new ProjectRepo(dir);
    expect(await repo2.dirtyAmong(['a.txt', 'd/new.txt', 'clean-or-absent.txt'])).toEqual(['a.txt', 'd/new.txt']);
    // '*.txt' names that one file, never every .txt; ':(glob)' and '-' stay paths too.
    expect(await repo2.dirtyAmong(['*.txt'])).toEqual(['*.txt']);
    expect(await repo2.dirtyAmong([':(glob)**', '--porcelain'])).toEqual([]);
    let spawned = 0;
    const off = onGitSpawn(() => spawned++);
    try {
      expect(await repo2.dirtyAmong([])).toEqual([]);
    } finally {
      off();
    }
    expect(spawned).toBe(0);
    expect((await repo2.status()).dirtyPaths.sort()).toEqual(['*.txt', 'a.txt', 'b.txt', 'd/new.txt']);
  });
});

describe('ProjectRepo.statusWithHead', () => {
  it("gives the dirty paths as status does and HEAD's entries for them as ls-tree does", async () => {
    const { dir, run } = repo();
    mkdirSync(join(dir, 'd d'));
    writeFileSync(join(dir, 'd d', 'x y.sh'), 'tracked\n');
    chmodSync(join(dir, 'd d', 'x y.sh'), 0o755);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'two');
    writeFileSync(join(dir, 'a.txt'), 'modified\n');
    unlinkSync(join(dir, 'b.txt'));
    writeFileSync(join(dir, 'd d', 'x y.sh'), 'modified too\n');
    writeFileSync(join(dir, 'staged-new.txt'), 'new\n');
    git(dir, 'add', 'staged-new.txt');
    writeFileSync(join(dir, 'untracked.txt'), 'u\n');
    const project = new ProjectRepo(dir);
    const got = await project.statusWithHead();
    expect(got.headSha).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(got.dirtyPaths).toEqual((await project.status()).dirtyPaths);
    expect(got.dirtyPaths).toEqual(['a.txt', 'b.txt', 'd d/x y.sh', 'staged-new.txt', 'untracked.txt']);
    const inHead = await entriesAt(run, got.headSha, got.dirtyPaths);
    for (const path of got.dirtyPaths) expect(got.headEntries.get(path) ?? null, path).toEqual(inHead.get(path) ?? null);
    expect(got.headEntries.get('d d/x y.sh')?.mode).toBe('100755');
    expect(got.headEntries.has('untracked.txt')).toBe(true);
  });

  it('has no HEAD before the first commit', async () => {
    const dir = tempDir('em-plumbing-unborn-');
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'f.txt'), 'f\n');
    const got = await new ProjectRepo(dir).statusWithHead();
    expect(got).toEqual({ headSha: null, dirtyPaths: ['f.txt'], headEntries: new Map([['f.txt', null]]) });
  });
});
