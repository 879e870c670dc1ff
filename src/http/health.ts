/**
 * `/health`: whether this instance can serve, for a load balancer's readiness probe and for a
 * person. It answers 200 `{ status: 'ok', … }` when the instance reaches its database, the sessions
 * folder and (when configured) Redis; 503 `{ status: 'degraded', … }` naming the part that is not
 * reachable (git too: its binary must be startable), or listing the machine faults requests met in
 * the last minute (`faults`: DISK_FULL, DATABASE_READ_ONLY, DATABASE_LOCKED, src/faults.ts);
 * 503 `{ status: 'starting' }` while the database opens. It also says how many session
 * leases the instance holds (several instances: src/mirror/leases.ts; one instance: the sessions
 * it mirrors). Unauthenticated, like every probe: it says `ok` or `unreachable` per part, never an
 * address, a path or an error text (the log has those).
 *
 * The checks run at most once per `maxAgeMs` (1 s) whatever the probe rate, and one at a time: a
 * probe asked back to back costs one database round trip a second, not one per probe.
 */
import { access, constants } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { gitBinary } from '../git/run.js';
import type { FaultReason } from '../faults.js';
import type { DiskUsage } from '../mirror/disk-budget.js';

export type PartHealth = 'ok' | 'unreachable';

export interface HealthReport {
  status: 'ok' | 'degraded';
  database: PartHealth;
  sessionsFolder: PartHealth;
  /** Present when events go through Redis. */
  redis?: PartHealth;
  /** Whether git can be started (`unreachable`: not on PATH, or not executable). */
  git: PartHealth;
  /** Machine faults requests met in the last minute (DISK_FULL, DATABASE_READ_ONLY, DATABASE_LOCKED); present when any. */
  faults?: FaultReason[];
  /** Session leases this instance holds now. */
  leases: number;
  /** The data dir's size against its budget (--max-disk), as last measured; present with a budget. */
  disk?: { usedBytes: number; budgetBytes: number; checkedAt: string; warning: boolean };
}

export interface HealthSources {
  /** Resolves when the database answered a trivial query; rejects otherwise. */
  database(): Promise<unknown>;
  /** The folder session repos live in (it must exist and be writable). */
  sessionsFolder: string;
  /** Resolves when Redis answered; rejects otherwise. Absent without Redis. */
  redis?: () => Promise<unknown>;
  /** Resolves when git can be started; rejects otherwise. */
  git?: () => Promise<unknown>;
  /** The machine faults requests met lately. */
  faults?: () => FaultReason[];
  leases(): number;
  /** The data dir's usage against its budget (--max-disk), or null before its first measure. */
  disk?: () => DiskUsage | null;
  /** Told of a part that stopped answering (and why), once per change. */
  onChange?(part: 'database' | 'sessionsFolder' | 'redis' | 'git', health: PartHealth, error?: unknown): void;
}

/**
 * Resolves when the git binary the runner starts (src/git/run.ts gitBinary) is an executable
 * file, found as the runner's spawn finds it (on PATH unless a path is given): no process started.
 */
export async function gitCanStart(): Promise<void> {
  const binary = gitBinary();
  const candidates = binary.includes('/') || isAbsolute(binary) ? [binary] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, binary));
  for (const candidate of candidates) {
    if (await access(candidate, constants.X_OK).then(() => true, () => false)) return;
  }
  throw new Error(`${binary} is not an executable on PATH`);
}

/** How long one check may take before its part counts as unreachable. */
const CHECK_TIMEOUT_MS = 2_000;

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export class HealthProbe {
  private last: { at: number; report: HealthReport } | undefined;
  private running: Promise<HealthReport> | undefined;
  private readonly seen = new Map<string, PartHealth>();

  constructor(
    private readonly sources: HealthSources,
    private readonly maxAgeMs = 1_000,
  ) {}

  /** The latest report, checked again when older than `maxAgeMs`. Never rejects. */
  report(): Promise<HealthReport> {
    if (this.last && Date.now() - this.last.at < this.maxAgeMs) return Promise.resolve({ ...this.last.report, leases: this.sources.leases(), ...this.disk() });
    this.running ??= this.check().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** The disk part of a report: the budget keeper's last measure, when there is one. */
  private disk(): Pick<HealthReport, 'disk'> {
    const usage = this.sources.disk?.();
    if (!usage) return {};
    const { usedBytes, budgetBytes, checkedAt, warning } = usage;
    return { disk: { usedBytes, budgetBytes, checkedAt: checkedAt.toISOString(), warning } };
  }

  private async check(): Promise<HealthReport> {
    const { sources } = this;
    const part = async (name: 'database' | 'sessionsFolder' | 'redis' | 'git', probe: () => Promise<unknown>): Promise<PartHealth> => {
      let health: PartHealth = 'ok';
      let failure: unknown;
      try {
        await within(probe(), CHECK_TIMEOUT_MS);
      } catch (error) {
        health = 'unreachable';
        failure = error;
      }
      if (this.seen.get(name) !== health) {
        // The first look reports only a failure; later ones every change.
        if (this.seen.has(name) || health !== 'ok') sources.onChange?.(name, health, failure);
        this.seen.set(name, health);
      }
      return health;
    };
    const [database, sessionsFolder, redis, git] = await Promise.all([
      part('database', sources.database),
      part('sessionsFolder', () => access(sources.sessionsFolder, constants.W_OK)),
      sources.redis ? part('redis', sources.redis) : Promise.resolve(undefined),
      part('git', sources.git ?? gitCanStart),
    ]);
    const faults = sources.faults?.() ?? [];
    const healthy = database === 'ok' && sessionsFolder === 'ok' && (redis === undefined || redis === 'ok') && git === 'ok' && faults.length === 0;
    const report: HealthReport = {
      status: healthy ? 'ok' : 'degraded',
      database,
      sessionsFolder,
      ...(redis === undefined ? {} : { redis }),
      git,
      ...(faults.length > 0 && { faults }),
      leases: sources.leases(),
      ...this.disk(),
    };
    this.last = { at: Date.now(), report };
    return report;
  }
}
