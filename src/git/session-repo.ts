/**
 * One session's git repo: `sessions/<session_id>/` with its `.git`. Turns are
 * committed with plumbing (`update-index`, `write-tree`, `commit-tree`,
 * `update-ref`) so a commit costs what the turn changed, never what the session
 * holds: nothing here scans the working tree.
 *
 * Not safe for concurrent use on one repo: the caller holds the session's
 * in-process lock around every mutating call.
 */
import { existsSync } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile as readFileFs, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import {
  checkoutBranchArgv,
  checkoutDetachedArgv,
  commitTreeArgv,
  configListArgv,
  configSetArgv,
  diffPatchArgv,
  diffRawNumstatArgv,
  forEachBranchArgv,
  fsckArgv,
  initArgv,
  logArgv,
  lsTreeArgv,
  readTreeResetArgv,
  revListCountArgv,
  revListParentsArgv,
  symbolicRefArgv,
  LOG_FORMAT,
  TRAILER_LOG_FORMAT,
  updateIndexAddArgv,
  updateRefArgv,
  verifyCommitArgv,
  writeTreeArgv,
  catFileBlobArgv,
} from './argv.js';
import {
  assertFiles,
  normalizeIdentity,
  assertRepoPath,
  commitMessageBytes,
  contentBytes,
  identityEnv,
  type Identity,
  type RepoFile,
} from './commit-input.js';
import { GitArgumentError, GitError, GitObjectNotFoundError, GitRefConflictError, GitTimeoutError } from './errors.js';
import { fastImport } from './fast-import.js';
import {
  parseBranchTips,
  parseConfigList,
  parseLog,
  parseLsTree,
  parseRawNumstat,
  parseRevListParents,
  parseTrailerLog,
  parsePatches,
  type CommitInfo,
  type FileDiff,
  type TreeFile,
} from './parse.js';
import { assertBranchName, assertFullSha, assertRev, assertSha, EMPTY_TREE_SHA1, isFullSha, isShaPrefix, zeroSha } from './refs.js';
import { DEFAULT_GIT_TIMEOUT_MS, gitEnv, runGit, runGitBuffer, type GitResult } from './run.js';
import { paced } from './spawn-pace.js';

export type { CommitInfo, FileDiff, TreeFile } from './parse.js';

/** SHA-256 repos' empty tree, for completeness; session repos are SHA-1. */
const EMPTY_TREE_SHA256 = '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321';

const REFLOG_REASON = 'entity-memory: turn commit';

/**
 * Repo-local config written by `init`. Why each one:
 * - hooks and signing off: a commit must never run user code or wait for gpg;
 * - `gc.auto=0`, `maintenance.auto=false`: no background gc inside a turn commit;
 * - `core.splitIndex=false`, `index.version=2`, `index.skipHash=false`: one
 *   plain index file, the format every git implementation reads. With a split
 *   index (`sharedindex.*` and a `link` extension) libgit2, dulwich and
 *   isomorphic-git showed 10 of 12 files as changed or deleted; isomorphic-git
 *   refuses index v4 and checks the trailing hash that `skipHash` leaves out.
 *   Written out rather than left unset: our git runs ignore global config,
 *   but a person's `git status` in the repo rewrites the index under theirs
 *   (`core.splitIndex`, `feature.manyFiles`). `init` rewrites an index an
 *   older version left split, once. Cost: without the split, each turn's
 *   `update-index` rewrites the whole index (see bench/mirror.ts);
 * - `core.fsync*`: a crash must not leave a ref pointing at a torn object;
 * - `core.logAllRefUpdates`: reflogs, so a bad ref move can be undone by hand;
 * - `core.autocrlf=false`: blobs are the exact bytes written, for every user's git.
 */
export const SESSION_REPO_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['core.hooksPath', '/dev/null'],
  ['commit.gpgsign', 'false'],
  ['tag.gpgsign', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['core.splitIndex', 'false'],
  ['index.version', '2'],
  ['index.skipHash', 'false'],
  ['core.fsync', 'objects,derived-metadata,reference'],
  ['core.fsyncMethod', 'fsync'],
  ['core.logAllRefUpdates', 'true'],
  ['core.autocrlf', 'false'],
];

