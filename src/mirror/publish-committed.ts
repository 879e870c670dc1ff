/**
 * Announcing turn commits: `turnCommitted` and the timeline's COMMITTED, for the worker's passes,
 * a rebuild's waiting turns and a takeover's repeats alike.
 */
import type { Db } from '../db/index.js';
import type { PubSub } from '../pubsub.js';

/** A turn whose commit landed; its branch is looked up when not given. */
export interface CommittedTurn {
  turnId: string;
  sha: string;
  branch?: string;
}

/**
 * Publishes each commit, in the order given. A branch not given is read from the database (one
 * query for all; 'main' for a turn not found).
 * @throws when that read fails; nothing is published then.
 */
export async function publishCommitted(deps: { db: Db; pubsub: PubSub }, sessionId: string, commits: readonly CommittedTurn[]): Promise<void> {
  if (commits.length === 0) return;
  const { db, pubsub } = deps;
  const unknown = commits.filter((c) => c.branch === undefined).map((c) => c.turnId);
  const turns = unknown.length === 0 ? [] : await db.turn.findMany({ where: { id: { in: unknown } }, select: { id: true, branch: true } });
  const branchOf = new Map(turns.map((t) => [t.id, t.branch]));
  for (const { turnId, sha, branch } of commits) {
    pubsub.publish('turnCommitted', { sessionId, turnId, sha });
    pubsub.publish('timeline', { kind: 'COMMITTED', sessionId, branch: branch ?? branchOf.get(turnId) ?? 'main', sha });
  }
}
