/**
 * The project side of a turn's close, run in the closing request before the
 * turn is written and outside the session's write lock (a `git status` of a
 * large tree must not hold up the session's other writes): the agent's paths
 * are chosen (src/projects/ownership.ts) and their content hashed into the
 * project's object store (src/projects/capture.ts). The commit made later in
 * the background is built from exactly these blobs. What the capture started
 * from is kept (`basis`), so the writer can tell, under the lock, that no other
 * close of the session slipped in between and the capture still holds.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { Logger } from '../logger.js';
import { classifyFault } from '../faults.js';
import { captureTurnEnd, earlyPaths, type TurnCapture } from './capture.js';
import { printOf } from './working-tree.js';
import { claimPaths, pathsOf, readClaims } from './claims.js';
import { openProjectRepo, refusalReason, type PlaceProject } from './project-place.js';

export interface ProjectClose {
  /** What was captured, or null when nothing could be (see `error`). */
  capture: TurnCapture | null;
  /** Why nothing was captured: the folder refused, git failing. */
  error: string | null;
  /**
   * The dirty paths as the turn closed, less the agent's (pending commit):
   * where the session's next turn recorded without a visible start begins. Null when unknown.
   */
  baseline: string[] | null;
  /** Claims the agent's paths for the turn once it is written (never throws). */
  claim(turnId: string): Promise<void>;
  /** The session's state the capture started from (see `captureBasis`). */
  basis: string;
  /**
   * The turn closed with neither touchedPaths nor a known start (startedAt, or a USER message
   * before the close), in a project that did not opt in (attributeUnmarkedTurns): what changed
   * since the previous turn cannot be told from the user's edits, so nothing is committed.
   */
  unattributed: boolean;
  /**
   * Set when a fault of the machine (git missing, the disk full) kept the capture from being
   * made and the agent's paths are known: the committer captures them later (late-capture.ts).
   */
  later: LateCapture | null;
}

/**
 * What a close that met a fault of the machine kept of the agent's paths (Turn.projectCaptureLater,
 * as JSON), for the committer to capture them later (late-capture.ts).
 */
export interface LateCapture {
  paths: string[];
  /** Per path: `size:mode:mtime:ctime`, or `gone` (working-tree.ts, printOf). */
  print: Record<string, string>;
  dirtyAtStart: string[];
}

/** The session fields a close's capture depends on (a Prisma select). */
export const CAPTURE_BASIS = { openTurnId: true, projectDirtyBaseline: true, projectId: true } as const;

/** Those fields as one comparable string. */
export function captureBasis(session: { openTurnId: string | null; projectDirtyBaseline: string | null; projectId: string | null }): string {
  return JSON.stringify([session.openTurnId, session.projectDirtyBaseline, session.projectId]);
}

type CloseDeps = { db: Db; logger: Logger; config: Config };

/**
 * @returns null when the session has no project. Never throws: a turn closes
 * whatever its project's state; the reason is kept for its outcome.
 */
export async function closeProjectTurn(
  deps: CloseDeps,
  sessionId: string,
  input: { touched: readonly string[] | null; startedAt: Date | null },
): Promise<ProjectClose | null> {
  const session = await deps.db.session.findUnique({
    where: { sessionId },
    select: { source: true, ...CAPTURE_BASIS },
  });
  // An imported session (source set) never captures or commits in a project.
  if (!session?.projectId || session.source !== null) return null;
  const project = await deps.db.project.findUnique({
    where: { projectId: session.projectId },
    select: { projectId: true, workdir: true, trustedConfig: true, attributeUnmarkedTurns: true },
  });
  if (!project) return null;
  const basis = captureBasis(session);
  const open = session.openTurnId ? await deps.db.turn.findUnique({ where: { id: session.openTurnId }, select: { dirtyAtStart: true } }) : null;
  // A turn opened by this very call (recordTurn, retryTurn) begins where the session's last turn closed.
  const dirtyAtStart = JSON.parse(open?.dirtyAtStart ?? session.projectDirtyBaseline ?? '[]') as string[];
  const unattributed = input.touched === null && input.startedAt === null && !open && !project.attributeUnmarkedTurns;
  try {
    const carried = dirtyAtStart.length > 0 ? await carriedBySkips(deps.db, sessionId, project.projectId) : new Map<string, string | null>();
    const close = await captureAtClose(project, deps.config, { sessionId, touched: input.touched, dirtyAtStart, startedAt: input.startedAt, carried });
    return {
      capture: close.capture,
      error: null,
      baseline: close.baseline,
      basis,
      unattributed,
      later: null,
      claim: async (turnId) => {
        try {
          await close.claim(turnId);
        } catch (error) {
          deps.logger.warn({ err: error, sessionId, turnId }, 'could not claim the paths of a turn in its project');
        }
      },
    };
  } catch (error) {
    // A moment's fault of the machine, and the agent's paths known: what they look like now is
    // kept, and the committer captures them once git runs again, if they have not changed.
    const later = classifyFault(error) && input.touched?.length ? { paths: [...input.touched], print: Object.fromEntries(await printOf(project.workdir, input.touched)), dirtyAtStart } : null;
    deps.logger.warn(
      { err: error, sessionId, workdir: project.workdir, captureLater: later !== null },
      later ? "could not capture the agent's edits at the turn's close; they are captured once git runs again, if unchanged" : "could not capture the agent's edits at the turn's close",
    );
    return { capture: null, error: refusalReason(error), baseline: null, basis, unattributed, claim: async () => {}, later };
  }
}

