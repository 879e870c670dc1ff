/**
 * Taking the agent's project edits later, or going back: `applyTurnSnapshot`
 * writes a skipped turn's kept state into the working tree, and
 * `restoreProjectFiles` puts every path the agent touched in a session back
 * to its state after a turn. Both write only the agent's paths, and only
 * where the working tree still holds what the agent (or the last restore)
 * left there: anything else is the user's, and the request is refused with
 * CONFLICT before anything is written. A restore is recorded (a
 * ProjectRestore row, and a commit or a private snapshot commit), so
 * restoring to the later turn undoes it.
 */
import { lstat, mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Project, ProjectFilesResultKind, Session, Turn } from '../../generated/prisma/client.js';
import { BadUserInputError, ConflictError, NotFoundError } from '../../errors.js';
import { GitRefConflictError } from '../../git/errors.js';
import {
  buildCommit,
  captureFileStates,
  compareAndSwapRef,
  entriesAt,
  operationInProgress,
  readHead,
  setRef,
  syncIndexPaths,
  writeStates,
  type FileState,
  type ProjectBlobReader,
  type ProjectGitRun,
} from '../../git/project-plumbing.js';
import { assertValidId, newId } from '../../ids.js';
import { KeyedLocks } from '../../locks.js';
import { AGENT_EMAIL, agentName } from '../../projects/committer.js';
import { withProjectLock } from '../../projects/project-lock.js';
import { openProjectRepo, type RepoPlace } from '../../projects/project-place.js';
import { changedPaths, planRestore, type AgentEvent, type RecordedState } from '../../projects/restore-plan.js';
import { branchSegments, turnFilter } from '../sessions/branch-path.js';
import { now, type Deps } from '../deps.js';
import { readProjectCommit } from './read-projects.js';
import type { CommitRef } from '../replay/read-commits.js';
import { requireSession } from '../sessions/read-session.js';

/** What applyTurnSnapshot or restoreProjectFiles did. */
export interface ProjectFilesResult {
  /** The paths written into the working tree, sorted. */
  paths: string[];
  result: ProjectFilesResultKind;
  /** The commit made (COMMITTED), kept (SNAPSHOT) or applied (applyTurnSnapshot); read when asked for. */
  commit: () => Promise<CommitRef | null>;
  message: string;
}

export interface ProjectFilesInput {
  sessionId: string;
  turn: number;
}

type RestoreDeps = Pick<Deps, 'db' | 'config' | 'logger' | 'sessionLocks' | 'projectLocks' | 'now'>;

/** The private ref a restore that could not be committed is kept on. */
export function restoreSnapshotRef(sessionId: string, restoreId: string): string {
  return `refs/entity-memory/snapshots/${sessionId}/restore-${restoreId}`;
}

export function restoreCommitMessage(sessionId: string, turn: number): string {
  return `[agent ${sessionId}] restore to turn ${turn}\n\nSession-Id: ${sessionId}\nRestore-To: ${turn}\n`;
}

/**
 * Writes a skipped turn's private snapshot into the working tree: HEAD, the
 * index, branches and refs are not touched, and nothing is recorded.
 * @throws BadUserInputError for a bad input, a session without a project, a
 * turn without a snapshot; NotFoundError for an unknown session or turn, or
 * content no longer in the repo; ConflictError (extensions.paths) when a path
 * holds neither what HEAD held when the snapshot was taken nor the snapshot's
 * content, or is a folder now; the project's own refusal (openProjectRepo).
 */
