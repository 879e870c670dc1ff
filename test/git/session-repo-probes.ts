/**
 * What the session repo tests read and write with git that the server itself
 * never does: the trailers of a history or of one commit (the on-disk
 * contract's `Session-Id`, `Turn`, `Message-Ids`), a commit's whole diff with
 * its base, a branch made at a commit. Through the project's runner, in the
 * repo's own git directory, as GitRepo runs git.
 */
import { logArgv } from '../../src/git/argv.js';
import { GitArgumentError, GitError, GitObjectNotFoundError } from '../../src/git/errors.js';
import type { FileDiff, GitRepo } from '../../src/git/index.js';
import { parseTrailers } from '../../src/git/parse.js';
import { assertBranchName, assertRev, assertSha, isShaPrefix } from '../../src/git/refs.js';
import { gitEnv, runGit } from '../../src/git/run.js';
import type { SessionRepo } from '../../src/git/session-repo.js';
import { updateRefArgv, zeroSha } from './helpers.js';

/** `log -z` records of a sha and its trailers as git reads them (unfolded, trailers only). */
const TRAILER_LOG_FORMAT = '%H%x00%(trailers:only,unfold)';

export interface TrailerCommit {
  sha: string;
  trailers: Record<string, string>;
}

export interface CommitDiff {
  /** The first parent, or null for a root commit (diffed against the empty tree). */
  base: string | null;
  files: FileDiff[];
}

async function git(repo: GitRepo, args: string[]): Promise<string> {
  const { gitDir } = await repo.gitDirs();
  return (await runGit(args, { cwd: repo.dir, env: gitEnv({ GIT_DIR: gitDir, GIT_WORK_TREE: repo.dir }) })).stdout;
}

function parseTrailerLog(stdout: string): TrailerCommit[] {
  if (stdout === '') return [];
  const tokens = stdout.split('\0');
  if (tokens[tokens.length - 1] === '') tokens.pop();
  if (tokens.length % 2 !== 0) throw new GitError('malformed git log output: odd number of fields');
  const out: TrailerCommit[] = [];
  for (let i = 0; i < tokens.length; i += 2) out.push({ sha: tokens[i]!, trailers: parseTrailers(tokens[i + 1]!) });
  return out;
}

/**
 * The trailers of every commit reachable from `ref`, newest first, at most
 * `limit` (default: the whole history); none before the first commit.
 */
export async function trailerCommits(repo: GitRepo, ref: string, limit?: number): Promise<TrailerCommit[]> {
  const rev = assertRev(ref);
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 0)) throw new GitArgumentError(`limit must be a non-negative integer, got ${limit}`);
  if (limit === 0) return [];
  try {
    return parseTrailerLog(await git(repo, logArgv({ rev, limit, format: TRAILER_LOG_FORMAT })));
  } catch (error) {
    if (error instanceof GitObjectNotFoundError && rev === 'HEAD' && (await repo.headState()).sha === null) return [];
    throw error;
  }
}

/** The trailers of one commit, or null when `sha` names no commit. */
export async function commitTrailers(repo: GitRepo, sha: string): Promise<Record<string, string> | null> {
  if (!isShaPrefix(sha)) return null;
  try {
    const stdout = await git(repo, logArgv({ rev: `${sha}^{commit}`, limit: 1, format: TRAILER_LOG_FORMAT }));
    return stdout === '' ? null : (parseTrailerLog(stdout)[0]?.trailers ?? null);
  } catch (error) {
    if (error instanceof GitObjectNotFoundError) return null;
    throw error;
  }
}

/**
 * What commit `sha` changed against its first parent (the empty tree for a
 * root commit), every file with its patch. Unknown rev: `GitObjectNotFoundError`.
 */
export async function commitDiff(repo: GitRepo, sha: string): Promise<CommitDiff> {
  const rev = assertRev(sha);
  const [commit, ...parents] = (await git(repo, ['rev-list', '--parents', '--max-count=1', '--end-of-options', rev, '--'])).trim().split(' ');
  if (!commit) throw new GitError('malformed git rev-list output: empty');
  const base = parents[0] ?? null;
  const [files, patches] = await Promise.all([repo.diffFiles(commit, base), repo.diffPatches(commit, base)]);
  if (patches.length !== files.length) throw new GitError(`diff of ${commit}: ${patches.length} patches for ${files.length} files`);
  return { base, files: files.map((file, n) => ({ ...file, patch: patches[n]! })) };
}

/**
 * Creates branch `name` at the commit `atSha` (full or unique prefix).
 * Throws `GitObjectNotFoundError` for an unknown commit and
 * `GitRefConflictError` when the branch already exists.
 */
export async function createBranch(repo: SessionRepo, name: string, atSha: string): Promise<void> {
  assertBranchName(name);
  assertSha(atSha);
  const commit = await repo.resolveCommit(atSha);
  if (commit === null) throw new GitObjectNotFoundError(`unknown commit ${atSha}`);
  await git(repo, updateRefArgv(`refs/heads/${name}`, commit, zeroSha(commit), 'entity-memory: create branch'));
}
