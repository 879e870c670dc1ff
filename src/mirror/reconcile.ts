/**
 * Comparing each session's closed turns with its repo: missing commits are
 * queued (a one-time backfill for sessions that predate the mirror), a missing
 * repo is rebuilt, a repo that disagrees with the database is moved aside and
 * rebuilt. Runs at start-up and from `entity-memory backfill`; one session
 * that fails never stops the others.
 */
import type { Db } from '../db/index.js';
import type { SessionRepo } from '../git/index.js';
import { turnTrailers } from './commit-message.js';
import { clearRepoProblem, noteRepoProblem } from './health.js';
import { publishCommitted } from './publish-committed.js';
import { rebuildSession } from './rebuild.js';
import { checkArchive, isArchived } from './archive.js';
import { countTurnCommits, openSessionRepo, sessionPathTaken } from './session-repos.js';
import type { MirrorWorkerDeps } from './worker-deps.js';

export type ReconcileOutcome = 'in-sync' | 'queued' | 'rebuilt' | 'moved-aside-and-rebuilt' | 'archived';

export interface ReconcileResult {
  sessionId: string;
  outcome: ReconcileOutcome;
  /** Turns queued for the worker, or written by a rebuild. */
  turns: number;
}

/** A session reconcile could not bring in line; the others went on. */
export interface ReconcileFailure {
  sessionId: string;
  /** What stopped it, as logged, published over `mirrorFailed` and shown in `Session.mirror.lastError`. */
  error: string;
}

export interface ReconcileReport {
  /** The sessions reconciled, in creation order (those that failed are in `failed` instead). */
  sessions: ReconcileResult[];
  failed: ReconcileFailure[];
}

export interface ReconcileOptions {
  sessionId?: string;
  /** Rebuild every repo from the database (moved aside first) instead of only broken ones. */
  rebuildAll?: boolean;
  /** Called after each session, whether it succeeded or failed. */
  onProgress?: (done: number, total: number) => void;
}

type Deps = Pick<MirrorWorkerDeps, 'db' | 'config' | 'logger' | 'pubsub' | 'sessionLocks' | 'repoLocks'>;

/**
 * Brings each session's repo in line with the database, one session at a
 * time under its lock. A session that fails is logged, published over
 * `mirrorFailed`, noted for `Session.mirror.lastError` and listed in
 * `failed`; the next session goes on regardless.
 * @throws only when the list of sessions cannot be read.
 */
/** Data dirs whose repos a whole-data-dir reconcile is comparing with the database now (start-up catch-up). */
const reconciling = new Map<string, number>();

/**
 * True while a reconcile of every session of the data dir runs: until it
 * ends, a repo may disagree with the database (deleted, rewritten by hand
 * while the server was down), so `Session.mirror`, which reads the database
 * only, cannot call it in sync.
 */
export function isReconciling(config: Pick<Deps['config'], 'dataDir'>): boolean {
  return (reconciling.get(config.dataDir) ?? 0) > 0;
}

export async function reconcile(deps: Deps, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  if (options.sessionId) return reconcileSessions(deps, options);
  const { dataDir } = deps.config;
  reconciling.set(dataDir, (reconciling.get(dataDir) ?? 0) + 1);
  try {
    return await reconcileSessions(deps, options);
  } finally {
    const left = (reconciling.get(dataDir) ?? 1) - 1;
    if (left > 0) reconciling.set(dataDir, left);
    else reconciling.delete(dataDir);
  }
}

async function reconcileSessions(deps: Deps, options: ReconcileOptions): Promise<ReconcileReport> {
  const sessions = await deps.db.session.findMany({
    where: options.sessionId ? { sessionId: options.sessionId } : {},
    select: { sessionId: true },
    orderBy: { createdAt: 'asc' },
  });
  const report: ReconcileReport = { sessions: [], failed: [] };
  for (const [i, { sessionId }] of sessions.entries()) {
    try {
      // Both locks: reconcile reads the session's turns and may queue or record them, then writes its repo.
      const result = await deps.sessionLocks.run(sessionId, () =>
        deps.repoLocks.run(sessionId, () => reconcileSession(deps, sessionId, options.rebuildAll ?? false)),
      );
      report.sessions.push(result);
    } catch (error) {
      report.failed.push({ sessionId, error: await recordReconcileFailure(deps, sessionId, error) });
    }
    options.onProgress?.(i + 1, sessions.length);
  }
  return report;
}

async function recordReconcileFailure(deps: Deps, sessionId: string, error: unknown): Promise<string> {
  const message = `reconciling the session repo with the database failed: ${error instanceof Error ? error.message : String(error)}`;
  deps.logger.error({ err: error, sessionId }, 'reconciling a session repo failed; the other sessions go on');
  noteRepoProblem(deps.config, sessionId, message);
  try {
    const turn = await deps.db.turn.findFirst({ where: { sessionId, open: false }, orderBy: { closedAt: 'desc' }, select: { id: true, number: true } });
    deps.pubsub.publish('mirrorFailed', { sessionId, turnId: turn?.id ?? '', turnNumber: turn?.number ?? 0, error: message, willRetry: true });
  } catch (dbError) {
    deps.logger.error({ err: dbError, sessionId }, 'could not publish a reconcile failure');
  }
  return message;
}

