/**
 * The user's porcelain operations in a project (status, init, the first
 * commit) run through simple-git: with every per-call setting and the same
 * hardened environment as the runner, simple-git's own guard on, failures as
 * our typed errors, and `StatusResult` read without losing a path.
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitArgumentError, GitLockedError, GitNoWorkTreeError } from '../../src/git/errors.js';
import { runPorcelain } from '../../src/git/project-porcelain.js';
import { ProjectRepo, userGitEnv } from '../../src/git/project-repo.js';
import { onGitSpawn, PER_CALL_SETTINGS } from '../../src/git/run.js';
import { judgeRepoConfig } from '../../src/projects/repo-config.js';
import { marker, markerHooks, marks, sandbox, userGit, userGitMayFail } from '../security/markers.js';
import { git, tempDir } from './helpers.js';

const WHO = { name: 'Dana', email: 'dana@example.com' };

/** A repo with one commit of a.txt on main. */
function committed(dir = tempDir('em-porcelain-')): string {
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'a.txt'), 'one\n');
  git(dir, '-c', 'user.name=U', '-c', 'user.email=u@example.com', 'add', '-A');
  git(dir, '-c', 'user.name=U', '-c', 'user.email=u@example.com', 'commit', '-q', '-m', 'init');
  return dir;
}

