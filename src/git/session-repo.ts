/**
 * One session's git repo: `sessions/<session_id>/` with its `.git` folder, and
 * the session's writes to it. Reads (log, commits, trailers, files, diffs,
 * branches, HEAD) are `GitRepo`'s, which this extends: a session repo is a
 * git repo that the mirror also writes, its writes need the same runner and
 * the same HEAD and ref reads, and every reader that takes a `GitRepo` (a
 * commit's files and diff, say) takes a session repo as it is. Holding a
 * `GitRepo` instead would have made those internals public.
 *
 * A turn is committed by `commitTurn`: one `git fast-import` that reads only
 * the trees on the changed paths (root, messages/, one bucket), so its cost
 * stays flat however many files the session holds; then, when HEAD is on the
 * branch at the parent, the files are written and staged (`update-index`) so
 * the working tree follows (`followCommit`, which the mirror runs once for
 * all the commits of a pass: its cost follows the index). Nothing here scans the working tree. Whole
 * sessions are written by `fastImport` (src/git/fast-import.ts) with the same
 * encoding, so the two can be mixed.
 *
 * Not safe for concurrent use on one repo: the caller holds the session's
 * in-process lock around every mutating call.
 */
import { existsSync } from 'node:fs';
import { appendFile, lstat, mkdir, open, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import {
  checkoutBranchArgv,
  checkoutDetachedArgv,
  configListArgv,
  configSetArgv,
  initArgv,
  readTreeResetArgv,
  updateIndexAddArgv,
} from './argv.js';
import { assertFiles, commitMessageBytes, contentBytes, identityEnv, normalizeIdentity, type Identity, type RepoFile } from './commit-input.js';
import { GitRefConflictError } from './errors.js';
import { fastImport } from './fast-import.js';
import { GitRepo } from './git-repo.js';
import { parseConfigList } from './parse.js';
import { assertBranchName, assertFullSha, assertSha, EMPTY_TREE_SHA1 } from './refs.js';
import { DEFAULT_GIT_TIMEOUT_MS, gitEnv, runGit } from './run.js';

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
 * - durability (`core.fsync*`, `fastimport.unpackLimit`): the database is the
 *   source of truth and a rebuild writes byte-identical commits, so the repo
 *   may lose its newest commits in a crash: a branch left behind the database
 *   is found by reconcile at start-up (`agrees`) and the repo rebuilt; a
 *   commit that landed before the database heard of it is adopted through
 *   its trailers. What a crash must never leave is a
 *   ref pointing at an object that is missing or torn: every later git run on
 *   the repo (ours and the user's) fails on it, and only a rebuild repairs it.
 *   A process crash cannot do that (git writes objects before it moves the
 *   ref, each through a lock file and a rename, and the page cache survives
 *   the process); a power cut or kernel crash can, since without fsync ext4
 *   may persist the ref's rename before the objects' data. So objects, pack
 *   indexes and refs are fsynced, which keeps git's order on disk. What made
 *   that expensive was the number of files: fast-import unpacks a pack of
 *   fewer than 100 objects into loose objects by spawning `unpack-objects`,
 *   which fsyncs each of a turn's ~9 objects. With `unpackLimit=0` a turn is
 *   one pack (.pack and .idx fsynced, no extra process): about half the
 *   commit's time here. The packs are rolled up geometrically by
 *   `packLooseObjects`. The index is not fsynced: after a crash the mirror
 *   resets index and working tree to HEAD when it first opens the repo, and
 *   the start-up reconcile does for a repo left with its checkout-behind mark
 *   (a crash between a commit and the checkout following it);
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
  ['fastimport.unpackLimit', '0'],
  ['core.logAllRefUpdates', 'true'],
  ['core.autocrlf', 'false'],
];

/** A `section.key` with no subsection, and a value git reads as written without quoting. */
const PLAIN_KEY = /^[A-Za-z][A-Za-z0-9-]*\.[A-Za-z][A-Za-z0-9-]*$/;
const PLAIN_VALUE = /^[A-Za-z0-9/,._-]+$/;

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

export interface SessionRepoOptions {
  /** Limit for each git run that does not rewrite the working tree. Default 30 000 ms. */
  timeoutMs?: number;
  /**
   * Limit for runs that may write every file of the session (checkouts,
   * `resetWorkingTree`, the repack in `packLooseObjects`): writing 50,000
   * files was measured at 5–40 s on a loaded 2-core machine. Default 600 000 ms.
   */
  worktreeTimeoutMs?: number;
}

export class SessionRepo extends GitRepo {
  /** Absolute path of the `.git` folder. */
  readonly gitDir: string;
  private readonly worktreeTimeoutMs: number;

  constructor(dir: string, options: SessionRepoOptions = {}) {
    const gitDir = join(resolve(dir), '.git');
    super(dir, { timeoutMs: options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS, gitDirs: { gitDir, commonDir: gitDir } });
    this.gitDir = gitDir;
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
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // No GIT_DIR here: with GIT_WORK_TREE set, init would record core.worktree.
    if (!this.exists()) await runGit(initArgv(), { cwd: this.dir, env: gitEnv() });
    const current = parseConfigList((await this.git(configListArgv())).stdout);
    // Keys the repo does not have yet (all but one in a new repo) are appended to .git/config in
    // one write instead of a `git config` process each (13 processes and ~95 ms per new session
    // before, 2 and ~15 ms after); a key present with another value is rewritten by git, so a key
    // never appears twice (git refuses to set a key that has several values).
    const appendable = SESSION_REPO_CONFIG.filter(([key, value]) => !current.has(key.toLowerCase()) && PLAIN_KEY.test(key) && PLAIN_VALUE.test(value));
    if (appendable.length > 0) {
      const sections = new Map<string, string>();
      for (const [key, value] of appendable) {
        const dot = key.indexOf('.');
        const section = key.slice(0, dot);
        sections.set(section, `${sections.get(section) ?? ''}\t${key.slice(dot + 1)} = ${value}\n`);
      }
      await appendFile(join(this.gitDir, 'config'), [...sections].map(([section, lines]) => `[${section}]\n${lines}`).join(''));
    }
    const appended = new Set(appendable.map(([key]) => key));
    for (const [key, value] of SESSION_REPO_CONFIG) {
      if (!appended.has(key) && current.get(key.toLowerCase()) !== value) await this.git(configSetArgv(key, value));
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
   * Commits one turn without touching the index: a single `git fast-import`
   * that reads only the trees on the changed paths, so the cost stays flat
   * however many files the repo holds. Then, when HEAD is on the branch at
   * `parent`, the files are written and staged so the working tree follows;
   * otherwise the caller moves the checkout (`checkoutBranch`) when it is done.
   * `commitTurnOnly` and `followCommit` are the two halves, for a caller
   * that records the commit before the checkout follows, or brings the
   * checkout along once after several commits.
   *
   * The spec is checked whole before any git runs. A missing branch is
   * created. Throws `GitArgumentError` for an invalid spec,
   * `GitRefConflictError` when the branch exists at another commit than
   * `parent` (nothing is changed), or the error fast-import exited with.
   * @returns the new commit and whether the working tree was brought along.
   */
  async commitTurn(spec: CommitTurnSpec): Promise<{ sha: string; checkedOut: boolean }> {
    const { sha, headAtParent } = await this.commitTurnOnly(spec);
    if (headAtParent) await this.followCommit(spec.files);
    return { sha, checkedOut: headAtParent };
  }

  /**
   * `commitTurn` without the checkout: the commit lands and the branch moves;
   * index and working tree stay where they were. Same checks and errors.
   * @returns the new commit and whether HEAD was on the branch at `parent`
   *   (then `followCommit(spec.files)` brings the working tree along).
   */
  async commitTurnOnly(spec: CommitTurnSpec): Promise<{ sha: string; headAtParent: boolean }> {
    assertBranchName(spec.branch);
    if (spec.parent !== null) assertFullSha(spec.parent, 'parent');
    // fast-import checks these too, but only once it runs: refuse a bad spec before any spawn.
    assertFiles(spec.files);
    normalizeIdentity(spec.author, 'author');
    normalizeIdentity(spec.committer ?? spec.author, 'committer');
    commitMessageBytes(spec.message);
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
    return { sha: shas[0]!, headAtParent: head.ref === ref && head.sha === parent };
  }

  /**
   * Whether HEAD is on `branch` at `sha` (null: the branch is unborn), read
   * from the ref files: the case where a commit on `branch` with parent `sha`
   * can bring the working tree along with `followCommit`.
   */
  async headIsAt(branch: string, sha: string | null): Promise<boolean> {
    const head = await this.readHead();
    return head.ref === `refs/heads/${branch}` && head.sha === (sha === null ? null : sha.toLowerCase());
  }

  /**
   * Brings index and working tree along after commits made on HEAD's branch
   * from where HEAD was (`commitTurnOnly`, a fast-import stream): writes the
   * files (in order: a later one with the same path wins) and stages them
   * with one `update-index`. Its cost follows the index (git rewrites the
   * whole file), so a caller with several commits calls it once for all.
   */
  async followCommit(files: readonly RepoFile[]): Promise<void> {
    const last = new Map<string, RepoFile>();
    for (const file of files) last.set(file.path, file);
    await this.stageFiles([...last.values()]);
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
   * Packs what the commits since the last pack left: their loose objects and
   * their small packs (a turn is one pack of ~9 objects, see
   * `SESSION_REPO_CONFIG`). `--geometric=2` rolls small packs into the next
   * bigger one only while each pack is not at least twice the size of the
   * ones after it, so the cost follows the new objects, not the repo (a
   * whole repack happens only as often as the repo doubles). Packed, the
   * bucket trees of successive turns delta against each other.
   */
  async packLooseObjects(): Promise<void> {
    await this.git(['repack', '-d', '-n', '-q', '--geometric=2', '--no-write-bitmap-index'], { timeoutMs: this.worktreeTimeoutMs });
  }

  /**
   * Everything in one pack, unreachable objects dropped: `repack -a -d` (a new pack of every
   * object reachable from the refs, the index and HEAD, written before the old packs are removed),
   * then `prune` of the loose objects no ref reaches, then `pack-refs --all`. Each step is git's
   * own, safe to interrupt: killed, the repo keeps either the old packs or the new one. Then the
   * files git's templates and dumb-transport info left, which no one reads in a session repo and
   * which take a disk block each: the sample hooks (never run: only `*.sample`), `info/refs` and
   * `objects/info/packs` (for serving over dumb HTTP; repack here no longer writes them, `-n`).
   */
  async compact(): Promise<void> {
    const run = { timeoutMs: this.worktreeTimeoutMs };
    await this.git(['repack', '-a', '-d', '-n', '-q', '--no-write-bitmap-index'], run);
    await this.git(['prune', '--expire=now'], run);
    await this.git(['pack-refs', '--all'], run);
    const hooks = join(this.gitDir, 'hooks');
    const samples = (await readdir(hooks).catch(() => [] as string[])).filter((name) => name.endsWith('.sample'));
    for (const file of [...samples.map((name) => join(hooks, name)), join(this.gitDir, 'info', 'refs'), join(this.gitDir, 'objects', 'info', 'packs')]) await rm(file, { force: true });
  }

  /** HEAD as the repo keeps it: the ref it names (null when detached) and its commit (null when unborn). */
  headRef(): Promise<{ ref: string | null; sha: string | null }> {
    return this.readHead();
  }

  /** Every ref of the repo (branches and any other namespace) and the object it names, sorted by name. */
  async allRefs(): Promise<Map<string, string>> {
    const { stdout } = await this.git(['for-each-ref', '--format=%(refname) %(objectname)']);
    const refs = new Map<string, string>();
    for (const line of stdout.split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) refs.set(line.slice(0, space), line.slice(space + 1));
    }
    return refs;
  }

  /**
   * The repo as one git bundle written to `file` (an absolute path of ours): every ref and the
   * objects they reach (`bundle create --all`). HEAD is the caller's to record (a bundle keeps
   * only its commit, not the branch it names). Refused by git for a repo without a ref.
   */
  async writeBundle(file: string): Promise<void> {
    await this.git(['bundle', 'create', '-q', absoluteFile(file), '--all'], { timeoutMs: this.worktreeTimeoutMs });
  }

  /** @throws GitError when `file` is not a whole bundle whose prerequisites this repo has (`bundle verify`). */
  async verifyBundle(file: string): Promise<void> {
    await this.git(['bundle', 'verify', '-q', absoluteFile(file)], { timeoutMs: this.worktreeTimeoutMs });
  }

  /**
   * Every ref of the bundle at `file` made this repo's own, with the objects: `bundle unbundle`
   * (its pack indexed into this repo; no transport runs, so the runner's ban on them holds), then
   * the refs it lists written in one `update-ref --stdin` transaction; then HEAD pointed where
   * `head` says: a branch, or a commit (detached).
   * @returns the refs written.
   */
  async restoreBundle(file: string, head: { ref: string | null; sha: string | null }): Promise<Map<string, string>> {
    const { stdout } = await this.git(['bundle', 'unbundle', absoluteFile(file)], { timeoutMs: this.worktreeTimeoutMs });
    const refs = new Map<string, string>();
    for (const line of stdout.split('\n')) {
      const [sha, ref] = line.split(' ');
      if (sha === undefined || ref === undefined || ref === 'HEAD') continue;
      assertFullSha(sha);
      if (!/^refs\/[A-Za-z0-9._/+-]+$/.test(ref) || ref.includes('..')) throw new Error(`the bundle names a ref git would not take: ${JSON.stringify(ref.slice(0, 100))}`);
      refs.set(ref, sha);
    }
    await this.git(['update-ref', '--stdin'], { input: [...refs].map(([ref, sha]) => `update ${ref} ${sha}\n`).join('') });
    if (head.ref !== null) {
      if (!/^refs\/heads\/[A-Za-z0-9._/-]+$/.test(head.ref) || head.ref.includes('..')) throw new Error(`HEAD ${JSON.stringify(head.ref)} is not a branch`);
      await this.git(['symbolic-ref', 'HEAD', head.ref]);
    } else if (head.sha !== null) {
      assertFullSha(head.sha);
      await this.git(['update-ref', '--no-deref', 'HEAD', head.sha]);
    }
    return refs;
  }

  /**
   * A commit beside the branches: `parent`'s tree with one file added (or replaced) at
   * `<folder>/<name>`, its only parent `parent`, written by plumbing (hash-object, ls-tree, mktree,
   * commit-tree) and pointed at by `ref` (outside refs/heads, so no branch, count or timeline sees
   * it). The same inputs give the same commit.
   * @returns the commit's sha.
   */
  async commitFileBeside(spec: { parent: string; folder: string; name: string; content: string; message: string; ref: string; author: Identity }): Promise<string> {
    assertFullSha(spec.parent);
    for (const part of [spec.folder, spec.name]) if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(part)) throw new Error(`${JSON.stringify(part)} is not a plain file name`);
    if (!/^refs\/[A-Za-z0-9._/-]+$/.test(spec.ref) || spec.ref.startsWith('refs/heads/') || spec.ref.includes('..')) throw new Error(`${JSON.stringify(spec.ref)} is not a ref beside the branches`);
    const blob = (await this.git(['hash-object', '-w', '--stdin'], { input: spec.content })).stdout.trim();
    const entries = async (tree: string) => (await this.git(['ls-tree', '-z', '--end-of-options', tree])).stdout.split('\0').filter(Boolean);
    const without = (lines: string[], name: string) => lines.filter((line) => line.slice(line.indexOf('\t') + 1) !== name);
    const mktree = async (lines: string[]) => (await this.git(['mktree', '-z'], { input: `${lines.join('\0')}\0` })).stdout.trim();
    const root = await entries(`${spec.parent}^{tree}`);
    const existing = root.find((line) => line.endsWith(`\t${spec.folder}`) && line.includes(' tree '));
    const inner = existing ? await entries(existing.split(/\s/)[2]!) : [];
    const folder = await mktree([...without(inner, spec.name), `100644 blob ${blob}\t${spec.name}`]);
    const tree = await mktree([...without(root, spec.folder), `040000 tree ${folder}\t${spec.folder}`]);
    const author = normalizeIdentity(spec.author);
    const sha = (await this.git(['commit-tree', tree, '-p', spec.parent, '-F', '-'], { input: spec.message, env: identityEnv(author) })).stdout.trim();
    assertFullSha(sha);
    await this.git(['update-ref', '--end-of-options', spec.ref, sha]);
    return sha;
  }

  /** Loose objects and their size in KiB, and the number of packs (`count-objects -v`). */
  async looseObjects(): Promise<{ count: number; sizeKiB: number; packs: number }> {
    const { stdout } = await this.git(['count-objects', '-v']);
    const value = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(stdout)?.[1] ?? 0);
    return { count: value('count'), sizeKiB: value('size'), packs: value('packs') };
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

  /**
   * Marks the working tree as possibly behind the branches (a file in .git,
   * not fsynced: it matters after a process crash, and a lost mark after a
   * power cut costs only a stale checkout of derived data). Written before a
   * commit whose checkout follows later; `clearCheckoutBehind` once it has.
   */
  async markCheckoutBehind(): Promise<void> {
    await writeFile(this.checkoutBehindFile(), '');
  }

  /** Whether a `markCheckoutBehind` was never cleared (a crash between a commit and its checkout). */
  checkoutBehind(): boolean {
    return existsSync(this.checkoutBehindFile());
  }

  async clearCheckoutBehind(): Promise<void> {
    await rm(this.checkoutBehindFile(), { force: true });
  }

  // --- internals -----------------------------------------------------------

  protected override missingHeadMessage(): string {
    return `${this.dir} is not a session repo (no .git/HEAD); call init() first`;
  }

  private checkoutBehindFile(): string {
    return join(this.dir, '.git', 'entity-memory-checkout-behind');
  }

  /** Writes files into the working tree and stages them (`update-index --add`, paths on stdin): the checkout follows a commit made without the index. */
  private async stageFiles(files: readonly RepoFile[]): Promise<void> {
    if (files.length === 0) return;
    await this.writeWorkingFiles(files);
    const paths = Buffer.from(files.map((f) => `${f.path}\0`).join(''), 'utf8');
    await this.git(updateIndexAddArgv(), { input: paths });
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

/** A file path for git's argv: absolute, so it can never be read as an option. */
function absoluteFile(file: string): string {
  if (!isAbsolute(file)) throw new Error(`${JSON.stringify(file)} is not an absolute path`);
  return file;
}
