/**
 * Taking the agent's project edits later, or going back, in the user's repo:
 * `applySnapshotFiles` writes a skipped turn's kept state into the working
 * tree, and `restoreFiles` puts every path the agent touched back to the state
 * a restore plan (restore-plan.ts) names. Both write only the agent's paths,
 * and only where the working tree still holds what the agent (or the last
 * restore) left there: anything else is the user's, and the request is
 * refused with CONFLICT before anything is written. A restore leaves a commit
 * on the user's branch, or a private snapshot commit when it cannot; the
 * caller records it (src/services/projects/project-restore.ts).
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { ProjectFilesResultKind } from '../generated/prisma/client.js';
import { GitRefConflictError } from '../git/errors.js';
import { byPath, writeStates, type FileState } from '../git/project-plumbing.js';
import { BeyondLinkError } from '../fs/inside.js';
import type { ProjectRepo } from '../git/project-repo.js';
import { KeyedLocks } from '../locks.js';
import { agentIdentity, listedPaths, REFLOG, restoreCommitMessage, restoreSnapshotRef, snapshotMessage } from './agent-commits.js';
import { withProjectLock } from './project-lock.js';
import { openProjectRepo, type PlaceProject, type RepoPlace } from './project-place.js';
import { changedPaths, type RecordedState, type RestorePlan } from './restore-plan.js';

/** What the project's repo needs here: where folders may be, and the working directories' locks (default: this call's own). */
export interface RestoreRepoDeps {
  config: Pick<Config, 'allowedRoots' | 'dataDir'>;
  projectLocks?: KeyedLocks;
}

/** What was written into the working tree, and what was left in the repo for it. */
export interface FilesWritten {
  /** The paths written into the working tree, sorted. */
  paths: string[];
  result: ProjectFilesResultKind;
  /** The commit made on the user's branch (COMMITTED), or null. */
  commitSha: string | null;
  /** The private snapshot commit the restore is kept on (SNAPSHOT), or null. */
  snapshotSha: string | null;
  /** The states written, with what HEAD held for them: what a restore records (empty for a snapshot applied). */
  files: RecordedState[];
  message: string;
}

/**
 * Writes a skipped turn's private snapshot (its recorded `files`, kept on
 * `snapshotSha`) into the working tree: HEAD, the index, branches and refs are
 * not touched.
 * @throws ConflictError (extensions.paths) when a path holds neither what HEAD
 * held when the snapshot was taken nor the snapshot's content, or is a folder
 * now; NotFoundError for content no longer in the repo; the project's own
 * refusal (openProjectRepo).
 */
export async function applySnapshotFiles(
  project: PlaceProject,
  deps: RestoreRepoDeps,
  snapshot: { turn: number; files: RecordedState[]; snapshotSha: string },
): Promise<FilesWritten> {
  const { turn, files, snapshotSha } = snapshot;
  return underProjectLock(deps, project, async (place) => {
    const repo = place.repo;
    const { conflicts, now } = await snapshotStates(place, files);
    if (conflicts.length > 0) {
      throw new ConflictError(
        `Not applied: ${listedPaths(conflicts)} changed since turn ${turn}'s snapshot was taken (or became a folder); nothing was written. ` +
          `Commit or stash your changes to ${conflicts.length === 1 ? 'it' : 'them'} first, or compare with git diff ${snapshotSha}.`,
        { paths: conflicts },
      );
    }
    const writes: FileState[] = files.filter((f) => changedPaths([f], now).length > 0).map(({ path, mode, oid }) => ({ path, mode, oid }));
    const done = { commitSha: null, snapshotSha: null, files: [] };
    if (writes.length === 0) {
      return { ...done, paths: [], result: 'NOTHING', message: `The working tree already holds turn ${turn}'s snapshot; nothing was written.` };
    }
    await assertBlobs(repo, writes);
    await writeFiles(place, writes);
    return {
      ...done,
      paths: writes.map((w) => w.path),
      result: 'APPLIED',
      message: `Wrote ${count(writes.length)} of turn ${turn}'s snapshot into the working tree; nothing was committed or staged.`,
    };
  });
}

