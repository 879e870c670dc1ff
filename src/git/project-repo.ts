/**
 * A user's working directory (a project). Unlike session repos, these are the
 * user's own: we read their config (their ignores), never check anything out,
 * never delete a lock, never run their hooks or their signing, and touch only
 * the paths we commit.
 *
 * Two ways of running git here, each where it fits (see src/git/README.md):
 * - simple-git (src/git/project-porcelain.ts, its named tasks) for the user's porcelain
 *   operations: `status` (its `StatusResult` gives `WorkingTreeState`),
 *   `init`, and the first commit's `add -A` + `commit`. These are what a
 *   person would type, the index and HEAD moving the ordinary way;
 * - the runner (src/git/run.ts) for `locate`, config reads and the
 *   end-of-turn commit's plumbing (src/git/project-plumbing.ts, one named
 *   function per command, the commit's tree rebuilt by project-tree.ts, run
 *   through the private `run`; nothing outside src/git/ hands this class an argv): content captured as blobs at the close, a temporary index, a
 *   compare-and-swap of the branch. No porcelain command does that, and the
 *   plumbing is a dozen short processes per turn where the runner's lower
 *   fixed cost counts. The end of a turn's own statuses stay on the runner
 *   as well: `statusWithHead` at the close (porcelain v2 gives HEAD's
 *   entries, which `StatusResult` lacks) and `dirtyAmong` at commit time.
 * Both run with the same per-call settings, environment and ceilings.
 */
import { identityEnv } from './commit-input.js';
import { GitLockedError } from './errors.js';
import type { Committer, ConfigEntry, StatusWithHead } from './parse.js';
import {
  captureFileStates,
  commitsTouching,
  compareAndSwapRef,
  configEntries,
  configuredIdentity,
  dirtyAmong,
  emptyIndex,
  entriesAt,
  gitPath,
  headCommit,
  isAncestor,
  locateRepo,
  missingBlobs,
  operationInProgress,
  readHead,
  setRef,
  stagedSince,
  statusWithHead,
  syncIndexPaths,
  updateIndexPaths,
  withCheckedOutBlobs,
  type FileState,
  type ProjectBlobReader,
  type ProjectGitRun,
  type ProjectHead,
  type RepoLocation,
} from './project-plumbing.js';
import { addAllTask, commitTask, initTask, runPorcelain, statusTask, unbornHeadTask, type PorcelainTask } from './project-porcelain.js';
import { buildCommit, type BuiltCommit } from './project-tree.js';
import { envWithoutGit, runGit } from './run.js';

export type { Committer, ConfigEntry, StatusWithHead } from './parse.js';
export type { RepoLocation } from './project-plumbing.js';

/**
 * The user's environment without inherited GIT_* variables (a GIT_DIR from a
 * hook would redirect us); their global config stays in force.
 */
export function userGitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // Pathspecs are literal: a file named ':(glob)*' is that file.
  return envWithoutGit({ GIT_LITERAL_PATHSPECS: '1' }, extra);
}

export interface WorkingTreeState {
  isRepo: boolean;
  /** Current branch; null when detached or not a repo. */
  branch: string | null;
  /** Paths with changes: tracked, staged or untracked (not ignored), sorted. */
  dirtyPaths: string[];
}

export interface ProjectRepoOptions {
  /** How long to wait for another git's index lock (default 15 000 ms). */
  lockWaitMs?: number;
  /** Per git run (default 60 000 ms). */
  timeoutMs?: number;
  /** Settings added to every git run, e.g. neutralised filter drivers. Default none. */
  config?: ReadonlyArray<readonly [string, string]>;
  /**
   * Folders git must not climb into while looking for the repo
   * (`GIT_CEILING_DIRECTORIES`): a repo above them is never found. Default none.
   */
  ceilings?: readonly string[];
}

/**
 * One working directory's repo. Nothing is cached between calls: where the
 * repo is, and what its config says, can change at any time (a folder
 * replaced by a symlink, a `.git` file rewritten), so callers locate it
 * again on every use (src/projects/project-place.ts).
 */
export class ProjectRepo {
  constructor(
    readonly dir: string,
    private readonly options: ProjectRepoOptions = {},
  ) {}

  /**
   * One git command in the repo with this repo's settings (the same per-call
   * config, neutralised drivers and ceilings as every other call). Private: a
   * command run on a user's repo is a named one (below, from
   * src/git/project-plumbing.ts), never an argv built elsewhere.
   */
  private readonly run: ProjectGitRun = (args, extra = {}) => {
    const ceilings = this.options.ceilings?.length ? { GIT_CEILING_DIRECTORIES: this.options.ceilings.join(':') } : {};
    return runGit(args, {
      cwd: this.dir,
      env: userGitEnv({ ...ceilings, ...extra.env }),
      input: extra.input,
      okExitCodes: extra.okExitCodes,
      timeoutMs: this.options.timeoutMs ?? 60_000,
      config: this.options.config,
    });
  };

