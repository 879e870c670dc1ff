/**
 * The bulk path: many turns in one `git fast-import` stream (a rebuild, a
 * backfill, a long outage caught up), a rebuild in the mirror worker's pass
 * and its failure recorded, and moving a repo's HEAD to where the session is.
 */
import { rename, rm } from 'node:fs/promises';
import type { Db } from '../db/index.js';
import { Prisma } from '../generated/prisma/client.js';
import { fastImport, fastImportMark, SessionRepo, type FastImportCommit } from '../git/index.js';
import type { MirrorWorkerDeps } from './worker-deps.js';
import { publishCommitted } from './publish-committed.js';
import { moveAside, openSessionRepo, removeStaleStaging, sessionPathTaken, sessionRepoPath, stagingPath } from './session-repos.js';
import { loadTurnPlans, type TurnPlan } from './turn-plan.js';

/**
 * Writes the given closed turns (parents before children) in one stream and
 * returns their commits. The index and working tree are reset to HEAD after.
 * @throws when a turn's parent is neither in the stream nor committed.
 */
export async function writeBulk(db: Db, repo: SessionRepo, sessionId: string, turnIds: string[]): Promise<{ turnId: string; sha: string }[]> {
  const plans = await loadTurnPlans(db, sessionId, turnIds);
  const { shas } = await fastImport(repo.dir, streamCommits(plans));
  await repo.resetWorkingTree();
  return plans.map((plan, i) => ({ turnId: plan.turnId, sha: shas[i]! }));
}

/**
 * Records commits that landed on their turns (COMMITTED, the sha, when), in
 * the caller's transaction: one statement for a single turn, else two per 500
 * turns instead of one per turn (10,000 updates one by one took 3.4–4.4 s of
 * a 12 s rebuild).
 */
export async function recordCommits(tx: Prisma.TransactionClient, commits: readonly { turnId: string; sha: string }[], at: Date): Promise<void> {
  if (commits.length === 1) {
    const { turnId, sha } = commits[0]!;
    await tx.turn.update({ where: { id: turnId }, data: { mirrorState: 'COMMITTED', commitSha: sha, mirroredAt: at } });
    return;
  }
  for (let start = 0; start < commits.length; start += 500) {
    const chunk = commits.slice(start, start + 500);
    const ids = chunk.map((c) => c.turnId);
    await tx.turn.updateMany({ where: { id: { in: ids } }, data: { mirrorState: 'COMMITTED', mirroredAt: at } });
    const shas = Prisma.join(chunk.map((c) => Prisma.sql`WHEN ${c.turnId} THEN ${c.sha}`), ' ');
    await tx.$executeRaw`UPDATE "Turn" SET "commitSha" = CASE "id" ${shas} END WHERE "id" IN (${Prisma.join(ids)})`;
  }
}

/**
 * The fast-import commits of turns given parents before children: a parent
 * earlier in the list is its mark, one outside it its recorded commit.
 * @throws when a turn's parent is neither in the list nor committed.
 */
export function streamCommits(plans: readonly TurnPlan[]): FastImportCommit[] {
  const position = new Map(plans.map((plan, i) => [plan.turnId, i]));
  return plans.map((plan) => {
    const inStream = plan.parentTurnId === null ? undefined : position.get(plan.parentTurnId);
    let parent: string;
    if (plan.parentTurnId === null) parent = 'none';
    else if (inStream !== undefined) parent = fastImportMark(inStream);
    else if (plan.parentSha) parent = plan.parentSha;
    else throw new Error(`the turn before turn ${plan.number} on ${plan.branch} is not mirrored`);
    return { branch: plan.branch, parent, files: plan.files, message: plan.message, author: plan.author };
  });
}

/** Closed turns of a session, parents before children. */
export async function closedTurnIds(db: Db, sessionId: string): Promise<string[]> {
  const turns = await db.turn.findMany({
    where: { sessionId, open: false },
    select: { id: true },
    orderBy: [{ closedAt: 'asc' }, { number: 'asc' }],
  });
  return turns.map((t) => t.id);
}

/**
 * Writes the whole repo again from the database. The new repo is written in
 * a staging folder beside the others and swapped in only once complete, so a
 * rebuild that fails (git missing, a turn git refuses, a disk full) leaves
 * what was there in place and nothing half-written behind; what was at the
 * repo's path is moved to `<data-dir>/moved-aside/` (never deleted) just
 * before the swap. Call under the session's lock.
 * @param options.moveAside false when the caller knows nothing is at the
 *   repo's path; then anything found there is an error rather than moved.
 * @param options.fence run first in the recording transaction; throws to
 *   record nothing (a shared mirror's lease check).
 * @param options.discardOld delete what was moved aside once the rebuilt repo is in place
 *   (`redact --existing`: the old repo holds the secrets the database no longer has).
 * Only the jobs of the turns written are removed: a turn closed meanwhile (another instance, or
 * this one's API, took it after the turns were read) keeps its job and is committed by the next pass.
 * @returns the turns written, and those of them whose job this removed (the ones waiting).
 * @throws whatever stopped the rebuild; the database is then unchanged.
 */