/**
 * Takes an applied snapshot back out of the working tree (the undo of `applySnapshotFiles`): each
 * path that holds the snapshot's content gets back what HEAD held when the snapshot was taken.
 * HEAD, the index, branches and refs are not touched. Only where HEAD still holds that: a path
 * committed since is the user's history now, and is not the apply's to undo.
 * @throws ConflictError (extensions.paths) when a path holds something else than the snapshot's
 * content or its base (changed since it was applied), was committed since, or is a folder now;
 * NotFoundError for content no longer in the repo; the project's own refusal (openProjectRepo).
 */
export async function unapplySnapshotFiles(
  project: PlaceProject,
  deps: RestoreRepoDeps,
  snapshot: { turn: number; files: RecordedState[] },
): Promise<FilesWritten> {
  const { turn, files } = snapshot;
  return underProjectLock(deps, project, async (place) => {
    const repo = place.repo;
    const { now, blocked } = await snapshotStates(place, files);
    const head = await repo.readHead();
    const inHead = await repo.entriesAt(head.sha, files.map((f) => f.path));
    const headNow = (path: string): FileState => ({ path, mode: inHead.get(path)?.mode ?? null, oid: inHead.get(path)?.oid ?? null });
    const changed: string[] = [];
    const committed: string[] = [];
    const writes: FileState[] = [];
    for (const f of files) {
      const base = baseOf(f);
      if (blocked.has(f.path)) changed.push(f.path);
      else if (changedPaths([base], now).length === 0) continue; // not applied there
      else if (changedPaths([f], now).length > 0) changed.push(f.path);
      else if (changedPaths([base], [headNow(f.path)]).length > 0) committed.push(f.path);
      else writes.push(base);
    }
    if (changed.length > 0 || committed.length > 0) {
      const why = [
        changed.length > 0 ? `${listedPaths(changed)} changed since the snapshot was applied (or became a folder)` : null,
        committed.length > 0 ? `${listedPaths(committed)} ${committed.length === 1 ? 'was' : 'were'} committed since` : null,
      ].filter(Boolean);
      throw new ConflictError(`Not undone: ${why.join(', and ')}; nothing was written. Those are yours now: change them with git.`, {
        paths: [...changed, ...committed].sort(),
      });
    }
    const done = { commitSha: null, snapshotSha: null, files: [] };
    if (writes.length === 0) {
      return { ...done, paths: [], result: 'NOTHING', message: `The working tree does not hold turn ${turn}'s snapshot; nothing was written.` };
    }
    await assertBlobs(repo, writes);
    await writeFiles(place, writes);
    return {
      ...done,
      paths: writes.map((w) => w.path),
      result: 'APPLIED',
      message: `Took turn ${turn}'s snapshot out of the working tree: ${count(writes.length)} back to what HEAD holds; nothing was committed or staged.`,
    };
  });
}

/**
 * Writes `plan` into the working tree as the agent's restore to `toTurn`
 * (0: before the first turn), and leaves it in the repo: a commit on the
 * user's branch by the agent when nothing else is uncommitted, no git
 * operation is in progress and auto-commit is on, else a private snapshot on
 * `restoreSnapshotRef(sessionId, restoreId)`; the working tree is written
 * either way.
 * @throws ConflictError (extensions.paths) when a path differs from what the
 * agent, or the last restore, left there; as `applySnapshotFiles` otherwise.
 */
