/**
 * Comparing each session's closed turns with its repo: missing commits are
 * queued (a one-time backfill for sessions that predate the mirror), a missing
 * repo is rebuilt, a repo that disagrees with the database is moved aside and
 * rebuilt. Runs at start-up and from `entity-memory backfill`.
 */
import type { Db } from '../db/index.js';
import type { SessionRepo } from '../git/index.js';
import { parseTurnTrailers } from './commit-message.js';
import { rebuildSession } from './rebuild.js';
import { openSessionRepo } from './session-repos.js';
import type { MirrorWorkerDeps } from './worker.js';

export type ReconcileOutcome = 'in-sync' | 'queued' | 'rebuilt' | 'moved-aside-and-rebuilt';

export interface ReconcileResult {
  sessionId: string;
  outcome: ReconcileOutcome;
  /** Turns queued for the worker, or written by a rebuild. */
  turns: number;
}

export interface ReconcileOptions {
  sessionId?: string;
  /** Rebuild every repo from the database (moved aside first) instead of only broken ones. */
  rebuildAll?: boolean;
  onProgress?: (done: number, total: number) => void;
}

type Deps = Pick<MirrorWorkerDeps, 'db' | 'config' | 'logger' | 'pubsub' | 'sessionLocks'>;

export async function reconcile(deps: Deps, options: ReconcileOptions = {}): Promise<ReconcileResult[]> {
  const sessions = await deps.db.session.findMany({
    where: options.sessionId ? { sessionId: options.sessionId } : {},
    select: { sessionId: true },
    orderBy: { createdAt: 'asc' },
  });
  const results: ReconcileResult[] = [];
  for (const [i, { sessionId }] of sessions.entries()) {
    results.push(await deps.sessionLocks.run(sessionId, () => reconcileSession(deps, sessionId, options.rebuildAll ?? false)));
    options.onProgress?.(i + 1, sessions.length);
  }
  return results;
}

async function reconcileSession(deps: Deps, sessionId: string, rebuildAll: boolean): Promise<ReconcileResult> {
  const { db, config } = deps;
  const repo = openSessionRepo(config, sessionId);
  const hasRepo = repo.exists();
  const turns = await db.turn.findMany({
    where: { sessionId, open: false },
    select: { id: true, branch: true, number: true, commitSha: true },
  });
  const committed = turns.filter((t) => t.commitSha !== null);
  if (rebuildAll && turns.length > 0) {
    return { sessionId, outcome: hasRepo ? 'moved-aside-and-rebuilt' : 'rebuilt', turns: await rebuildSession(deps, sessionId, { moveAside: hasRepo }) };
  }
  if (!hasRepo && committed.length > 0) {
    return { sessionId, outcome: 'rebuilt', turns: await rebuildSession(deps, sessionId, { moveAside: false }) };
  }
  if (hasRepo && committed.length > 0 && !(await agrees(db, repo, sessionId, committed))) {
    return { sessionId, outcome: 'moved-aside-and-rebuilt', turns: await rebuildSession(deps, sessionId, { moveAside: true }) };
  }
  // Closed turns that have neither a commit nor a job: queue them (backfill).
  const jobs = new Set(
    (await db.mirrorJob.findMany({ where: { sessionId, kind: 'SESSION' }, select: { turnId: true } })).map((j) => j.turnId),
  );
  const missing = turns.filter((t) => t.commitSha === null && !jobs.has(t.id));
  if (missing.length > 0) {
    const order = await db.turn.findMany({
      where: { id: { in: missing.map((t) => t.id) } },
      select: { id: true },
      orderBy: [{ closedAt: 'asc' }, { number: 'asc' }],
    });
    await db.mirrorJob.createMany({ data: order.map((t) => ({ sessionId, turnId: t.id, kind: 'SESSION' })) });
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
    const trailers = info ? parseTurnTrailers(info.message) : null;
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
}

/** Per session: closed turns in the database against turn commits in its repo (all branches). */
export async function verify(deps: Pick<Deps, 'db' | 'config'>, onProgress?: (done: number, total: number) => void): Promise<VerifyRow[]> {
  const sessions = await deps.db.session.findMany({ select: { sessionId: true }, orderBy: { createdAt: 'asc' } });
  const rows: VerifyRow[] = [];
  for (const [i, { sessionId }] of sessions.entries()) {
    const dagTurns = await deps.db.turn.count({ where: { sessionId, open: false } });
    const gitCommits = await countTurnCommits(openSessionRepo(deps.config, sessionId));
    rows.push({ sessionId, dagTurns, gitCommits, ok: dagTurns === gitCommits });
    onProgress?.(i + 1, sessions.length);
  }
  return rows;
}

export async function countTurnCommits(repo: SessionRepo): Promise<number> {
  if (!repo.exists()) return 0;
  const tips = await repo.branchTips();
  return tips.size === 0 ? 0 : repo.countCommits({ all: true });
}