export async function applyTurnSnapshot(input: ProjectFilesInput, deps: RestoreDeps): Promise<ProjectFilesResult> {
  checkInput(input);
  return deps.sessionLocks.run(input.sessionId, async () => {
    const { session, project } = await sessionProject(deps, input.sessionId);
    const turn = await turnOnPath(deps, session, input.turn);
    if (!turn) throw noSuchTurn(session, input.turn);
    if (!turn.projectSnapshotSha || turn.projectFiles === null) {
      const result = turn.open ? 'still open' : `${turn.projectResult ?? 'not committed yet'}`;
      throw new BadUserInputError(
        `Turn ${turn.number} of session ${session.sessionId} has no snapshot (its project commit is ${result}): ` +
          'only a SKIPPED_DIRTY or SKIPPED_BUSY turn keeps one.',
        { field: 'turn' },
      );
    }
    const files = JSON.parse(turn.projectFiles) as RecordedState[];
    const snapshotSha = turn.projectSnapshotSha;
    return underProjectLock(deps, project, async (place) => {
      const run = place.repo.run;
      const paths = files.map((f) => f.path);
      const now = await captureFileStates(run, place.workdir, paths, { write: false });
      const blocked = await blockedPaths(place.workdir, paths);
      const conflicts = files
        .filter((f) => blocked.has(f.path) || (changedPaths([baseOf(f)], now).length > 0 && changedPaths([f], now).length > 0))
        .map((f) => f.path);
      if (conflicts.length > 0) {
        throw new ConflictError(
          `Not applied: ${listed(conflicts)} changed since turn ${turn.number}'s snapshot was taken (or became a folder); nothing was written. ` +
            `Commit or stash your changes to ${conflicts.length === 1 ? 'it' : 'them'} first, or compare with git diff ${snapshotSha}.`,
          { paths: conflicts },
        );
      }
      const writes: FileState[] = files.filter((f) => changedPaths([f], now).length > 0).map(({ path, mode, oid }) => ({ path, mode, oid }));
      const commit = () => readProjectCommit(deps, project.projectId, snapshotSha);
      if (writes.length === 0) {
        return { paths: [], result: 'NOTHING', commit, message: `The working tree already holds turn ${turn.number}'s snapshot; nothing was written.` };
      }
      await assertBlobs(run, writes);
      await withBlobs(run, place.location.gitDir, writes, (read) => writeStates(place.workdir, writes, read));
      return {
        paths: writes.map((w) => w.path),
        result: 'APPLIED',
        commit,
        message: `Wrote ${count(writes.length)} of turn ${turn.number}'s snapshot into the working tree; nothing was committed or staged.`,
      };
    });
  });
}

/**
 * Puts every path the agent touched in the session (along its current
 * branch) back to its state after `turn` (0: before the first turn), and
 * records it: a commit on the user's branch by the agent when nothing else is
 * uncommitted and no git operation is in progress, else a private snapshot;
 * the working tree is written either way.
 * @throws as `applyTurnSnapshot`; ConflictError (extensions.paths) when a
 * path differs from what the agent, or the last restore, left there.
 */
