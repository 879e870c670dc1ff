import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import isomorphicGit from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import {
  GitArgumentError,
  GitError,
  GitLockedError,
  GitObjectNotFoundError,
  GitRefConflictError,
} from '../../src/git/errors.js';
import { gitEnv, onGitSpawn, type GitSpawnEvent } from '../../src/git/run.js';
import { SESSION_REPO_CONFIG, SessionRepo } from '../../src/git/session-repo.js';
import { ALICE, at, git, tempDir, turn } from './helpers.js';
import { fsck } from './index-commit-oracle.js';
import { commitDiff, commitTrailers, createBranch, trailerCommits } from './session-repo-probes.js';

/** The git subcommands spawned while `fn` runs. */
async function spawnsDuring<T>(fn: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
  const events: GitSpawnEvent[] = [];
  const off = onGitSpawn((e) => events.push(e));
  try {
    const result = await fn();
    return { result, commands: events.map((e) => subcommand(e.argv)) };
  } finally {
    off();
  }
}

function subcommand(argv: string[]): string {
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === '-c') i++;
    else if (!argv[i]!.startsWith('-')) return argv[i]!;
  }
  return '';
}

function sharedIndexFiles(repo: SessionRepo): string[] {
  return readdirSync(repo.gitDir).filter((name) => name.startsWith('sharedindex.'));
}

/** The version in `.git/index`'s header. */
function indexVersion(repo: SessionRepo): number {
  return readFileSync(join(repo.gitDir, 'index')).readUInt32BE(4);
}

/** Paths isomorphic-git's status reports as anything but unmodified (HEAD, working tree and index alike). */
async function changedForIsomorphicGit(dir: string): Promise<string[]> {
  const matrix = await isomorphicGit.statusMatrix({ fs, dir });
  return matrix.filter(([, head, workdir, stage]) => !(head === 1 && workdir === 1 && stage === 1)).map(([path]) => path);
}

async function newRepo(): Promise<SessionRepo> {
  const repo = new SessionRepo(join(tempDir(), 'sessions', 'sess-1'));
  await repo.init();
  return repo;
}

async function commitTurns(repo: SessionRepo, from: number, to: number, branch = 'main', parent: string | null = null) {
  const shas: string[] = [];
  let tip = parent;
  for (let n = from; n <= to; n++) {
    const t = turn(n);
    tip = (await repo.commitTurn({ branch, parent: tip, files: t.files, message: t.message, author: at(n) })).sha;
    shas.push(tip);
  }
  return shas;
}