  /** One simple-git process in the repo, with this repo's settings (see src/git/project-porcelain.ts). */
  private porcelain<T>(env: NodeJS.ProcessEnv, task: PorcelainTask<T>): Promise<T> {
    const ceilings = this.options.ceilings?.length ? { GIT_CEILING_DIRECTORIES: this.options.ceilings.join(':') } : {};
    return runPorcelain(
      { cwd: this.dir, env: userGitEnv({ ...ceilings, ...env }), config: this.options.config, timeoutMs: this.options.timeoutMs ?? 60_000 },
      task,
    );
  }

  // --- the plumbing of src/git/project-plumbing.ts and project-tree.ts, in this repo (see each function there) ---

  /** See `captureFileStates`. */
  captureFileStates(top: string, gitDir: string, paths: readonly string[], options: { write?: boolean } = {}): Promise<FileState[]> {
    return captureFileStates(this.run, top, gitDir, paths, options);
  }

  /** See `readHead`. */
  readHead(): Promise<ProjectHead> {
    return readHead(this.run);
  }

  /** See `operationInProgress`. */
  operationInProgress(top: string): Promise<string | null> {
    return operationInProgress(this.run, top);
  }

  /** See `entriesAt`. */
  entriesAt(rev: string | null, paths: readonly string[]): Promise<Map<string, { mode: string; oid: string }>> {
    return entriesAt(this.run, rev, paths);
  }

  /** See `buildCommit`. */
  buildCommit(opts: Parameters<typeof buildCommit>[1]): Promise<BuiltCommit> {
    return buildCommit(this.run, opts);
  }

  /** See `compareAndSwapRef`. */
  compareAndSwapRef(ref: string, sha: string, expected: string | null, reason: string): Promise<void> {
    return compareAndSwapRef(this.run, ref, sha, expected, reason);
  }

  /** See `setRef`. */
  setRef(ref: string, sha: string, reason: string): Promise<void> {
    return setRef(this.run, ref, sha, reason);
  }

  /** See `syncIndexPaths`. */
  syncIndexPaths(oldHead: string | null, states: readonly FileState[]): Promise<void> {
    return syncIndexPaths(this.run, oldHead, states);
  }

  /** See `stagedSince`. */
  stagedSince(oldHead: string | null, paths: readonly string[]): Promise<Set<string>> {
    return stagedSince(this.run, oldHead, paths);
  }

  /** See `updateIndexPaths`. */
  updateIndexPaths(states: readonly FileState[], theirs: ReadonlySet<string>): Promise<void> {
    return updateIndexPaths(this.run, states, theirs);
  }

  /** See `isAncestor`. */
  isAncestor(ancestor: string, commit: string): Promise<boolean> {
    return isAncestor(this.run, ancestor, commit);
  }

  /** See `commitsTouching`. */
  commitsTouching(from: string | null, to: string, paths: readonly string[]): Promise<string[]> {
    return commitsTouching(this.run, from, to, paths);
  }

  /** See `gitPath`. */
  gitPath(name: string): Promise<string> {
    return gitPath(this.run, name);
  }

  /** See `missingBlobs`. */
  missingBlobs(oids: readonly string[]): Promise<Set<string>> {
    return missingBlobs(this.run, oids);
  }

  /** See `withCheckedOutBlobs`. */
  withCheckedOutBlobs<T>(gitDir: string, states: readonly FileState[], work: (read: ProjectBlobReader) => Promise<T>): Promise<T> {
    return withCheckedOutBlobs(this.run, gitDir, states, work);
  }

  /**
   * The repo containing `dir` (its top and git directories), asked of git
   * each time; null when it is in none.
   * @throws GitNoWorkTreeError for a bare repo or a folder inside a git directory.
   */
  locate(): Promise<RepoLocation | null> {
    return locateRepo(this.run, this.dir);
  }

  /** The top of the repo containing `dir`, or null when it is in none. */
  async topLevel(): Promise<string | null> {
    return (await this.locate())?.top ?? null;
  }

  /**
   * The repo's effective config as git sees it in `dir` (system, global,
   * local, worktree, and every included file), without the settings we pass
   * per call. Reading config runs no program.
   */
  configEntries(): Promise<ConfigEntry[]> {
    return configEntries(this.run);
  }