/**
 * What the session's skipped turns since its last commit in the project left, path by path (the
 * latest turn's state of each): the agent's edits kept in their snapshots and still uncommitted
 * in the working tree. A path still holding exactly that content is the agent's at the next
 * turn, not the user's.
 */
export async function carriedBySkips(db: Db, sessionId: string, projectId: string): Promise<Map<string, string | null>> {
  const committed = await db.turn.findFirst({
    where: { sessionId, projectId, projectResult: 'COMMITTED' },
    orderBy: { closedAt: 'desc' },
    select: { closedAt: true },
  });
  const skipped = await db.turn.findMany({
    where: {
      sessionId,
      projectId,
      projectResult: { in: ['SKIPPED_DIRTY', 'SKIPPED_BUSY', 'SKIPPED_UNATTRIBUTED'] },
      projectFiles: { not: null },
      ...(committed?.closedAt && { closedAt: { gt: committed.closedAt } }),
    },
    orderBy: { closedAt: 'asc' },
    take: 200,
    select: { projectFiles: true },
  });
  const carried = new Map<string, string | null>();
  for (const turn of skipped) {
    for (const file of JSON.parse(turn.projectFiles!) as { path: string; oid: string | null }[]) carried.set(file.path, file.oid);
  }
  return carried;
}

/**
 * The git side of `closeProjectTurn`, without the database: opens the project's
 * repo (initialising a `.git` removed since the last turn, as on-disk.md says),
 * takes the dirty paths and the claims, and captures the agent's state.
 * @throws what opening the folder or running git there throws.
 */
export async function captureAtClose(
  project: PlaceProject,
  config: Config,
  input: {
    sessionId: string;
    touched: readonly string[] | null;
    dirtyAtStart: readonly string[];
    startedAt: Date | null;
    /** From `carriedBySkips`: what the session's skipped turns left uncommitted. */
    carried?: ReadonlyMap<string, string | null>;
  },
): Promise<{ capture: TurnCapture; baseline: string[]; claim(turnId: string): Promise<void> }> {
  const place = await openProjectRepo(project, config, { init: true });
  // The files the turn said it wrote are hashed while status runs (they are the agent's once
  // status finds them changed): one git process less to wait for.
  const early = earlyPaths(input.touched, input.dirtyAtStart);
  const [status, claims, hashed] = await Promise.all([
    place.repo.statusWithHead(),
    readClaims(place.location),
    early.length > 0 ? place.repo.captureFileStates(place.workdir, place.location.gitDir, early) : [],
  ]);
  // What was dirty at the start because a skipped turn of this session left it, unchanged since: the agent's, not the user's.
  const carried = input.dirtyAtStart.filter((p) => input.carried?.has(p));
  let unchanged: string[] = [];
  if (carried.length > 0) {
    const states = await place.repo.captureFileStates(place.workdir, place.location.gitDir, carried, { write: false });
    unchanged = states.filter((s) => s.oid === input.carried!.get(s.path)).map((s) => s.path);
  }
  const dirty = status.dirtyPaths;
  const others = pathsOf(claims, input.sessionId, false);
  const ownPending = pathsOf(claims, input.sessionId, true);
  // Without touchedPaths, what another session's turn left and has not committed yet is that agent's, not ours.
  const dirtyAtClose = input.touched ? dirty : dirty.filter((p) => !others.has(p));
  const capture = await captureTurnEnd(place.repo, place.workdir, place.location.gitDir, { touched: input.touched, dirtyAtStart: input.dirtyAtStart, dirtyAtClose, startedAt: input.startedAt, carried: unchanged }, status, hashed);
  const agent = new Set(capture.files.map((f) => f.path));
  return {
    capture,
    baseline: dirty.filter((p) => !agent.has(p) && !ownPending.has(p)),
    claim: (turnId) => claimPaths(place.location, turnId, [...agent], input.sessionId),
  };
}
