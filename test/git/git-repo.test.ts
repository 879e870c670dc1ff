import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitError } from '../../src/git/errors.js';
import { GitRepo } from '../../src/git/git-repo.js';
import { clearShaCache } from '../../src/git/sha-cache.js';
import { onGitSpawn, type GitSpawnEvent } from '../../src/git/run.js';
import { git, tempDir } from './helpers.js';

const userGit = (dir: string, ...args: string[]) => git(dir, '-c', 'user.name=Dana', '-c', 'user.email=dana@example.com', ...args);

function repoWithCommit(dir: string, file = 'README.md'): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, file), `${file}\n`);
  userGit(dir, 'add', '-A');
  userGit(dir, 'commit', '-q', '-m', `add ${file}`);
  return git(dir, 'rev-parse', 'HEAD');
}

describe('GitRepo', () => {
  it('gives a diff\'s files and patches from one process, as from the two it takes apart', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'f.txt'), 'a\nb\n');
    writeFileSync(join(dir, 'we ird.txt'), 'kept whole\nacross the rename\n');
    // A path that reads like a patch header, and one with a quote and a tab.
    writeFileSync(join(dir, 'diff --git a'), 'x\n');
    userGit(dir, 'add', '-A');
    userGit(dir, 'commit', '-q', '-m', 'one');
    const root = git(dir, 'rev-parse', 'HEAD');
    writeFileSync(join(dir, 'f.txt'), 'a\nc\n');
    git(dir, 'mv', 'we ird.txt', 'moved "x"\t.txt');
    writeFileSync(join(dir, 'b.bin'), Buffer.from([0, 1, 2, 0]));
    writeFileSync(join(dir, 'diff --git a'), 'y\n');
    userGit(dir, 'add', '-A');
    userGit(dir, 'commit', '-q', '-m', 'two');
    const tip = git(dir, 'rev-parse', 'HEAD');
    const repo = new GitRepo(dir);
    for (const [sha, base] of [[tip, root], [root, null]] as const) {
      const events: GitSpawnEvent[] = [];
      const off = onGitSpawn((e) => events.push(e));
      const both = await repo.diffFilesAndPatches(sha, base);
      off();
      expect(events.filter((e) => e.argv.includes('diff-tree'))).toHaveLength(1);
      // Each from its own process, not from the answer just kept (sha-cache.ts).
      clearShaCache();
      const files = await repo.diffFiles(sha, base);
      clearShaCache();
      expect(both).toEqual({ files, patches: await repo.diffPatches(sha, base) });
      expect(both.files.length).toBe(sha === tip ? 4 : 3);
    }
    const { files, patches } = await repo.diffFilesAndPatches(tip, root);
    expect(files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['b.bin', 'ADDED', 0, 0],
      ['diff --git a', 'MODIFIED', 1, 1],
      ['f.txt', 'MODIFIED', 1, 1],
      ['moved "x"\t.txt', 'RENAMED', 0, 0],
    ]);
    expect(patches[0]).toBeNull();
    expect(patches[2]).toContain('-b\n+c\n');
    // An empty diff: no files, no patches.
    expect(await repo.diffFilesAndPatches(tip, tip)).toEqual({ files: [], patches: [] });
  });

  it('locates a linked worktree once and reads its HEAD, branches and history', async () => {
    const root = tempDir();
    const main = join(root, 'main');
    const first = repoWithCommit(main);
    const checkout = join(root, 'feature');
    git(main, 'worktree', 'add', '-q', '-b', 'feature', checkout);
    writeFileSync(join(checkout, 'f.txt'), 'f\n');
    userGit(checkout, 'add', 'f.txt');
    userGit(checkout, 'commit', '-q', '-m', 'feature work');
    const tip = git(checkout, 'rev-parse', 'HEAD');
    // Branches live in the common dir, loose or packed.
    expect(await new GitRepo(checkout).headState()).toEqual({ branch: 'feature', sha: tip });
    git(main, 'pack-refs', '--all');

    const repo = new GitRepo(checkout);
    const events: GitSpawnEvent[] = [];
    const off = onGitSpawn((e) => events.push(e));
    try {
      expect(await repo.headState()).toEqual({ branch: 'feature', sha: tip });
      expect((await repo.log({ limit: 5 })).map((c) => c.message)).toEqual(['feature work\n', 'add README.md\n']);
      expect(await repo.branchTips()).toEqual(new Map([['feature', tip], ['main', first]]));
      expect(await repo.countCommits('HEAD')).toBe(2);
    } finally {
      off();
    }
    // One rev-parse to locate, then one process per git-backed read (headState reads files).
    expect(events.map((e) => e.argv.find((a) => a === 'rev-parse' || a === 'log' || a === 'for-each-ref' || a === 'rev-list'))).toEqual([
      'rev-parse',
      'log',
      'for-each-ref',
      'rev-list',
    ]);
    expect(await repo.gitDirs()).toEqual({ gitDir: join(main, '.git', 'worktrees', 'feature'), commonDir: join(main, '.git') });
  });

  it('reads a submodule checkout from the superproject’s modules folder', async () => {
    const root = tempDir();
    const library = join(root, 'library');
    const sha = repoWithCommit(library, 'lib.txt');
    const superproject = join(root, 'super');
    repoWithCommit(superproject);
    git(superproject, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib');

    const repo = new GitRepo(join(superproject, 'lib'));
    expect(await repo.headState()).toEqual({ branch: 'main', sha });
    expect((await repo.listFiles(sha)).map((f) => f.path)).toEqual(['lib.txt']);
    expect((await repo.readFile(sha, 'lib.txt'))?.toString()).toBe('lib.txt\n');
    expect((await repo.gitDirs()).gitDir).toBe(join(superproject, '.git', 'modules', 'lib'));
  });

  it('never reads the repo around a folder that is not one itself', async () => {
    const outer = tempDir();
    repoWithCommit(outer);
    const inner = join(outer, 'plain');
    mkdirSync(inner);
    const repo = new GitRepo(inner);
    await expect(repo.log({ limit: 1 })).rejects.toBeInstanceOf(GitError);
    await expect(repo.headState()).rejects.toBeInstanceOf(GitError);
  });
});
