/**
 * Reading any git repo with a working tree: history, commits, trailers,
 * trees, files and diffs, branches and HEAD. Nothing here writes to the repo
 * (no index refresh, no ref move, no object), so it is safe on a user's own
 * project folder as well as on a session repo (`SessionRepo` adds the
 * session's writes on top of it).
 *
 * Where the repo's git directories are is asked of git once per instance
 * (`rev-parse --absolute-git-dir`), at the first read, unless the caller
 * already knows (a session repo's is `<dir>/.git`; a checked project place
 * has located it). A `.git` that is a file, as in a `git worktree add`
 * checkout or a submodule, is followed like git follows it: HEAD is read
 * from the checkout's own git directory, branches from the common one.
 *
 * Every run goes through the one runner (src/git/run.ts), which applies the
 * per-call config that keeps a repo's config from running programs, with
 * `GIT_DIR` pinned so that no discovery can reach an enclosing repo.
 */
import { readFile as readFileFs } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import {
  blameArgv,
  catFileBlobArgv,
  diffPatchArgv,
  diffRawNumstatArgv,
  diffRawNumstatPatchArgv,
  forEachBranchArgv,
  logArgv,
  lsTreeArgv,
  revListCountArgv,
  LOG_FORMAT,
  verifyCommitArgv,
} from './argv.js';
import { assertRepoPath } from './commit-input.js';
import { GitArgumentError, GitError, GitObjectNotFoundError, GitTimeoutError } from './errors.js';
import {
  parseBlamePorcelain,
  parseBranchTips,
  parseLog,
  parseLsTree,
  parseRawNumstat,
  parseRawNumstatPatches,
  parsePatches,
  type BlameRange,
  type CommitInfo,
  type FileDiff,
  type TreeFile,
} from './parse.js';
import { assertRev, EMPTY_TREE_SHA1, isFullSha, isShaPrefix } from './refs.js';
import { cacheSlot, cachedAnswer, keepAnswer, type Answer, type FilesAndPatches } from './sha-cache.js';
import { DEFAULT_GIT_TIMEOUT_MS, gitEnv, runGit, runGitBuffer, type GitResult } from './run.js';
import { paced } from './spawn-pace.js';

export type { BlameRange, CommitInfo, FileDiff, TreeFile } from './parse.js';

/** SHA-256 repos' empty tree, for completeness; session repos are SHA-1. */
const EMPTY_TREE_SHA256 = '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321';

/** Where a repo keeps its git data. */
export interface GitDirs {
  /** Absolute path of the git directory: HEAD, the index (`<top>/.git`, or a `.git` file's `gitdir:` target). */
  gitDir: string;
  /** Absolute path of the common git directory: objects, branches (the main repo's for a linked worktree; else `gitDir`). */
  commonDir: string;
}

export interface GitRepoOptions {
  /** Limit for each git run. Default 30 000 ms. */
  timeoutMs?: number;
  /**
   * The repo's git directories when the caller knows them. Default: asked of
   * git (one `rev-parse`) at the first read, then kept for the instance.
   */
  gitDirs?: GitDirs;
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
  /** Only the commits that changed this file (a repo path, checked). */
  path?: string;
}

/** Options of one run: stdin, extra environment, accepted exit codes, its own limit, extra settings. */
export interface GitRunOptions {
  input?: string | Uint8Array;
  env?: NodeJS.ProcessEnv;
  okExitCodes?: number[];
  timeoutMs?: number;
  config?: ReadonlyArray<readonly [string, string]>;
}

export class GitRepo {
  /** Absolute path of the working tree. */
  readonly dir: string;
  protected readonly timeoutMs: number;
  /** Known or being located; undefined until the first read of a repo located by git. */
  private dirs: GitDirs | Promise<GitDirs> | undefined;

  constructor(dir: string, options: GitRepoOptions = {}) {
    this.dir = resolve(dir);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
    this.dirs = options.gitDirs;
  }

