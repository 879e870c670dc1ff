/**
 * A session's branches and its head, as the database and the repo see them.
 */
import type { BranchKind, Session } from '../../generated/prisma/client.js';
import { openSessionRepo } from '../../mirror/index.js';
import type { Deps } from '../deps.js';
import { SessionReads } from '../sessions/session-reads.js';
import { shaCommitRef, whileRepoMayBeRebuilt, type CommitRef } from './read-commits.js';

export interface BranchView {
  sessionId: string;
  name: string;
  kind: BranchKind;
  isCurrent: boolean;
  /** The tip's commit; read from git only when asked for (one process). */
  head(): Promise<CommitRef | null>;
  /** The commit the branch grew from (null for main); read from git only when asked for. */
  forkPoint(): Promise<CommitRef | null>;
}

export async function commitOf(deps: Pick<Deps, 'config'>, sessionId: string, sha: string | null | undefined): Promise<CommitRef | null> {
  if (!sha) return null;
  const repo = openSessionRepo(deps.config, sessionId);
  if (!repo.exists()) return null;
  const info = await whileRepoMayBeRebuilt(repo, () => repo.commitInfo(sha), null);
  return info ? { repo, sessionId, info } : null;
}

/**
 * The viewed commit during replay, else the tip of the current branch (null before its first commit).
 * @param reads the request's batched reads (a page of sessions shares them).
 */
export async function sessionHead(
  deps: Pick<Deps, 'config' | 'db'>,
  session: Session,
  reads: SessionReads = new SessionReads(deps.db),
): Promise<CommitRef | null> {
  const repo = openSessionRepo(deps.config, session.sessionId);
  // Answers empty while the repo is missing (being rebuilt), as before; a file check, no git.
  if (!repo.exists()) return null;
  if (session.viewTurnId) {
    // Prisma batches the findUnique calls of the same tick into one query.
    const viewed = await deps.db.turn.findUnique({ where: { id: session.viewTurnId }, select: { commitSha: true } });
    return viewed?.commitSha ? shaCommitRef(deps, session.sessionId, viewed.commitSha) : null;
  }
  // The branch's tip in git is its newest committed turn (src/mirror/health.ts expectedBranchTips): no git process.
  const { committed } = await reads.ends(session.sessionId, session.currentBranch);
  return committed ? shaCommitRef(deps, session.sessionId, committed.commitSha) : null;
}

export async function sessionBranches(deps: Pick<Deps, 'config' | 'db'>, session: Session): Promise<BranchView[]> {
  const branches = await deps.db.branch.findMany({ where: { sessionId: session.sessionId }, orderBy: { createdAt: 'asc' } });
  const repo = openSessionRepo(deps.config, session.sessionId);
  const tips = repo.exists()
    ? await whileRepoMayBeRebuilt(repo, () => repo.branchTips(), new Map<string, string>())
    : new Map<string, string>();
  const forkTurns = await deps.db.turn.findMany({
    where: { id: { in: branches.map((b) => b.forkTurnId).filter((id): id is string => id !== null) } },
    select: { id: true, commitSha: true },
  });
  const forkSha = new Map(forkTurns.map((t) => [t.id, t.commitSha]));
  return branches.map((branch) => ({
    sessionId: session.sessionId,
    name: branch.name,
    kind: branch.kind,
    isCurrent: branch.name === session.currentBranch,
    head: () => commitOf(deps, session.sessionId, tips.get(branch.name)),
    forkPoint: async () => (branch.forkTurnId ? commitOf(deps, session.sessionId, forkSha.get(branch.forkTurnId)) : null),
  }));
}
