/**
 * Plumbing for the user's repositories, one named function per command (argv
 * and run; the output read by src/git/parse.ts): commits built from captured
 * blobs (their tree rebuilt in project-tree.ts), never from the user's index,
 * so a commit holds exactly the agent's end-of-turn content whatever the
 * working tree holds when it is made, and the user's index, working tree and
 * other refs are never rewritten beyond the agent's own paths.
 *
 * Why plumbing and not `git add` + `git commit`: `add` reads the working tree
 * at the moment it runs, so a user edit made after the turn closed (or the
 * next turn's edit) would be swept into this turn's commit; and `commit`
 * concludes whatever operation the user has in progress (a merge's MERGE_HEAD,
 * a cherry-pick's author). `commit-tree` + `update-ref` do neither.
 */
import { lstat, mkdir, mkdtemp, readFile, readlink, realpath, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BeyondLinkError, copyOutOf, removeInside, symlinkInside, writeInside } from '../fs/inside.js';
import { GitError, GitNoWorkTreeError } from './errors.js';
import {
  parseConfigEntries,
  parseIdentity,
  parseLines,
  parseNonBlobs,
  parseRawDiffPaths,
  parseStagedPaths,
  parseStatus,
  parseStatusV2,
  parseTreeListing,
  type Committer,
  type ConfigEntry,
  type StatusWithHead,
} from './parse.js';
import type { GitResult } from './run.js';

/** Runs git in the repo with the user's environment (plus `env`). */
export type ProjectGitRun = (
  args: string[],
  opts?: { input?: string | Buffer; env?: NodeJS.ProcessEnv; okExitCodes?: number[] },
) => Promise<GitResult<string>>;

/** One path's content as a git tree entry; `mode` and `oid` null: the path is deleted. */
export interface FileState {
  path: string;
  mode: string | null;
  oid: string | null;
}

export const ZERO_OID = '0000000000000000000000000000000000000000';

