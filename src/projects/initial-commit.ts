/**
 * A project folder whose repo has no commit yet. Until it has one, every file
 * in it is an uncommitted change of the user's, so the end-of-turn commit
 * always skips (SKIPPED_DIRTY). `createProject(input: { initialCommit: true })`
 * makes that first commit when it runs `git init`; otherwise the user makes it,
 * and each skip says how.
 */
import type { Committer } from '../git/index.js';
import type { RepoConfigVerdict } from './repo-config.js';

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