async function reconcileSession(deps: Deps, sessionId: string, rebuildAll: boolean): Promise<ReconcileResult> {
  const { db, config } = deps;
  // Archived (src/mirror/archive.ts): its repo is a bundle until something needs it; a turn
  // still waiting for the mirror brings it back at the worker's pass.
  if (isArchived(config, sessionId)) return { sessionId, outcome: 'archived', turns: 0 };
  const repo = openSessionRepo(config, sessionId);
  const hasRepo = repo.exists();
  const turns = await db.turn.findMany({
    where: { sessionId, open: false },
    select: { id: true, branch: true, number: true, commitSha: true },
  });
  const committed = turns.filter((t) => t.commitSha !== null);
  const rebuild = async (): Promise<ReconcileResult> => {
    // Whatever is at the path (a repo, a folder without .git, a file) is moved aside, never deleted.
    const taken = await sessionPathTaken(config, sessionId);
    const { written, dequeued } = await rebuildSession(deps, sessionId, { moveAside: true });
    clearRepoProblem(config, sessionId);
    // The turns that were waiting for their commit have one now: announced as the worker's are.
    // (A server that died after git wrote a pass of several turns and before the database heard
    // of it leaves a repo ahead of the database; the rebuild records those turns, and a subscriber
    // of another server must not miss them.)
    await publishCommitted(deps, sessionId, dequeued);
    return { sessionId, outcome: taken ? 'moved-aside-and-rebuilt' : 'rebuilt', turns: written };
  };
  if (rebuildAll && turns.length > 0) return rebuild();
  if (!hasRepo && committed.length > 0) return rebuild();
  if (hasRepo && committed.length > 0 && !(await agrees(db, repo, sessionId, committed))) return rebuild();
  if (hasRepo && repo.checkoutBehind()) {
    // A crash between a commit and its checkout (src/mirror/worker.ts settleAndPublish): the working tree catches up.
    await repo.resetWorkingTree();
    await repo.clearCheckoutBehind();
  }
  // Closed turns that have neither a commit nor a job: queue them (backfill).
  const jobs = new Set(
    (await db.outboxJob.findMany({ where: { sessionId, kind: 'SESSION' }, select: { turnId: true } })).map((j) => j.turnId),
  );
  const missing = turns.filter((t) => t.commitSha === null && !jobs.has(t.id));
  if (missing.length > 0) {
    const order = await db.turn.findMany({
      where: { id: { in: missing.map((t) => t.id) } },
      select: { id: true },
      orderBy: [{ closedAt: 'asc' }, { number: 'asc' }],
    });
    await db.outboxJob.createMany({ data: order.map((t) => ({ sessionId, turnId: t.id, kind: 'SESSION' })) });
    return { sessionId, outcome: 'queued', turns: missing.length };
  }
  return { sessionId, outcome: jobs.size > 0 ? 'queued' : 'in-sync', turns: jobs.size };
}

/**
 * The repo agrees when every branch's tip is the commit of that branch's
 * newest committed turn, or one commit past it that records the next turn
 * (a crash after git and before the database: the worker adopts it).
 */
async function agrees(
  db: Db,
  repo: SessionRepo,
  sessionId: string,
  committed: { branch: string; number: number; commitSha: string | null }[],
): Promise<boolean> {
  let tips: Map<string, string>;
  try {
    tips = await repo.branchTips();
  } catch {
    return false;
  }
  const newest = new Map<string, { number: number; sha: string }>();
  for (const turn of committed) {
    const seen = newest.get(turn.branch);
    if (!seen || seen.number < turn.number) newest.set(turn.branch, { number: turn.number, sha: turn.commitSha! });
  }
  for (const [branch, expected] of newest) {
    const tip = tips.get(branch);
    if (tip === expected.sha) continue;
    if (!tip) return false;
    const info = await repo.commitInfo(tip);
    const trailers = info ? turnTrailers(info.trailers) : null;
    const next = await db.turn.findFirst({ where: { sessionId, branch, number: expected.number + 1, open: false, commitSha: null } });
    if (!info || !trailers || !next || info.parents[0] !== expected.sha || trailers.sessionId !== sessionId || trailers.turn !== next.number) {
      return false;
    }
  }
  return true;
}

export interface VerifyRow {
  sessionId: string;
  dagTurns: number;
  gitCommits: number;
  ok: boolean;
  /** Why the repo could not be read (then `gitCommits` is 0 and `ok` false); null when it was. */
  error: string | null;
}

/**
 * Per session: closed turns in the database against turn commits in its repo
 * (all branches). A repo that cannot be read is a row with `error`, and the
 * next session is read regardless.
 */
export async function verify(deps: Pick<Deps, 'db' | 'config'>, onProgress?: (done: number, total: number) => void): Promise<VerifyRow[]> {
  const sessions = await deps.db.session.findMany({ select: { sessionId: true }, orderBy: { createdAt: 'asc' } });
  const rows: VerifyRow[] = [];
  for (const [i, { sessionId }] of sessions.entries()) {
    const dagTurns = await deps.db.turn.count({ where: { sessionId, open: false } });
    try {
      // An archived session: its bundle checked (checksum, git's own check), its turn commits as counted when archived.
      const gitCommits = isArchived(deps.config, sessionId)
        ? (await checkArchive(deps.config, sessionId)).turnCommits
        : await countTurnCommits(openSessionRepo(deps.config, sessionId));
      rows.push({ sessionId, dagTurns, gitCommits, ok: dagTurns === gitCommits, error: null });
    } catch (error) {
      rows.push({ sessionId, dagTurns, gitCommits: 0, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
    onProgress?.(i + 1, sessions.length);
  }
  return rows;
}