export async function rebuildSession(
  deps: Pick<MirrorWorkerDeps, 'db' | 'config' | 'logger' | 'pubsub'>,
  sessionId: string,
  options: { moveAside: boolean; discardOld?: boolean; fence?: (tx: Prisma.TransactionClient) => Promise<void> },
): Promise<{ written: number; dequeued: { turnId: string; sha: string }[] }> {
  const { db, config, logger } = deps;
  const taken = await sessionPathTaken(config, sessionId);
  if (taken && !options.moveAside) throw new Error(`${sessionRepoPath(config, sessionId)} exists; rebuild with moveAside to keep it aside`);
  await removeStaleStaging(config, sessionId);
  const staging = stagingPath(config, sessionId);
  let written: { turnId: string; sha: string }[];
  let movedTo: string | null;
  try {
    const fresh = new SessionRepo(staging);
    await fresh.init();
    const ids = await closedTurnIds(db, sessionId);
    written = ids.length > 0 ? await writeBulk(db, fresh, sessionId, ids) : [];
    movedTo = taken ? await moveAside(config, sessionId) : null;
    if (movedTo && !options.discardOld) logger.warn({ sessionId, movedTo }, 'moved a session repo aside (kept there, never deleted) to rebuild it from the database');
    await rename(staging, sessionRepoPath(config, sessionId));
  } catch (error) {
    // Ours alone, written from the database moments ago.
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  if (movedTo && options.discardOld) await rm(movedTo, { recursive: true, force: true });
  const at = new Date();
  const shaOf = new Map(written.map((w) => [w.turnId, w.sha]));
  const dequeued = await db.$transaction(async (tx) => {
    await options.fence?.(tx);
    await recordCommits(tx, written, at);
    // The session's waiting jobs, filtered here: a list of every turn written (10,000 and more) is
    // past the number of parameters a statement may carry (P2029).
    const jobs = (
      await tx.outboxJob.findMany({ where: { sessionId, kind: 'SESSION' }, select: { id: true, turnId: true }, orderBy: { id: 'asc' } })
    ).filter((job) => shaOf.has(job.turnId));
    for (let start = 0; start < jobs.length; start += 500) {
      await tx.outboxJob.deleteMany({ where: { id: { in: jobs.slice(start, start + 500).map((j) => j.id) } } });
    }
    return [...new Set(jobs.map((j) => j.turnId))].map((turnId) => ({ turnId, sha: shaOf.get(turnId)! }));
  });
  try {
    await syncHead(db, openSessionRepo(config, sessionId), sessionId);
  } catch (error) {
    // The repo is whole and recorded; HEAD follows at the mirror's next pass.
    logger.warn({ err: error, sessionId }, 'could not move a rebuilt session repo to the current branch');
  }
  return { written: written.length, dequeued };
}

/**
 * A rebuild in the mirror worker's pass (`rebuildSession`, moving aside what is there), then the
 * turns that were waiting for their commit announced as if committed one by one: they are in the
 * rebuilt repo.
 * @param options.fence as for `rebuildSession`.
 * @param options.onRebuilt runs once the rebuild is recorded, before anything is announced (with
 *   the turns written and the milliseconds taken).
 * @throws whatever stopped the rebuild (the database is then unchanged), or the database's error
 *   when the turns announced cannot be read.
 */
export async function rebuildWaiting(
  deps: Pick<MirrorWorkerDeps, 'db' | 'config' | 'logger' | 'pubsub'>,
  sessionId: string,
  options: { fence?: (tx: Prisma.TransactionClient) => Promise<void>; onRebuilt: (turns: number, ms: number) => void },
): Promise<void> {
  const started = Date.now();
  const { written, dequeued } = await rebuildSession(deps, sessionId, { moveAside: true, ...(options.fence && { fence: options.fence }) });
  options.onRebuilt(written, Date.now() - started);
  await publishCommitted(deps, sessionId, dequeued);
}

/**
 * A rebuild in the mirror worker's pass failed: the turns waiting show it (their job's
 * `lastError`, FAILED), as after a failed commit, and it outlives this process; `mirrorFailed` is
 * published for the session's newest closed turn. Logs a database failure, never throws.
 * @param willRetry read when the event is published.
 */
export async function recordFailedRebuild(
  deps: Pick<MirrorWorkerDeps, 'db' | 'logger' | 'pubsub'>,
  sessionId: string,
  message: string,
  willRetry: () => boolean,
): Promise<void> {
  const { db, logger } = deps;
  await db
    .$transaction(async (tx) => {
      const jobs = await tx.outboxJob.findMany({ where: { sessionId, kind: 'SESSION' }, select: { turnId: true } });
      await tx.outboxJob.updateMany({ where: { sessionId, kind: 'SESSION' }, data: { lastError: message } });
      await tx.turn.updateMany({ where: { id: { in: jobs.map((j) => j.turnId) } }, data: { mirrorState: 'FAILED' } });
    })
    .catch((dbError: unknown) => logger.error({ err: dbError, sessionId }, 'could not record a failed rebuild'));
  const turn = await db.turn
    .findFirst({ where: { sessionId, open: false }, orderBy: { closedAt: 'desc' }, select: { id: true, number: true } })
    .catch(() => null);
  deps.pubsub.publish('mirrorFailed', { sessionId, turnId: turn?.id ?? '', turnNumber: turn?.number ?? 0, error: message, willRetry: willRetry() });
}

/**
 * Points the repo's HEAD (and working tree) where the session is: detached at
 * the viewed commit during replay, else on the current branch once it has a commit.
 */
export async function syncHead(db: Db, repo: SessionRepo, sessionId: string): Promise<void> {
  if (!repo.exists()) return;
  const session = await db.session.findUniqueOrThrow({ where: { sessionId }, select: { currentBranch: true, viewTurnId: true } });
  const head = await repo.headState();
  if (session.viewTurnId) {
    const viewed = await db.turn.findUnique({ where: { id: session.viewTurnId }, select: { commitSha: true } });
    if (viewed?.commitSha && (head.branch !== null || head.sha !== viewed.commitSha)) await repo.checkoutDetached(viewed.commitSha);
    return;
  }
  if (head.branch === session.currentBranch) return;
  const tips = await repo.branchTips();
  if (tips.has(session.currentBranch)) await repo.checkoutBranch(session.currentBranch);
}
