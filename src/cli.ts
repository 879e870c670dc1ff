/**
 * The command line: `entity-memory serve [flags]` (the default command), `backfill`, `verify` and
 * `import`.
 *
 * Exit status: 0 done; 2 could not run (a bad flag or value, no data dir, the data dir in use or
 * not a folder, the port taken, the database locked or behind, Redis out of reach), with one
 * line on stderr and nothing on stdout;
 * `verify` and `backfill` exit with the number of sessions out of sync or failed, 1 to 125
 * (125: that many or more), after a table on stdout; `import` with the number of files that had
 * errors, 1 to 125, after its summary; 1 for anything unexpected (a bug: the stack is printed).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, databaseFile, databaseTarget, loadConfig, serveFlagHelp, type Config } from './config.js';
import { DataDirBusyError, lockDataDir, sharedDataDir, type DataDirLock } from './data-dir-lock.js';
import type { Db } from './db/index.js';
import type { Logger } from './logger.js';
import type { VerifyRow } from './mirror/reconcile.js';
import type { ImportFileError, ImportSummary } from './importers/import-files.js';
import type { ImportTarget, SessionImportOutcome } from './importers/target.js';
import { PACKAGE_ROOT } from './package-root.js';

// Only the modules above load before a command has checked its flags and its data dir: the
// server's (GraphQL, Prisma, git) take a second or more, and a refusal should not wait for them.

// The Prisma query compiler is WebAssembly (3 MB). V8 compiles it with Liftoff, then recompiles
// the hot functions with TurboFan in the background; that second compilation held about 55 MB
// more RSS for the life of the server (bench/startup.ts, what holds the memory), and recordTurn
// over HTTP was no slower with Liftoff only (p50 33-38 ms against 36-47 ms, in one run, load 9).
// Set before any WebAssembly is compiled; the flag concerns WebAssembly only, not JavaScript.
setFlagsFromString('--liftoff-only');

/** Exit statuses above 125 mean "not found", "not executable" or a signal to a shell. */
const MAX_FAILED_EXIT = 125;

/** A one-line refusal that is not a usage mistake (so no "see --help"); exit 2. */
class CannotRun extends Error {}

const USAGE = `usage: entity-memory [serve] [flags]        serve the API and mirror sessions into git (the default)
       entity-memory backfill [flags]       bring the session repos in line with the database now
       entity-memory verify [flags]         compare each session's turns with its repo, read-only
       entity-memory import claude-code [PATH…] [--follow]   import Claude Code transcripts
       entity-memory import chat FILE…      import chat logs
       entity-memory <command> --help       a command's flags and defaults
       entity-memory --version`;

