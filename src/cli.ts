/**
 * The command line: `entity-memory serve [flags]` (the default command), `backfill` and `verify`.
 *
 * Exit status: 0 done; 2 could not run (a bad flag or value, no data dir, the data dir in use or
 * not a folder, the port taken, the database locked or behind), with one line on stderr and
 * nothing on stdout;
 * `verify` and `backfill` exit with the number of sessions out of sync or failed, 1 to 125
 * (125: that many or more), after a table on stdout; 1 for anything unexpected (a bug: the
 * stack is printed).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, databaseFile, loadConfig, serveFlagHelp, type Config } from './config.js';
import { DataDirBusyError, lockDataDir, type DataDirLock } from './data-dir-lock.js';
import type { Db } from './db/index.js';
import type { Logger } from './logger.js';
import type { VerifyRow } from './mirror/reconcile.js';

// Only the modules above load before a command has checked its flags and its data dir: the
// server's (GraphQL, Prisma, git) take a second or more, and a refusal should not wait for them.

/** Exit statuses above 125 mean "not found", "not executable" or a signal to a shell. */
const MAX_FAILED_EXIT = 125;

/** A one-line refusal that is not a usage mistake (so no "see --help"); exit 2. */
class CannotRun extends Error {}

const USAGE = `usage: entity-memory [serve] [flags]        serve the API and mirror sessions into git (the default)
       entity-memory backfill [flags]       bring the session repos in line with the database now
       entity-memory verify [flags]         compare each session's turns with its repo, read-only
       entity-memory <command> --help       a command's flags and defaults
       entity-memory --version`;

const DATA_DIR_LINE = `  --data-dir DIR       data dir (must exist); default $OPENPROGRAM_HOME, else ~/.openprogram`;
const COMMON_LINES = `  -h, --help           print this help and exit
  --version            print the version and exit`;

function serveHelp(): string {
  const lines = Object.entries(serveFlagHelp).map(([name, help]) => {
    const flag = `  --${name}${help.value ? ` ${help.value}` : ''}${help.repeatable ? ' (repeatable)' : ''}`;
    const source = `default ${help.default}${help.variable ? `; env ${help.variable}` : ''}`;
    return `${flag}\n      ${help.meaning}\n      ${source}`;
  });
  return `usage: entity-memory serve [flags]

Serves GraphQL at http://HOST:PORT/graphql (GraphiQL in a browser, graphql-ws on the same path)
and /health, and mirrors every session into a git repo under <data-dir>/sessions/. Holds the
data dir's lock while running: a second serve on the same data dir exits 2. A flag wins over
its environment variable.

${lines.join('\n')}
${COMMON_LINES}

Exit status: 0 after SIGTERM or SIGINT; 2 when it cannot start (bad flag, data dir in use, port
taken, database locked), with one line on stderr.`;
}

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

const VERIFY_HELP = `usage: entity-memory verify [--data-dir DIR]

Per session: closed turns in the database against turn commits in its repo, one line each.
Read-only (the database is opened read-only and never migrated), so it runs beside a server.

${DATA_DIR_LINE}
${COMMON_LINES}

Exit status: 0 every session in sync; 1 to 125 the number of sessions out of sync or failed
(125: that many or more); 2 when it could not run (bad flag, no data dir, no database, or a
database older than this entity-memory), with one line on stderr.`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** `--help`/`-h` or `--version` anywhere among a command's arguments: print and stop. */
function answeredInfo(argv: string[], help: () => string): boolean {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(help());
    return true;
  }
  if (argv.includes('--version')) {
    console.log(`entity-memory ${version()}`);
    return true;
  }
  return false;
}

