/** What the maintenance commands (backfill, verify) share: their flags, their dependencies, their failures. */
import { existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, databaseFile, databaseTarget, loadConfig, type Config } from '../config.js';
import { DataDirBusyError, lockDataDir, type DataDirLock } from '../data-dir-lock.js';
import type { Db } from '../db/index.js';
import { isValidId } from '../ids.js';
import type { VerifyRow } from '../mirror/reconcile.js';
import { CannotRun } from './errors.js';

/**
 * Flags shared by the maintenance commands, and the data dir they work on, which must exist:
 * they never create one (a typo would otherwise verify an empty database and pass).
 */
export function maintenanceArgs(argv: string[], extra: Record<string, { type: 'string' | 'boolean' }>, options: { positionals?: boolean } = {}) {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' }, ...extra },
      strict: true,
      allowPositionals: options.positionals ?? false,
    }));
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const dataDir = values['data-dir'];
  const databaseUrl = values['database-url'];
  const config = loadConfig(
    [...(typeof dataDir === 'string' ? ['--data-dir', dataDir] : []), ...(typeof databaseUrl === 'string' ? ['--database-url', databaseUrl] : [])],
    process.env,
  );
  if (!existsSync(config.dataDir) || !statSync(config.dataDir).isDirectory()) throw new CannotRun(`no data dir at ${config.dataDir}`);
  return { values, positionals, config };
}

/**
 * The data dir's lock for a command that writes session repos (gc, archive), or a one-line
 * refusal while a server runs on it (naming how to pause it when it is the installed service).
 */
export async function lockForMaintenance(config: Config, command: string): Promise<DataDirLock> {
  try {
    return await lockDataDir(config.dataDir, { command });
  } catch (error) {
    if (!(error instanceof DataDirBusyError) || error.holder?.command !== 'serve') throw error;
    const { serviceStopHint } = await import('./service.js');
    const hint = serviceStopHint(config.dataDir);
    throw new CannotRun(
      `a server is running on this data dir (pid ${error.holder.pid} since ${error.holder.since}); stop it first to ${command}${hint ? ` (it is the installed service: ${hint})` : ''}`,
    );
  }
}

/** The services' dependencies for a maintenance command (logger, pubsub, locks), loaded once the command has checked its flags. */
export async function maintenanceDeps(db: Db, config: Config) {
  const [{ createLogger }, { createEventPubSub }, { KeyedLocks }] = await Promise.all([
    import('../logger.js'),
    import('../pubsub.js'),
    import('../locks.js'),
  ]);
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
  return { db, config, logger, pubsub: createEventPubSub(), sessionLocks: new KeyedLocks(), repoLocks: new KeyedLocks() };
}

/** The sessions a verify found out of sync or could not check, with why. */
export function failures(rows: VerifyRow[]): { sessionId: string; reason: string }[] {
  return rows
    .filter((row) => !row.ok)
    .map((row) => ({
      sessionId: row.sessionId,
      // A repo that could not be read carries its error; a mismatch is the two counts.
      reason: row.error ?? `${row.dagTurns} turns, ${row.gitCommits} commits`,
    }));
}

/** Bytes as a person reads them: 512 B, 40.0 KB, 3.2 MB, 1.1 GB (powers of 1,024). */
export function bytesText(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let unit = 0;
  while (Math.abs(n) >= 1024 && unit < units.length - 1) {
    n /= 1024;
    unit++;
  }
  return unit === 0 ? `${n} B` : `${n.toFixed(1)} ${units[unit]}`;
}

export type MaintenanceDeps = Awaited<ReturnType<typeof maintenanceDeps>>;

/**
 * Runs `work` with the data dir's database open and its lock held (refused while a server runs
 * on it, see lockForMaintenance): for the commands that write session repos and rows.
 */
export async function withDataDir(config: Config, command: string, work: (deps: MaintenanceDeps) => Promise<number>): Promise<number> {
  if (!config.databaseUrl && !existsSync(databaseFile(config))) throw new CannotRun(`no entity-memory database at ${databaseFile(config)}`);
  const lock = await lockForMaintenance(config, command);
  try {
    const { openDb } = await import('../db/index.js');
    const db = await openDb({ ...databaseTarget(config), onSlowMigration: (note) => process.stderr.write(`entity-memory: ${note}\n`) });
    try {
      return await work(await maintenanceDeps(db, config));
    } finally {
      await db.$disconnect();
    }
  } finally {
    await lock.release();
  }
}

/** @throws CannotRun naming the first of `ids` that is not a session id. */
export function assertSessionIds(ids: string[]): void {
  const bad = ids.find((id) => !isValidId(id));
  if (bad !== undefined) throw new CannotRun(`${JSON.stringify(bad.slice(0, 80))} is not a session id`);
}
