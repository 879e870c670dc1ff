/**
 * What the mirror's worker, rebuild and reconcile take. Its own module so
 * rebuild.ts and reconcile.ts need not import worker.ts, which imports them
 * (an import cycle otherwise).
 */
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { KeyedLocks } from '../locks.js';
import type { Logger } from '../logger.js';
import type { PubSub } from '../pubsub.js';

export interface MirrorWorkerDeps {
  db: Db;
  config: Config;
  logger: Logger;
  /** Per-session write lock (database writes); reconcile takes it around the repo lock. */
  sessionLocks: KeyedLocks;
  /** Per-session repo lock: every git write to a session repo runs under it (src/locks.ts). */
  repoLocks: KeyedLocks;
  pubsub: PubSub;
}
