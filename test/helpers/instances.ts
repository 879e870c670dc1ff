/**
 * Several server instances as real processes sharing one PostgreSQL database (a fresh one,
 * dropped after the test), one Redis (channels of their own) and one data dir, as issue 15 runs
 * them. Each can be killed with SIGKILL and started again on the same settings; all are stopped
 * after the test.
 */
import { randomBytes } from 'node:crypto';
import { onTestFailed } from 'vitest';
import { onCleanup } from './leftovers.js';
import { freshDatabase, testRedisUrl } from './database.js';
import { startInstance, stopInstance, type InstanceProcess, type InstanceSettings } from './instance-process.js';
import { tempDir } from './temp.js';

export interface Instances {
  /** The settings every instance runs with (one database URL, Redis, prefix and data dir). */
  readonly settings: Required<Pick<InstanceSettings, 'dataDir' | 'databaseUrl' | 'redisUrl' | 'redisPrefix'>> & InstanceSettings;
  /** The instances' current processes, by index (a restarted one is replaced in place). */
  readonly processes: InstanceProcess[];
  /** The current URL of instance `index`. */
  url(index: number): string;
  /** Whether instance `index` is running (not killed, or started again). */
  up(index: number): boolean;
  /** SIGKILLs instance `index` and waits until it is gone. */
  kill(index: number): Promise<void>;
  /** Starts instance `index` again on the same settings (a new port); resolves once /health says 200. */
  restart(index: number): Promise<InstanceProcess>;
  /** Stops every running instance with SIGTERM (also done after the test). */
  stopAll(): Promise<void>;
}

export interface InstancesOptions {
  /** `--allowed-root`s. Default: the shared data dir. */
  allowedRoots?: string[];
  /** `--log-level` (default TEST_LOG_LEVEL, else silent). */
  logLevel?: string;
}

/** Starts `count` instances on one fresh database, one Redis prefix and one data dir, in parallel. */
export async function startInstances(count: number, options: InstancesOptions = {}): Promise<Instances> {
  const database = await freshDatabase();
  const settings = {
    dataDir: tempDir('em-shared-data-'),
    databaseUrl: database.url,
    redisUrl: testRedisUrl,
    redisPrefix: `em-test:${database.name}:${randomBytes(3).toString('hex')}:`,
    allowedRoots: options.allowedRoots,
    logLevel: options.logLevel ?? process.env.TEST_LOG_LEVEL ?? 'silent',
  };
  const processes: InstanceProcess[] = [];
  const down = new Set<number>();
  const stopAll = async () => {
    const outcomes = await Promise.allSettled(processes.map((instance) => stopInstance(instance)));
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
  };
  // A failure shows what the instances said (their log at TEST_LOG_LEVEL, and anything on stderr).
  onTestFailed(() => {
    for (const [index, instance] of processes.entries()) {
      const output = instance.output().trim();
      if (output) process.stderr.write(`--- instance ${index} (${instance.url}), last output:\n${output.slice(-8000)}\n`);
    }
  });
  // Registered before any starts: cleanup runs in reverse, so the instances stop before the database is dropped.
  onCleanup(stopAll);
  const started = await Promise.allSettled(Array.from({ length: count }, () => startInstance(settings)));
  for (const outcome of started) if (outcome.status === 'fulfilled') processes.push(outcome.value);
  const failed = started.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;

  const group: Instances = {
    settings,
    processes,
    url: (index) => processes[index]!.url,
    up: (index) => !down.has(index),
    async kill(index) {
      down.add(index);
      await processes[index]!.kill('SIGKILL');
    },
    async restart(index) {
      const instance = await startInstance(settings);
      processes[index] = instance;
      down.delete(index);
      return instance;
    },
    stopAll,
  };
  return group;
}
