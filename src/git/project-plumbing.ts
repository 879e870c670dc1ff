/**
 * Plumbing for the user's repositories: commits built from captured blobs
 * with a temporary index, so a commit holds exactly the agent's end-of-turn
 * content whatever the working tree holds when it is made, and the user's
 * index, working tree and other refs are never rewritten beyond the agent's
 * own paths.
 *
 * Why plumbing and not `git add` + `git commit`: `add` reads the working tree
 * at the moment it runs, so a user edit made after the turn closed (or the
 * next turn's edit) would be swept into this turn's commit; and `commit`
 * concludes whatever operation the user has in progress (a merge's MERGE_HEAD,
 * a cherry-pick's author). `commit-tree` + `update-ref` do neither.
 */
import { chmod, lstat, mkdir, mkdtemp, readFile, readlink, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

/**
 * Hashes the current content of `paths` (relative to `top`) into the object
 * store (`hash-object -w`, with the repo's attributes, as `git add` would) and
 * returns their states. A missing path is a deletion; a folder (a nested repo
 * or submodule) is left out, since it is no file the agent wrote.
 * @param options.write false: only compute the object ids (nothing is written).
 */
export async function captureFileStates(
  run: ProjectGitRun,
  top: string,
  paths: readonly string[],
  options: { write?: boolean } = {},
): Promise<FileState[]> {
  const w = options.write === false ? [] : ['-w'];
  const states: FileState[] = [];
  const regular: { path: string; mode: string }[] = [];
  for (const path of paths) {
    let info;
    try {
      info = await lstat(join(top, path));
    } catch {
      states.push({ path, mode: null, oid: null });
      continue;
    }
    if (info.isSymbolicLink()) {
      const target = await readlink(join(top, path));
      const { stdout } = await run(['hash-object', ...w, '--no-filters', '--stdin'], { input: target });
      states.push({ path, mode: '120000', oid: stdout.trim() });
    } else if (info.isFile()) {
      regular.push({ path, mode: info.mode & 0o111 ? '100755' : '100644' });
    }
  }
  // --stdin-paths reads one path a line: paths holding a newline are hashed one by one.
  const batch = regular.filter((r) => !r.path.includes('\n'));
  if (batch.length > 0) {
    const { stdout } = await run(['hash-object', ...w, '--stdin-paths'], { input: `${batch.map((r) => r.path).join('\n')}\n` });
    const oids = stdout.trim().split('\n');
    batch.forEach((r, i) => states.push({ path: r.path, mode: r.mode, oid: oids[i]! }));
  }
  for (const r of regular.filter((x) => x.path.includes('\n'))) {
    const content = await readFile(join(top, r.path));
    const { stdout } = await run(['hash-object', ...w, '--stdin', `--path=${r.path}`], { input: content });
    states.push({ path: r.path, mode: r.mode, oid: stdout.trim() });
  }
  return states.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** What HEAD is: the branch ref it points at (null when detached) and its commit (null when unborn). */
export interface ProjectHead {
  ref: string | null;
  sha: string | null;
}

export async function readHead(run: ProjectGitRun): Promise<ProjectHead> {
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
 * null. Paths come from `rev-parse --git-path`, so worktrees are handled.
 */
export async function operationInProgress(run: ProjectGitRun, top: string): Promise<string | null> {
  const args = ['rev-parse'];
  for (const [name] of IN_PROGRESS) args.push('--git-path', name);
  const { stdout } = await run(args);
  const paths = stdout.split('\n').filter((line) => line !== '');
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
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', , oid = ''] = record.slice(0, tab).split(' ');
    entries.set(record.slice(tab + 1), { mode, oid });
  }
  return entries;
}

/** True when every state equals what `entries` holds for its path (a deletion equals an absent path). */
export function sameAs(states: readonly FileState[], entries: ReadonlyMap<string, { mode: string; oid: string }>): boolean {
  return states.every((s) => {
    const e = entries.get(s.path);
    return s.oid === null ? e === undefined : e !== undefined && e.oid === s.oid && e.mode === s.mode;
  });
}

function indexInfo(states: readonly FileState[]): string {
  // Mode 0 with the zero oid removes the path from the index.
  return states.map((s) => (s.oid ? `${s.mode} ${s.oid}\t${s.path}\0` : `0 ${ZERO_OID}\t${s.path}\0`)).join('');
}

export interface BuiltCommit {
  sha: string;
  tree: string;
  /** The tree equals the parent's: nothing would change. */
  unchanged: boolean;
}

/**
 * Writes a commit whose tree is `parent`'s tree with `states` applied, through
 * a temporary index; the user's index is not read or written.
 * Nothing moves any ref: the caller decides where the commit goes.
 */
export async function buildCommit(
  run: ProjectGitRun,
  opts: {
    parent: string | null;
    states: readonly FileState[];
    message: string;
    identity: { name: string; email: string };
    /** Where the temporary index goes: the repo's git directory (nothing of ours outside the project). Default: the system's temp folder. */
    scratchDir?: string;
  },
): Promise<BuiltCommit> {
  const dir = await mkdtemp(join(opts.scratchDir ?? tmpdir(), opts.scratchDir ? 'entity-memory-index-' : 'em-index-'));
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    await run(opts.parent ? ['read-tree', '--end-of-options', opts.parent] : ['read-tree', '--empty'], { env });
    if (opts.states.length > 0) await run(['update-index', '-z', '--index-info'], { input: indexInfo(opts.states), env });
    const tree = (await run(['write-tree'], { env })).stdout.trim();
    const parentTree = opts.parent ? (await run(['rev-parse', '--verify', '--end-of-options', `${opts.parent}^{tree}`])).stdout.trim() : null;
    const identity = {
      GIT_AUTHOR_NAME: opts.identity.name,
      GIT_AUTHOR_EMAIL: opts.identity.email,
      GIT_COMMITTER_NAME: opts.identity.name,
      GIT_COMMITTER_EMAIL: opts.identity.email,
    };
    const sha = (
      await run(['commit-tree', tree, ...(opts.parent ? ['-p', opts.parent] : []), '-F', '-'], { input: opts.message, env: identity })
    ).stdout.trim();
    return { sha, tree, unchanged: parentTree === tree };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
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
  if (states.length === 0) return;
  const paths = states.map((s) => s.path);
  const before = await entriesAt(run, oldHead, paths);
  const { stdout } = await run(['ls-files', '-s', '-z', '--', ...paths], { env: { GIT_LITERAL_PATHSPECS: '1' } });
  const staged = new Map<string, string>();
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', oid = ''] = record.slice(0, tab).split(' ');
    staged.set(record.slice(tab + 1), `${mode} ${oid}`);
  }
  const update = states.filter((s) => {
    const was = before.get(s.path);
    const now = staged.get(s.path);
    return was ? now === `${was.mode} ${was.oid}` : now === undefined;
  });
  if (update.length > 0) await run(['update-index', '-z', '--index-info'], { input: indexInfo(update) });
}

/** Reads a blob's bytes as a checkout would write them for `path` (the repo's eol attributes applied). */
export type ProjectBlobReader = (oid: string, path: string) => Promise<Buffer>;

/**
 * Writes `states` into the working tree: content and executable bit, symlinks
 * as links, deletions as removed files. Touches nothing but those paths (no
 * folder is removed, none but the parents of a written file is created).
 */
export async function writeStates(top: string, states: readonly FileState[], readBlob: ProjectBlobReader): Promise<void> {
  for (const state of states) {
    const file = join(top, state.path);
    const existing = await lstat(file).catch(() => null);
    if (existing?.isDirectory()) throw new Error(`${state.path} is a folder now; it was a file`);
    if (state.oid === null) {
      if (existing) await unlink(file);
      continue;
    }
    const content = await readBlob(state.oid, state.path);
    if (existing && (existing.isSymbolicLink() || state.mode === '120000')) await unlink(file);
    await mkdir(dirname(file), { recursive: true });
    if (state.mode === '120000') {
      await symlink(content.toString('utf8'), file);
    } else {
      await writeFile(file, content);
      await chmod(file, state.mode === '100755' ? 0o755 : 0o644);
    }
  }
}