export async function restoreFiles(
  project: PlaceProject,
  deps: RestoreRepoDeps,
  restore: { plan: RestorePlan; sessionId: string; model: string | null; toTurn: number; restoreId: string },
): Promise<FilesWritten> {
  const { plan, sessionId, toTurn, restoreId } = restore;
  return underProjectLock(deps, project, async (place) => {
    const repo = place.repo;
    const gitDir = place.location.gitDir;
    const conflicts = await restoreConflicts(place, plan);
    if (conflicts.length > 0) {
      throw new ConflictError(
        `Not restored: ${listedPaths(conflicts)} changed since the agent (or the last restore) left ${conflicts.length === 1 ? 'it' : 'them'}; ` +
          'nothing was written. Commit, stash or undo your changes there first.',
        { paths: conflicts },
      );
    }
    const writes = plan.writes;
    const target = toTurn === 0 ? 'before the first turn' : `after turn ${toTurn}`;
    if (writes.length === 0) {
      return {
        paths: [],
        result: 'NOTHING',
        commitSha: null,
        snapshotSha: null,
        files: [],
        message: `The agent's paths already hold their state ${target}; nothing was written.`,
      };
    }
    // Where a clean tree lets the restore be a commit, and what HEAD held for the recorded bases.
    const head = await repo.readHead();
    const busy = await repo.operationInProgress(place.workdir);
    const indexLock = await repo.gitPath('index.lock');
    const indexLocked = await exists(indexLock.startsWith('/') ? indexLock : join(place.workdir, indexLock));
    const agentPaths = new Set(plan.paths);
    const userDirty = (await repo.status()).dirtyPaths.filter((p) => !agentPaths.has(p));
    const base = await repo.entriesAt(head.sha, writes.map((w) => w.path));
    const files: RecordedState[] = writes.map((w) => ({ ...w, baseMode: base.get(w.path)?.mode ?? null, baseOid: base.get(w.path)?.oid ?? null }));
    const whyNot =
      busy ??
      (head.ref === null ? 'HEAD is detached' : null) ??
      (indexLocked ? 'another git holds the index' : null) ??
      (place.autoCommit === 'DISABLED_UNSAFE_CONFIG' ? "auto-commit is off for this repo's config" : null) ??
      (userDirty.length > 0 ? `you have other uncommitted changes (${listedPaths(userDirty)})` : null);
    await assertBlobs(repo, writes);
    const message = restoreCommitMessage(sessionId, toTurn);
    const identity = agentIdentity(restore.model);
    const built = await repo.buildCommit({
      parent: head.sha,
      states: writes,
      message: whyNot ? snapshotMessage(message, whyNot) : message,
      identity,
      scratchDir: gitDir,
    });
    await writeFiles(place, writes);
    const paths = writes.map((w) => w.path);
    const written = `Restored ${count(paths.length)} to their state ${target}`;
    const keep = async (reason: string): Promise<FilesWritten> => {
      const snapshot = whyNot
        ? built
        : await repo.buildCommit({ parent: head.sha, states: writes, message: snapshotMessage(message, reason), identity, scratchDir: gitDir });
      const ref = restoreSnapshotRef(sessionId, restoreId);
      await repo.setRef(ref, snapshot.sha, REFLOG.restoreSnapshot);
      return {
        paths,
        result: 'SNAPSHOT',
        commitSha: null,
        snapshotSha: snapshot.sha,
        files,
        message: `${written} in the working tree; not committed because ${reason}, so it is kept on ${ref}.`,
      };
    };
    if (whyNot) return keep(whyNot);
    if (built.unchanged) {
      // What was written is what HEAD holds: the restore undid uncommitted agent edits, nothing to commit.
      return { paths, result: 'APPLIED', commitSha: null, snapshotSha: null, files, message: `${written}; they now match HEAD, so there was nothing to commit.` };
    }
    try {
      await repo.compareAndSwapRef(head.ref!, built.sha, head.sha, REFLOG.restore(toTurn));
    } catch (error) {
      if (!(error instanceof GitRefConflictError)) throw error;
      return keep('the branch moved while restoring');
    }
    let synced = true;
    await repo.syncIndexPaths(head.sha, writes).catch(() => {
      synced = false;
    });
    return {
      paths,
      result: 'COMMITTED',
      commitSha: built.sha,
      snapshotSha: null,
      files,
      message: synced
        ? `${written} and committed them.`
        : `${written} and committed them; another git held the index, so git status may list them as staged: run git reset -q -- ${paths.join(' ')} to refresh it.`,
    };
  });
}

/**
 * What the working tree holds at a snapshot's paths, and the paths that refuse applying it: each
 * holds neither what HEAD held when the snapshot was taken nor the snapshot's content, or is a
 * folder (or below a link) now.
 */
async function snapshotStates(place: RepoPlace, files: readonly RecordedState[]): Promise<{ conflicts: string[]; now: FileState[]; blocked: Set<string> }> {
  const paths = files.map((f) => f.path);
  const blocked = await blockedPaths(place.workdir, paths);
  const now = await readStates(place, paths.filter((p) => !blocked.has(p)));
  const conflicts = files
    .filter((f) => blocked.has(f.path) || (changedPaths([baseOf(f)], now).length > 0 && changedPaths([f], now).length > 0))
    .map((f) => f.path);
  return { conflicts, now, blocked };
}

/**
 * The paths that would refuse applying a skipped turn's snapshot now (applySnapshotFiles' CONFLICT),
 * read without writing anything; every path when one went beyond a link while read.
 * @throws what opening the project's folder throws (it cannot be used now).
 */
