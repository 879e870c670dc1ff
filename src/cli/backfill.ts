/** `entity-memory backfill`: the session repos brought in line with the database now. */
import { existsSync } from 'node:fs';
import { ConfigError, databaseFile, databaseTarget } from '../config.js';
import { DataDirBusyError, lockDataDir, type DataDirLock } from '../data-dir-lock.js';
import { CannotRun, exitFor } from './errors.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';
import { failures, maintenanceArgs, maintenanceDeps } from './maintenance.js';
import { progress } from './progress.js';

const BACKFILL_HELP = `usage: entity-memory backfill [--data-dir DIR] [--session ID] [--rebuild]

Brings the session repos in line with the database now: a missing repo is rebuilt, one that
disagrees is moved to <data-dir>/moved-aside/ and rebuilt, closed turns without a commit are
committed. Takes the data dir's lock, so it is refused while a server runs on the data dir:
that server does the same at start-up and while running.

${DATA_DIR_LINE}
  --session ID         only this session; default every session
  --rebuild            rebuild repos from the database even when they agree (moved aside first)
${COMMON_LINES}

Exit status: 0 every session in sync afterwards; 1 to 125 the number of sessions still out of
sync or failed (125: that many or more); 2 when it could not run (bad flag, no data dir, data
dir in use), with one line on stderr.`;

/** `backfill`: brings every session repo (or one) in line with the database, now, holding the data dir's lock. */
export async function backfill(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => BACKFILL_HELP)) return 0;
  const { values, config } = maintenanceArgs(argv, { session: { type: 'string' }, rebuild: { type: 'boolean' } });
  const sessionId = typeof values.session === 'string' ? values.session : undefined;
  const { isValidId } = await import('../ids.js');
  if (sessionId !== undefined && !isValidId(sessionId)) throw new ConfigError(`--session ${JSON.stringify(sessionId)} is not a session id`);
  if (!config.databaseUrl && !existsSync(databaseFile(config))) throw new CannotRun(`no entity-memory database at ${databaseFile(config)}`);
  let lock: DataDirLock;
  try {
    lock = await lockDataDir(config.dataDir, { command: 'backfill' });
  } catch (error) {
    if (!(error instanceof DataDirBusyError) || error.holder?.command !== 'serve') throw error;
    throw new CannotRun(
      `a server is running on this data dir (pid ${error.holder.pid} since ${error.holder.since}); it catches up by itself (watch Session.mirror) — stop it first to backfill or --rebuild`,
    );
  }
  try {
    const [{ openDb }, { reconcile, verify }] = await Promise.all([import('../db/index.js'), import('../mirror/reconcile.js')]);
    // The lock holder is the one process allowed to migrate.
    const db = await openDb({ ...databaseTarget(config), onSlowMigration: (note) => process.stderr.write(`entity-memory: ${note}\n`) });
    try {
      if (sessionId !== undefined && !(await db.session.findUnique({ where: { sessionId } }))) throw new CannotRun(`no session ${sessionId}`);
      const deps = await maintenanceDeps(db, config);
      const report = await reconcile(deps, { sessionId, rebuildAll: values.rebuild === true, onProgress: progress('reconcile') });
      // Queued turns are committed here too, in one stream per 5,000 turns of a session, without a server.
      const { MirrorWorker } = await import('../mirror/worker.js');
      const worker = new MirrorWorker(deps, { bulkThreshold: 0, passLimit: 5_000 });
      await worker.start();
      const queued = report.sessions.filter((r) => r.outcome === 'queued');
      const bar = progress('mirror');
      for (const [i, r] of queued.entries()) {
        worker.notify(r.sessionId);
        await worker.idle();
        bar(i + 1, queued.length);
      }
      await worker.stop();
      const rows = (await verify(deps)).filter((row) => sessionId === undefined || row.sessionId === sessionId);
      // A session reconcile gave up on, or still out of line after the worker: each counted once.
      const failed = new Map(report.failed.map((f) => [f.sessionId, f.error]));
      for (const f of failures(rows)) if (!failed.has(f.sessionId)) failed.set(f.sessionId, f.reason);
      for (const r of report.sessions) if (r.outcome !== 'in-sync') console.log(`${r.sessionId}\t${r.outcome}\t${r.turns} turns`);
      for (const [id, reason] of failed) console.log(`${id}\tFAILED\t${reason}`);
      console.log(`${report.sessions.length + report.failed.length} sessions reconciled, ${failed.size} still out of sync or failed`);
      return exitFor(failed.size);
    } finally {
      await db.$disconnect();
    }
  } finally {
    await lock.release();
  }
}