export async function restoreProjectFiles(input: ProjectFilesInput, deps: RestoreDeps): Promise<ProjectFilesResult> {
  checkInput(input);
  return deps.sessionLocks.run(input.sessionId, async () => {
    const { session, project } = await sessionProject(deps, input.sessionId);
    const events = await sessionEvents(deps, session, project.projectId);
    let upTo = -1;
    if (input.turn > 0) {
      upTo = events.findIndex((e) => e.turn?.number === input.turn);
      if (upTo < 0) {
        const open = await turnOnPath(deps, session, input.turn);
        if (!open) throw noSuchTurn(session, input.turn);
        throw new BadUserInputError(`Turn ${input.turn} of session ${session.sessionId} is still open: end it before restoring to it.`, { field: 'turn' });
      }
    }
    const plan = planRestore(events, upTo);
    return underProjectLock(deps, project, async (place) => {
      const run = place.repo.run;
      const gitDir = place.location.gitDir;
      const nowStates = await captureFileStates(run, place.workdir, plan.paths, { write: false });
      const blocked = await blockedPaths(place.workdir, plan.paths);
      const conflicts = [...new Set([...changedPaths(plan.lastLeft, nowStates), ...blocked])].sort();
      if (conflicts.length > 0) {
        throw new ConflictError(
          `Not restored: ${listed(conflicts)} changed since the agent (or the last restore) left ${conflicts.length === 1 ? 'it' : 'them'}; ` +
            'nothing was written. Commit, stash or undo your changes there first.',
          { paths: conflicts },
        );
      }
      const writes = plan.writes;
      const target = input.turn === 0 ? 'before the first turn' : `after turn ${input.turn}`;
      const restoreId = newId();
      const record = (files: RecordedState[], result: ProjectFilesResultKind, shas: { commitSha?: string; snapshotSha?: string }) =>
        deps.db.projectRestore.create({
          data: {
            id: restoreId,
            sessionId: session.sessionId,
            projectId: project.projectId,
            toTurn: input.turn,
            branch: session.currentBranch,
            files: JSON.stringify(files),
            result,
            commitSha: shas.commitSha ?? null,
            snapshotSha: shas.snapshotSha ?? null,
            createdAt: now(deps),
          },
        });
      if (writes.length === 0) {
        await record([], 'NOTHING', {});
        return { paths: [], result: 'NOTHING', commit: async () => null, message: `The agent's paths already hold their state ${target}; nothing was written.` };
      }
      // Where a clean tree lets the restore be a commit, and what HEAD held for the recorded bases.
      const head = await readHead(run);
      const busy = await operationInProgress(run, place.workdir);
      const indexLock = (await run(['rev-parse', '--git-path', 'index.lock'])).stdout.trim();
      const indexLocked = await exists(indexLock.startsWith('/') ? indexLock : join(place.workdir, indexLock));
      const agentPaths = new Set(plan.paths);
      const userDirty = (await place.repo.status()).dirtyPaths.filter((p) => !agentPaths.has(p));
      const base = await entriesAt(run, head.sha, writes.map((w) => w.path));
      const files: RecordedState[] = writes.map((w) => ({ ...w, baseMode: base.get(w.path)?.mode ?? null, baseOid: base.get(w.path)?.oid ?? null }));
      const whyNot =
        busy ??
        (head.ref === null ? 'HEAD is detached' : null) ??
        (indexLocked ? 'another git holds the index' : null) ??
        (place.autoCommit === 'DISABLED_UNSAFE_CONFIG' ? "auto-commit is off for this repo's config" : null) ??
        (userDirty.length > 0 ? `you have other uncommitted changes (${listed(userDirty)})` : null);
      await assertBlobs(run, writes);
      const message = restoreCommitMessage(session.sessionId, input.turn);
      const identity = { name: agentName(session.model), email: AGENT_EMAIL };
      const built = await buildCommit(run, {
        parent: head.sha,
        states: writes,
        message: whyNot ? `${message}Snapshot: ${whyNot}\n` : message,
        identity,
        scratchDir: gitDir,
      });
      await withBlobs(run, gitDir, writes, (read) => writeStates(place.workdir, writes, read));
      const paths = writes.map((w) => w.path);
      const written = `Restored ${count(paths.length)} to their state ${target}`;
      const keep = async (reason: string): Promise<ProjectFilesResult> => {
        const snapshot = whyNot ? built : await buildCommit(run, { parent: head.sha, states: writes, message: `${message}Snapshot: ${reason}\n`, identity, scratchDir: gitDir });
        const ref = restoreSnapshotRef(session.sessionId, restoreId);
        await setRef(run, ref, snapshot.sha, 'entity-memory: snapshot of a restore');
        await record(files, 'SNAPSHOT', { snapshotSha: snapshot.sha });
        return {
          paths,
          result: 'SNAPSHOT',
          commit: () => readProjectCommit(deps, project.projectId, snapshot.sha),
          message: `${written} in the working tree; not committed because ${reason}, so it is kept on ${ref}.`,
        };
      };
      if (whyNot) return keep(whyNot);
      if (built.unchanged) {
        // What was written is what HEAD holds: the restore undid uncommitted agent edits, nothing to commit.
        await record(files, 'APPLIED', {});
        return { paths, result: 'APPLIED', commit: async () => null, message: `${written}; they now match HEAD, so there was nothing to commit.` };
      }
      try {
        await compareAndSwapRef(run, head.ref!, built.sha, head.sha, `entity-memory: restore to turn ${input.turn}`);
      } catch (error) {
        if (!(error instanceof GitRefConflictError)) throw error;
        return keep('the branch moved while restoring');
      }
      let synced = true;
      await syncIndexPaths(run, head.sha, writes).catch(() => {
        synced = false;
      });
      await record(files, 'COMMITTED', { commitSha: built.sha });
      return {
        paths,
        result: 'COMMITTED',
        commit: () => readProjectCommit(deps, project.projectId, built.sha),
        message: synced
          ? `${written} and committed them.`
          : `${written} and committed them; another git held the index, so git status may list them as staged: run git reset -q -- ${paths.join(' ')} to refresh it.`,
      };
    });
  });
}

function checkInput(input: ProjectFilesInput): void {
  assertValidId(input.sessionId, 'sessionId');
  if (!Number.isInteger(input.turn) || input.turn < 0) {
    throw new BadUserInputError(`turn must be a turn number (1 or more), or 0 for before the first turn; got ${input.turn}.`, { field: 'turn' });
  }
}

async function sessionProject(deps: RestoreDeps, sessionId: string): Promise<{ session: Session; project: Project }> {
  const session = await requireSession(deps.db, sessionId);
  const project = session.projectId ? await deps.db.project.findUnique({ where: { projectId: session.projectId } }) : null;
  if (!project) {
    throw new BadUserInputError(`Session ${sessionId} has no project: add it to one (addSessionToProject) for its turns' files to be kept.`, {
      field: 'sessionId',
    });
  }
  return { session, project };
}

