/**
 * Where `entity-memory import` sends: a running server's GraphQL endpoint when a server holds the
 * data dir, else the app opened in-process (the data dir's lock taken).
 */
import type { Config } from '../config.js';
import { DataDirBusyError, lockDataDir, type DataDirLock } from '../data-dir-lock.js';
import type { ImportTarget } from '../importers/target.js';
import { CannotRun } from './errors.js';
import { runningServer } from './running-server.js';

/** Where an import goes, and how to finish with it. */
export interface ImportSink {
  target: ImportTarget;
  /** `server at URL` or `data dir DIR`, for messages. */
  via: string;
  /** In-process: waits until the mirror committed the imported sessions' turns. */
  settle(sessionIds: Iterable<string>): Promise<void>;
  close(): Promise<void>;
}

/** How long an in-process import waits for the mirror before giving up on it (it catches up at the next start). */
const MIRROR_WAIT_MS = 120_000;

/**
 * The running server's HTTP target when a server holds the data dir, else the app opened here
 * (the data dir's lock taken; refused when another command holds it).
 */
export async function openImportSink(config: Config): Promise<ImportSink> {
  let lock: DataDirLock;
  try {
    lock = await lockDataDir(config.dataDir, { command: 'import' });
  } catch (error) {
    if (!(error instanceof DataDirBusyError) || error.holder?.command !== 'serve') throw error;
    return serverSink(config, error.holder.pid);
  }
  try {
    const [{ createLogger }, { createApp }, { serviceImportTarget }] = await Promise.all([
      import('../logger.js'),
      import('../app.js'),
      import('../services/imports/import-session.js'),
    ]);
    const app = await createApp(config, createLogger(process.env.LOG_LEVEL ?? 'warn'));
    return {
      target: serviceImportTarget(app.deps),
      via: `data dir ${config.dataDir}`,
      settle: async (sessionIds) => {
        const ids = [...new Set(sessionIds)];
        const deadline = Date.now() + MIRROR_WAIT_MS;
        let told = false;
        for (;;) {
          await app.mirror.idle();
          const left = await app.db.outboxJob.count({ where: { kind: 'SESSION', sessionId: { in: ids } } });
          if (left === 0) return;
          if (!told && process.stderr.isTTY) process.stderr.write(`waiting for the session repos (${left} turns to commit)\n`);
          told = true;
          if (Date.now() > deadline) throw new CannotRun(`the session repos did not catch up within ${MIRROR_WAIT_MS / 1000} s (${left} turns left); the next serve or backfill commits them`);
          await new Promise((done) => setTimeout(done, 20));
        }
      },
      close: async () => {
        try {
          await app.close();
        } finally {
          await lock.release();
        }
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function serverSink(config: Config, pid: number): Promise<ImportSink> {
  const [server, { checkHttpTarget, httpImportTarget }] = await Promise.all([runningServer(config, pid), import('../importers/http-target.js')]);
  await checkHttpTarget(server);
  return {
    target: httpImportTarget(server),
    via: `server at ${server.url}`,
    // The server mirrors as it always does.
    settle: async () => {},
    close: async () => {},
  };
}
