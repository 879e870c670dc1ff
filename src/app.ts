/**
 * Wires the parts together: database, locks, services' dependencies and the
 * GraphQL handler. Both the HTTP server and the tests start from here.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { databaseTarget, DEFAULT_REDIS_PREFIX, sessionsDir, type Config } from './config.js';
import { gitCanStart, HealthProbe } from './http/health.js';
import { MirrorBacklog, type MirrorBacklogOptions } from './mirror/backlog.js';
import { DiskBudget } from './mirror/disk-budget.js';
import { openDb, type Db } from './db/index.js';
import { KeyedLocks } from './locks.js';
import type { Logger } from './logger.js';
import type { McpHttp } from './mcp/http.js';
import { RepoHealthMonitor, type RepoHealthOptions } from './mirror/health.js';
import { reconcile } from './mirror/reconcile.js';
import { MirrorWorker, type MirrorWorkerOptions } from './mirror/worker.js';
import { ProjectCommitter, type ProjectCommitterOptions } from './projects/committer.js';
import { createEventPubSub, type PubSub } from './pubsub.js';
import type { RedisPubSub } from './redis-pubsub.js';
import { sharedSecret } from './db/shared-secrets.js';
import { FaultBoard } from './faults.js';
import type { Deps } from './services/deps.js';
import { HookIntake, hooksDir, type HookIntakeOptions } from './services/hooks/intake.js';
import { createYogaHandler, type Yoga } from './yoga.js';

export interface App {
  config: Config;
  db: Db;
  deps: Deps;
  yoga: Yoga;
  mirror: MirrorWorker;
  /** The turns requests closed that the mirror has not committed yet, which pace acknowledgements (src/mirror/backlog.ts). */
  backlog: MirrorBacklog;
  /** The data dir's disk budget keeper, with --max-disk. */
  diskBudget?: DiskBudget;
  /** Agents' hook events, from /hooks/<agent> and the spool (src/services/hooks/intake.ts). */
  hooks: HookIntake;
  /** What /health says (src/http/health.ts). */
  health: HealthProbe;
  /** The MCP server at /mcp (src/mcp/http.ts), loaded on its first request. */
  mcp(): Promise<McpHttp>;
  /** Stops background work and closes the database (and Redis' connections). Safe to call twice. */
  close(): Promise<void>;
}

export interface AppOptions {
  mirror?: MirrorWorkerOptions;
  /** The periodic look at every session repo (default every 30 s; see RepoHealthOptions). */
  repoHealth?: RepoHealthOptions;
  projectCommitter?: ProjectCommitterOptions;
  hooks?: HookIntakeOptions;
  /** The disk budget's checks (with --max-disk; default every 10 minutes). */
  diskBudget?: { intervalMs?: number };
  /** When requests' acknowledgements wait for the mirror (src/mirror/backlog.ts). */
  backlog?: MirrorBacklogOptions;
}

/**
 * Opens (and migrates) the database, connects to Redis when `config.redisUrl` is set (events
 * then go through it, signed with the database's shared `events` secret) and builds the handler.
 * @throws RedisUnavailableError when Redis cannot be reached within 5 s; the database's error
 *   when it cannot be opened or migrated. Nothing is left open either way.
 */