/** The turn numbered `number` on the path to the tip of the session's current branch. */
async function turnOnPath(deps: RestoreDeps, session: Session, number: number): Promise<Turn | null> {
  if (number < 1) return null;
  const segments = await branchSegments(deps.db, session.sessionId, session.currentBranch);
  return deps.db.turn.findFirst({ where: { AND: [turnFilter(session.sessionId, segments), { number }] } });
}

function noSuchTurn(session: Session, number: number): NotFoundError {
  return new NotFoundError(`Session ${session.sessionId} has no turn ${number} on its branch ${session.currentBranch}.`, { field: 'turn' });
}

type SessionEvent = AgentEvent & { at: number; turn: { number: number } | null };

/**
 * What the agent and the restores left in the working tree, oldest first:
 * the closed turns of the current branch's path, and every restore of the
 * session (a restore wrote the working tree whatever branch the session was on).
 */
async function sessionEvents(deps: RestoreDeps, session: Session, projectId: string): Promise<SessionEvent[]> {
  const segments = await branchSegments(deps.db, session.sessionId, session.currentBranch);
  const turns = await deps.db.turn.findMany({
    where: { AND: [turnFilter(session.sessionId, segments), { open: false, projectId }] },
    orderBy: { number: 'asc' },
    select: { number: true, closedAt: true, createdAt: true, projectFiles: true },
  });
  const restores = await deps.db.projectRestore.findMany({ where: { sessionId: session.sessionId, projectId }, orderBy: { createdAt: 'asc' } });
  const events: SessionEvent[] = [
    ...turns.map((t) => ({
      at: (t.closedAt ?? t.createdAt).getTime(),
      turn: { number: t.number },
      // A turn whose edits could not be captured left nothing we know of.
      files: t.projectFiles ? (JSON.parse(t.projectFiles) as RecordedState[]) : [],
    })),
    ...restores.map((r) => ({ at: r.createdAt.getTime(), turn: null, files: JSON.parse(r.files) as RecordedState[] })),
  ];
  // Stable: a turn closed in the same millisecond as a restore comes first (a restore reads what turns left).
  return events.sort((a, b) => a.at - b.at);
}

/** Opens the project's repo, then runs `work` under its lock with the place checked again. */
async function underProjectLock<T>(deps: RestoreDeps, project: Project, work: (place: RepoPlace) => Promise<T>): Promise<T> {
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
 * Runs `work` with a reader of the blobs of `states` as a checkout would write
 * them (the repo's eol and filter attributes applied, with its filter drivers
 * as the place allows them): they are checked out once, from a temporary
 * index, into a scratch folder in the git directory, and read from there, so
 * binary files come through byte for byte.
 */
async function withBlobs<T>(run: ProjectGitRun, gitDir: string, states: readonly FileState[], work: (read: ProjectBlobReader) => Promise<T>): Promise<T> {
  const present = states.filter((s): s is FileState & { oid: string; mode: string } => s.oid !== null && s.mode !== null);
  const dir = await mkdtemp(join(gitDir, 'entity-memory-files-'));
  try {
    if (present.length > 0) {
      const env = { GIT_INDEX_FILE: join(dir, 'index') };
      await run(['update-index', '-z', '--index-info'], { input: present.map((s) => `${s.mode} ${s.oid}\t${s.path}\0`).join(''), env });
      await run(['checkout-index', '-a', '-f', `--prefix=${join(dir, 'files')}/`], { env });
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

/**
 * @throws NotFoundError when a blob of `states` is no longer in the repo
 * (pruned by git gc), before anything is written.
 */
async function assertBlobs(run: ProjectGitRun, states: readonly FileState[]): Promise<void> {
  const oids = states.flatMap((s) => (s.oid ? [s.oid] : []));
  if (oids.length === 0) return;
  const { stdout } = await run(['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: `${oids.join('\n')}\n` });
  const missing = new Set<string>();
  for (const line of stdout.split('\n')) {
    const [oid, type] = line.split(' ');
    if (oid && type !== 'blob') missing.add(oid);
  }
  if (missing.size === 0) return;
  const paths = states.filter((s) => s.oid && missing.has(s.oid)).map((s) => s.path);
  throw new NotFoundError(`The content of ${listed(paths)} is no longer in the repository (pruned by git gc?); nothing was written.`, { paths });
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

function listed(paths: readonly string[]): string {
  return paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, and ${paths.length - 5} more` : '');
}