/**
 * Settings for the runs that may write every file of the session (checkouts,
 * `resetWorkingTree`): parallel checkout with 4 worker processes, used once a
 * run writes at least 100 files (git's own threshold). Writing the 20,000
 * files of a 10,000-turn session on ext4 in a 2-core VM: one process 1–18 s
 * (mostly system time in open(O_CREAT), worst right after files were
 * deleted), 4 workers 0.4–6.7 s; on tmpfs 0.35 s against 0.45 s.
 */
const WORKTREE_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['checkout.workers', '4'],
  ['checkout.thresholdForParallelism', '100'],
];

export interface CommitTurnSpec {
  /** A valid session branch (`main`, `retry-<id>`, `fork-<id>`); created when missing. */
  branch: string;
  /**
   * The full sha the branch must be at (compare-and-swap), or null for a new
   * root commit on a branch that does not exist yet.
   */
  parent: string | null;
  /** Files to add or overwrite on top of the parent's tree. */
  files: RepoFile[];
  /** The full commit message; a final newline is added when missing. */
  message: string;
  author: Identity;
  /** Default: the author. */
  committer?: Identity;
}

export interface HeadState {
  /** The branch HEAD points to (it may be unborn), or null when detached. */
  branch: string | null;
  /** The commit HEAD resolves to, or null on an unborn branch. */
  sha: string | null;
}

export interface LogOptions {
  /** Start from this sha or branch. Default `HEAD`. Ignored when `all`. */
  ref?: string;
  /** Every branch, children always before their parents. */
  all?: boolean;
  /** Commits to skip from the newest. Default 0. */
  skip?: number;
  /** At most this many commits. */
  limit: number;
}

export interface CommitDiff {
  /** The first parent, or null for a root commit (diffed against the empty tree). */
  base: string | null;
  files: FileDiff[];
}

export interface TrailerCommit {
  sha: string;
  trailers: Record<string, string>;
}

export interface SessionRepoOptions {
  /** Limit for each git run that does not rewrite the working tree. Default 30 000 ms. */
  timeoutMs?: number;
  /**
   * Limit for runs that may write every file of the session (checkouts,
   * `resetWorkingTree`, the move in `commitTurn`, `fsck`): writing 50,000
   * files was measured at 5–40 s on a loaded 2-core machine. Default 600 000 ms.
   */
  worktreeTimeoutMs?: number;
}

export class SessionRepo {
  /** Absolute path of the working tree. */
  readonly dir: string;
  /** Absolute path of the `.git` folder. */
  readonly gitDir: string;
  private readonly timeoutMs: number;
  private readonly worktreeTimeoutMs: number;

  constructor(dir: string, options: SessionRepoOptions = {}) {
    this.dir = resolve(dir);
    this.gitDir = join(this.dir, '.git');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
    this.worktreeTimeoutMs = options.worktreeTimeoutMs ?? 600_000;
  }

  /** Whether the repo has been created (its `.git/HEAD` exists); no git is spawned. */
  exists(): boolean {
    return existsSync(join(this.gitDir, 'HEAD'));
  }