export async function createApp(config: Config, logger: Logger, options: AppOptions = {}): Promise<App> {
  const db = await openDb({ ...databaseTarget(config), onSlowMigration: (note) => logger.warn(note) });
  // Events through Redis are signed with a secret the instances share through this database.
  let redis: RedisPubSub | undefined;
  try {
    // Loaded only when configured (ioredis and its schema validation are a fifth of the server's code).
    redis = config.redisUrl
      ? await (await import('./redis-pubsub.js')).createRedisPubSub({ url: config.redisUrl, prefix: config.redisPrefix ?? DEFAULT_REDIS_PREFIX, logger, secret: await sharedSecret(db, 'events') })
      : undefined;
  } catch (error) {
    await db.$disconnect();
    throw error;
  }
  const sessionLocks = new KeyedLocks();
  const repoLocks = new KeyedLocks();
  const pubsub: PubSub = redis ?? createEventPubSub();
  // On PostgreSQL, servers may share the database and the sessions folder: the mirror takes a
  // lease per session (src/mirror/leases.ts) under an id unique to this process.
  const mirrorOptions: MirrorWorkerOptions = {
    ...options.mirror,
    ...(config.databaseUrl && !options.mirror?.shared ? { shared: { instanceId: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}` } } : {}),
  };
  const shared = mirrorOptions.shared;
  const mirror = new MirrorWorker({ db, config, logger, sessionLocks, repoLocks, pubsub }, mirrorOptions);
  // Writers that outrun the mirror are slowed to its pace; it hears of commits from every server.
  const backlog = new MirrorBacklog({
    onChange: (behind) =>
      behind === null
        ? logger.info('the mirror is back within its backlog limit; answers no longer wait for it')
        : logger.info({ behind }, `the mirror is ${behind} turns behind the requests' writes; their answers wait for it, ${backlog.maxWaitMs} ms at most each`),
    ...options.backlog,
  });
  const stopFollowing = backlog.follow(pubsub);
  const health = new RepoHealthMonitor({ db, config, logger }, mirror, options.repoHealth);
  const projectLocks = new KeyedLocks();
  // Servers sharing a database claim each project job before running it (two minutes: longer than a
  // project commit waits for its working directory's lock).
  const projects = new ProjectCommitter(
    { db, config, logger, pubsub, projectLocks },
    { ...(shared ? { claimMs: 120_000 } : {}), ...options.projectCommitter },
  );
  const faults = new FaultBoard();
  // One server per data dir (the embedded database): it keeps the data dir within --max-disk.
  const budget = config.maxDiskBytes !== undefined ? new DiskBudget({ db, config: { ...config, maxDiskBytes: config.maxDiskBytes }, repoLocks, logger }, options.diskBudget) : undefined;
  const deps: Deps = {
    db,
    config,
    logger,
    faults,
    sessionLocks,
    repoLocks,
    projectLocks,
    pubsub,
    onTurnClosed: (sessionId, queued) => {
      mirror.notify(sessionId);
      // Another server may hold the session's lease: wake it (through Redis) rather than wait for its scan.
      if (shared) pubsub.publish('mirrorWork', { sessionId, instanceId: shared.instanceId });
      if (queued.project) projects.notify(sessionId);
    },
    paceAcknowledgement: (sessionId, turnId) => backlog.acknowledge(sessionId, turnId),
    onViewChanged: (sessionId) => mirror.notify(sessionId),
    ...(budget ? { diskUsage: () => budget.usage() } : {}),
  };
  const yoga = createYogaHandler(deps);
  const hooks = new HookIntake(deps, options.hooks);
  mkdirSync(sessionsDir(config), { recursive: true, mode: 0o700 });
  // Made here, before the server answers, not by the spool's first replay in the background: the
  // data dir holds what it will hold from the first request on.
  mkdirSync(hooksDir(config.dataDir), { recursive: true, mode: 0o700 });
  const probe = new HealthProbe({
    database: () => db.$queryRawUnsafe('SELECT 1'),
    sessionsFolder: sessionsDir(config),
    ...(redis
      ? {
          redis: async () => {
            const state = await redis.health();
            if (!state.ok) throw new Error(state.error ?? 'no answer');
          },
        }
      : {}),
    git: gitCanStart,
    faults: () => faults.current(),
    leases: () => mirror.leaseCount(),
    ...(budget ? { disk: () => budget.usage() } : {}),
    onChange: (part, state, error) =>
      state === 'ok' ? logger.info({ part }, `${part} is reachable again`) : logger.error({ part, err: error }, `${part} is unreachable; /health says degraded`),
  });
  // Catch up in the background, so a large data dir does not hold back /health: project commits
  // left pending are resumed; repos missing or disagreeing are rebuilt, unmirrored turns queued;
  // the mirror starts committing once that is done (turns closed meanwhile wait in the outbox).
  // Hook events spooled while no server ran are recorded first, beside the catch-up (their turns' commits wait for it).
  const hooksStarted = hooks.start().catch((error: unknown) => logger.error({ err: error }, 'starting the hooks intake failed'));
  const catchUp = (async () => {
    try {
      await projects.start();
    } catch (error) {
      logger.error({ err: error }, 'looking for pending project commits failed; each waits for its session’s next turn');
    }
    // One server: every session's repo reconciled with the database. Servers sharing a database:
    // each session whose lease this one can take (nobody mirrors it now), under that lease; the
    // others are their holders' (and a holder that dies leaves them to the next scan's takeover).
    const reconcileNow = async (sessionId?: string) => {
      try {
        const report = await reconcile({ db, config, logger, pubsub, sessionLocks, repoLocks }, sessionId === undefined ? {} : { sessionId });
        const changed = report.sessions.filter((r) => r.outcome !== 'in-sync');
        if (changed.length > 0) logger.info({ sessions: changed }, 'reconciled session repos with the database');
        // Each failure was logged and published; the worker retries those repos with backoff.
        for (const { sessionId: failed, error } of report.failed) mirror.repair(failed, error);
      } catch (error) {
        logger.error({ err: error, sessionId }, 'reconciling session repos failed; the mirror starts anyway');
      }
    };
    if (!shared) await reconcileNow();
    else {
      for (const { sessionId } of await db.session.findMany({ select: { sessionId: true }, orderBy: { sessionId: 'asc' } })) {
        // Turns left waiting keep the lease for this instance's first drain: given up here, another
        // instance's scan could take it between this look and this instance's own first scan.
        const reconcileAndKeep = async () => {
          await reconcileNow(sessionId);
          if ((await db.outboxJob.count({ where: { sessionId, kind: 'SESSION' } })) > 0) mirror.notify(sessionId);
        };
        await mirror.whileLeased(sessionId, reconcileAndKeep).catch((error: unknown) => {
          logger.error({ err: error, sessionId }, 'could not take a session\'s lease to reconcile it; its holder or the next scan looks at it');
        });
      }
    }
    await mirror.start();
    health.start();
    budget?.start();
  })();
  // The wake-ups other servers send for the sessions this one mirrors.
  const wakes = shared ? pubsub.subscribe('mirrorWork') : undefined;
  const listening = (async () => {
    if (!wakes || !shared) return;
    for await (const wake of wakes) {
      if (wake.instanceId !== shared.instanceId && mirror.holdsLease(wake.sessionId)) mirror.onWake(wake.sessionId);
    }
  })().catch((error: unknown) => logger.error({ err: error }, 'listening for mirror wake-ups failed; sessions written through other servers wait for the next scan'));
  let closed: Promise<void> | undefined;
  // The MCP SDK loads when an agent first asks for it, not with every server start.
  let mcp: Promise<McpHttp> | undefined;
  return {
    config,
    db,
    deps,
    yoga,
    mirror,
    backlog,
    ...(budget ? { diskBudget: budget } : {}),
    hooks,
    health: probe,
    mcp: () => (mcp ??= import('./mcp/http.js').then(({ createMcpHttp }) => createMcpHttp(deps))),
    close: () => {
      closed ??= (async () => {
        await (await mcp)?.close();
        await catchUp;
        await hooksStarted;
        await hooks.stop();
        await wakes?.return(undefined);
        await listening;
        await health.stop();
        await Promise.all([mirror.stop(), projects.stop(), budget?.stop()]);
        await stopFollowing();
        // After the workers, so their last events are sent.
        await redis?.close();
        await db.$disconnect();
      })();
      return closed;
    },
  };
}
