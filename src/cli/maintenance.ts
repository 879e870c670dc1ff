/** What the maintenance commands (backfill, verify) share: their flags, their dependencies, their failures. */
import { existsSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { VerifyRow } from '../mirror/reconcile.js';
import { CannotRun } from './errors.js';

/**
 * Flags shared by the maintenance commands, and the data dir they work on, which must exist:
 * they never create one (a typo would otherwise verify an empty database and pass).
 */
export function maintenanceArgs(argv: string[], extra: Record<string, { type: 'string' | 'boolean' }>) {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' }, ...extra }, strict: true, allowPositionals: false }).values;
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
  return { values, config };
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
