/**
 * Taking the agent's project edits later, or going back: the requests
 * `applyTurnSnapshot` (undone by `unapplyTurnSnapshot`) and `restoreProjectFiles`, checked, under the session's
 * lock, with their rows. What they write into the user's repo, and the
 * refusals that guard it, are src/projects/restore.ts. A restore is recorded
 * (a ProjectRestore row, beside its commit or private snapshot commit), so
 * restoring to the later turn undoes it.
 */
import type { Project, ProjectFilesResultKind, Session, Turn } from '../../generated/prisma/client.js';
import { BadUserInputError, ConflictError, NotFoundError } from '../../errors.js';
import { assertValidId, newId } from '../../ids.js';
import { applySnapshotFiles, restoreFiles, unapplySnapshotFiles, type FilesWritten } from '../../projects/restore.js';
import { planRestore, type AgentEvent, type FileState, type RecordedState, type RestorePlan } from '../../projects/restore-plan.js';
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

export interface RestoreInput extends ProjectFilesInput {
  /** The writes a preview showed: refused (CONFLICT) when the plan is no longer that. */
  expectWrites?: readonly FileState[];
}

type RestoreDeps = Pick<Deps, 'db' | 'config' | 'logger' | 'sessionLocks' | 'projectLocks' | 'now'>;

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
    const { project, turn, snapshotSha, files } = await turnSnapshot(deps, input);
    const done = await applySnapshotFiles(project, deps, { turn: turn.number, files, snapshotSha });
    return { paths: done.paths, result: done.result, commit: () => readProjectCommit(deps, project.projectId, snapshotSha), message: done.message };
  });
}

/**
 * Undoes applyTurnSnapshot: every path of the snapshot that holds its content gets back what HEAD
 * held when the snapshot was taken (HEAD, the index, branches and refs are not touched).
 * @throws as `applyTurnSnapshot`; ConflictError (extensions.paths) when a path holds something
 * else than the snapshot's content or what HEAD held (the user changed it), or was committed since.
 */
export async function unapplyTurnSnapshot(input: ProjectFilesInput, deps: RestoreDeps): Promise<ProjectFilesResult> {
  checkInput(input);
  return deps.sessionLocks.run(input.sessionId, async () => {
    const { project, turn, snapshotSha, files } = await turnSnapshot(deps, input);
    const done = await unapplySnapshotFiles(project, deps, { turn: turn.number, files });
    return { paths: done.paths, result: done.result, commit: () => readProjectCommit(deps, project.projectId, snapshotSha), message: done.message };
  });
}

