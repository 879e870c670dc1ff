/**
 * Wires the parts together: database, locks, services' dependencies and the
 * GraphQL handler. Both the HTTP server and the tests start from here.
 */
import { databaseFile, type Config } from './config.js';
import { openDb, type Db } from './db/index.js';
import { KeyedLocks } from './locks.js';
import type { Logger } from './logger.js';
import { RepoHealthMonitor, type RepoHealthOptions } from './mirror/health.js';
import { reconcile } from './mirror/reconcile.js';
import { MirrorWorker, type MirrorWorkerOptions } from './mirror/worker.js';
import { ProjectCommitter, type ProjectCommitterOptions } from './projects/committer.js';
import { createEventPubSub } from './pubsub.js';
import type { Deps } from './services/deps.js';
import { createYogaHandler, type Yoga } from './yoga.js';

export interface App {
  config: Config;
  db: Db;
  deps: Deps;
  yoga: Yoga;
  mirror: MirrorWorker;
  /** Stops background work and closes the database. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens (and migrates) the database and builds the handler.
 * @throws when the database cannot be opened or migrated.
 */
export interface AppOptions {
  mirror?: MirrorWorkerOptions;
  /** The periodic look at every session repo (default every 30 s; see RepoHealthOptions). */
  repoHealth?: RepoHealthOptions;
  projectCommitter?: ProjectCommitterOptions;
}

export async function createApp(config: Config, logger: Logger, options: AppOptions = {}): Promise<App> {
  const db = await openDb({ file: databaseFile(config) });
  const sessionLocks = new KeyedLocks();
  const repoLocks = new KeyedLocks();
  const pubsub = createEventPubSub();
  const mirror = new MirrorWorker({ db, config, logger, sessionLocks, repoLocks, pubsub }, options.mirror);
  const health = new RepoHealthMonitor({ db, config, logger }, mirror, options.repoHealth);
  const projectLocks = new KeyedLocks();
  const projects = new ProjectCommitter({ db, config, logger, pubsub, projectLocks }, options.projectCommitter);
  const deps: Deps = {
    db,
    config,
    logger,
    sessionLocks,
    repoLocks,
    projectLocks,
    pubsub,
    onTurnClosed: (sessionId, queued) => {
      mirror.notify(sessionId);
      if (queued.project) projects.notify(sessionId);
    },
    onViewChanged: (sessionId) => mirror.notify(sessionId),
  };
  const yoga = createYogaHandler(deps);
  // Catch up in the background, so a large data dir does not hold back /health: project commits
  // left pending are resumed; repos missing or disagreeing are rebuilt, unmirrored turns queued;
  // the mirror starts committing once that is done (turns closed meanwhile wait in the outbox).
  const catchUp = (async () => {
    try {
      await projects.start();
    } catch (error) {
      logger.error({ err: error }, 'looking for pending project commits failed; each waits for its session’s next turn');
    }
    // Shared by several instances: no reconcile over every session (others own some); each
    // session's repo is looked at when this instance takes its lease (src/mirror/worker.ts).
    if (!options.mirror?.shared) {
      try {
        const report = await reconcile({ db, config, logger, pubsub, sessionLocks, repoLocks });
        const changed = report.sessions.filter((r) => r.outcome !== 'in-sync');
        if (changed.length > 0) logger.info({ sessions: changed }, 'reconciled session repos with the database');
        // Each failure was logged and published; the worker retries those repos with backoff.
        for (const { sessionId, error } of report.failed) mirror.repair(sessionId, error);
      } catch (error) {
        logger.error({ err: error }, 'reconciling session repos failed; the mirror starts anyway');
      }
    }
    await mirror.start();
    health.start();
  })();
  let closed: Promise<void> | undefined;
  return {
    config,
    db,
    deps,
    yoga,
    mirror,
    close: () => {
      closed ??= (async () => {
        await catchUp;
        await health.stop();
        await Promise.all([mirror.stop(), projects.stop()]);
        await db.$disconnect();
      })();
      return closed;
    },
  };
}
