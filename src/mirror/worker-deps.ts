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
  sessionLocks: KeyedLocks;
  pubsub: PubSub;
}