const DATA_DIR_LINE = `  --data-dir DIR       data dir (must exist); default $OPENPROGRAM_HOME, else ~/.openprogram
  --database-url URL   the PostgreSQL database the servers use; default $DATABASE_URL, else the data dir's SQLite`;
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
data dir's lock while running: a second serve on the same data dir exits 2. With
--database-url, several servers share the database and the data dir instead (README, "Running
several instances"). A flag wins over its environment variable.

${lines.join('\n')}
${COMMON_LINES}

Exit status: 0 after SIGTERM or SIGINT; 2 when it cannot start (bad flag, data dir in use, port
taken, database locked, Redis out of reach), with one line on stderr.`;
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

const IMPORT_HELP = `usage: entity-memory import claude-code [PATH…] [--follow] [--data-dir DIR]
       entity-memory import chat FILE… [--data-dir DIR]

Imports agent transcripts as sessions: one transcript, one session (its id the transcript's),
one commit per turn in the session's repo. claude-code reads *.jsonl files, and folders searched
for them (default ~/.claude/projects); a sub-agent's transcript becomes its own session linked
to its parent. Importing again adds only what is new. When a server runs on the data dir the
import goes through it (its URL is in <data-dir>/server.json; the token from ENTITY_MEMORY_TOKEN,
else <data-dir>/token); otherwise the data dir is opened here, holding its lock, and the command
waits until the session repos hold what was imported.

  --follow             keep following the files and folders: new lines are imported as they are
                       written (a new transcript in a followed folder too), until SIGINT or SIGTERM
${DATA_DIR_LINE}
${COMMON_LINES}

Prints a progress bar on stderr when it is a terminal, then a summary on stdout: files,
sessions, turns, messages, branches, records skipped by type, and each error as file:line: message.

Exit status: 0 every file imported without error; 1 to 125 the number of files with errors
(125: that many or more); 2 when it could not run (bad flag, data dir in use by a command other
than serve, server not reachable), with one line on stderr.`;

function version(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
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

async function maintenanceDeps(db: Db, config: Config) {
  const [{ createLogger }, { createEventPubSub }, { KeyedLocks }] = await Promise.all([
    import('./logger.js'),
    import('./pubsub.js'),
    import('./locks.js'),
  ]);
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
  return { db, config, logger, pubsub: createEventPubSub(), sessionLocks: new KeyedLocks(), repoLocks: new KeyedLocks() };
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
    const [{ openDb }, { reconcile, verify }] = await Promise.all([import('./db/index.js'), import('./mirror/reconcile.js')]);
    // The lock holder is the one process allowed to migrate.
    const db = await openDb(databaseTarget(config));
    try {
      if (sessionId !== undefined && !(await db.session.findUnique({ where: { sessionId } }))) throw new CannotRun(`no session ${sessionId}`);
      const deps = await maintenanceDeps(db, config);
      const report = await reconcile(deps, { sessionId, rebuildAll: values.rebuild === true, onProgress: progress('reconcile') });
      // Queued turns are committed here too, in one stream per 5,000 turns of a session, without a server.
      const { MirrorWorker } = await import('./mirror/worker.js');
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

/**
 * `verify`: per session, closed turns in the database against commits in its repo. Read-only and
 * lock-free, so it runs beside a server (which may be committing: a session caught mid-commit
 * shows one turn ahead).
 */
async function verifyCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => VERIFY_HELP)) return 0;
  const { config } = maintenanceArgs(argv, {});
  const [{ openDb }, { verify }] = await Promise.all([import('./db/index.js'), import('./mirror/reconcile.js')]);
  const db = await openDb({ ...databaseTarget(config), readOnly: true });
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
 * @param logger resolves once the logger's module has loaded (the check starts before that).
 */
async function buildWebUi(logger: Promise<Logger>): Promise<void> {
  if (!existsSync(join(PACKAGE_ROOT, 'web', 'src'))) return;
  try {
    // By its path, not a specifier: the bundler leaves it out of dist/ (it is a build script, run as it is).
    const script = pathToFileURL(join(PACKAGE_ROOT, 'scripts', 'build-web.mjs')).href;
    const { ensureWebBuild } = (await import(script)) as typeof import('../scripts/build-web.mjs');
    await ensureWebBuild({ log: (message) => void logger.then((l) => l.info(message.replace(/^entity-memory: /, ''))) });
  } catch (error) {
    (await logger).error({ err: error }, 'the web UI could not be built; serving the API, and / answers 503 until `npm run build:web` succeeds');
  }
}

/** @returns undefined once serving (the process lives on until a signal), or an exit status. */
async function serve(argv: string[]): Promise<number | undefined> {
  if (answeredInfo(argv, serveHelp)) return 0;
  const config = loadConfig(argv);
  // Taken before the server's modules load, so a second serve on this data dir is refused at once
  // (with PostgreSQL, servers share the data dir: src/data-dir-lock.ts, sharedDataDir).
  const lock = config.databaseUrl ? sharedDataDir(config.dataDir) : await lockDataDir(config.dataDir, {
    command: 'serve',
    onCompromised: (error) => console.error(`entity-memory: lost the lock of data dir ${config.dataDir} (${error.message}); another process may take it`),
  });
  // The web UI's check (a stat per input, or a build when they changed) runs while the server's modules load.
  const loggerReady = import('./logger.js').then(({ createLogger }) => createLogger(config.logLevel));
  const webUi = buildWebUi(loggerReady);
  const { startServer } = await import('./server.js');
  const logger = await loggerReady;
  await webUi;
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

/** The progress of an import on stderr when it is a terminal: files done / total, sessions, turns. */
function importProgress(): { file(done: number, total: number, sessions: number, turns: number): void; end(): void } {
  if (!process.stderr.isTTY) return { file: () => {}, end: () => {} };
  let shown = false;
  return {
    file: (done, total, sessions, turns) => {
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      process.stderr.write(`\rimport [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total} files, ${sessions} sessions, ${turns} turns`);
      shown = true;
    },
    end: () => {
      if (shown) process.stderr.write('\n');
    },
  };
}

/** The summary of an import on stdout. */
function printImportSummary(summary: ImportSummary): void {
  console.log(`files\t${summary.files}`);
  console.log(`sessions\t${summary.sessions}`);
  console.log(`turns\t${summary.turns}`);
  console.log(`messages\t${summary.messages}`);
  console.log(`branches\t${summary.branches}`);
  console.log(`skipped\t${summary.skipped.length === 0 ? 'none' : summary.skipped.map((s) => `${s.type} ${s.count}`).join(', ')}`);
  for (const error of summary.errors) console.log(`${error.file}:${error.line}: ${error.message}`);
  const failed = filesWithErrors(summary.errors);
  console.log(`${summary.files} files imported, ${failed} with errors`);
}

function filesWithErrors(errors: ImportFileError[]): number {
  return new Set(errors.map((error) => error.file)).size;
}

/** Where an import goes, and how to finish with it. */
interface ImportSink {
  target: ImportTarget;
  /** `server at URL` or `data dir DIR`, for messages. */
  via: string;
  /** In-process: waits until the mirror committed the imported sessions' turns. */
  settle(sessionIds: Iterable<string>): Promise<void>;
  close(): Promise<void>;
}

/** How long `import` waits for a starting server to say where it listens. */
const SERVER_FILE_WAIT_MS = 15_000;
/** How long an in-process import waits for the mirror before giving up on it (it catches up at the next start). */
const MIRROR_WAIT_MS = 120_000;

/**
 * The running server's HTTP target when a server holds the data dir, else the app opened here
 * (the data dir's lock taken; refused when another command holds it).
 */
async function openImportSink(config: Config): Promise<ImportSink> {
  let lock: DataDirLock;
  try {
    lock = await lockDataDir(config.dataDir, { command: 'import' });
  } catch (error) {
    if (!(error instanceof DataDirBusyError) || error.holder?.command !== 'serve') throw error;
    return serverSink(config, error.holder.pid);
  }
  try {
    const [{ createLogger }, { createApp }, { serviceImportTarget }] = await Promise.all([
      import('./logger.js'),
      import('./app.js'),
      import('./services/imports/import-session.js'),
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
  const [{ readServerFile }, { tokenFile }, { checkHttpTarget, httpImportTarget }] = await Promise.all([
    import('./http/server-file.js'),
    import('./http/token.js'),
    import('./importers/http-target.js'),
  ]);
  // A server that has just started may not have written where it listens yet.
  const deadline = Date.now() + SERVER_FILE_WAIT_MS;
  let info = readServerFile(config.dataDir);
  while (info?.pid !== pid) {
    if (Date.now() > deadline) throw new CannotRun(`a server (pid ${pid}) holds the data dir ${config.dataDir} but has not said where it listens (no server.json); try again once it is up`);
    await new Promise((done) => setTimeout(done, 100));
    info = readServerFile(config.dataDir);
  }
  try {
    const health = await fetch(`${info.url}/health`);
    if (!health.ok) throw new Error(`/health answered ${health.status}`);
  } catch (error) {
    throw new CannotRun(`a server (pid ${pid}) holds the data dir ${config.dataDir} but does not answer at ${info.url} (${(error as Error).message})`);
  }
  let token = config.token;
  let tokenHint = token !== undefined ? 'ENTITY_MEMORY_TOKEN' : undefined;
  if (token === undefined && existsSync(tokenFile(config))) {
    token = readFileSync(tokenFile(config), 'utf8').trim() || undefined;
    tokenHint = tokenFile(config);
  }
  const options = { url: info.url, token, tokenHint };
  await checkHttpTarget(options);
  return {
    target: httpImportTarget(options),
    via: `server at ${info.url}`,
    // The server mirrors as it always does.
    settle: async () => {},
    close: async () => {},
  };
}

/** `import claude-code|chat`: transcripts into sessions, through a running server or in-process. */
async function importCommand(argv: string[]): Promise<number | undefined> {
  if (answeredInfo(argv, () => IMPORT_HELP)) return 0;
  let values: { 'data-dir'?: string; follow?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: { 'data-dir': { type: 'string' }, follow: { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const [kind, ...paths] = positionals;
  if (kind !== 'claude-code' && kind !== 'chat') throw new ConfigError(kind === undefined ? 'import what? claude-code or chat' : `unknown import ${JSON.stringify(kind)}: claude-code or chat`);
  if (kind === 'chat') {
    if (values.follow) throw new ConfigError('--follow is for claude-code only');
    if (paths.length === 0) throw new ConfigError('import chat needs at least one FILE');
  }
  const config = loadConfig(typeof values['data-dir'] === 'string' ? ['--data-dir', values['data-dir']] : [], process.env);
  if (existsSync(config.dataDir) && !statSync(config.dataDir).isDirectory()) throw new CannotRun(`the data dir ${config.dataDir} is not a folder`);
  const { homedir } = await import('node:os');
  const targets = paths.length > 0 ? paths : [join(homedir(), '.claude', 'projects')];
  if (paths.length === 0 && !existsSync(targets[0]!)) throw new CannotRun(`no Claude Code transcripts at ${targets[0]}; name the files or folders to import`);
  const sink = await openImportSink(config);
  try {
    if (values.follow) return await followCommand(sink, targets);
    const importFiles =
      kind === 'chat' ? (await import('./importers/chat-files.js')).importChatFiles : (await import('./importers/claude-code/files.js')).importClaudeCodeFiles;
    const bar = importProgress();
    const sessions = new Set<string>();
    let turns = 0;
    const summary = await importFiles(sink.target, targets, {
      onProgress: (p) => {
        if (p.outcome) {
          sessions.add(p.outcome.sessionId);
          turns += p.outcome.turnsAdded;
        }
        bar.file(p.index, p.total, sessions.size, turns);
      },
    });
    bar.end();
    await sink.settle(sessions);
    printImportSummary(summary);
    return exitFor(filesWithErrors(summary.errors));
  } finally {
    await sink.close();
  }
}

/** `import claude-code --follow`: imports as the transcripts grow, one line per batch, until SIGINT or SIGTERM. */
async function followCommand(sink: ImportSink, paths: string[]): Promise<number> {
  const { followUntilSignal } = await import('./importers/follow.js');
  const sessions = new Set<string>();
  const files = new Set<string>();
  const errors: ImportFileError[] = [];
  const totals = { turns: 0, messages: 0, branches: 0 };
  const add = (outcome: SessionImportOutcome) => {
    sessions.add(outcome.sessionId);
    totals.turns += outcome.turnsAdded;
    totals.messages += outcome.messagesAdded;
    totals.branches += outcome.branchesCreated.length;
  };
  console.error(`entity-memory: following ${paths.join(', ')} into the ${sink.via}; SIGINT or SIGTERM stops`);
  await followUntilSignal({
    target: sink.target,
    paths,
    onBatch: ({ file, outcome }) => {
      files.add(file);
      add(outcome);
      if (outcome.messagesAdded + outcome.messagesUpdated + outcome.turnsAdded > 0) {
        console.log(`${file}\t${outcome.sessionId}\t+${outcome.messagesAdded} messages\t+${outcome.turnsAdded} turns\t${outcome.currentBranch}`);
      }
    },
    onProblem: (file, problem) => {
      files.add(file);
      errors.push({ file, line: problem.line, message: problem.message });
      console.log(`${file}:${problem.line}: ${problem.message}`);
    },
  });
  await sink.settle(sessions);
  console.log(`${files.size} files followed, ${sessions.size} sessions, ${totals.turns} turns, ${totals.messages} messages, ${totals.branches} branches, ${filesWithErrors(errors)} files with errors`);
  return exitFor(filesWithErrors(errors));
}

/** The server's, the database's and Redis' refusals: already loaded when they were thrown. */
async function isOneLineError(error: unknown): Promise<boolean> {
  const [{ ListenError }, { DatabaseError }, { RedisUnavailableError }] = await Promise.all([
    import('./server.js'),
    import('./db/index.js'),
    import('./redis-pubsub.js'),
  ]);
  return error instanceof ListenError || error instanceof DatabaseError || error instanceof RedisUnavailableError;
}

/** An import through a running server that it refused or could not take: the client's error, said in one line. */
async function isClientError(error: unknown): Promise<boolean> {
  const { EntityMemoryError } = await import('./client/index.js');
  return error instanceof EntityMemoryError;
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
  if (command === 'import') return importCommand(rest);
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
    if (error instanceof CannotRun || error instanceof DataDirBusyError || (await isOneLineError(error)) || (await isClientError(error))) {
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