  /**
   * Creates the repo (branch `main`, unborn) and writes `SESSION_REPO_CONFIG`.
   * Idempotent: on an existing repo only differing config keys are rewritten
   * (one `git config --list` when nothing differs), and an index that an
   * older version left split (or in a format other readers refuse) is
   * rewritten as one plain file (`plainIndex`).
   */
  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // No GIT_DIR here: with GIT_WORK_TREE set, init would record core.worktree.
    if (!this.exists()) await runGit(initArgv(), { cwd: this.dir, env: gitEnv() });
    const current = parseConfigList((await this.git(configListArgv())).stdout);
    for (const [key, value] of SESSION_REPO_CONFIG) {
      if (current.get(key.toLowerCase()) !== value) await this.git(configSetArgv(key, value));
    }
    await this.plainIndex();
  }

  /**
   * Makes `.git/index` one plain version-2 file if it is not: a split index
   * (repos made before `core.splitIndex` was turned off) or a version other
   * readers refuse is rewritten once by `update-index --no-split-index
   * --index-version 2` (entries and their stat data kept, the working tree
   * untouched), then the `sharedindex.*` files nothing points at any more are
   * removed. Costs a folder listing and an 8-byte read when there is nothing
   * to do; `init` calls it.
   * @returns whether the index was rewritten.
   * @throws the `GitError` of the rewrite (a corrupt index, say); nothing is removed then.
   */
  async plainIndex(): Promise<boolean> {
    const names = await readdir(this.gitDir).catch(() => [] as string[]);
    const shared = names.filter((name) => name.startsWith('sharedindex.'));
    const version = await readIndexVersion(join(this.gitDir, 'index'));
    const rewrite = version !== null && (shared.length > 0 || (version !== 2 && version !== 3));
    if (rewrite) await this.git(['update-index', '--no-split-index', '--index-version', '2']);
    await Promise.all(shared.map((name) => rm(join(this.gitDir, name), { force: true })));
    return rewrite;
  }

  /**
   * Removes lock files left by a crashed git: `.git/index.lock`,
   * `.git/HEAD.lock`, `.git/packed-refs.lock` and `.git/refs/heads/**.lock`,
   * when last modified at least `olderThanMs` ago (default 10 000 ms).
   * Only call it while holding the session's lock, so no git of ours can be
   * running. Returns the removed paths, relative to the repo folder.
   */
  async recoverStaleLocks(olderThanMs = 10_000): Promise<string[]> {
    const candidates = ['index.lock', 'HEAD.lock', 'packed-refs.lock'].map((f) => join(this.gitDir, f));
    candidates.push(...(await findLockFiles(join(this.gitDir, 'refs', 'heads'))));
    const removed: string[] = [];
    const now = Date.now();
    for (const file of candidates) {
      const info = await lstat(file).catch(() => null);
      if (!info || !info.isFile() || now - info.mtimeMs < olderThanMs) continue;
      try {
        await unlink(file);
        removed.push(relative(this.dir, file));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return removed;
  }

  /**
   * Commits one turn and returns the new commit's sha.
   *
   * Common case (HEAD on `branch`, which is at `parent`): exactly 4 spawns,
   * `update-index`, `write-tree`, `commit-tree`, `update-ref`. Otherwise the
   * index and working tree are first moved to `parent` (`read-tree --reset -u`,
   * skipped when HEAD already is at `parent`), and HEAD is pointed at the
   * branch at the end (`symbolic-ref`).
   *
   * The index is trusted to match HEAD in the common case; after a crash call
   * `resetWorkingTree()` once before committing again.
   *
   * Throws `GitArgumentError` for an invalid spec, `GitRefConflictError` when
   * the branch exists at another commit than `parent` (nothing is changed) or
   * when the final compare-and-swap loses, `GitLockedError` on a lock file;
   * on a failure after the index was touched, the index and working tree are
   * put back to HEAD (best effort).
   */
  async commitTurn(spec: CommitTurnSpec): Promise<string> {
    assertBranchName(spec.branch);
    if (spec.parent !== null) assertFullSha(spec.parent, 'parent');
    const parent = spec.parent === null ? null : spec.parent.toLowerCase();
    assertFiles(spec.files);
    const author = normalizeIdentity(spec.author, 'author');
    const committer = normalizeIdentity(spec.committer ?? spec.author, 'committer');
    const message = commitMessageBytes(spec.message);

    const ref = `refs/heads/${spec.branch}`;
    const head = await this.readHead();
    const tip = head.ref === ref ? head.sha : await this.readRef(ref);
    if (tip !== null && tip !== parent) {
      throw new GitRefConflictError(
        parent === null
          ? `branch ${spec.branch} already exists (at ${tip}); a root commit needs a new branch`
          : `branch ${spec.branch} is at ${tip}, not at the expected parent ${parent}`,
      );
    }

    let touched = false;
    try {
      if (head.sha !== parent) {
        touched = true;
        await this.git(readTreeResetArgv(parent ?? EMPTY_TREE_SHA1), this.worktreeRun());
      }
      await this.writeWorkingFiles(spec.files);
      if (spec.files.length > 0) {
        touched = true;
        const paths = Buffer.from(spec.files.map((f) => `${f.path}\0`).join(''), 'utf8');
        await this.git(updateIndexAddArgv(), { input: paths });
      }
      const tree = (await this.git(writeTreeArgv())).stdout.trim();
      const commit = (
        await this.git(commitTreeArgv(tree, parent), { input: message, env: identityEnv(author, committer) })
      ).stdout.trim();
      await this.git(updateRefArgv(ref, commit, tip ?? zeroSha(commit), REFLOG_REASON));
      touched = false;
      if (head.ref !== ref) await this.git(symbolicRefArgv(ref, REFLOG_REASON));
      return commit;
    } catch (error) {
      if (touched) await this.resetWorkingTree().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Commits one turn without touching the index: a single `git fast-import`
   * that reads only the trees on the changed paths (root, messages/, one
   * bucket), so the cost stays flat however many files the repo holds (the
   * index-based `commitTurn` reads the whole index twice). Then, when HEAD is
   * on the branch at `parent`, the files are written and staged
   * (`stageFiles`) so the working tree follows; otherwise the caller moves the
   * checkout (`checkoutBranch`) when it is done.
   *
   * A missing branch is created. Throws `GitRefConflictError` when the branch
   * exists at another commit than `parent` (nothing is changed),
   * `GitArgumentError` for an invalid spec, or the error fast-import exited with.
   * @returns the new commit and whether the working tree was brought along.
   */
  async commitTurnStream(spec: CommitTurnSpec): Promise<{ sha: string; checkedOut: boolean }> {
    assertBranchName(spec.branch);
    if (spec.parent !== null) assertFullSha(spec.parent, 'parent');
    const parent = spec.parent === null ? null : spec.parent.toLowerCase();
    const ref = `refs/heads/${spec.branch}`;
    const head = await this.readHead();
    const tip = head.ref === ref ? head.sha : await this.readRef(ref);
    // A missing branch is created at the new commit (a retry or fork grows from `parent`).
    if (tip !== null && tip !== parent) {
      throw new GitRefConflictError(`branch ${spec.branch} is at ${tip}, not at the expected parent ${parent ?? '(none)'}`);
    }
    const { shas } = await fastImport(this.dir, [
      { branch: spec.branch, parent: parent ?? 'none', files: spec.files, message: spec.message, author: spec.author, committer: spec.committer },
    ]);
    const sha = shas[0]!;
    if (head.ref !== ref || head.sha !== parent) return { sha, checkedOut: false };
    await this.stageFiles(spec.files);
    return { sha, checkedOut: true };
  }

  /**
   * Writes files into the working tree and stages them (`update-index --add`,
   * paths on stdin), e.g. to bring the checkout along after a commit made
   * without the index.
   */
  async stageFiles(files: readonly RepoFile[]): Promise<void> {
    assertFiles(files);
    if (files.length === 0) return;
    await this.writeWorkingFiles(files);
    const paths = Buffer.from(files.map((f) => `${f.path}\0`).join(''), 'utf8');
    await this.git(updateIndexAddArgv(), { input: paths });
  }

  /** Where HEAD is, read from `.git` without spawning git. */
  async headState(): Promise<HeadState> {
    const head = await this.readHead();
    return {
      branch: head.ref === null ? null : head.ref.replace(/^refs\/heads\//, ''),
      sha: head.sha,
    };
  }

  /**
   * Points HEAD at `branch` and makes index and working tree match it
   * (`checkout -f`: uncommitted changes to tracked files are discarded).
   * Throws `GitObjectNotFoundError` when the branch does not exist.
   */
  async checkoutBranch(branch: string): Promise<void> {
    assertBranchName(branch);
    await this.git(checkoutBranchArgv(branch), this.worktreeRun());
  }

  /** Detaches HEAD at `sha` (a commit id or unique prefix), moving index and working tree with `-f`. */
  async checkoutDetached(sha: string): Promise<void> {
    assertSha(sha);
    await this.git(checkoutDetachedArgv(sha), this.worktreeRun());
  }

  /**
   * Creates branch `name` at the commit `atSha` (full or unique prefix).
   * Throws `GitObjectNotFoundError` for an unknown commit and
   * `GitRefConflictError` when the branch already exists.
   */
  async createBranch(name: string, atSha: string): Promise<void> {
    assertBranchName(name);
    assertSha(atSha);
    const commit = await this.resolveCommit(atSha);
    if (commit === null) throw new GitObjectNotFoundError(`unknown commit ${atSha}`);
    await this.git(updateRefArgv(`refs/heads/${name}`, commit, zeroSha(commit), 'entity-memory: create branch'));
  }

  /** Every branch and the commit it points at. */
  async branchTips(): Promise<Map<string, string>> {
    return parseBranchTips((await this.git(forEachBranchArgv())).stdout);
  }

  /**
   * The full sha of the commit `shaPrefix` names, or null when it is not
   * 7–40 (or 64) hex digits, unknown, ambiguous, or not a commit.
   */
  async resolveCommit(shaPrefix: string): Promise<string | null> {
    if (!isShaPrefix(shaPrefix)) return null;
    const { stdout, exitCode } = await this.git(verifyCommitArgv(shaPrefix), { okExitCodes: [0, 1] });
    const sha = stdout.trim();
    return exitCode === 0 && isFullSha(sha) ? sha : null;
  }

  /**
   * Commits newest first. An unborn HEAD gives []; an unknown `ref` throws
   * `GitObjectNotFoundError`, an invalid one `GitArgumentError`.
   */
  async log(opts: LogOptions): Promise<CommitInfo[]> {
    const skip = assertCount(opts.skip ?? 0, 'skip');
    const limit = assertCount(opts.limit, 'limit');
    if (limit === 0) return [];
    const rev = opts.all ? undefined : assertRev(opts.ref ?? 'HEAD');
    try {
      const { stdout } = await this.git(logArgv({ rev, all: opts.all, skip, limit }));
      return parseLog(stdout);
    } catch (error) {
      if (error instanceof GitObjectNotFoundError && rev === 'HEAD' && (await this.readHead()).sha === null) return [];
      throw error;
    }
  }

  /**
   * One commit, or null when `sha` is not a sha (prefix) or names no commit.
   * Full shas asked for in the same tick, of the same repo, share one git
   * process (`log --no-walk --stdin`): a page of turns' commits, a parent
   * of each commit of a timeline, every branch's head. A prefix takes one
   * process of its own.
   */
  async commitInfo(sha: string): Promise<CommitInfo | null> {
    if (!isFullSha(sha)) return this.oneCommitInfo(sha);
    const key = sha.toLowerCase();
    return new Promise((resolve, reject) => {
      let batch = pendingInfos.get(this.gitDir);
      if (!batch) {
        const created = { repo: this, waiters: new Map<string, InfoWaiter[]>() };
        batch = created;
        pendingInfos.set(this.gitDir, created);
        process.nextTick(() => {
          pendingInfos.delete(this.gitDir);
          void created.repo.loadInfos(created.waiters);
        });
      }
      const waiters = batch.waiters.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else batch.waiters.set(key, [{ resolve, reject }]);
    });
  }

  private async oneCommitInfo(sha: string): Promise<CommitInfo | null> {
    const stdout = await this.logOneCommit(sha, undefined);
    return stdout === null ? null : (parseLog(stdout)[0] ?? null);
  }

  /** Answers a batch of `commitInfo` calls; one unknown sha sends the batch back to one process per sha. */
  private async loadInfos(waiters: Map<string, InfoWaiter[]>): Promise<void> {
    const settle = (sha: string, outcome: { info: CommitInfo | null } | { error: unknown }) => {
      for (const w of waiters.get(sha) ?? []) 'info' in outcome ? w.resolve(outcome.info) : w.reject(outcome.error);
    };
    const shas = [...waiters.keys()];
    let found: Map<string, CommitInfo> | null = null;
    if (shas.length > 1) {
      try {
        const { stdout } = await this.git(['log', '--no-walk=unsorted', '-z', `--format=${LOG_FORMAT}`, '--no-color', '--no-decorate', '--stdin'], {
          input: `${shas.join('\n')}\n`,
        });
        found = new Map(parseLog(stdout).map((info) => [info.sha, info]));
      } catch (error) {
        if (!(error instanceof GitError) || error instanceof GitTimeoutError) {
          for (const sha of shas) settle(sha, { error });
          return;
        }
      }
    }
    if (found && shas.every((sha) => found.has(sha))) {
      for (const sha of shas) settle(sha, { info: found.get(sha)! });
      return;
    }
    await Promise.all(
      shas.map((sha) =>
        this.oneCommitInfo(sha).then(
          (info) => settle(sha, { info }),
          (error: unknown) => settle(sha, { error }),
        ),
      ),
    );
  }

  /** Number of commits reachable from `target` (a sha or branch, `HEAD`), or from every branch. Unborn HEAD: 0. */
  async countCommits(target: string | { all: true }): Promise<number> {
    const argv = typeof target === 'string' ? revListCountArgv({ rev: assertRev(target) }) : revListCountArgv({ all: true });
    try {
      return Number((await this.git(argv)).stdout.trim());
    } catch (error) {
      if (error instanceof GitObjectNotFoundError && target === 'HEAD' && (await this.readHead()).sha === null) return 0;
      throw error;
    }
  }

  /**
   * The trailers (`Session-Id`, `Turn`, `Message-Ids`, ...) of every commit
   * reachable from `ref`, newest first, without reading message bodies
   * into JS. `limit` bounds the walk (default: the whole history).
   */
  async findTrailerCommits(ref: string, limit?: number): Promise<TrailerCommit[]> {
    const rev = assertRev(ref);
    const max = limit === undefined ? undefined : assertCount(limit, 'limit');
    if (max === 0) return [];
    try {
      const { stdout } = await this.git(logArgv({ rev, limit: max, format: TRAILER_LOG_FORMAT }));
      return parseTrailerLog(stdout);
    } catch (error) {
      if (error instanceof GitObjectNotFoundError && rev === 'HEAD' && (await this.readHead()).sha === null) return [];
      throw error;
    }
  }

  /** The trailers of one commit, or null when `sha` names no commit. One spawn. */
  async readTrailers(sha: string): Promise<Record<string, string> | null> {
    const stdout = await this.logOneCommit(sha, TRAILER_LOG_FORMAT);
    return stdout === null ? null : (parseTrailerLog(stdout)[0]?.trailers ?? null);
  }

  /** Every file in the commit's tree with its size in bytes. Unknown rev: `GitObjectNotFoundError`. */
  async listFiles(sha: string): Promise<TreeFile[]> {
    const rev = assertRev(sha);
    return parseLsTree((await this.git(lsTreeArgv(rev))).stdout);
  }

  /**
   * The bytes of `path` in commit `sha`, or null when the commit has no file
   * there (missing, or a folder). Unknown rev: `GitObjectNotFoundError`.
   */
  async readFile(sha: string, path: string): Promise<Buffer | null> {
    const rev = assertRev(sha);
    assertRepoPath(path);
    try {
      return (await paced(() => runGitBuffer(catFileBlobArgv(rev, path), { cwd: this.dir, env: this.env(), timeoutMs: this.timeoutMs })))
        .stdout;
    } catch (error) {
      if (error instanceof GitError && /does not exist in '|exists on disk, but not in '|: bad file$/m.test(error.stderr)) {
        return null;
      }
      throw error;
    }
  }

  /**
   * What commit `sha` changed, against its first parent (or the empty tree
   * for a root commit), renames detected. 3 spawns; `diffFiles` and
   * `diffPatches` do the parts, one spawn each, when the parent is known.
   */
  async diff(sha: string): Promise<CommitDiff> {
    const rev = assertRev(sha);
    const { sha: commit, parents } = parseRevListParents((await this.git(revListParentsArgv(rev))).stdout);
    const base = parents[0] ?? null;
    const [files, patches] = await Promise.all([this.diffFiles(commit, base), this.diffPatches(commit, base)]);
    if (patches.length !== files.length) throw new GitError(`diff of ${commit}: ${patches.length} patches for ${files.length} files`);
    return { base, files: files.map((file, n) => ({ ...file, patch: patches[n]! })) };
  }

  /**
   * The files commit `sha` changed against `base` (null: the empty tree), with
   * their line counts and no patch. One spawn. Unknown rev: `GitObjectNotFoundError`.
   */
  async diffFiles(sha: string, base: string | null): Promise<FileDiff[]> {
    const [from, to] = this.diffRange(sha, base);
    return parseRawNumstat((await this.git(diffRawNumstatArgv(from, to))).stdout);
  }

  /**
   * The unified diff of each file `diffFiles` lists for the same commits, in
   * its order; null for a binary file. One spawn.
   */
  async diffPatches(sha: string, base: string | null): Promise<(string | null)[]> {
    const [from, to] = this.diffRange(sha, base);
    const { stdout } = await this.git(diffPatchArgv(from, to));
    return parsePatches(stdout);
  }

  /**
   * Packs the loose objects written since the last pack into one new pack
   * (`repack -d`, no `-a`: the cost follows the new objects, not the repo).
   * A turn leaves about nine small loose files; packed, the bucket trees of
   * successive turns delta against each other.
   */
  async packLooseObjects(): Promise<void> {
    await this.git(['repack', '-d', '-q', '--no-write-bitmap-index'], { timeoutMs: this.worktreeTimeoutMs });
  }

  /** Loose objects and their size in KiB (`count-objects -v`). */
  async looseObjects(): Promise<{ count: number; sizeKiB: number }> {
    const { stdout } = await this.git(['count-objects', '-v']);
    const value = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(stdout)?.[1] ?? 0);
    return { count: value('count'), sizeKiB: value('size') };
  }

  /** `git fsck --full --strict`; `ok` is false when git reports any problem. */
  async fsck(): Promise<{ ok: boolean; output: string }> {
    const { stdout, stderr, exitCode } = await this.git(fsckArgv(), {
      okExitCodes: Array.from({ length: 256 }, (_, i) => i),
      timeoutMs: this.worktreeTimeoutMs,
    });
    const output = [stdout.trim(), stderr].filter((s) => s !== '').join('\n');
    return { ok: exitCode === 0 && !/^(error|missing|broken|fatal)/m.test(output), output };
  }

  /**
   * Makes the index and working tree match HEAD again (`read-tree --reset
   * -u`; the empty tree on an unborn branch): tracked changes and files staged
   * but never committed are discarded, untracked files are left alone.
   * Use after `fastImport` and after a crash.
   */
  async resetWorkingTree(): Promise<void> {
    const head = await this.readHead();
    await this.git(readTreeResetArgv(head.sha ?? EMPTY_TREE_SHA1), this.worktreeRun());
  }

  // --- internals -----------------------------------------------------------

  /** `log -1` of the commit a sha (prefix) names; null when it names none. */
  private async logOneCommit(sha: string, format: string | undefined): Promise<string | null> {
    if (!isShaPrefix(sha)) return null;
    try {
      const { stdout } = await this.git(logArgv({ rev: `${sha}^{commit}`, limit: 1, format }));
      return stdout === '' ? null : stdout;
    } catch (error) {
      if (error instanceof GitObjectNotFoundError) return null;
      throw error;
    }
  }

  private diffRange(sha: string, base: string | null): [string, string] {
    const to = assertRev(sha);
    if (base === null) return [to.length === 64 ? EMPTY_TREE_SHA256 : EMPTY_TREE_SHA1, to];
    return [assertRev(base), to];
  }

  /** Our repo, pinned: no discovery can ever reach an enclosing repo. */
  private env(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return gitEnv({ GIT_DIR: this.gitDir, GIT_WORK_TREE: this.dir, ...extra });
  }

  private git(
    args: string[],
    opts: {
      input?: string | Uint8Array;
      env?: NodeJS.ProcessEnv;
      okExitCodes?: number[];
      timeoutMs?: number;
      config?: ReadonlyArray<readonly [string, string]>;
    } = {},
  ): Promise<GitResult<string>> {
    return paced(() =>
      runGit(args, {
        cwd: this.dir,
        env: this.env(opts.env),
        input: opts.input,
        okExitCodes: opts.okExitCodes,
        timeoutMs: opts.timeoutMs ?? this.timeoutMs,
        config: opts.config,
      }),
    );
  }

  /** Options of a run that may write every file of the working tree. */
  private worktreeRun(): { timeoutMs: number; config: ReadonlyArray<readonly [string, string]> } {
    return { timeoutMs: this.worktreeTimeoutMs, config: WORKTREE_CONFIG };
  }

  private async writeWorkingFiles(files: readonly RepoFile[]): Promise<void> {
    const dirs = new Set(files.map((f) => dirname(f.path)).filter((d) => d !== '.'));
    await Promise.all([...dirs].map((d) => mkdir(join(this.dir, d), { recursive: true })));
    await Promise.all(files.map((f) => writeFile(join(this.dir, f.path), contentBytes(f.content))));
  }

  /**
   * HEAD read straight from `.git` (no spawn: this runs on every turn).
   * Falls back to git for anything unusual (a symbolic ref chain, say).
   */
  private async readHead(): Promise<{ ref: string | null; sha: string | null }> {
    const text = await readFileFs(join(this.gitDir, 'HEAD'), 'utf8').then(
      (s) => s.trim(),
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') {
          throw new GitError(`${this.dir} is not a session repo (no .git/HEAD); call init() first`, [], null, '', { cause: error });
        }
        throw error;
      },
    );
    if (text.startsWith('ref: ')) {
      const ref = text.slice('ref: '.length);
      return { ref, sha: await this.readRef(ref) };
    }
    if (isFullSha(text)) return { ref: null, sha: text.toLowerCase() };
    throw new GitError(`unreadable HEAD in ${this.gitDir}: ${JSON.stringify(text.slice(0, 100))}`);
  }

  /** The sha a branch ref points to, or null when it does not exist. */
  private async readRef(ref: string): Promise<string | null> {
    if (/^refs\/heads\/[A-Za-z0-9._-]+$/.test(ref) && !ref.includes('..')) {
      const loose = await readFileFs(join(this.gitDir, ref), 'utf8').then(
        (s) => s.trim(),
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
          throw error;
        },
      );
      if (loose !== null && isFullSha(loose)) return loose.toLowerCase();
      if (loose === null) {
        const packed = await readFileFs(join(this.gitDir, 'packed-refs'), 'utf8').catch(() => '');
        for (const line of packed.split('\n')) {
          const [sha, name] = line.split(' ');
          if (name === ref && sha !== undefined && isFullSha(sha)) return sha.toLowerCase();
        }
        return null;
      }
    }
    const { stdout, exitCode } = await this.git(['rev-parse', '--verify', '--quiet', '--end-of-options', ref], {
      okExitCodes: [0, 1],
    });
    return exitCode === 0 ? stdout.trim() : null;
  }
}

interface InfoWaiter {
  resolve: (info: CommitInfo | null) => void;
  reject: (error: unknown) => void;
}

/** `commitInfo` calls waiting for the end of the tick, per git dir. */
const pendingInfos = new Map<string, { repo: SessionRepo; waiters: Map<string, InfoWaiter[]> }>();

function assertCount(n: unknown, what: string): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new GitArgumentError(`${what} must be a non-negative integer, got ${String(n)}`);
  }
  return n;
}

/**
 * The version in an index file's header (`DIRC` then a 32-bit version), or
 * null when there is no index; an unreadable header counts as version 0, so
 * that git rewrites (or reports) it.
 */
async function readIndexVersion(file: string): Promise<number | null> {
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (handle === null) return null;
  try {
    const header = Buffer.alloc(8);
    const { bytesRead } = await handle.read(header, 0, 8, 0);
    return bytesRead === 8 && header.toString('latin1', 0, 4) === 'DIRC' ? header.readUInt32BE(4) : 0;
  } finally {
    await handle.close();
  }
}

async function findLockFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const full = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await findLockFiles(full)));
    else if (entry.name.endsWith('.lock')) found.push(full);
  }
  return found;
}