export async function snapshotConflicts(project: PlaceProject, config: Pick<Config, 'allowedRoots' | 'dataDir'>, files: readonly RecordedState[]): Promise<string[]> {
  return (await previewSnapshot(project, config, files)).conflicts;
}

/**
 * What `applySnapshotFiles` would write now, read without writing anything (no lock: a preview;
 * the apply checks again under the lock): each path whose content it changes, from what the
 * working tree holds to the snapshot's state, and the paths that would refuse it, in the
 * snapshot's order.
 * @throws the project's own refusal (openProjectRepo).
 */
export async function previewSnapshot(
  project: PlaceProject,
  config: Pick<Config, 'allowedRoots' | 'dataDir'>,
  files: readonly RecordedState[],
): Promise<{ changes: PlannedPath[]; conflicts: string[] }> {
  if (files.length === 0) return { changes: [], conflicts: [] };
  const place = await openProjectRepo(project, config);
  let seen: { conflicts: string[]; now: FileState[] };
  try {
    seen = await snapshotStates(place, files);
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    // A path went beyond a link while it was read: none can be trusted.
    seen = { conflicts: files.map((f) => f.path), now: [] };
  }
  const inTheWay = new Set(seen.conflicts);
  const current = new Map(seen.now.map((s) => [s.path, s]));
  const changes = files
    .filter((f) => inTheWay.has(f.path) || changedPaths([f], seen.now).length > 0)
    .map((f) => ({
      path: f.path,
      from: current.get(f.path) ?? { path: f.path, mode: null, oid: null },
      to: { path: f.path, mode: f.oid ? f.mode : null, oid: f.oid },
      conflict: inTheWay.has(f.path),
    }))
    .sort(byPath);
  return { changes, conflicts: seen.conflicts };
}

/**
 * One path of a restore plan (or of a snapshot's apply): what is there before, what it becomes,
 * and whether the user changed it since.
 */
export interface PlannedPath {
  path: string;
  /** What the agent (or the last restore) left at the path, or for a snapshot's apply what the working tree holds; oid null: no file. */
  from: FileState;
  /** What the restore writes; oid null: the file is deleted. */
  to: FileState;
  /** The working tree no longer holds `from` (the user changed it, or it is a folder or beyond a link now): the restore would be refused. */
  conflict: boolean;
}

/**
 * What `restoreFiles` would write for `plan`, read without writing anything
 * (no lock: a preview; the restore checks again under the lock): every path
 * it changes, and the paths it would refuse over (`conflicts`, the
 * CONFLICT's extensions.paths), including paths it would not write but must
 * find as the agent left them.
 * @throws the project's own refusal (openProjectRepo).
 */
export async function previewRestore(
  project: PlaceProject,
  config: Pick<Config, 'allowedRoots' | 'dataDir'>,
  plan: RestorePlan,
): Promise<{ changes: PlannedPath[]; conflicts: string[] }> {
  const place = await openProjectRepo(project, config);
  const conflicts = await restoreConflicts(place, plan).catch((error: unknown) => {
    // A path went beyond a link while it was read: none can be trusted.
    if (error instanceof ConflictError) return [...plan.paths];
    throw error;
  });
  const inTheWay = new Set(conflicts);
  const left = new Map(plan.lastLeft.map((s) => [s.path, s]));
  const changes = plan.writes.map((to) => ({ path: to.path, from: left.get(to.path)!, to, conflict: inTheWay.has(to.path) }));
  return { changes, conflicts };
}

/**
 * The paths that refuse `plan`, sorted: each holds something else than what the agent (or the last
 * restore) left there, or is a folder (or below a link) now.
 * @throws ConflictError when one went beyond a symlink while it was read.
 */
async function restoreConflicts(place: RepoPlace, plan: RestorePlan): Promise<string[]> {
  const blocked = await blockedPaths(place.workdir, plan.paths);
  const nowStates = await readStates(place, plan.paths.filter((p) => !blocked.has(p)));
  return [...new Set([...changedPaths(plan.lastLeft, nowStates), ...blocked])].sort();
}