describe('SessionRepo.init', () => {
  it('creates a repo on an unborn main with the session config, and is idempotent', async () => {
    const repo = await newRepo();
    expect(git(repo.dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(git(repo.dir, 'config', 'core.splitIndex')).toBe('false');
    expect(git(repo.dir, 'config', 'index.version')).toBe('2');
    expect(git(repo.dir, 'config', 'index.skipHash')).toBe('false');
    expect(git(repo.dir, 'config', 'core.hooksPath')).toBe('/dev/null');
    expect(git(repo.dir, 'config', 'gc.auto')).toBe('0');
    expect(git(repo.dir, 'config', 'core.fsync')).toBe('objects,derived-metadata,reference');
    expect(await repo.headState()).toEqual({ branch: 'main', sha: null });
    // No template: no sample hooks, description or info/exclude (a disk block each, in every repo).
    expect(readdirSync(join(repo.dir, '.git')).sort()).toEqual(['HEAD', 'config', 'objects', 'refs']);

    const { commands } = await spawnsDuring(() => repo.init());
    expect(commands).toEqual(['config']); // one `config --list`, nothing to rewrite
    git(repo.dir, 'config', 'gc.auto', '50');
    await repo.init();
    expect(git(repo.dir, 'config', 'gc.auto')).toBe('0');
  });

  it('rewrites a split index an older version left, once, so other git implementations read the repo clean', async () => {
    const repo = await newRepo();
    git(repo.dir, 'config', 'core.splitIndex', 'true'); // how session repos were made before
    const [, , tip] = await commitTurns(repo, 1, 3);
    expect(sharedIndexFiles(repo)).not.toEqual([]);
    expect(await changedForIsomorphicGit(repo.dir)).not.toEqual([]); // the misread: files shown as changed or deleted

    const { result, commands } = await spawnsDuring(() => repo.init());
    expect(commands).toEqual(['config', 'config', 'update-index']);
    expect(git(repo.dir, 'config', 'core.splitIndex')).toBe('false');
    expect(sharedIndexFiles(repo)).toEqual([]);
    expect(indexVersion(repo)).toBe(2);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    expect(await changedForIsomorphicGit(repo.dir)).toEqual([]);
    expect(result).toBeUndefined();

    // Commits after it keep one plain index; a second init has nothing to do.
    await commitTurns(repo, 4, 5, 'main', tip!);
    expect(sharedIndexFiles(repo)).toEqual([]);
    expect(await changedForIsomorphicGit(repo.dir)).toEqual([]);
    expect((await spawnsDuring(() => repo.init())).commands).toEqual(['config']);
    expect(await repo.plainIndex()).toBe(false);
  });

  it('rewrites an index of version 4 as version 2, and keeps a person’s global config from splitting it again', async () => {
    const repo = await newRepo();
    const [tip] = await commitTurns(repo, 1, 1);
    git(repo.dir, 'update-index', '--index-version', '4');
    expect(indexVersion(repo)).toBe(4);
    expect(await repo.plainIndex()).toBe(true);
    expect(indexVersion(repo)).toBe(2);
    expect(await changedForIsomorphicGit(repo.dir)).toEqual([]);

    // A person's git in the repo, under a global config that splits indexes and asks for v4.
    const global = join(tempDir(), 'gitconfig');
    writeFileSync(global, '[core]\n\tsplitIndex = true\n[feature]\n\tmanyFiles = true\n[index]\n\tversion = 4\n');
    // A changed mtime makes `git status` write the refreshed index (split, without the repo's own key).
    utimesSync(join(repo.dir, turn(1).files[0]!.path), new Date('2020-01-01'), new Date('2020-01-01'));
    execFileSync('git', ['status', '--porcelain'], { cwd: repo.dir, env: { ...gitEnv(), GIT_CONFIG_GLOBAL: global } });
    expect(sharedIndexFiles(repo)).toEqual([]);
    await commitTurns(repo, 2, 2, 'main', tip!);
    expect(sharedIndexFiles(repo)).toEqual([]);
    expect(indexVersion(repo)).toBe(2);
    expect(await changedForIsomorphicGit(repo.dir)).toEqual([]);
  });

  it('says so when the folder is not a repo yet', async () => {
    const repo = new SessionRepo(tempDir());
    const error = await repo.headState().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toContain('call init() first');
  });

  it('reads empty history without failing', async () => {
    const repo = await newRepo();
    expect(await repo.log({ limit: 10 })).toEqual([]);
    expect(await repo.countCommits('HEAD')).toBe(0);
    expect(await repo.countCommits({ all: true })).toBe(0);
    expect(await trailerCommits(repo, 'HEAD')).toEqual([]);
    expect(await repo.branchTips()).toEqual(new Map());
  });
});

describe('SessionRepo.commitTurn', () => {
  it('writes the files, identities, dates and message exactly', async () => {
    const repo = await newRepo();
    const t = turn(1);
    const author = { name: 'agent (gpt-x via OpenProgram)', email: 'agent@openprogram.invalid', date: new Date('2026-05-01T12:00:00.900Z') };
    const committer = { name: 'Entity Memory', email: 'server@openprogram.invalid', date: new Date('2026-05-01T12:00:05Z') };
    const { sha, checkedOut } = await repo.commitTurn({ branch: 'main', parent: null, files: t.files, message: t.message, author, committer });

    expect(checkedOut).toBe(true);
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(git(repo.dir, 'rev-parse', 'refs/heads/main')).toBe(sha);
    const raw = git(repo.dir, 'cat-file', 'commit', sha);
    expect(raw).toContain('\nauthor agent (gpt-x via OpenProgram) <agent@openprogram.invalid> 1777636800 +0000\n');
    expect(raw).toContain('\ncommitter Entity Memory <server@openprogram.invalid> 1777636805 +0000\n');
    expect(raw).not.toContain('\nparent ');
    expect(raw.slice(raw.indexOf('\n\n') + 2)).toBe(t.message.trimEnd());

    expect(git(repo.dir, 'ls-tree', '-r', '--name-only', sha).split('\n')).toEqual(t.files.map((f) => f.path));
    for (const f of t.files) {
      expect(git(repo.dir, 'show', `${sha}:${f.path}`) + '\n').toBe(f.content);
      expect(readFileSync(join(repo.dir, f.path), 'utf8')).toBe(f.content);
    }
    expect(git(repo.dir, 'log', '-1', '--format=%(trailers:key=Turn,valueonly)')).toBe('1');
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    expect(await repo.headState()).toEqual({ branch: 'main', sha });

    const [info] = await repo.log({ limit: 1 });
    expect(info).toEqual({
      sha,
      parents: [],
      author: { name: author.name, email: author.email, date: new Date('2026-05-01T12:00:00Z') },
      committer: { name: committer.name, email: committer.email, date: committer.date },
      message: t.message,
      trailers: { 'Session-Id': 'sess-1', Turn: '1', 'Message-Ids': t.ids.join(',') },
    });
  });

  it('needs one fast-import and one update-index when HEAD is on the branch at the parent', async () => {
    const repo = await newRepo();
    const [first] = await commitTurns(repo, 1, 1);
    const t = turn(2);
    const { result, commands } = await spawnsDuring(() =>
      repo.commitTurn({ branch: 'main', parent: first!, files: t.files, message: t.message, author: at(2) }),
    );
    const second = result.sha;
    expect(commands).toEqual(['fast-import', 'update-index']);
    expect(git(repo.dir, 'rev-parse', 'HEAD^')).toBe(first);
    expect(git(repo.dir, 'rev-parse', 'HEAD')).toBe(second);
    expect(git(repo.dir, 'ls-files').split('\n')).toHaveLength(10);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  });

  it('also takes the 2-spawn path for the first commit of a fresh repo', async () => {
    const repo = await newRepo();
    const t = turn(1);
    const { commands } = await spawnsDuring(() =>
      repo.commitTurn({ branch: 'main', parent: null, files: t.files, message: t.message, author: ALICE }),
    );
    expect(commands).toEqual(['fast-import', 'update-index']);
  });

  it('grows a retry branch from an older commit without touching the checkout, which checkoutBranch then moves', async () => {
    const repo = await newRepo();
    const [c1, c2] = await commitTurns(repo, 1, 2);
    const replaced = turn(2).files;
    const retry = turn(2, { salt: 'r' });

    const { result, commands } = await spawnsDuring(() =>
      repo.commitTurn({ branch: 'retry-m7r', parent: c1!, files: retry.files, message: retry.message, author: at(3) }),
    );
    const r = result.sha;
    expect(commands).toEqual(['fast-import']);
    expect(result.checkedOut).toBe(false);
    expect(await repo.headState()).toEqual({ branch: 'main', sha: c2 });
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');

    await repo.checkoutBranch('retry-m7r');
    expect(git(repo.dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/retry-m7r');
    expect(git(repo.dir, 'rev-parse', 'retry-m7r^')).toBe(c1);
    expect(git(repo.dir, 'rev-parse', 'main')).toBe(c2);
    for (const f of replaced) expect(existsSync(join(repo.dir, f.path))).toBe(false);
    for (const f of [...turn(1).files, ...retry.files]) expect(existsSync(join(repo.dir, f.path))).toBe(true);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');

    // Back to main at its tip: the working tree follows.
    await repo.checkoutBranch('main');
    const t3 = turn(3);
    const { sha: c3 } = await repo.commitTurn({ branch: 'main', parent: c2!, files: t3.files, message: t3.message, author: at(4) });
    expect(git(repo.dir, 'ls-tree', '-r', '--name-only', c3).split('\n')).toHaveLength(15);
    for (const f of retry.files) expect(existsSync(join(repo.dir, f.path))).toBe(false);
    expect(await repo.branchTips()).toEqual(new Map([['main', c3], ['retry-m7r', r]]));
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  });

  it('creates an orphan root on a new branch with only the new files', async () => {
    const repo = await newRepo();
    await commitTurns(repo, 1, 2);
    const t = turn(1, { salt: 'o' });
    const { sha: root, checkedOut } = await repo.commitTurn({ branch: 'fork-abc', parent: null, files: t.files, message: t.message, author: ALICE });
    expect(checkedOut).toBe(false);
    expect(git(repo.dir, 'rev-list', '--parents', '-n1', root)).toBe(root);
    await repo.checkoutBranch('fork-abc');
    expect(git(repo.dir, 'ls-files').split('\n')).toEqual(t.files.map((f) => f.path));
    expect(await repo.headState()).toEqual({ branch: 'fork-abc', sha: root });
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  });

  it('refuses a stale parent or an existing branch for a root, changing nothing', async () => {
    const repo = await newRepo();
    const [c1, c2] = await commitTurns(repo, 1, 2);
    const t = turn(3);
    const spec = { branch: 'main', files: t.files, message: t.message, author: at(3) };
    await expect(repo.commitTurn({ ...spec, parent: c1! })).rejects.toBeInstanceOf(GitRefConflictError);
    await expect(repo.commitTurn({ ...spec, parent: null })).rejects.toBeInstanceOf(GitRefConflictError);
    expect(git(repo.dir, 'rev-parse', 'HEAD')).toBe(c2);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  });

  it('leaves a branch another writer moved during the commit where that writer put it', async () => {
    const repo = await newRepo();
    const [c1] = await commitTurns(repo, 1, 1);
    const t = turn(2);
    // Another writer moves main (to a commit that does not descend from c1) between our read of the tip and fast-import.
    let moved = '';
    const off = onGitSpawn((e) => {
      if (subcommand(e.argv) !== 'fast-import') return;
      moved = git(repo.dir, '-c', 'user.name=T', '-c', 'user.email=t@t', 'commit-tree', '-m', 'x', `${c1}^{tree}`);
      git(repo.dir, 'update-ref', 'refs/heads/main', moved);
    });
    try {
      await expect(
        repo.commitTurn({ branch: 'main', parent: c1!, files: t.files, message: t.message, author: at(2) }),
      ).rejects.toBeInstanceOf(GitError);
    } finally {
      off();
    }
    // fast-import never moves a branch to a commit that does not contain its tip; nothing was staged.
    expect(git(repo.dir, 'rev-parse', 'refs/heads/main')).toBe(moved);
    expect(git(repo.dir, 'diff', '--cached', '--name-only', moved)).toBe('');
  });

  it('refuses invalid branch names, parents, paths and identities before spawning anything', async () => {
    const repo = await newRepo();
    const t = turn(1);
    const base = { branch: 'main', parent: null as string | null, files: t.files, message: t.message, author: ALICE };
    const bad = [
      { ...base, branch: 'feature' },
      { ...base, branch: 'retry-' },
      { ...base, branch: 'retry-a..b' },
      { ...base, branch: 'fork-a.lock' },
      { ...base, branch: 'fork-a.' },
      { ...base, branch: 'retry-a/b' },
      { ...base, branch: '--main' },
      { ...base, branch: 'main\n' },
      { ...base, branch: `retry-${'a'.repeat(129)}` },
      { ...base, parent: 'HEAD' },
      { ...base, parent: 'abc1234' },
      { ...base, files: [{ path: '../escape.json', content: 'x' }] },
      { ...base, files: [{ path: '/etc/passwd', content: 'x' }] },
      { ...base, files: [{ path: '.git/config', content: 'x' }] },
      { ...base, files: [{ path: 'messages/a\nb.json', content: 'x' }] },
      { ...base, files: [{ path: 'a.json', content: 'x' }, { path: 'a.json', content: 'y' }] },
      { ...base, author: { ...ALICE, email: 'x> <y' } },
      { ...base, author: { ...ALICE, date: new Date(Number.NaN) } },
      { ...base, message: '' },
      { ...base, message: 'nul \0 inside' },
    ];
    for (const spec of bad) {
      const { commands } = await spawnsDuring(() => repo.commitTurn(spec).catch((e: unknown) => e)).then(async (r) => {
        expect(r.result).toBeInstanceOf(GitArgumentError);
        return r;
      });
      expect(commands).toEqual([]);
    }
    expect(await repo.countCommits({ all: true })).toBe(0);
  });

  it('accepts the longest valid branch id and binary content', async () => {
    const repo = await newRepo();
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13]);
    const branch = `fork-${'A9._-'.repeat(25)}xyz`;
    const { sha } = await repo.commitTurn({ branch, parent: null, files: [{ path: 'bin.dat', content: bytes }], message: 'x', author: ALICE });
    expect(await repo.readFile(sha, 'bin.dat')).toEqual(bytes);
    expect(await repo.readFile(branch, 'bin.dat')).toEqual(bytes);
    expect((await repo.commitInfo(sha))?.message).toBe('x\n');
  });

  it('reports a leftover index.lock as GitLockedError until recoverStaleLocks removes it', async () => {
    const repo = await newRepo();
    const [c1] = await commitTurns(repo, 1, 1);
    const lock = join(repo.gitDir, 'index.lock');
    const refLock = join(repo.gitDir, 'refs', 'heads', 'main.lock');
    writeFileSync(lock, '');
    writeFileSync(refLock, '');
    const t = turn(2);
    const spec = { branch: 'main', parent: c1!, files: t.files, message: t.message, author: at(2) };
    await expect(repo.commitTurn(spec)).rejects.toBeInstanceOf(GitLockedError);

    expect(await repo.recoverStaleLocks()).toEqual([]); // too fresh
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    utimesSync(refLock, old, old);
    expect((await repo.recoverStaleLocks()).sort()).toEqual(['.git/index.lock', '.git/refs/heads/main.lock']);
    const { sha: c2 } = await repo.commitTurn(spec);
    expect(git(repo.dir, 'rev-parse', 'HEAD^')).toBe(c1);
    expect(git(repo.dir, 'rev-parse', 'HEAD')).toBe(c2);
  });
});

describe('SessionRepo checkout', () => {
  it('detaches at an older commit and comes back to the branch', async () => {
    const repo = await newRepo();
    const [c1, c2] = await commitTurns(repo, 1, 2);
    await repo.checkoutDetached(c1!.slice(0, 8));
    expect(await repo.headState()).toEqual({ branch: null, sha: c1 });
    expect(git(repo.dir, 'ls-files').split('\n')).toHaveLength(5);
    for (const f of turn(2).files) expect(existsSync(join(repo.dir, f.path))).toBe(false);

    // A fork from the viewed commit: one fast-import; HEAD stays until the caller checks the fork out.
    const f = turn(2, { salt: 'f' });
    const { result: fork, commands } = await spawnsDuring(() =>
      repo.commitTurn({ branch: 'fork-m6f', parent: c1!, files: f.files, message: f.message, author: at(3) }),
    );
    expect(commands).toEqual(['fast-import']);
    expect(fork.checkedOut).toBe(false);
    expect(await repo.headState()).toEqual({ branch: null, sha: c1 });
    await repo.checkoutBranch('fork-m6f');
    expect(await repo.headState()).toEqual({ branch: 'fork-m6f', sha: fork.sha });

    await repo.checkoutBranch('main');
    expect(await repo.headState()).toEqual({ branch: 'main', sha: c2 });
    expect(git(repo.dir, 'ls-files').split('\n')).toHaveLength(10);
    for (const file of f.files) expect(existsSync(join(repo.dir, file.path))).toBe(false);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');

    await expect(repo.checkoutBranch('retry-nope')).rejects.toBeInstanceOf(GitObjectNotFoundError);
    await expect(repo.checkoutBranch('nope')).rejects.toBeInstanceOf(GitArgumentError);
    await expect(repo.checkoutDetached('--orphan')).rejects.toBeInstanceOf(GitArgumentError);
  });

  it('writes whole working trees with parallel checkout, and only those runs', async () => {
    const repo = await newRepo();
    const big = Array.from({ length: 300 }, (_, i) => ({ path: `messages/000/${String(i + 1).padStart(6, '0')}-u-b${i}.json`, content: `{"n": ${i}}\n` }));
    const { sha: c1 } = await repo.commitTurn({ branch: 'main', parent: null, files: big, message: 'turn 1: many files\n', author: at(1) });
    const events: GitSpawnEvent[] = [];
    const off = onGitSpawn((e) => events.push(e));
    try {
      rmSync(join(repo.dir, 'messages'), { recursive: true });
      await repo.resetWorkingTree();
      await repo.checkoutDetached(c1);
      await repo.checkoutBranch('main');
      await repo.log({ limit: 1 });
    } finally {
      off();
    }
    const workers = (e: GitSpawnEvent) => Object.entries(e.env).some(([key, value]) => key.startsWith('GIT_CONFIG_VALUE_') && value === '4' && e.env[key.replace('VALUE', 'KEY')] === 'checkout.workers');
    expect(events.map((e) => [subcommand(e.argv), workers(e)])).toEqual([
      ['read-tree', true],
      ['checkout', true],
      ['checkout', true],
      ['log', false],
    ]);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
    expect(git(repo.dir, 'ls-files').split('\n')).toHaveLength(300);
  });

  it('creates branches at a commit, refusing existing names and unknown commits', async () => {
    const repo = await newRepo();
    const [c1] = await commitTurns(repo, 1, 2);
    await createBranch(repo, 'retry-x', c1!.slice(0, 10));
    expect(git(repo.dir, 'rev-parse', 'refs/heads/retry-x')).toBe(c1);
    await expect(createBranch(repo, 'retry-x', c1!)).rejects.toBeInstanceOf(GitRefConflictError);
    await expect(createBranch(repo, 'retry-y', 'deadbeefdeadbeef')).rejects.toBeInstanceOf(GitObjectNotFoundError);
    expect(await repo.headState()).toMatchObject({ branch: 'main' });
  });

  it('resetWorkingTree drops what a crash left staged', async () => {
    const repo = await newRepo();
    await commitTurns(repo, 1, 1);
    writeFileSync(join(repo.dir, 'half.json'), '{}\n');
    git(repo.dir, 'update-index', '--add', 'half.json');
    writeFileSync(join(repo.dir, turn(1).files[0]!.path), 'clobbered');
    await repo.resetWorkingTree();
    expect(git(repo.dir, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(existsSync(join(repo.dir, 'half.json'))).toBe(false);
  });
});

describe('SessionRepo reads', () => {
  it('round-trips messages holding newlines, unicode, % and control characters', async () => {
    const repo = await newRepo();
    const weird = [
      'turn 1: 你好 🌍 %H %x00 %n %% 100%\n\n  indented\n\n\n\ttab\u001e\u001f\u0001 record sep\nKey: looks like a trailer\n\nSession-Id: s\nTurn: 1\n',
      'no trailing newline and no trailers: %(trailers) %B',
      'turn 3: line\r\nwith crlf\n\nSession-Id: s\nTurn: 3\nMessage-Ids: a,b\n',
    ];
    const shas: string[] = [];
    let parent: string | null = null;
    for (const [i, message] of weird.entries()) {
      parent = (await repo.commitTurn({ branch: 'main', parent, files: [{ path: `f${i}.txt`, content: message }], message, author: at(i) })).sha;
      shas.push(parent);
    }
    const log = await repo.log({ limit: 10 });
    expect(log.map((c) => c.sha)).toEqual([...shas].reverse());
    expect(log.map((c) => c.message)).toEqual(weird.map((m) => (m.endsWith('\n') ? m : `${m}\n`)).reverse());
    expect(log[2]!.trailers).toEqual({ 'Session-Id': 's', Turn: '1' });
    expect(log[1]!.trailers).toEqual({});
    expect(log[0]!.trailers).toEqual({ 'Session-Id': 's', Turn: '3', 'Message-Ids': 'a,b' });
    expect(log[0]!.parents).toEqual([shas[1]]);

    expect((await repo.log({ limit: 1, skip: 1 })).map((c) => c.sha)).toEqual([shas[1]]);
    expect((await repo.log({ ref: 'main', limit: 5, skip: 2 })).map((c) => c.sha)).toEqual([shas[0]]);
    expect(await repo.commitInfo(shas[0]!.slice(0, 7))).toEqual(log[2]);
    expect(await repo.commitInfo('0000000000')).toBeNull();
    await expect(repo.log({ ref: 'retry-nope', limit: 5 })).rejects.toBeInstanceOf(GitObjectNotFoundError);
    await expect(repo.log({ ref: '--all', limit: 5 })).rejects.toBeInstanceOf(GitArgumentError);
    await expect(repo.log({ limit: -1 })).rejects.toBeInstanceOf(GitArgumentError);
  });

  it('logs every branch with children before parents, and counts commits', async () => {
    const repo = await newRepo();
    const [c1, c2] = await commitTurns(repo, 1, 2);
    const r = turn(2, { salt: 'r' });
    const { sha: retry } = await repo.commitTurn({ branch: 'retry-x', parent: c1!, files: r.files, message: r.message, author: at(2) });
    const all = await repo.log({ all: true, limit: 50 });
    expect(all.map((c) => c.sha).sort()).toEqual([c1, c2, retry].sort());
    expect(all[all.length - 1]!.sha).toBe(c1);
    expect(await repo.countCommits({ all: true })).toBe(3);
    expect(await repo.countCommits('main')).toBe(2);
    expect(await repo.countCommits(retry)).toBe(2);
    expect(await repo.countCommits('HEAD')).toBe(2);
  });

  it('lists trailers of a branch cheaply and reads one commit’s trailers', async () => {
    const repo = await newRepo();
    const shas = await commitTurns(repo, 1, 3);
    const found = await trailerCommits(repo, 'main');
    expect(found.map((c) => c.sha)).toEqual([...shas].reverse());
    expect(found.map((c) => c.trailers.Turn)).toEqual(['3', '2', '1']);
    expect(found[0]!.trailers['Message-Ids']).toBe(turn(3).ids.join(','));
    expect(await trailerCommits(repo, 'main', 1)).toHaveLength(1);
    expect(await commitTrailers(repo, shas[1]!)).toEqual({ 'Session-Id': 'sess-1', Turn: '2', 'Message-Ids': turn(2).ids.join(',') });
    expect(await commitTrailers(repo, '1234567')).toBeNull();
  });

  it('lists files with sizes and reads them back; missing paths and folders are null', async () => {
    const repo = await newRepo();
    const [c1] = await commitTurns(repo, 1, 1);
    const files = await repo.listFiles(c1!);
    expect(files).toEqual(turn(1).files.map((f) => ({ path: f.path, size: Buffer.byteLength(f.content as string) })));
    const first = turn(1).files[0]!;
    expect((await repo.readFile(c1!, first.path))?.toString('utf8')).toBe(first.content);
    expect(await repo.readFile(c1!, 'messages/000/nope.json')).toBeNull();
    expect(await repo.readFile(c1!, 'messages/000')).toBeNull();
    expect(await repo.readFile(c1!, 'messages/000/000001-u-m1.json/deeper')).toBeNull();
    await expect(repo.readFile('deadbeef00', first.path)).rejects.toBeInstanceOf(GitObjectNotFoundError);
    await expect(repo.readFile(c1!, '../outside')).rejects.toBeInstanceOf(GitArgumentError);
    await expect(repo.listFiles('deadbeef00')).rejects.toBeInstanceOf(GitObjectNotFoundError);
  });

  it('resolves full and short shas; unknown, too short and non-hex give null', async () => {
    const repo = await newRepo();
    const [c1] = await commitTurns(repo, 1, 1);
    expect(await repo.resolveCommit(c1!)).toBe(c1);
    expect(await repo.resolveCommit(c1!.toUpperCase())).toBe(c1);
    expect(await repo.resolveCommit(c1!.slice(0, 7))).toBe(c1);
    expect(await repo.resolveCommit(c1!.slice(0, 6))).toBeNull();
    expect(await repo.resolveCommit('0123456789abcdef')).toBeNull();
    expect(await repo.resolveCommit('HEAD')).toBeNull();
    expect(await repo.resolveCommit('--all')).toBeNull();
    expect(await repo.resolveCommit(`${c1!.slice(0, 8)}^{tree}`)).toBeNull();
    // A tree id is not a commit.
    expect(await repo.resolveCommit(git(repo.dir, 'rev-parse', `${c1}^{tree}`))).toBeNull();
  });

  it('diffs a commit against its first parent: added, modified, deleted, renamed, binary', async () => {
    const repo = await newRepo();
    const long = Array.from({ length: 20 }, (_, i) => `line ${i} of a file long enough for rename detection`).join('\n') + '\n';
    writeFileSync(join(repo.dir, 'keep.txt'), 'one\ntwo\nthree\n');
    writeFileSync(join(repo.dir, 'gone.txt'), 'bye\n');
    writeFileSync(join(repo.dir, 'old name.txt'), long);
    writeFileSync(join(repo.dir, 'image.bin'), Buffer.from([0, 1, 2, 3, 0, 5]));
    git(repo.dir, 'add', '-A');
    git(repo.dir, '-c', 'user.name=T', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'one');
    const root = git(repo.dir, 'rev-parse', 'HEAD');

    writeFileSync(join(repo.dir, 'keep.txt'), 'one\n2\nthree\nfour\n');
    git(repo.dir, 'rm', '-q', 'gone.txt');
    git(repo.dir, 'mv', 'old name.txt', 'new "name".txt');
    writeFileSync(join(repo.dir, 'image.bin'), Buffer.from([0, 9, 9, 9, 0, 5]));
    writeFileSync(join(repo.dir, 'ünïcødé.txt'), 'hé\n');
    git(repo.dir, 'add', '-A');
    git(repo.dir, '-c', 'user.name=T', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'two');
    const head = git(repo.dir, 'rev-parse', 'HEAD');

    const d = await commitDiff(repo, head.slice(0, 9));
    expect(d.base).toBe(root);
    const byPath = Object.fromEntries(d.files.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual(['gone.txt', 'image.bin', 'keep.txt', 'new "name".txt', 'ünïcødé.txt'].sort());
    expect(byPath['keep.txt']).toMatchObject({ status: 'MODIFIED', oldPath: null, additions: 2, deletions: 1 });
    expect(byPath['keep.txt']!.patch).toContain('@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n');
    expect(byPath['keep.txt']!.patch!.startsWith('diff --git a/keep.txt b/keep.txt\n')).toBe(true);
    expect(byPath['gone.txt']).toMatchObject({ status: 'DELETED', additions: 0, deletions: 1 });
    expect(byPath['gone.txt']!.patch).toContain('-bye\n');
    expect(byPath['new "name".txt']).toMatchObject({ status: 'RENAMED', oldPath: 'old name.txt', additions: 0, deletions: 0 });
    expect(byPath['new "name".txt']!.patch).toContain('rename from old name.txt');
    expect(byPath['image.bin']).toMatchObject({ status: 'MODIFIED', additions: 0, deletions: 0, patch: null });
    expect(byPath['ünïcødé.txt']).toMatchObject({ status: 'ADDED', additions: 1, deletions: 0 });
    expect(byPath['ünïcødé.txt']!.patch).toContain('+hé\n');

    const first = await commitDiff(repo, root);
    expect(first.base).toBeNull();
    expect(first.files.map((f) => [f.path, f.status]).sort()).toEqual(
      [['gone.txt', 'ADDED'], ['image.bin', 'ADDED'], ['keep.txt', 'ADDED'], ['old name.txt', 'ADDED']].sort(),
    );
    expect(first.files.find((f) => f.path === 'old name.txt')!.additions).toBe(20);
    expect(first.files.find((f) => f.path === 'image.bin')!.patch).toBeNull();

    await expect(commitDiff(repo, 'deadbeef00')).rejects.toBeInstanceOf(GitObjectNotFoundError);
  });

  it('passes git fsck after branches, detaches and orphans', async () => {
    const repo = await newRepo();
    const [c1] = await commitTurns(repo, 1, 3);
    const r = turn(2, { salt: 'r' });
    await repo.commitTurn({ branch: 'retry-a', parent: c1!, files: r.files, message: r.message, author: at(9) });
    const o = turn(1, { salt: 'o' });
    await repo.commitTurn({ branch: 'fork-b', parent: null, files: o.files, message: o.message, author: at(10) });
    await repo.checkoutDetached(c1!);
    const result = await fsck(repo);
    expect(result).toEqual({ ok: true, output: '' });
    expect(git(repo.dir, 'fsck', '--strict')).toBe('');
  });
});

describe('SessionRepo.init config', () => {
  it('gives a new repo every setting once, in two git processes, and rewrites one that differs', async () => {
    const dir = join(tempDir(), 's');
    const spawned: GitSpawnEvent[] = [];
    const off = onGitSpawn((event) => spawned.push(event));
    try {
      await new SessionRepo(dir).init();
    } finally {
      off();
    }
    expect(spawned).toHaveLength(2);
    for (const [key, value] of SESSION_REPO_CONFIG) {
      expect(git(dir, 'config', '--local', '--get-all', key), key).toBe(value);
    }
    git(dir, 'config', 'index.version', '4');
    git(dir, 'config', '--unset', 'gc.auto');
    await new SessionRepo(dir).init();
    await new SessionRepo(dir).init();
    for (const [key, value] of SESSION_REPO_CONFIG) {
      expect(git(dir, 'config', '--local', '--get-all', key), key).toBe(value);
    }
  });
});
