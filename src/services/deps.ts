import type { DiskUsage } from '../mirror/index.js';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { KeyedLocks } from '../locks.js';
import type { Logger } from '../logger.js';
import type { PubSub } from '../pubsub.js';

/** What a resolver needs; passed in, never imported, so each is testable alone. */
import type { FaultBoard } from '../faults.js';

export interface Deps {
  db: Db;
  config: Config;
  logger: Logger;
  /** Per-session write lock: database writes to a session, in order (never held across git work). */
  sessionLocks: KeyedLocks;
  /** Per-session repo lock, shared with the git mirror: git writes to the session repo (src/locks.ts). */
  repoLocks: KeyedLocks;
  /** Per working directory lock, shared with the project committer. */
  projectLocks?: KeyedLocks;
  pubsub: PubSub;
  /**
   * Called after a transaction that closed a turn has committed; `project` says whether it
   * queued a project commit too (a session outside any project never wakes the project committer).
   */
  onTurnClosed?: (sessionId: string, queued: { project: boolean }) => void;
  /**
   * Called once a request's turn close is durable, before it is answered: counts the turn in the
   * mirror's backlog and, while the backlog is past its limit, waits a bounded time for the mirror
   * (src/mirror/backlog.ts). Not called for imports or replayed hook events.
   */
  paceAcknowledgement?: (sessionId: string, turnId: string) => Promise<void>;
  /** Called when the session repo could not follow a change of branch or view at once. */
  onViewChanged?: (sessionId: string) => void;
  now?: () => Date;
  /** Machine faults requests met lately (disk full, database read-only, git missing), for /health. */
  faults?: FaultBoard;
  /** The data dir's size against its budget when the server has one (--max-disk), from the last measure. */
  diskUsage?: () => DiskUsage | null;
}

export function now(deps: Pick<Deps, 'now'>): Date {
  return deps.now ? deps.now() : new Date();
}