/** A one-line progress bar on stderr when it is a terminal; silent otherwise. */
function progress(label: string): (done: number, total: number) => void {
  if (!process.stderr.isTTY) return () => {};
  return (done, total) => {
    const width = 30;
    const filled = total === 0 ? width : Math.round((done / total) * width);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total}`);
    if (done === total) process.stderr.write('\n');
  };
}

/**
 * Flags shared by the maintenance commands, and the data dir they work on, which must exist:
 * they never create one (a typo would otherwise verify an empty database and pass).
 */
function maintenanceArgs(argv: string[], extra: Record<string, { type: 'string' | 'boolean' }>) {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, ...extra }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const dataDir = values['data-dir'];
  const config = loadConfig(typeof dataDir === 'string' ? ['--data-dir', dataDir] : [], process.env);
  if (!existsSync(config.dataDir) || !statSync(config.dataDir).isDirectory()) throw new CannotRun(`no data dir at ${config.dataDir}`);
  return { values, config };
}

async function maintenanceDeps(db: Db, config: Config) {
  const [{ createLogger }, { createEventPubSub }, { KeyedLocks }] = await Promise.all([
    import('./logger.js'),
    import('./pubsub.js'),
    import('./locks.js'),
  ]);
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
  return { db, config, logger, pubsub: createEventPubSub(), sessionLocks: new KeyedLocks() };
}

/** The sessions a verify found out of sync or could not check, with why. */
function failures(rows: VerifyRow[]): { sessionId: string; reason: string }[] {
  return rows
    .filter((row) => !row.ok)
    .map((row) => ({
      sessionId: row.sessionId,
      // A repo that could not be read carries its error; a mismatch is the two counts.
      reason: row.error ?? `${row.dagTurns} turns, ${row.gitCommits} commits`,
    }));
}

function exitFor(failed: number): number {
  return Math.min(failed, MAX_FAILED_EXIT);
}

/** `backfill`: brings every session repo (or one) in line with the database, now, holding the data dir's lock. */
async function backfill(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => BACKFILL_HELP)) return 0;
  const { values, config } = maintenanceArgs(argv, { session: { type: 'string' }, rebuild: { type: 'boolean' } });
  const sessionId = typeof values.session === 'string' ? values.session : undefined;
  const { isValidId } = await import('./ids.js');
  if (sessionId !== undefined && !isValidId(sessionId)) throw new ConfigError(`--session ${JSON.stringify(sessionId)} is not a session id`);
  if (!existsSync(databaseFile(config))) throw new CannotRun(`no entity-memory database at ${databaseFile(config)}`);
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
    const [{ openDb }, { reconcile, verify }] = await Promise.all([import('./db/index.js'), import('./mirror/reconcile.js')]);
    // The lock holder is the one process allowed to migrate.
    const db = await openDb({ file: databaseFile(config) });
    try {
      if (sessionId !== undefined && !(await db.session.findUnique({ where: { sessionId } }))) throw new CannotRun(`no session ${sessionId}`);
      const deps = await maintenanceDeps(db, config);
      const report = await reconcile(deps, { sessionId, rebuildAll: values.rebuild === true, onProgress: progress('reconcile') });
      // Queued turns are committed here too, in one stream per session, without a server.
      const { MirrorWorker } = await import('./mirror/worker.js');
      const worker = new MirrorWorker(deps, { bulkThreshold: 0 });
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

/**
 * `verify`: per session, closed turns in the database against commits in its repo. Read-only and
 * lock-free, so it runs beside a server (which may be committing: a session caught mid-commit
 * shows one turn ahead).
 */
async function verifyCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => VERIFY_HELP)) return 0;
  const { config } = maintenanceArgs(argv, {});
  const [{ openDb }, { verify }] = await Promise.all([import('./db/index.js'), import('./mirror/reconcile.js')]);
  const db = await openDb({ file: databaseFile(config), readOnly: true });
  try {
    // Only the database and the repos: the logger and pubsub (graphql-yoga, most of a second to load) are not needed.
    const rows = await verify({ db, config }, progress('verify'));
    const reasons = new Map(failures(rows).map((f) => [f.sessionId, f.reason]));
    console.log('session\tdag_turns\tgit_commits\tstatus');
    for (const row of rows) {
      const status = row.ok ? 'ok' : row.error !== null ? `FAILED\t${reasons.get(row.sessionId)}` : 'MISMATCH';
      console.log(`${row.sessionId}\t${row.dagTurns}\t${row.gitCommits}\t${status}`);
    }
    console.log(`${rows.length} sessions, ${reasons.size} mismatched or failed`);
    return exitFor(reasons.size);
  } finally {
    await db.$disconnect();
  }
}

/**
 * Builds the web UI first when its sources are here (a checkout, not only web/dist) and changed
 * since the last build. A failed build is logged and the server starts anyway: the API does not
 * depend on the UI, and `/` then says how to build it.
 */
async function buildWebUi(logger: Logger): Promise<void> {
  if (!existsSync(new URL('../web/src', import.meta.url))) return;
  try {
    const { ensureWebBuild } = await import('../scripts/build-web.mjs');
    await ensureWebBuild({ log: (message) => logger.info(message.replace(/^entity-memory: /, '')) });
  } catch (error) {
    logger.error({ err: error }, 'the web UI could not be built; serving the API, and / answers 503 until `npm run build:web` succeeds');
  }
}

/** @returns undefined once serving (the process lives on until a signal), or an exit status. */
async function serve(argv: string[]): Promise<number | undefined> {
  if (answeredInfo(argv, serveHelp)) return 0;
  const config = loadConfig(argv);
  // Taken before the server's modules load, so a second serve on this data dir is refused at once.
  const lock = await lockDataDir(config.dataDir, {
    command: 'serve',
    onCompromised: (error) => console.error(`entity-memory: lost the lock of data dir ${config.dataDir} (${error.message}); another process may take it`),
  });
  const [{ createLogger }, { startServer }] = await Promise.all([import('./logger.js'), import('./server.js')]);
  const logger = createLogger(config.logLevel);
  await buildWebUi(logger);
  const server = await startServer(config, logger, {}, lock);
  console.log(`entity-memory: web UI at ${server.browseUrl}/, GraphiQL at ${server.url}/graphql (data in ${config.dataDir})`);
  const { auth } = server;
  if (auth.source === 'file' || auth.source === 'generated') {
    // Printed once for the person who started the server; the JSON log never carries the token.
    console.log(
      `entity-memory: reachable beyond loopback, so every request needs the token (${auth.source === 'generated' ? 'new, ' : ''}kept in ${auth.file}); open ${server.browseUrl}/graphql#token=${auth.token} (the web UI at ${server.browseUrl}/ takes the same #token=)`,
    );
  } else if (auth.source === 'config') {
    console.log('entity-memory: every request needs the token it was started with (Authorization: Bearer <token>)');
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  return undefined;
}