  /**
   * The repo's git directories: as given, or located by git once (`rev-parse
   * --absolute-git-dir --git-common-dir` in `dir`, never looking above it).
   * A failed look is not kept: the next read asks again.
   * @throws GitError when `dir` is not the top of a git repo's working tree,
   * or any other folder of one.
   */
  gitDirs(): Promise<GitDirs> {
    if (this.dirs === undefined) {
      const located = this.locate();
      this.dirs = located;
      located.then(
        (dirs) => {
          this.dirs = dirs;
        },
        () => {
          if (this.dirs === located) this.dirs = undefined;
        },
      );
    }
    return Promise.resolve(this.dirs);
  }

  /** Where HEAD is, read from the git directory without spawning git. */
  async headState(): Promise<HeadState> {
    const head = await this.readHead();
    return {
      branch: head.ref === null ? null : head.ref.replace(/^refs\/heads\//, ''),
      sha: head.sha,
    };
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
    if (opts.path !== undefined) assertRepoPath(opts.path);
    // From a commit's sha, the log is that commit's history: fixed for good (sha-cache.ts).
    const key = rev !== undefined && isFullSha(rev) ? `log ${rev} ${skip} ${limit} ${opts.path ?? ''}` : null;
    try {
      return await this.remembered(key, async () =>
        parseLog((await this.git(logArgv({ rev, all: opts.all, skip, limit, ...(opts.path !== undefined ? { path: opts.path } : {}) }))).stdout),
      );
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
    const kept = cachedAnswer<CommitInfo>(cacheSlot(this.dir), `info ${key}`);
    if (kept) return kept;
    return new Promise((resolve, reject) => {
      // Keyed by folder: readers build a new instance per use, and those of one request share the process.
      let batch = pendingInfos.get(this.dir);
      if (!batch) {
        const created = { repo: this as GitRepo, waiters: new Map<string, InfoWaiter[]>() };
        batch = created;
        pendingInfos.set(this.dir, created);
        process.nextTick(() => {
          pendingInfos.delete(this.dir);
          void created.repo.loadInfos(created.waiters);
        });
      }
      const waiters = batch.waiters.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else batch.waiters.set(key, [{ resolve, reject }]);
    });
  }

  /**
   * Which commit last changed each line of `path` at commit `sha` (a full sha), as ranges in
   * line order. `GitObjectNotFoundError` when the commit has no such file.
   */
  async blame(sha: string, path: string): Promise<BlameRange[]> {
    if (!isFullSha(sha)) throw new GitArgumentError(`blame needs a full commit sha, got ${JSON.stringify(sha)}`);
    assertRepoPath(path);
    return parseBlamePorcelain((await this.git(blameArgv(sha, path))).stdout);
  }

  /**
   * Number of commits reachable from `target` (a sha or branch, `HEAD`), or from every branch;
   * with `path`, only those that changed it. Unborn HEAD: 0.
   */
  async countCommits(target: string | { all: true }, path?: string): Promise<number> {
    if (path !== undefined) assertRepoPath(path);
    const argv =
      typeof target === 'string' ? revListCountArgv({ rev: assertRev(target), ...(path !== undefined ? { path } : {}) }) : revListCountArgv({ all: true });
    try {
      return Number((await this.git(argv)).stdout.trim());
    } catch (error) {
      if (error instanceof GitObjectNotFoundError && target === 'HEAD' && (await this.readHead()).sha === null) return 0;
      throw error;
    }
  }

  /** Every file in the commit's tree with its size in bytes. Unknown rev: `GitObjectNotFoundError`. */
  async listFiles(sha: string): Promise<TreeFile[]> {
    const rev = assertRev(sha);
    return parseLsTree((await this.git(lsTreeArgv(rev))).stdout);
  }

  /**
   * The files among `paths` in the commit's tree with their sizes (a path that is not a file
   * there is left out), in one spawn; literal paths, no pathspec magic.
   */
  async listFilesAmong(sha: string, paths: readonly string[]): Promise<TreeFile[]> {
    const rev = assertRev(sha);
    if (paths.length === 0) return [];
    for (const path of paths) assertRepoPath(path);
    // An argv has a limit: past 500 paths, the whole tree, kept to those paths.
    if (paths.length > 500) {
      const wanted = new Set(paths);
      return (await this.listFiles(sha)).filter((file) => wanted.has(file.path));
    }
    return parseLsTree((await this.git([...lsTreeArgv(rev), '--', ...paths], { env: { GIT_LITERAL_PATHSPECS: '1' } })).stdout);
  }

  /**
   * The bytes of `path` in commit `sha`, or null when the commit has no file
   * there (missing, or a folder). Unknown rev: `GitObjectNotFoundError`.
   */
  async readFile(sha: string, path: string): Promise<Buffer | null> {
    const rev = assertRev(sha);
    assertRepoPath(path);
    const options = await this.runOptions();
    try {
      return (await paced(() => runGitBuffer(catFileBlobArgv(rev, path), options))).stdout;
    } catch (error) {
      if (error instanceof GitError && /does not exist in '|exists on disk, but not in '|: bad file$/m.test(error.stderr)) {
        return null;
      }
      throw error;
    }
  }

  /**
   * The files commit `sha` changed against `base` (null: the empty tree), with
   * their line counts and no patch. One spawn. Unknown rev: `GitObjectNotFoundError`.
   */
  async diffFiles(sha: string, base: string | null): Promise<FileDiff[]> {
    const [from, to] = diffRange(sha, base);
    const key = diffKey(from, to);
    return this.remembered(
      key && `files ${key}`,
      async () => parseRawNumstat((await this.git(diffRawNumstatArgv(from, to))).stdout),
      (slot) => cachedAnswer<FilesAndPatches>(slot, `files+patches ${key}`)?.files,
    );
  }

  /**
   * The unified diff of each file `diffFiles` lists for the same commits, in
   * its order; null for a binary file. One spawn.
   */
  async diffPatches(sha: string, base: string | null): Promise<(string | null)[]> {
    const [from, to] = diffRange(sha, base);
    const key = diffKey(from, to);
    return this.remembered(
      key && `patches ${key}`,
      async () => parsePatches((await this.git(diffPatchArgv(from, to))).stdout),
      (slot) => cachedAnswer<FilesAndPatches>(slot, `files+patches ${key}`)?.patches,
    );
  }

  /** `diffFiles` and `diffPatches` of the same commits from one spawn (when both are wanted). */
  async diffFilesAndPatches(sha: string, base: string | null): Promise<FilesAndPatches> {
    const [from, to] = diffRange(sha, base);
    const key = diffKey(from, to);
    return this.remembered(key && `files+patches ${key}`, async () => parseRawNumstatPatches((await this.git(diffRawNumstatPatchArgv(from, to))).stdout));
  }

  /**
   * `read()`'s answer, kept in this repo's slot of sha-cache.ts under `key` when there is one (the
   * answer is fixed by full shas; null: read every time). `within` finds it inside another kept
   * answer (a diff's files inside its files and patches). The slot is taken before git is asked.
   */
  private async remembered<T extends Answer>(key: string | null, read: () => Promise<T>, within?: (slot: string | null) => T | undefined): Promise<T> {
    if (key === null) return read();
    const slot = cacheSlot(this.dir);
    const kept = cachedAnswer<T>(slot, key) ?? within?.(slot);
    if (kept) return kept;
    return keepAnswer(slot, key, await read());
  }

  // --- for SessionRepo's writes ----------------------------------------------

  /** Runs git in the repo: its git directory pinned, this repo's time limit unless `opts` gives one. */
  protected async git(args: string[], opts: GitRunOptions = {}): Promise<GitResult<string>> {
    const options = await this.runOptions(opts);
    return paced(() => runGit(args, options));
  }

  /**
   * What `readHead` says when there is no HEAD to read (the folder is no
   * repo, or the repo was deleted).
   */
  protected missingHeadMessage(gitDir: string): string {
    return `${this.dir} has no git repo (no HEAD in ${gitDir})`;
  }

  /**
   * HEAD read straight from the git directory (no spawn: this runs on every
   * turn). Falls back to git for anything unusual (a symbolic ref chain, say).
   */
  protected async readHead(): Promise<{ ref: string | null; sha: string | null }> {
    const { gitDir } = await this.gitDirs();
    const text = await readFileFs(join(gitDir, 'HEAD'), 'utf8').then(
      (s) => s.trim(),
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') {
          throw new GitError(this.missingHeadMessage(gitDir), [], null, '', { cause: error });
        }
        throw error;
      },
    );
    if (text.startsWith('ref: ')) {
      const ref = text.slice('ref: '.length);
      return { ref, sha: await this.readRef(ref) };
    }
    if (isFullSha(text)) return { ref: null, sha: text.toLowerCase() };
    throw new GitError(`unreadable HEAD in ${gitDir}: ${JSON.stringify(text.slice(0, 100))}`);
  }

