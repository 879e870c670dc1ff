/**
 * The data dir's disk budget (`serve --max-disk SIZE`): its size is measured at start-up and every
 * `intervalMs` (10 minutes), and while it is past the budget the sessions idle longest are
 * archived (src/mirror/archive.ts), one at a time, until it fits: never a session in use (a turn
 * open, work queued, a turn in the last 10 minutes) and never one with a turn in the last
 * KEEP_RECENT_DAYS days. Past WARN_AT of the budget the log warns (once per crossing), and the
 * usage is served to /health and the API (`diskUsage`) from the last measure.
 */
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { KeyedLocks } from '../locks.js';
import type { Logger } from '../logger.js';
import { archiveSession, isArchived, sessionsIdleSince } from './archive.js';
import { bytesOnDisk, whyInUse } from './gc.js';

export const KEEP_RECENT_DAYS = 7;
export const WARN_AT = 0.9;
const DEFAULT_INTERVAL_MS = 10 * 60_000;

export interface DiskUsage {
  usedBytes: number;
  budgetBytes: number;
  /** At WARN_AT of the budget or past it. */
  warning: boolean;
  /** When the data dir was last measured. */
  checkedAt: Date;
  /** Sessions archived by the last check to fit the budget. */
  archived: number;
}

export interface DiskBudgetDeps {
  db: Db;
  config: Pick<Config, 'dataDir'> & { maxDiskBytes: number };
  repoLocks: KeyedLocks;
  logger: Logger;
}

export class DiskBudget {
  private last: DiskUsage | null = null;
  private running: Promise<DiskUsage> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private warned = false;
  private first: Promise<DiskUsage> | undefined;

  constructor(
    private readonly deps: DiskBudgetDeps,
    private readonly options: { intervalMs?: number; now?: () => Date } = {},
  ) {}

  /** Measures now and then every interval, in the background. */
  start(): void {
    this.first = this.check();
    this.first.catch(() => undefined);
    this.timer = setInterval(() => void this.check(), this.options.intervalMs ?? DEFAULT_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** The check `start` began (the server starts it once its repos are reconciled). */
  firstCheck(): Promise<DiskUsage> {
    return this.first ?? this.check();
  }

  /** The last measure, or null before the first. */
  usage(): DiskUsage | null {
    return this.last;
  }

  /** Measures the data dir and archives until it fits; one check at a time (a second call joins the first). */
  check(): Promise<DiskUsage> {
    this.running ??= this.run()
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error }, 'checking the data dir against its disk budget failed; the next check tries again');
        throw error;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async run(): Promise<DiskUsage> {
    const { db, config, logger } = this.deps;
    const budget = config.maxDiskBytes;
    const now = this.options.now?.() ?? new Date();
    let used = await bytesOnDisk(config.dataDir);
    let archived = 0;
    if (used > budget) {
      const idle = await sessionsIdleSince(db, new Date(now.getTime() - KEEP_RECENT_DAYS * 86_400_000));
      for (const session of idle) {
        if (used <= budget || this.stopped) break;
        if (isArchived(config, session.sessionId) || (await whyInUse(db, session, now)) !== null) continue;
        try {
          const outcome = await archiveSession(this.deps, session.sessionId, now);
          if (!outcome.archived) continue;
          used -= outcome.repoBytes - outcome.bundleBytes;
          archived++;
          logger.info({ sessionId: session.sessionId, freedBytes: outcome.repoBytes - outcome.bundleBytes }, 'archived a session idle for a week or more: the data dir is past its disk budget');
        } catch (error) {
          logger.warn({ err: error, sessionId: session.sessionId }, 'could not archive a session to fit the disk budget; the next one is tried');
        }
      }
      used = await bytesOnDisk(config.dataDir);
      if (used > budget) {
        logger.warn({ usedBytes: used, budgetBytes: budget }, 'the data dir is past its disk budget, and no more sessions may be archived (each is in use or had a turn in the last 7 days)');
      }
    }
    const warning = used >= WARN_AT * budget;
    if (warning && !this.warned) logger.warn({ usedBytes: used, budgetBytes: budget }, `the data dir uses ${Math.round((100 * used) / budget)}% of its disk budget (--max-disk)`);
    this.warned = warning;
    this.last = { usedBytes: used, budgetBytes: budget, warning, checkedAt: now, archived };
    return this.last;
  }
}