describe('project porcelain through simple-git', () => {
  it('init, status and the first commit run no fsmonitor, filter driver or hook from the global or repo config', async () => {
    const sb = sandbox();
    const hooks = join(sb.base, 'hooks');
    markerHooks(sb, 'hook', hooks);
    // The user's global config (HOME is the sandbox's): applies to the repo init makes, before it has a config of its own.
    writeFileSync(
      join(sb.home, '.gitconfig'),
      `[core]\n\tfsmonitor = ${marker(sb, 'core.fsmonitor')}\n\thooksPath = ${hooks}\n` +
        `[filter "m"]\n\tclean = ${marker(sb, 'filter.clean', 'cat')}\n\tsmudge = ${marker(sb, 'filter.smudge', 'cat')}\n`,
    );
    const dir = join(sb.root, 'project');
    mkdirSync(dir);
    writeFileSync(join(dir, '.gitattributes'), '* filter=m\n');
    writeFileSync(join(dir, 'a.txt'), 'one\n');

    // Control: git as the user runs it fires the markers in a copy.
    const control = join(sb.base, 'control');
    cpSync(dir, control, { recursive: true });
    userGit(sb, control, 'init', '-q');
    userGit(sb, control, 'status', '--porcelain');
    userGitMayFail(sb, control, '-c', 'user.name=U', '-c', 'user.email=u@example.com', 'add', '-A');
    userGitMayFail(sb, control, '-c', 'user.name=U', '-c', 'user.email=u@example.com', 'commit', '-q', '-m', 'x');
    expect(marks(sb)).toEqual(expect.arrayContaining(['core.fsmonitor', 'filter.clean', 'hook-pre-commit', 'hook-post-commit']));
    for (const name of marks(sb)) writeFileSync(join(sb.marks, name), '');
    const fired = marks(sb);
    const repoFor = async () => new ProjectRepo(dir, { config: judgeRepoConfig(await new ProjectRepo(dir).configEntries()).neutralisers });

    await new ProjectRepo(dir).init();
    const repo = await repoFor();
    expect((await repo.status()).dirtyPaths).toEqual(['.gitattributes', 'a.txt']);
    expect(await repo.unbornHead()).toEqual({ hasFiles: true, staged: false });
    const sha = await repo.initialCommit('Initial commit', WHO);
    expect(sha).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(git(dir, 'log', '--format=%an <%ae>|%s')).toBe('Dana <dana@example.com>|Initial commit');
    expect(git(dir, 'ls-tree', '--name-only', 'HEAD')).toBe('.gitattributes\na.txt');
    expect((await repo.status()).dirtyPaths).toEqual([]);

    // The control's markers were emptied, not removed: any new marker file, or a line in one, is a run of ours.
    expect(marks(sb)).toEqual(fired);
    for (const name of fired) expect(userGit(sb, sb.marks, 'hash-object', name), name).toBe(userGit(sb, sb.marks, 'hash-object', '/dev/null'));
  });

  it('passes every per-call setting and the hardened environment, with GIT_OPTIONAL_LOCKS=0 for status', async () => {
    const dir = committed();
    const seen: { argv: string[]; env: NodeJS.ProcessEnv }[] = [];
    const off = onGitSpawn((e) => seen.push(e));
    const saved = process.env.GIT_EXTERNAL_DIFF;
    process.env.GIT_EXTERNAL_DIFF = '/bin/false';
    try {
      await new ProjectRepo(dir).status();
    } finally {
      off();
      if (saved === undefined) delete process.env.GIT_EXTERNAL_DIFF;
      else process.env.GIT_EXTERNAL_DIFF = saved;
    }
    expect(seen).toHaveLength(1);
    const { argv, env } = seen[0]!;
    for (const setting of PER_CALL_SETTINGS) expect(argv.join('\0'), setting).toContain(`-c\0${setting}\0`);
    expect(argv.indexOf('status')).toBeGreaterThan(argv.lastIndexOf('-c'));
    expect(env.GIT_OPTIONAL_LOCKS).toBe('0');
    expect(env.GIT_ALLOW_PROTOCOL).toBe('');
    expect(env.GIT_EXTERNAL_DIFF).toBeUndefined();
  });

  it("keeps simple-git's guard on: a program-running setting we do not set ourselves is refused before git starts", async () => {
    const dir = committed();
    let spawned = 0;
    const off = onGitSpawn(() => spawned++);
    try {
      const run = runPorcelain({ cwd: dir, env: userGitEnv() }, (g) => g.raw(['-c', 'diff.external=touch pwned', 'status']));
      await expect(run).rejects.toBeInstanceOf(GitArgumentError);
    } finally {
      off();
    }
    expect(spawned).toBe(0);
  });

  it('reads StatusResult into branch, dirty and staged paths, paths with edge whitespace included', async () => {
    const dir = committed();
    writeFileSync(join(dir, ' lead.txt'), 'x\n');
    writeFileSync(join(dir, 'trail.txt '), 'x\n');
    writeFileSync(join(dir, 'b.txt'), 'x\n');
    git(dir, '-c', 'user.name=U', '-c', 'user.email=u@example.com', 'add', '-A');
    git(dir, '-c', 'user.name=U', '-c', 'user.email=u@example.com', 'commit', '-q', '-m', 'more');
    const repo = new ProjectRepo(dir);
    // Only modified in the working tree; simple-git alone would read ' lead.txt' as 'lead.txt', staged.
    writeFileSync(join(dir, ' lead.txt'), 'y\n');
    writeFileSync(join(dir, 'trail.txt '), 'y\n');
    expect(await repo.status()).toEqual({ isRepo: true, branch: 'main', dirtyPaths: [' lead.txt', 'trail.txt '], staged: [] });
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    git(dir, 'add', 'a.txt');
    git(dir, 'rm', '-q', '--cached', 'b.txt');
    writeFileSync(join(dir, 'new.txt'), 'n\n');
    git(dir, 'checkout', '-q', '--detach');
    expect(await repo.status()).toEqual({
      isRepo: true,
      branch: null,
      dirtyPaths: [' lead.txt', 'a.txt', 'b.txt', 'new.txt', 'trail.txt '],
      staged: ['a.txt', 'b.txt'],
    });
  });

  it('maps failures to typed errors: a held index.lock is GitLockedError and stays, a bare repo is GitNoWorkTreeError', async () => {
    const dir = tempDir('em-porcelain-');
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    writeFileSync(join(dir, '.git', 'index.lock'), '');
    await expect(new ProjectRepo(dir, { lockWaitMs: 0 }).initialCommit('Initial commit', WHO)).rejects.toBeInstanceOf(GitLockedError);
    expect(existsSync(join(dir, '.git', 'index.lock'))).toBe(true);

    const bare = tempDir('em-porcelain-bare-');
    git(bare, 'init', '-q', '--bare');
    await expect(new ProjectRepo(bare).status()).rejects.toBeInstanceOf(GitNoWorkTreeError);
  });
});
