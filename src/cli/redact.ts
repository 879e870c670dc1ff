/** `entity-memory redact --existing`: secrets taken out of what was stored before redaction was on. */
import { existsSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError, databaseFile, databaseTarget } from '../config.js';
import { DataDirBusyError, lockDataDir, sharedDataDir, type DataDirLock } from '../data-dir-lock.js';
import { CannotRun, exitFor } from './errors.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';
import { maintenanceArgs, maintenanceDeps } from './maintenance.js';
import { progress } from './progress.js';

const REDACT_HELP = `usage: entity-memory redact --existing [--data-dir DIR]

New messages are redacted as they arrive (--redact on, the default). This takes secrets out of
what is already stored, with the same detectors: every message's content and metadata and every
session's title and metadata in the database first, each changed into [redacted:<kind>]; then
each session with a change gets its repo rebuilt from the database, and the old repo, which
still holds the secrets, is deleted. Your project folders and their commits are never touched.
With SQLite it takes the data dir's lock, so it is refused while a server runs on the data dir:
stop it first. With PostgreSQL (--database-url) the servers may keep running: each repo is
rebuilt under its session's mirror lease. Running it again changes nothing.

${DATA_DIR_LINE}
  --existing           required: rewrite what is stored (the database rows, then the repos)
${COMMON_LINES}

Prints what was taken out (kinds and counts, never values). Exit status: 0 done; 1 to 125 the
number of session repos that could not be rebuilt (the database is redacted either way; run
\`entity-memory backfill --rebuild\` to try again); 2 when it could not run.`;

export async function redactCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => REDACT_HELP)) return 0;
  const { values, config } = maintenanceArgs(argv, { existing: { type: 'boolean' } });
  if (values.existing !== true) throw new ConfigError('redact needs --existing: new messages are redacted as they arrive; --existing rewrites what is already stored');
  if (!config.databaseUrl && !existsSync(databaseFile(config))) throw new CannotRun(`no entity-memory database at ${databaseFile(config)}`);
  // With SQLite, the data dir's lock keeps a server out; with PostgreSQL, servers may run on (see rebuild).
  let lock: DataDirLock;
  try {
    lock = config.databaseUrl ? sharedDataDir(config.dataDir, 'redact') : await lockDataDir(config.dataDir, { command: 'redact' });
  } catch (error) {
    if (!(error instanceof DataDirBusyError) || error.holder?.command !== 'serve') throw error;
    throw new CannotRun(`a server is running on this data dir (pid ${error.holder.pid} since ${error.holder.since}); stop it first to redact what is stored`);
  }
  try {
    const [{ openDb }, { redactStored }] = await Promise.all([import('../db/index.js'), import('../services/sessions/redact-stored.js')]);
    const db = await openDb({ ...databaseTarget(config), onSlowMigration: (note) => process.stderr.write(`entity-memory: ${note}\n`) });
    try {
      const report = await redactStored(db, { onProgress: progress('messages') });
      const kinds = Object.entries(report.counts)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([kind, count]) => `${kind} ×${count}`)
        .join(', ');
      console.log(
        `${report.messages} messages read; ${report.changedMessages} messages and ${report.changedSessions} session (title or metadata) redacted${kinds ? `: ${kinds}` : ''}`,
      );
      const deps = await maintenanceDeps(db, config);
      const rebuild = await repoRebuilder(deps);
      const bar = progress('repos');
      const failed: { sessionId: string; reason: string }[] = [];
      for (const [i, sessionId] of report.sessionIds.entries()) {
        try {
          await rebuild(sessionId);
        } catch (error) {
          failed.push({ sessionId, reason: error instanceof Error ? error.message : String(error) });
        }
        bar(i + 1, report.sessionIds.length);
      }
      for (const f of failed) console.log(`${f.sessionId}\tFAILED\t${f.reason}`);
      console.log(`${report.sessionIds.length - failed.length} session repos rebuilt without them, ${failed.length} failed`);
      // Copies an earlier rebuild kept aside are the user's to delete: say where they are.
      const aside = join(config.dataDir, 'moved-aside');
      const older = existsSync(aside) ? readdirSync(aside).filter((name) => report.sessionIds.some((id) => name.startsWith(`${id}-`))) : [];
      if (older.length > 0) {
        console.log(`${older.length} older copies of these repos, kept aside by earlier rebuilds, still hold what they held: ${aside} (delete them once you no longer need them)`);
      }
      return exitFor(failed.length);
    } finally {
      await db.$disconnect();
    }
  } finally {
    await lock.release();
  }
}

/** How long a rebuild here may hold a session's lease, and how long to wait for a busy one. */
const LEASE_TTL_MS = 5 * 60_000;
const LEASE_WAIT_MS = 30_000;

/**
 * Rebuilds a session's repo from the database, deleting the old one. With SQLite the data dir's
 * lock is held and nobody else writes the repo; with PostgreSQL, servers sharing the database may
 * be running, so each rebuild holds the session's mirror lease (as a server's mirror does) and is
 * recorded only if it still holds it; a session a server keeps busy for 30 s is reported failed.
 */
async function repoRebuilder(deps: Awaited<ReturnType<typeof maintenanceDeps>>): Promise<(sessionId: string) => Promise<void>> {
  const { rebuildSession } = await import('../mirror/rebuild.js');
  if (!deps.config.databaseUrl) return async (sessionId) => void (await rebuildSession(deps, sessionId, { moveAside: true, discardOld: true }));
  const { SessionLeases } = await import('../mirror/leases.js');
  const leases = new SessionLeases(deps.db, deps.logger, { instanceId: `redact-${hostname()}-${process.pid}`, ttlMs: LEASE_TTL_MS });
  return async (sessionId) => {
    const until = Date.now() + LEASE_WAIT_MS;
    while ((await leases.acquire(sessionId)) === null) {
      if (Date.now() > until) throw new Error('a server kept its repo busy for 30 s; run redact --existing again');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    try {
      const tenure = leases.tenure(sessionId);
      await rebuildSession(deps, sessionId, { moveAside: true, discardOld: true, fence: (tx) => leases.fence(tx, sessionId, tenure) });
    } finally {
      await leases.release([sessionId]);
    }
  };
}