  /**
   * `git init` (their default branch and templates apply), through
   * simple-git. Not `-q`: simple-git waits 50 ms after a process that
   * printed nothing (bench/project-status.ts: p50 78 ms with `-q`, 28 ms without).
   */
  async init(): Promise<void> {
    await this.porcelain({}, initTask);
  }

  /**
   * Branch and dirty paths. Runs with GIT_OPTIONAL_LOCKS=0 so status never
   * rewrites the user's index, and without looking inside submodules (whose
   * config is not ours to have read).
   */
  async state(): Promise<WorkingTreeState & { staged: string[] }> {
    if ((await this.locate()) === null) return { isRepo: false, branch: null, dirtyPaths: [], staged: [] };
    return this.status();
  }

  /**
   * `state()` for a folder already located as the top of a repo: one git
   * process, simple-git's `status()` (`--porcelain -b -u -z`, to which we add
   * `--no-renames` and `--ignore-submodules=dirty`) read by `statusFromResult`.
   */
  async status(): Promise<WorkingTreeState & { staged: string[] }> {
    const { branch, paths, staged } = await this.porcelain({ GIT_OPTIONAL_LOCKS: '0' }, statusTask);
    return { isRepo: true, branch, dirtyPaths: paths, staged };
  }

  /**
   * The whole tree's dirty paths as the end of a turn sees them, with HEAD's
   * commit and HEAD's entry for each dirty path, from one
   * `git status --porcelain=v2` (which prints both): the close needs the
   * agent's paths' entries in HEAD as the base of its capture, and reading
   * them here saves a `rev-parse` and an `ls-tree` per turn (about 10 ms,
   * bench/project-commit.ts). On the runner, not simple-git, whose
   * `StatusResult` carries neither. Never writes the index (GIT_OPTIONAL_LOCKS=0).
   */
  statusWithHead(): Promise<StatusWithHead> {
    return statusWithHead(this.run);
  }

  /**
   * Which of `paths` (relative to the top) are dirty, without scanning the rest
   * of the tree: git status limited to them as literal pathspecs, and no git
   * at all for none. A whole-tree status of 10,000 files is most of a turn's
   * commit (about 20 ms here), and the commit only asks about the few paths
   * that were in the way at the close.
   *
   * On the runner, not simple-git: it is the end-of-turn commit's own check
   * (a path it misses is a user's edit the commit could take), read with our
   * parser, whose paths are byte for byte git's, next to the plumbing it
   * guards. simple-git would not be measurably slower (bench/project-status.ts:
   * p50 within 1 ms of the runner per status).
   */
  dirtyAmong(paths: readonly string[]): Promise<string[]> {
    return dirtyAmong(this.run, paths);
  }

  /**
   * The identity git would read from config in this folder (`user.name` and
   * `user.email`, every scope and include, the last value of each winning),
   * or null unless both are set and non-empty. Read-only: one `git config`.
   */
  configuredIdentity(): Promise<Committer | null> {
    return configuredIdentity(this.run);
  }

  /**
   * Null when HEAD has a commit; while it is unborn (no commit yet on its
   * branch), whether the working tree or index holds any non-ignored file
   * and whether anything is staged. One status, with GIT_OPTIONAL_LOCKS=0.
   */
  unbornHead(): Promise<{ hasFiles: boolean; staged: boolean } | null> {
    return this.porcelain({ GIT_OPTIONAL_LOCKS: '0' }, unbornHeadTask);
  }

  /**
   * The first commit of a repo `init()` has just made: every non-ignored file
   * (`git add -A`, so .gitignore and the user's excludes hold), as `who`
   * (author and committer), hooks and signing off. Makes none, touching
   * nothing, when HEAD already has a commit, no file is there, or something
   * is staged already (the index is not one we made). If the commit fails
   * after staging, the index is emptied again, as `init()` left it.
   * @returns the new commit's sha, or null when none was made.
   */
  async initialCommit(message: string, who: Committer): Promise<string | null> {
    const unborn = await this.unbornHead();
    if (!unborn || !unborn.hasFiles || unborn.staged) return null;
    const identity = identityEnv(who);
    let sha: string;
    try {
      // `add` prints nothing, so simple-git adds its 50 ms wait here (once per project).
      await this.whileLocked(() => this.porcelain({}, addAllTask));
      const result = await this.whileLocked(() => this.porcelain(identity, commitTask(message)));
      sha = result.commit;
    } catch (error) {
      await emptyIndex(this.run).catch(() => undefined);
      throw error;
    }
    return /^[0-9a-f]{40,64}$/.test(sha) ? sha : await headCommit(this.run);
  }

  private async whileLocked<T>(run: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + (this.options.lockWaitMs ?? 15_000);
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (!(error instanceof GitLockedError) || Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
      }
    }
  }
}
