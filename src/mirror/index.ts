/**
 * The session mirror as the API layer (src/services/, src/schema/) sees it:
 * the one module of src/mirror/ those layers may import (.dependency-cruiser.cjs
 * checks it in npm test). Everything behind it (the on-disk layout, the
 * worker, reconcile, rebuild, health) may change without touching the API.
 *
 * Git writes to a session repo belong to the mirror worker, which takes them
 * from the outbox after the database has committed: with one exception,
 * `syncSessionView` below.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { syncHead } from './rebuild.js';
import { isArchived, restoreArchived } from './archive.js';
import { openSessionRepo } from './session-repos.js';

/** Where a message lives in its session repo (the on-disk contract). */
export { messagePath } from './paths.js';

/**
 * A session repo's folder, and the repo itself to read from: the API reads
 * commits, branches, trees and files, and never writes through it.
 */
export { countTurnCommits, openSessionRepo, removeStaleStaging, sessionRepoPath, stagingPath } from './session-repos.js';
export { WARN_AT as DISK_WARN_AT, type DiskUsage } from './disk-budget.js';
export { messageFile } from './files.js';
export { HEADLINE_SOURCE_CHARS, turnHeadline } from './commit-message.js';
export { MIRROR_IDENTITY } from './turn-plan.js';
export { archiveOf, archivedBundleFile, isArchived, sessionRepoFromBundle, unarchiveSession, ArchiveDamagedError, type ArchiveManifest } from './archive.js';

/** Moves whatever is at a session repo's path to `<data-dir>/moved-aside/` (never deletes it). */
export { moveAside } from './session-repos.js';

export { isReconciling } from './reconcile.js';

/**
 * The mirror's health as `Session.mirror` reports it: a look at a repo's
 * files, the last repo-level failure, and which read failures degrade to an
 * empty answer rather than an error.
 */
export { describeFault, diagnoseSessionRepo, expectedBranchTips, inspectSessionRepo, isRepoReadFailure, repoProblem, type RepoFault } from './health.js';

/**
 * Moves the session repo's HEAD (and working tree) to where the database now
 * says the session is: detached at the viewed commit during replay, else on
 * the current branch. Call under the session's repo lock (`Deps.repoLocks`).
 *
 * The one git write made inside a request rather than by the outbox's worker.
 * `checkout` and `switchBranch` promise that when they return, the repo a
 * person has open is where the session is (`cd` into it and `git log` shows
 * the viewed commit; the README's replay section); through the outbox it would
 * follow only after the mutation answered. It writes no commit and no ref, only
 * HEAD, the index and the working tree, all derived from the database, so a
 * failure loses nothing: the caller logs it and has the worker redo it
 * (`Deps.onViewChanged`).
 * @throws whatever git or the database threw; the database is not changed.
 */
export async function syncSessionView(deps: { db: Db; config: Pick<Config, 'dataDir'> }, sessionId: string): Promise<void> {
  // A checkout of an archived session brings its repo back first (src/mirror/archive.ts).
  if (isArchived(deps.config, sessionId)) await restoreArchived(deps.config, sessionId);
  await syncHead(deps.db, openSessionRepo(deps.config, sessionId), sessionId);
}
