/**
 * `/health`: whether this instance can serve, for a load balancer's readiness probe and for a
 * person. It answers 200 `{ status: 'ok', … }` when the instance reaches its database, the sessions
 * folder and (when configured) Redis; 503 `{ status: 'degraded', … }` naming the part that is not
 * reachable; 503 `{ status: 'starting' }` while the database opens. It also says how many session
 * leases the instance holds (several instances: src/mirror/leases.ts; one instance: the sessions
 * it mirrors). Unauthenticated, like every probe: it says `ok` or `unreachable` per part, never an
 * address, a path or an error text (the log has those).
 *
 * The checks run at most once per `maxAgeMs` (1 s) whatever the probe rate, and one at a time: a
 * probe asked back to back costs one database round trip a second, not one per probe.
 */
import { access, constants } from 'node:fs/promises';

export type PartHealth = 'ok' | 'unreachable';

export interface HealthReport {
  status: 'ok' | 'degraded';
  database: PartHealth;
  sessionsFolder: PartHealth;
  /** Present when events go through Redis. */
  redis?: PartHealth;
  /** Session leases this instance holds now. */
  leases: number;
}

export interface HealthSources {
  /** Resolves when the database answered a trivial query; rejects otherwise. */
  database(): Promise<unknown>;
  /** The folder session repos live in (it must exist and be writable). */
  sessionsFolder: string;
  /** Resolves when Redis answered; rejects otherwise. Absent without Redis. */
  redis?: () => Promise<unknown>;
  leases(): number;
  /** Told of a part that stopped answering (and why), once per change. */
  onChange?(part: keyof Omit<HealthReport, 'status' | 'leases'>, health: PartHealth, error?: unknown): void;
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
    if (this.last && Date.now() - this.last.at < this.maxAgeMs) return Promise.resolve({ ...this.last.report, leases: this.sources.leases() });
    this.running ??= this.check().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async check(): Promise<HealthReport> {
    const { sources } = this;
    const part = async (name: 'database' | 'sessionsFolder' | 'redis', probe: () => Promise<unknown>): Promise<PartHealth> => {
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
    const [database, sessionsFolder, redis] = await Promise.all([
      part('database', sources.database),
      part('sessionsFolder', () => access(sources.sessionsFolder, constants.W_OK)),
      sources.redis ? part('redis', sources.redis) : Promise.resolve(undefined),
    ]);
    const healthy = database === 'ok' && sessionsFolder === 'ok' && (redis === undefined || redis === 'ok');
    const report: HealthReport = {
      status: healthy ? 'ok' : 'degraded',
      database,
      sessionsFolder,
      ...(redis === undefined ? {} : { redis }),
      leases: sources.leases(),
    };
    this.last = { at: Date.now(), report };
    return report;
  }
}