  /** The sha a branch ref points to, or null when it does not exist. */
  protected async readRef(ref: string): Promise<string | null> {
    if (/^refs\/heads\/[A-Za-z0-9._-]+$/.test(ref) && !ref.includes('..')) {
      // Branches live in the common directory, shared by every worktree of the repo.
      const { commonDir } = await this.gitDirs();
      const loose = await readFileFs(join(commonDir, ref), 'utf8').then(
        (s) => s.trim(),
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
          throw error;
        },
      );
      if (loose !== null && isFullSha(loose)) return loose.toLowerCase();
      if (loose === null) {
        const packed = await readFileFs(join(commonDir, 'packed-refs'), 'utf8').catch(() => '');
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

  // --- internals -------------------------------------------------------------

  /** The runner's options for one run here: our repo pinned, so no discovery can reach an enclosing repo. */
  private async runOptions(opts: GitRunOptions = {}) {
    const { gitDir } = await this.gitDirs();
    return {
      cwd: this.dir,
      env: gitEnv({ GIT_DIR: gitDir, GIT_WORK_TREE: this.dir, ...opts.env }),
      input: opts.input,
      okExitCodes: opts.okExitCodes,
      timeoutMs: opts.timeoutMs ?? this.timeoutMs,
      config: opts.config,
    };
  }

  private async locate(): Promise<GitDirs> {
    // The ceiling is the parent: git looks at `dir` itself (a `.git` folder or
    // file there) and never climbs to a repo around it.
    const env = gitEnv({ GIT_CEILING_DIRECTORIES: dirname(this.dir) });
    const { stdout } = await paced(() =>
      runGit(['rev-parse', '--absolute-git-dir', '--path-format=absolute', '--git-common-dir'], {
        cwd: this.dir,
        env,
        timeoutMs: this.timeoutMs,
      }),
    );
    const [gitDir = '', commonDir = ''] = stdout.trim().split('\n');
    if (gitDir === '' || commonDir === '') throw new GitError(`git did not say where the repo of ${this.dir} keeps its data`);
    return { gitDir, commonDir };
  }

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

  private async oneCommitInfo(sha: string): Promise<CommitInfo | null> {
    const stdout = await this.logOneCommit(sha, undefined);
    return stdout === null ? null : (parseLog(stdout)[0] ?? null);
  }

  /** Answers a batch of `commitInfo` calls; one unknown sha sends the batch back to one process per sha. */
  private async loadInfos(waiters: Map<string, InfoWaiter[]>): Promise<void> {
    const slot = cacheSlot(this.dir);
    const settle = (sha: string, outcome: { info: CommitInfo | null } | { error: unknown }) => {
      if ('info' in outcome && outcome.info !== null) keepAnswer(slot, `info ${sha}`, outcome.info);
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
}

interface InfoWaiter {
  resolve: (info: CommitInfo | null) => void;
  reject: (error: unknown) => void;
}

/** `commitInfo` calls waiting for the end of the tick, per working tree. */
const pendingInfos = new Map<string, { repo: GitRepo; waiters: Map<string, InfoWaiter[]> }>();

function diffRange(sha: string, base: string | null): [string, string] {
  const to = assertRev(sha);
  if (base === null) return [to.length === 64 ? EMPTY_TREE_SHA256 : EMPTY_TREE_SHA1, to];
  return [assertRev(base), to];
}

/** The key of a diff between two commits (or the empty tree) named by full shas; null when either is a ref. */
function diffKey(from: string, to: string): string | null {
  return isFullSha(from) && isFullSha(to) ? `${from.toLowerCase()} ${to.toLowerCase()}` : null;
}

function assertCount(n: unknown, what: string): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new GitArgumentError(`${what} must be a non-negative integer, got ${String(n)}`);
  }
  return n;
}