/** A skipped turn's snapshot: its commit and recorded states. @throws as `applyTurnSnapshot`. */
async function turnSnapshot(
  deps: RestoreDeps,
  input: ProjectFilesInput,
): Promise<{ project: Project; turn: Turn; snapshotSha: string; files: RecordedState[] }> {
  const { session, project } = await sessionProject(deps, input.sessionId);
  const turn = await turnOnPath(deps, session, input.turn);
  if (!turn) throw noSuchTurn(session, input.turn);
  if (!turn.projectSnapshotSha || turn.projectFiles === null) {
    const result = turn.open ? 'still open' : `${turn.projectResult ?? 'not committed yet'}`;
    throw new BadUserInputError(
      `Turn ${turn.number} of session ${session.sessionId} has no snapshot (its project commit is ${result}): ` +
        'only a SKIPPED_DIRTY, SKIPPED_BUSY or SKIPPED_UNATTRIBUTED turn keeps one.',
      { field: 'turn' },
    );
  }
  return { project, turn, snapshotSha: turn.projectSnapshotSha, files: JSON.parse(turn.projectFiles) as RecordedState[] };
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
export async function restoreProjectFiles(input: RestoreInput, deps: RestoreDeps): Promise<ProjectFilesResult> {
  checkInput(input);
  return deps.sessionLocks.run(input.sessionId, async () => {
    const { session, project } = await sessionProject(deps, input.sessionId);
    const plan = await restorePlan(deps, session, project, input.turn);
    if (input.expectWrites && !sameWrites(plan.writes, input.expectWrites)) {
      throw new ConflictError(
        `Not restored: what a restore to turn ${input.turn} writes changed since its preview (the agent or another restore moved on); nothing was written. Look at the preview again.`,
        { paths: [...new Set([...plan.writes, ...input.expectWrites].map((w) => w.path))].sort() },
      );
    }
    const restoreId = newId();
    const done = await restoreFiles(project, deps, { plan, sessionId: session.sessionId, model: session.model, toTurn: input.turn, restoreId });
    await recordRestore(deps, { id: restoreId, session, project, toTurn: input.turn }, done);
    const sha = done.commitSha ?? done.snapshotSha;
    return {
      paths: done.paths,
      result: done.result,
      commit: sha ? () => readProjectCommit(deps, project.projectId, sha) : async () => null,
      message: done.message,
    };
  });
}

/**
 * What a restore of the session's project files to `turn` (0: before the first turn) writes, from the
 * recorded turns and restores; nothing is read from the working tree.
 * @throws NotFoundError for a turn not on the current branch; BadUserInputError for an open turn or one
 * recorded before the session joined the project.
 */
export async function restorePlan(deps: Pick<Deps, 'db'>, session: Session, project: Project, toTurn: number): Promise<RestorePlan> {
  const events = await sessionEvents(deps, session, project.projectId);
  let upTo = -1;
  if (toTurn > 0) {
    upTo = events.findIndex((e) => e.turn?.number === toTurn);
    if (upTo < 0) {
      const turn = await turnOnPath(deps, session, toTurn);
      if (!turn) throw noSuchTurn(session, toTurn);
      if (turn.open) throw new BadUserInputError(`Turn ${toTurn} of session ${session.sessionId} is still open: end it before restoring to it.`, { field: 'turn' });
      // Closed, but not in this project: recorded before the session joined it (or in another one).
      const first = events.find((e) => e.turn !== null)?.turn?.number;
      throw new BadUserInputError(
        `Turn ${toTurn} of session ${session.sessionId} was recorded before the session joined project ${project.name}, so the project holds nothing of it to restore: ` +
          (first !== undefined ? `restore to turn ${first} or later, or to 0 (before the session's first turn there).` : `restore to 0 (before the session's first turn there).`),
        { field: 'turn' },
      );
    }
  }
  return planRestore(events, upTo);
}

function sameWrites(a: readonly FileState[], b: readonly FileState[]): boolean {
  const key = (w: FileState) => `${w.path}\0${w.oid ? w.mode : ''}\0${w.oid ?? ''}`;
  return a.length === b.length && a.map(key).sort().join('\n') === b.map(key).sort().join('\n');
}

/** The ProjectRestore row of a restore: what it wrote (with HEAD's bases), how it ended, and its commit or snapshot. */
async function recordRestore(
  deps: RestoreDeps,
  restore: { id: string; session: Session; project: Project; toTurn: number },
  done: FilesWritten,
): Promise<void> {
  await deps.db.projectRestore.create({
    data: {
      id: restore.id,
      sessionId: restore.session.sessionId,
      projectId: restore.project.projectId,
      toTurn: restore.toTurn,
      branch: restore.session.currentBranch,
      files: JSON.stringify(done.files),
      result: done.result,
      commitSha: done.commitSha,
      snapshotSha: done.snapshotSha,
      createdAt: now(deps),
    },
  });
}

/** @throws BadUserInputError for a malformed session id, or a turn that is not 0 or more. */
export function checkInput(input: ProjectFilesInput): void {
  assertValidId(input.sessionId, 'sessionId');
  if (!Number.isInteger(input.turn) || input.turn < 0) {
    throw new BadUserInputError(`turn must be a turn number (1 or more), or 0 for before the first turn; got ${input.turn}.`, { field: 'turn' });
  }
}

export async function sessionProject(deps: Pick<Deps, 'db'>, sessionId: string): Promise<{ session: Session; project: Project }> {
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
export async function turnOnPath(deps: Pick<Deps, 'db'>, session: Session, number: number): Promise<Turn | null> {
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
async function sessionEvents(deps: Pick<Deps, 'db'>, session: Session, projectId: string): Promise<SessionEvent[]> {
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