/** The server's and the database's refusals: already loaded when they were thrown. */
async function isOneLineError(error: unknown): Promise<boolean> {
  const [{ ListenError }, { DatabaseError }] = await Promise.all([import('./server.js'), import('./db/index.js')]);
  return error instanceof ListenError || error instanceof DatabaseError;
}

async function main(args: string[]): Promise<number | undefined> {
  const [command = 'serve', ...rest] = args;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return 0;
  }
  if (command === '--version') {
    console.log(`entity-memory ${version()}`);
    return 0;
  }
  if (command === 'serve') return serve(rest);
  if (command === 'backfill') return backfill(rest);
  if (command === 'verify') return verifyCommand(rest);
  if (command.startsWith('-')) return serve(args);
  throw new ConfigError(`unknown command ${JSON.stringify(command)}`);
}

main(process.argv.slice(2)).then(
  (status) => {
    if (status !== undefined) process.exit(status);
  },
  async (error: unknown) => {
    if (error instanceof ConfigError) {
      console.error(`entity-memory: ${error.message} (see --help)`);
      process.exit(2);
    }
    if (error instanceof CannotRun || error instanceof DataDirBusyError || (await isOneLineError(error))) {
      console.error(`entity-memory: ${(error as Error).message}`);
      process.exit(2);
    }
    // A file system refusal (a data dir that is a file, or not writable) already says it all in one line.
    const fsError = error as NodeJS.ErrnoException;
    if (typeof fsError.code === 'string' && typeof fsError.syscall === 'string' && typeof fsError.path === 'string') {
      console.error(`entity-memory: ${fsError.message}`);
      process.exit(2);
    }
    console.error(`entity-memory: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
