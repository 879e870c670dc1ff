import { describe, expect, it } from 'vitest';
import { GitRefConflictError } from '../../src/git/errors.js';
import { onGitSpawn, type GitSpawnEvent } from '../../src/git/run.js';
import { SessionRepo } from '../../src/git/session-repo.js';
import { at, git, tempDir, turn } from './helpers.js';
import { indexCommitTurn } from './index-commit-oracle.js';

function subcommands(events: GitSpawnEvent[]): string[] {
  return events.map((e) => e.argv.find((arg, i) => i > 0 && !arg.startsWith('-') && e.argv[i - 1] !== '-c') ?? '');
}

describe('SessionRepo.commitTurn', () => {
  it('writes the same commits as a commit through the index, with one fast-import and one update-index per turn', async () => {
    const viaIndex = new SessionRepo(tempDir());
    const viaStream = new SessionRepo(tempDir());
    await viaIndex.init();
    await viaStream.init();
    let parentA: string | null = null;
    let parentB: string | null = null;
    const events: GitSpawnEvent[] = [];
    for (let n = 1; n <= 4; n++) {
      const t = turn(n);
      parentA = await indexCommitTurn(viaIndex, { branch: 'main', parent: parentA, files: t.files, message: t.message, author: at(n) });
      const off = onGitSpawn((e) => events.push(e));
      try {
        const result = await viaStream.commitTurn({ branch: 'main', parent: parentB, files: t.files, message: t.message, author: at(n) });
        expect(result.checkedOut).toBe(true);
        parentB = result.sha;
      } finally {
        off();
      }
      expect(parentB).toBe(parentA);
    }
    expect(subcommands(events)).toEqual(Array.from({ length: 4 }, () => ['fast-import', 'update-index']).flat());
    // The checkout follows: a user's `git status` is clean.
    expect(git(viaStream.dir, 'status', '--porcelain')).toBe('');
    expect(git(viaStream.dir, 'fsck', '--strict')).toBe('');
  });

  it('refuses a parent that is not the branch tip and changes nothing', async () => {
    const repo = new SessionRepo(tempDir());
    await repo.init();
    const first = turn(1);
    const { sha } = await repo.commitTurn({ branch: 'main', parent: null, files: first.files, message: first.message, author: at(1) });
    const second = turn(2);
    await expect(
      repo.commitTurn({ branch: 'main', parent: null, files: second.files, message: second.message, author: at(2) }),
    ).rejects.toBeInstanceOf(GitRefConflictError);
    expect(git(repo.dir, 'rev-parse', 'main')).toBe(sha);
  });

  it('commits to another branch without touching the checkout', async () => {
    const repo = new SessionRepo(tempDir());
    await repo.init();
    const t1 = turn(1);
    const { sha: c1 } = await repo.commitTurn({ branch: 'main', parent: null, files: t1.files, message: t1.message, author: at(1) });
    const t2 = turn(2, { salt: 'retry' });
    const result = await repo.commitTurn({ branch: 'retry-x', parent: c1, files: t2.files, message: t2.message, author: at(2) });
    expect(result.checkedOut).toBe(false);
    expect(git(repo.dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(git(repo.dir, 'rev-parse', 'retry-x^')).toBe(c1);
    expect(git(repo.dir, 'status', '--porcelain')).toBe('');
  });
});