/** Opens the project's repo, then runs `work` under its lock with the place checked again. */
async function underProjectLock<T>(deps: RestoreRepoDeps, project: PlaceProject, work: (place: RepoPlace) => Promise<T>): Promise<T> {
  const before = await openProjectRepo(project, deps.config);
  const gitDir = before.location.gitDir;
  try {
    return await withProjectLock(
      deps.projectLocks ?? new KeyedLocks(),
      project.workdir,
      async () => {
        const place = await openProjectRepo(project, deps.config);
        if (place.location.gitDir !== gitDir) {
          throw new ConflictError(`The git directory of ${project.workdir} moved from ${gitDir} to ${place.location.gitDir}; nothing was written. Try again.`);
        }
        return work(place);
      },
      { gitDir, waitMs: 15_000 },
    );
  } catch (error) {
    if ((error as { code?: string } | null)?.code === 'ELOCKED') {
      throw new ConflictError(`Another entity-memory server is committing in ${project.workdir}; nothing was written. Try again in a moment.`);
    }
    throw error;
  }
}

/**
 * What `paths` hold in the working tree now (nothing is written to the repo).
 * @throws ConflictError when one went beyond a symlink while it was read (blockedPaths saw none).
 */
async function readStates(place: RepoPlace, paths: readonly string[]): Promise<FileState[]> {
  try {
    return await place.repo.captureFileStates(place.workdir, place.location.gitDir, paths, { write: false });
  } catch (error) {
    if (error instanceof BeyondLinkError) throw new ConflictError(`Nothing was written: ${error.message}.`, { paths: [error.path] });
    throw error;
  }
}

/**
 * Writes `writes` into the working tree, never through a symlink.
 * @throws ConflictError when a folder on a path's way became a symlink while they were written
 * (after blockedPaths looked): the paths written before it stay written, and are named.
 */
async function writeFiles(place: RepoPlace, writes: readonly FileState[]): Promise<void> {
  const written: string[] = [];
  try {
    await place.repo.withCheckedOutBlobs(place.location.gitDir, writes, (read) =>
      writeStates(place.workdir, writes, async (oid, path) => {
        const content = await read(oid, path);
        written.push(path);
        return content;
      }),
    );
  } catch (error) {
    if (!(error instanceof BeyondLinkError)) throw error;
    const before = written.filter((p) => p !== error.path);
    throw new ConflictError(
      `Stopped: ${error.message}. ${before.length > 0 ? `Written before it: ${listedPaths(before)}.` : 'Nothing else was written.'}`,
      { paths: [error.path] },
    );
  }
}

/** The state of `f`'s path in HEAD when it was captured. */
function baseOf(f: RecordedState): FileState {
  return { path: f.path, mode: f.baseOid ? f.baseMode : null, oid: f.baseOid };
}

/**
 * Paths that cannot be written as files: a folder now, or below something
 * that is not a plain folder (a symlink could lead the write out of the tree).
 */
async function blockedPaths(top: string, paths: readonly string[]): Promise<Set<string>> {
  const blocked = new Set<string>();
  for (const path of paths) {
    const parts = path.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const info = await lstat(join(top, ...parts.slice(0, i))).catch(() => null);
      if (!info) break;
      if (i === parts.length ? info.isDirectory() : !info.isDirectory()) {
        blocked.add(path);
        break;
      }
    }
  }
  return blocked;
}

/**
 * @throws NotFoundError when a blob of `states` is no longer in the repo
 * (pruned by git gc), before anything is written.
 */
async function assertBlobs(repo: ProjectRepo, states: readonly FileState[]): Promise<void> {
  const missing = await repo.missingBlobs(states.flatMap((s) => (s.oid ? [s.oid] : [])));
  if (missing.size === 0) return;
  const paths = states.filter((s) => s.oid && missing.has(s.oid)).map((s) => s.path);
  throw new NotFoundError(`The content of ${listedPaths(paths)} is no longer in the repository (pruned by git gc?); nothing was written.`, { paths });
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

function count(n: number): string {
  return `${n} ${n === 1 ? 'path' : 'paths'}`;
}

/**
 * Whether the working tree holds `files` (a skipped turn's snapshot) now, path for path: it was
 * applied, by applyTurnSnapshot or by hand. Reads the files (no lock: nothing is written);
 * false when one cannot be read (a folder swapped for a link).
 * @throws what opening the project's folder throws (it cannot be used now).
 */
export async function holdsFiles(project: PlaceProject, config: Pick<Config, 'allowedRoots' | 'dataDir'>, files: readonly RecordedState[]): Promise<boolean> {
  if (files.length === 0) return false;
  const place = await openProjectRepo(project, config);
  try {
    return changedPaths(files, await readStates(place, files.map((f) => f.path))).length === 0;
  } catch (error) {
    if (error instanceof ConflictError) return false;
    throw error;
  }
}
