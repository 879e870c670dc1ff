/**
 * The bulk path: many turns in one `git fast-import` stream (a rebuild, a
 * backfill, a long outage caught up), and moving a repo's HEAD to where the
 * session is.
 */
import type { Db } from '../db/index.js';
import { fastImport, fastImportMark, type FastImportCommit, type SessionRepo } from '../git/index.js';
import type { MirrorWorkerDeps } from './worker.js';
import { moveAside, openSessionRepo } from './session-repos.js';
import { loadTurnPlans } from './turn-plan.js';

/**
 * Writes the given closed turns (parents before children) in one stream and
 * returns their commits. The index and working tree are reset to HEAD after.
 * @throws when a turn's parent is neither in the stream nor committed.
 */
export async function writeBulk(db: Db, repo: SessionRepo, sessionId: string, turnIds: string[]): Promise<{ turnId: string; sha: string }[]> {
  const plans = await loadTurnPlans(db, sessionId, turnIds);
  const position = new Map(plans.map((plan, i) => [plan.turnId, i]));
  const commits: FastImportCommit[] = plans.map((plan) => {
    const inStream = plan.parentTurnId === null ? undefined : position.get(plan.parentTurnId);
    let parent: string;
    if (plan.parentTurnId === null) parent = 'none';
    else if (inStream !== undefined) parent = fastImportMark(inStream);
    else if (plan.parentSha) parent = plan.parentSha;
    else throw new Error(`the turn before turn ${plan.number} on ${plan.branch} is not mirrored`);
    return { branch: plan.branch, parent, files: plan.files, message: plan.message, author: plan.author };
  });
  const { shas } = await fastImport(repo.dir, commits);
  await repo.resetWorkingTree();
  return plans.map((plan, i) => ({ turnId: plan.turnId, sha: shas[i]! }));
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
 * Writes the whole repo again from the database. With `moveAside`, an
 * existing repo is first renamed (never deleted). Call under the session's lock.
 * @returns the number of turns written.
 */
export async function rebuildSession(
  deps: Pick<MirrorWorkerDeps, 'db' | 'config' | 'logger' | 'pubsub'>,
  sessionId: string,
  options: { moveAside: boolean },
): Promise<number> {
  const { db, config, logger } = deps;
  if (options.moveAside) {
    const movedTo = await moveAside(config, sessionId);
    if (movedTo) logger.warn({ sessionId, movedTo }, 'moved a session repo aside before rebuilding it');
  }
  const repo = openSessionRepo(config, sessionId);
  await repo.init();
  const ids = await closedTurnIds(db, sessionId);
  const written = ids.length > 0 ? await writeBulk(db, repo, sessionId, ids) : [];
  const at = new Date();
  await db.$transaction(async (tx) => {
    for (const { turnId, sha } of written) {
      await tx.turn.update({ where: { id: turnId }, data: { mirrorState: 'COMMITTED', commitSha: sha, mirroredAt: at } });
    }
    await tx.mirrorJob.deleteMany({ where: { sessionId, kind: 'SESSION' } });
  });
  await syncHead(db, repo, sessionId);
  return written.length;
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
