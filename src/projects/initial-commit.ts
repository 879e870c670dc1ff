/**
 * A project folder whose repo has no commit yet. Until it has one, every file
 * in it is an uncommitted change of the user's, so the end-of-turn commit
 * always skips (SKIPPED_DIRTY). `createProject(input: { initialCommit: true })`
 * makes that first commit when it runs `git init`; otherwise the user makes it,
 * and each skip says how.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { AppError, BadUserInputError } from '../errors.js';
import { GitError } from '../git/errors.js';
import { ProjectRepo, type Committer, type RepoLocation } from '../git/project-repo.js';
import { checkRepoPlace, placeOf } from './project-place.js';
import { judgeRepoConfig, type RepoConfigVerdict } from './repo-config.js';
import { realRoots } from './workdir.js';

type PlaceConfig = Pick<Config, 'allowedRoots' | 'dataDir'>;

/** The first commit's message. */
export const INITIAL_COMMIT_MESSAGE = 'Initial commit';

/** Who makes the first commit when git config gives no `user.name` and `user.email`. */
export const SETUP_IDENTITY: Committer = { name: 'entity-memory', email: 'setup@openprogram.invalid' };

/**
 * The sentences a skip warning appends when the project's HEAD is unborn and
 * files are there (`Project.needsInitialCommit`): why every turn is skipped,
 * and what to do about it.
 */
export function initialCommitHint(projectId: string): string {
  return (
    "This folder's repository has no commit yet, so all its files count as your uncommitted changes and no agent edit can be committed. " +
    "Commit them once (git add -A && git commit -m 'Initial commit'), and the agent's next edits will be committed; " +
    `project(projectId: ${JSON.stringify(projectId)}) { needsInitialCommit } turns false once that is done.`
  );
}

/** Why `createProject` with `initialCommit: true` refused a folder whose git config defines filter drivers. */
export function initialCommitUnsafeMessage(workdir: string, verdict: Pick<RepoConfigVerdict, 'unsafeOrigins'>): string {
  return (
    `initialCommit cannot run in ${workdir}: the git config there defines ${verdict.unsafeOrigins.join(', ')}, ` +
    'which git would run as a program on `git add`, and this server does not run filter drivers it has not been told to trust; ' +
    'nothing was created. Create the project without initialCommit and make the first commit yourself, ' +
    'or remove those filter drivers from your git config first.'
  );
}

/**
 * `git init` in `workdir`, a checked folder in no repo (their default branch
 * and templates apply); with `initialCommit` and files in the folder, one
 * first commit of its non-ignored files (see `initialCommitInto`).
 * @throws BadUserInputError for `initialCommit` where git config defines
 * filter drivers (judged before init, so the folder is left as it was) or
 * where the first commit fails (the repo just made is removed again).
 */
export async function initProjectRepo(workdir: string, config: PlaceConfig, initialCommit: boolean): Promise<void> {
  const repo = new ProjectRepo(workdir, { ceilings: realRoots(config) });
  // Nothing to commit in an empty folder, so nothing to refuse there.
  const commitFirst = initialCommit && (await readdir(workdir)).length > 0;
  // Judged before init, so a refusal leaves the folder as it was: a fresh repo has no
  // config of its own yet, but the global and system configs apply to it.
  if (commitFirst) assertNoFilterDrivers(workdir, judgeRepoConfig(await repo.configEntries()));
  await repo.init();
  const checked = await checkRepoPlace(workdir, config);
  if (commitFirst && checked.location) await initialCommitInto(workdir, checked.location, config);
}

function assertNoFilterDrivers(workdir: string, verdict: RepoConfigVerdict): void {
  if (verdict.unsafeKeys.length > 0) {
    throw new BadUserInputError(initialCommitUnsafeMessage(workdir, verdict), { field: 'initialCommit', unsafeKeys: verdict.unsafeKeys });
  }
}

/**
 * The first commit of a repo `initProjectRepo` has just made: every
 * non-ignored file, authored and committed by the user's git identity in that
 * folder (`user.name`, `user.email`), else `SETUP_IDENTITY`. The config is
 * judged again as at every use (an `init.templateDir` can bring a config with
 * filter drivers). On any refusal or failure the repo is removed again, so
 * the folder is left as it was found.
 */
async function initialCommitInto(workdir: string, location: RepoLocation, config: PlaceConfig): Promise<void> {
  try {
    const place = await placeOf({ projectId: '', trustedConfig: null }, workdir, location, config);
    assertNoFilterDrivers(workdir, place.verdict);
    const who = (await place.repo.configuredIdentity()) ?? SETUP_IDENTITY;
    await place.repo.initialCommit(INITIAL_COMMIT_MESSAGE, who);
  } catch (error) {
    // Ours to remove: the folder had no `.git` at all (checkRepoPlace refuses an unreadable
    // one), so the one there now is what init() just made.
    if (location.gitDir === join(workdir, '.git')) await rm(location.gitDir, { recursive: true, force: true });
    if (error instanceof AppError) throw error;
    if (error instanceof GitError) {
      throw new BadUserInputError(
        `The first commit in ${workdir} could not be made (git: ${error.stderr || error.message}); nothing was created. ` +
          'Fix that and try again, or create the project without initialCommit.',
        { field: 'initialCommit' },
      );
    }
    throw error;
  }
}
