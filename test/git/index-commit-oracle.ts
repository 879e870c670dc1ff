/**
 * The byte-identity oracle for session commits: a turn committed the way git
 * porcelain would, through the index (`read-tree`, `update-index`,
 * `write-tree`, `commit-tree`, `update-ref`). Production commits with
 * `SessionRepo.commitTurn` (one fast-import) and rebuilds with `fastImport`;
 * tests compare both against this, commit for commit, so the stream encoding
 * can never drift from what git itself writes for the same tree, message,
 * identities and dates. It was `SessionRepo.commitTurn` until the fast-import
 * path replaced it in production; it lives here since only tests run it.
 *
 * Also `fsck`, which only tests ask for.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readTreeResetArgv, updateIndexAddArgv } from '../../src/git/argv.js';
import { assertFiles, commitMessageBytes, contentBytes, identityEnv, normalizeIdentity } from '../../src/git/commit-input.js';
import { GitRefConflictError } from '../../src/git/errors.js';
import { assertBranchName, assertFullSha, EMPTY_TREE_SHA1 } from '../../src/git/refs.js';
import { gitEnv, runGit, type GitResult } from '../../src/git/run.js';
import type { CommitTurnSpec, SessionRepo } from '../../src/git/session-repo.js';
import { updateRefArgv, zeroSha } from './helpers.js';

// The argv and environment only this oracle uses (production commits through fast-import).
const writeTreeArgv = (): string[] => ['write-tree'];
/** The message comes from stdin (`-F -`); the identities from the environment. */
const commitTreeArgv = (tree: string, parent: string | null): string[] => ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'];
const symbolicRefArgv = (ref: string, reason: string): string[] => ['symbolic-ref', '-m', reason, 'HEAD', ref];
const fsckArgv = (): string[] => ['fsck', '--full', '--strict', '--no-dangling', '--no-progress'];

const REFLOG_REASON = 'entity-memory: turn commit';

function run(repo: SessionRepo, args: string[], opts: { input?: string | Uint8Array; env?: NodeJS.ProcessEnv; okExitCodes?: number[] } = {}): Promise<GitResult<string>> {
  return runGit(args, {
    cwd: repo.dir,
    env: gitEnv({ GIT_DIR: repo.gitDir, GIT_WORK_TREE: repo.dir, ...opts.env }),
    input: opts.input,
    okExitCodes: opts.okExitCodes,
    timeoutMs: 600_000,
  });
}

/**
 * Commits one turn through the index and returns the new commit's sha; HEAD,
 * index and working tree end on `spec.branch` at it. Common case (HEAD on the
 * branch at `parent`): `update-index`, `write-tree`, `commit-tree`,
 * `update-ref`; otherwise the index is first moved to `parent` (`read-tree
 * --reset -u`) and HEAD pointed at the branch at the end.
 *
 * Throws `GitArgumentError` for an invalid spec (before any spawn),
 * `GitRefConflictError` when the branch is elsewhere than `parent` or the
 * final compare-and-swap loses, `GitLockedError` on a lock file; after a
 * failure that touched the index, index and working tree are put back to HEAD.
 */
export async function indexCommitTurn(repo: SessionRepo, spec: CommitTurnSpec): Promise<string> {
  assertBranchName(spec.branch);
  if (spec.parent !== null) assertFullSha(spec.parent, 'parent');
  const parent = spec.parent === null ? null : spec.parent.toLowerCase();
  assertFiles(spec.files);
  const author = normalizeIdentity(spec.author, 'author');
  const committer = normalizeIdentity(spec.committer ?? spec.author, 'committer');
  const message = commitMessageBytes(spec.message);

  const ref = `refs/heads/${spec.branch}`;
  const head = await repo.headState();
  const onBranch = head.branch === spec.branch;
  const tip = onBranch ? head.sha : await branchTip(repo, ref);
  if (tip !== null && tip !== parent) {
    throw new GitRefConflictError(`branch ${spec.branch} is at ${tip}, not at the expected parent ${parent ?? '(none)'}`);
  }

  let touched = false;
  try {
    if (head.sha !== parent) {
      touched = true;
      await run(repo, readTreeResetArgv(parent ?? EMPTY_TREE_SHA1));
    }
    const folders = new Set(spec.files.map((f) => dirname(f.path)).filter((d) => d !== '.'));
    await Promise.all([...folders].map((d) => mkdir(join(repo.dir, d), { recursive: true })));
    await Promise.all(spec.files.map((f) => writeFile(join(repo.dir, f.path), contentBytes(f.content))));
    if (spec.files.length > 0) {
      touched = true;
      await run(repo, updateIndexAddArgv(), { input: Buffer.from(spec.files.map((f) => `${f.path}\0`).join(''), 'utf8') });
    }
    const tree = (await run(repo, writeTreeArgv())).stdout.trim();
    const commit = (await run(repo, commitTreeArgv(tree, parent), { input: message, env: identityEnv(author, committer) })).stdout.trim();
    await run(repo, updateRefArgv(ref, commit, tip ?? zeroSha(commit), REFLOG_REASON));
    touched = false;
    if (!onBranch) await run(repo, symbolicRefArgv(ref, REFLOG_REASON));
    return commit;
  } catch (error) {
    if (touched) await repo.resetWorkingTree().catch(() => undefined);
    throw error;
  }
}

async function branchTip(repo: SessionRepo, ref: string): Promise<string | null> {
  const { stdout, exitCode } = await run(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', ref], { okExitCodes: [0, 1] });
  return exitCode === 0 ? stdout.trim() : null;
}

/** `git fsck --full --strict`; `ok` is false when git reports any problem. */
export async function fsck(repo: SessionRepo): Promise<{ ok: boolean; output: string }> {
  const { stdout, stderr, exitCode } = await run(repo, fsckArgv(), { okExitCodes: Array.from({ length: 256 }, (_, i) => i) });
  const output = [stdout.trim(), stderr].filter((s) => s !== '').join('\n');
  return { ok: exitCode === 0 && !/^(error|missing|broken|fatal)/m.test(output), output };
}