/** Orders entries by path (code unit order), as the states a capture returns are listed. */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * Hashes the current content of `paths` (relative to `top`) into the object
 * store (`hash-object -w`, with the repo's attributes, as `git add` would) and
 * returns their states. A missing path is a deletion; a folder (a nested repo
 * or submodule) is left out, since it is no file the agent wrote.
 *
 * Git never reads the working tree here: each file is copied through a handle
 * opened without following links (src/fs/inside.ts) into a scratch tree in
 * `gitDir`, with the `.gitattributes` of the folders on its way, and hashed
 * from there (`GIT_WORK_TREE` the scratch tree, so the attributes apply to the
 * same relative paths). A path that goes through a symlinked folder (or one
 * swapped for a symlink while this runs) is left out, as git leaves it out:
 * nothing outside `top` is read into the repo.
 * @param options.write false: only compute the object ids (nothing is written).
 */
export async function captureFileStates(
  run: ProjectGitRun,
  top: string,
  gitDir: string,
  paths: readonly string[],
  options: { write?: boolean } = {},
): Promise<FileState[]> {
  const w = options.write === false ? [] : ['-w'];
  const states: FileState[] = [];
  const scratch = await mkdtemp(join(gitDir, 'entity-memory-capture-'));
  const tree = join(scratch, 'tree');
  try {
    const regular: { path: string; mode: string }[] = [];
    const folders = new Set<string>();
    for (const path of paths) {
      const copy = join(tree, path);
      await mkdir(dirname(copy), { recursive: true });
      // A path beyond a symlinked folder is no file git can hold here (git add refuses it too):
      // left out, like a folder, and nothing is read through the link.
      const entry = await copyOutOf(top, path, copy).catch((error: unknown) => {
        if (error instanceof BeyondLinkError) return null;
        throw error;
      });
      if (entry === null) continue;
      if (entry.kind === 'missing') {
        states.push({ path, mode: null, oid: null });
      } else if (entry.kind === 'symlink') {
        const { stdout } = await run(['hash-object', ...w, '--no-filters', '--stdin'], { input: entry.target });
        states.push({ path, mode: '120000', oid: stdout.trim() });
      } else if (entry.kind === 'file') {
        regular.push({ path, mode: entry.mode & 0o111 ? '100755' : '100644' });
        const parts = path.split('/');
        for (let i = 0; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
      }
    }
    // The attributes in force for those paths, read the same way (a symlinked one is not honoured, as git does not).
    for (const folder of folders) {
      const rel = folder === '' ? '.gitattributes' : `${folder}/.gitattributes`;
      if (paths.includes(rel)) continue;
      await mkdir(join(tree, folder), { recursive: true });
      await copyOutOf(top, rel, join(tree, rel)).catch((error: unknown) => {
        if (!(error instanceof BeyondLinkError)) throw error;
      });
    }
    const env = { GIT_WORK_TREE: tree };
    // --stdin-paths reads one path a line: paths holding a newline are hashed one by one.
    const batch = regular.filter((r) => !r.path.includes('\n'));
    if (batch.length > 0) {
      const { stdout } = await run(['hash-object', ...w, '--stdin-paths'], { input: `${batch.map((r) => join(tree, r.path)).join('\n')}\n`, env });
      const oids = stdout.trim().split('\n');
      batch.forEach((r, i) => states.push({ path: r.path, mode: r.mode, oid: oids[i]! }));
    }
    for (const r of regular.filter((x) => x.path.includes('\n'))) {
      const content = await readFile(join(tree, r.path));
      const { stdout } = await run(['hash-object', ...w, '--stdin', `--path=${r.path}`], { input: content, env });
      states.push({ path: r.path, mode: r.mode, oid: stdout.trim() });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return states.sort(byPath);
}

/** What HEAD is: the branch ref it points at (null when detached) and its commit (null when unborn). */
export interface ProjectHead {
  ref: string | null;
  sha: string | null;
}

export async function readHead(run: ProjectGitRun): Promise<ProjectHead> {
  // One process while HEAD has a commit: its sha, then the ref it names (`HEAD` itself when detached).
  const both = await run(['rev-parse', 'HEAD^{commit}', '--symbolic-full-name', 'HEAD'], { okExitCodes: [0, 128] });
  const [sha = '', name = ''] = both.stdout.trim().split('\n');
  if (both.exitCode === 0 && /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha) && name !== '') return { ref: name === 'HEAD' ? null : name, sha };
  // Unborn (no commit yet on the branch): rev-parse cannot name it.
  const symbolic = await run(['symbolic-ref', '-q', 'HEAD'], { okExitCodes: [0, 1] });
  const ref = symbolic.exitCode === 0 ? symbolic.stdout.trim() : null;
  const resolved = await run(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { okExitCodes: [0, 1] });
  return { ref, sha: resolved.exitCode === 0 ? resolved.stdout.trim() : null };
}

/** Operations that leave state in the git directory while the user is in the middle of them. */
const IN_PROGRESS: readonly [string, string][] = [
  ['MERGE_HEAD', 'a merge is in progress'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick is in progress'],
  ['REVERT_HEAD', 'a revert is in progress'],
  ['rebase-merge', 'a rebase is in progress'],
  ['rebase-apply', 'a rebase or git am is in progress'],
  ['sequencer', 'a cherry-pick or revert sequence is in progress'],
  ['BISECT_LOG', 'a bisect is in progress'],
];

/**
 * The user's operation in progress, in words ("a merge is in progress"), or
 * null. With `.git` a folder at `top` (the git directory git finds there),
 * each of these lives right in it; otherwise (a linked worktree, an absorbed
 * submodule) paths come from `rev-parse --git-path`.
 */
export async function operationInProgress(run: ProjectGitRun, top: string): Promise<string | null> {
  let paths: string[];
  if ((await lstat(join(top, '.git')).catch(() => null))?.isDirectory()) {
    paths = IN_PROGRESS.map(([name]) => join(top, '.git', name));
  } else {
    const args = ['rev-parse'];
    for (const [name] of IN_PROGRESS) args.push('--git-path', name);
    paths = (await run(args)).stdout.split('\n').filter((line) => line !== '');
  }
  for (let i = 0; i < IN_PROGRESS.length; i++) {
    const path = paths[i];
    if (!path) continue;
    const absolute = path.startsWith('/') ? path : join(top, path);
    if (await lstat(absolute).then(() => true, () => false)) return IN_PROGRESS[i]![1];
  }
  return null;
}

/** Tree entries of `paths` at `rev` (paths absent there are missing from the map). */
export async function entriesAt(run: ProjectGitRun, rev: string | null, paths: readonly string[]): Promise<Map<string, { mode: string; oid: string }>> {
  const entries = new Map<string, { mode: string; oid: string }>();
  if (!rev || paths.length === 0) return entries;
  const { stdout } = await run(['ls-tree', '-z', '--full-tree', '--end-of-options', rev, '--', ...paths], {
    env: { GIT_LITERAL_PATHSPECS: '1' },
  });
  for (const { path, entry } of parseTreeListing(stdout)) entries.set(path, { mode: entry.mode, oid: entry.oid });
  return entries;
}

/** `update-index -z --index-info` input that applies `states` in order (a deletion removes the path). */
export function indexInfo(states: readonly FileState[]): string {
  // Mode 0 with the zero oid removes the path from the index.
  return states.map((s) => (s.oid ? `${s.mode} ${s.oid}\t${s.path}\0` : `0 ${ZERO_OID}\t${s.path}\0`)).join('');
}

/**
 * Moves `ref` to `sha` only if it is still at `expected` (null: must not
 * exist yet). Rejects with GitError (a ref conflict or a lock) otherwise.
 */
export async function compareAndSwapRef(run: ProjectGitRun, ref: string, sha: string, expected: string | null, reason: string): Promise<void> {
  await run(['update-ref', '-m', reason, ref, sha, expected ?? ZERO_OID]);
}

/** Points `ref` at `sha` whatever it was (private refs of ours only). */
export async function setRef(run: ProjectGitRun, ref: string, sha: string, reason: string): Promise<void> {
  await run(['update-ref', '-m', reason, ref, sha]);
}

/**
 * After the branch moved from `oldHead` to a commit holding `states`, brings
 * the user's index up to date for exactly those paths, and only where the
 * index still holds what `oldHead` had (an entry the user staged since is
 * theirs and stays). Takes the index lock like any git command; a user's
 * `index.lock` makes it fail with GitLockedError, for the caller to retry.
 */
export async function syncIndexPaths(run: ProjectGitRun, oldHead: string | null, states: readonly FileState[]): Promise<void> {
  await updateIndexPaths(run, states, await stagedSince(run, oldHead, states.map((s) => s.path)));
}

/**
 * The first half of `syncIndexPaths`: which of `paths` the user's index holds otherwise than
 * `oldHead` (staged since, intent-to-add, unmerged; with no `oldHead`, any entry). Reads the
 * index only, so it can run while the commit is built.
 */
export async function stagedSince(run: ProjectGitRun, oldHead: string | null, paths: readonly string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const literal = { env: { GIT_LITERAL_PATHSPECS: '1' } };
  if (oldHead) {
    const { stdout } = await run(['diff-index', '--cached', '-z', '--no-renames', '--end-of-options', oldHead, '--', ...paths], literal);
    return new Set(parseRawDiffPaths(stdout));
  }
  const { stdout } = await run(['ls-files', '-s', '-z', '--', ...paths], literal);
  return new Set(parseStagedPaths(stdout));
}

/** The second half of `syncIndexPaths`: the index entries of `states`, but for the paths that are `theirs`. */
export async function updateIndexPaths(run: ProjectGitRun, states: readonly FileState[], theirs: ReadonlySet<string>): Promise<void> {
  const update = states.filter((s) => !theirs.has(s.path));
  if (update.length > 0) await run(['update-index', '-z', '--index-info'], { input: indexInfo(update) });
}

/** Reads a blob's bytes as a checkout would write them for `path` (the repo's eol attributes applied). */
export type ProjectBlobReader = (oid: string, path: string) => Promise<Buffer>;

/**
 * Runs `work` with a reader of the blobs of `states` as a checkout would write
 * them (the repo's eol and filter attributes applied, with its filter drivers
 * as the run allows them): they are checked out once, from a temporary index,
 * into a scratch folder in `gitDir` (removed afterwards), and read from there,
 * so binary files come through byte for byte. A deletion has no blob to read.
 */
export async function withCheckedOutBlobs<T>(
  run: ProjectGitRun,
  gitDir: string,
  states: readonly FileState[],
  work: (read: ProjectBlobReader) => Promise<T>,
): Promise<T> {
  const present = states.filter((s): s is FileState & { oid: string; mode: string } => s.oid !== null && s.mode !== null);
  const dir = await mkdtemp(join(gitDir, 'entity-memory-files-'));
  try {
    if (present.length > 0) {
      const env = { GIT_INDEX_FILE: join(dir, 'index') };
      await run(['update-index', '-z', '--index-info'], { input: present.map((s) => `${s.mode} ${s.oid}\t${s.path}\0`).join(''), env });
      await run(checkoutAllArgv(join(dir, 'files')), { env });
    }
    return await work(async (_oid, path) => {
      const file = join(dir, 'files', path);
      const info = await lstat(file);
      return info.isSymbolicLink() ? Buffer.from(await readlink(file), 'utf8') : readFile(file);
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// --- small named commands: argv, run, parse (src/git/parse.ts) ---

/** `checkout-index` of the whole (temporary) index into `folder`, overwriting. */
export function checkoutAllArgv(folder: string): string[] {
  return ['checkout-index', '-a', '-f', `--prefix=${folder}/`];
}

export function isAncestorArgv(ancestor: string, commit: string): string[] {
  return ['merge-base', '--is-ancestor', ancestor, commit];
}

/** True when `ancestor` is `commit` or one of its ancestors. */
export async function isAncestor(run: ProjectGitRun, ancestor: string, commit: string): Promise<boolean> {
  return (await run(isAncestorArgv(ancestor, commit), { okExitCodes: [0, 1] })).exitCode === 0;
}

export function commitsTouchingArgv(from: string | null, to: string, paths: readonly string[]): string[] {
  return ['rev-list', ...(from ? [`^${from}`, to] : [to]), '--', ...paths];
}

/** The commits in `from..to` (all of `to` when `from` is null) that change any of `paths` (literal pathspecs). */
export async function commitsTouching(run: ProjectGitRun, from: string | null, to: string, paths: readonly string[]): Promise<string[]> {
  return parseLines((await run(commitsTouchingArgv(from, to, paths), { env: { GIT_LITERAL_PATHSPECS: '1' } })).stdout);
}

/**
 * Where git keeps `name` for this working tree (`rev-parse --git-path`): an
 * absolute path, or one relative to the top of the working tree.
 */
export async function gitPath(run: ProjectGitRun, name: string): Promise<string> {
  return (await run(['rev-parse', '--git-path', name])).stdout.trim();
}

export const BLOB_CHECK_ARGV: readonly string[] = ['cat-file', '--batch-check=%(objectname) %(objecttype)'];

/** Which of `oids` are not blobs in the repo (gone, say, after a `git gc` pruned them). No git runs for none. */
export async function missingBlobs(run: ProjectGitRun, oids: readonly string[]): Promise<Set<string>> {
  if (oids.length === 0) return new Set();
  return parseNonBlobs((await run([...BLOB_CHECK_ARGV], { input: `${oids.join('\n')}\n` })).stdout);
}

/**
 * Writes `states` into the working tree: content and executable bit, symlinks
 * as links, deletions as removed files. Touches nothing but those paths (no
 * folder is removed, none but the parents of a written file is created), and
 * through folder handles opened without following links (src/fs/inside.ts):
 * a folder swapped for a symlink meanwhile throws BeyondLinkError, it is never
 * written through.
 */
export async function writeStates(top: string, states: readonly FileState[], readBlob: ProjectBlobReader): Promise<void> {
  for (const state of states) {
    if (state.oid === null) {
      await removeInside(top, state.path);
      continue;
    }
    const content = await readBlob(state.oid, state.path);
    if (state.mode === '120000') await symlinkInside(top, state.path, content.toString('utf8'));
    else await writeInside(top, state.path, content, state.mode === '100755' ? 0o755 : 0o644);
  }
}

// --- reading the repo: where it is, its config, its status ---

export interface RepoLocation {
  /** Real path of the top of the working tree. */
  top: string;
  /** Absolute path of the git directory (a `.git` file's `gitdir:` target). */
  gitDir: string;
  /** Absolute path of the common git directory (objects, refs): the main repo's for a linked worktree. */
  commonDir: string;
}

export const LOCATE_ARGV: readonly string[] = ['rev-parse', '--absolute-git-dir', '--path-format=absolute', '--git-common-dir', '--show-toplevel'];

/**
 * The repo containing `dir`, the folder `run` runs in (its top and git
 * directories), asked of git each time; null when it is in none.
 * @throws GitNoWorkTreeError for a bare repo or a folder inside a git directory.
 */
export async function locateRepo(run: ProjectGitRun, dir: string): Promise<RepoLocation | null> {
  try {
    const { stdout } = await run([...LOCATE_ARGV]);
    const [gitDir = '', commonDir = '', top = ''] = stdout.trim().split('\n');
    return { top: await realpath(top), gitDir, commonDir };
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    if (/not a git repository/i.test(error.stderr)) return null;
    if (/must be run in a work tree/i.test(error.stderr)) {
      const bare = (await run(['rev-parse', '--is-bare-repository']).catch(() => null))?.stdout.trim() === 'true';
      throw new GitNoWorkTreeError(
        bare ? `${dir} is a bare git repository: it has no working tree to commit from; use a clone of it.` : `${dir} lies inside a git directory, not in a working tree.`,
        error.argv,
        error.exitCode,
        error.stderr,
      );
    }
    throw error;
  }
}

export const CONFIG_LIST_ARGV: readonly string[] = ['config', '--list', '--show-scope', '--show-origin', '--includes', '-z'];

/**
 * The repo's effective config as git sees it (system, global, local,
 * worktree, and every included file), without the settings the run passes
 * per call. Reading config runs no program.
 */
export async function configEntries(run: ProjectGitRun): Promise<ConfigEntry[]> {
  return parseConfigEntries((await run([...CONFIG_LIST_ARGV])).stdout).filter((e) => e.scope !== 'command');
}

export const IDENTITY_ARGV: readonly string[] = ['config', '-z', '--get-regexp', '^user\\.(name|email)$'];

/** The identity git would read from config (`parseIdentity`), or null. Read-only: one `git config`. */
export async function configuredIdentity(run: ProjectGitRun): Promise<Committer | null> {
  const { stdout, exitCode } = await run([...IDENTITY_ARGV], { okExitCodes: [0, 1] });
  return exitCode === 0 ? parseIdentity(stdout) : null;
}

/** Status without optional locks: it never rewrites the user's index. */
const READ_ONLY = { GIT_OPTIONAL_LOCKS: '0' };

export const STATUS_WITH_HEAD_ARGV: readonly string[] = [
  'status',
  '--porcelain=v2',
  '-z',
  '--branch',
  '--no-renames',
  '--untracked-files=all',
  '--ignore-submodules=dirty',
];

/** The whole tree's dirty paths with HEAD's commit and entries (`parseStatusV2`), from one status. */
export async function statusWithHead(run: ProjectGitRun): Promise<StatusWithHead> {
  return parseStatusV2((await run([...STATUS_WITH_HEAD_ARGV], { env: READ_ONLY })).stdout);
}

/** A status limited to `paths` as pathspecs, or of the whole tree past 500 of them (an argv has a limit). */
export function dirtyAmongArgv(paths: readonly string[]): string[] {
  const limited = paths.length <= 500;
  return ['status', '--porcelain=v1', '-z', '--no-renames', '--untracked-files=all', '--ignore-submodules=dirty', ...(limited ? ['--', ...paths] : [])];
}

/** Which of `paths` (relative to the top, literal) are dirty; no git at all for none. */
export async function dirtyAmong(run: ProjectGitRun, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const wanted = new Set(paths);
  const { stdout } = await run(dirtyAmongArgv(paths), { env: { ...READ_ONLY, GIT_LITERAL_PATHSPECS: '1' } });
  return parseStatus(stdout).paths.filter((p) => wanted.has(p));
}

/** Empties the index (`read-tree --empty`): the state `git init` left it in. */
export async function emptyIndex(run: ProjectGitRun): Promise<void> {
  await run(['read-tree', '--empty']);
}

/** HEAD's commit; throws GitError when there is none. */
export async function headCommit(run: ProjectGitRun): Promise<string> {
  return (await run(['rev-parse', 'HEAD'])).stdout.trim();
}
