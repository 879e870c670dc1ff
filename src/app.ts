/**
 * Wires the parts together: database, locks, resolvers' dependencies and the
 * GraphQL handler. Both the HTTP server and the tests start from here.
 */
import { databaseFile, type Config } from './config.js';
import { openDb, type Db } from './db/index.js';
import { KeyedLocks } from './locks.js';
import type { Logger } from './logger.js';
import type { Deps } from './resolvers/deps.js';
import { createYogaHandler, type Yoga } from './yoga.js';

export interface App {
  config: Config;
  db: Db;
  deps: Deps;
  yoga: Yoga;
  /** Stops background work and closes the database. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens (and migrates) the database and builds the handler.
 * @throws when the database cannot be opened or migrated.
 */
export async function createApp(config: Config, logger: Logger): Promise<App> {
  const db = await openDb({ file: databaseFile(config) });
  const deps: Deps = { db, config, logger, sessionLocks: new KeyedLocks() };
  const yoga = createYogaHandler(deps);
  let closed: Promise<void> | undefined;
  return {
    config,
    db,
    deps,
    yoga,
    close: () => {
      closed ??= db.$disconnect();
      return closed;
    },
  };
}
