/**
 * The command line: `entity-memory serve [flags]` (the default command).
 * Exit codes: 0 done, 1 failed, 2 bad usage.
 */
import { parseArgs } from 'node:util';
import { ConfigError, databaseFile, loadConfig } from './config.js';
import { openDb } from './db/index.js';
import { isValidId } from './ids.js';
import { KeyedLocks } from './locks.js';
import { createLogger } from './logger.js';
import { reconcile, verify } from './mirror/reconcile.js';
import { createEventPubSub } from './pubsub.js';
import { startServer } from './server.js';

const USAGE = `usage: entity-memory serve [--data-dir DIR] [--port N] [--host HOST] [--allowed-root PATH]...
                          [--max-content-bytes N] [--log-level LEVEL]
                          [--allowed-origin URL]... [--public-url URL] [--token TOKEN]
                          [--max-ws-connections N] [--max-ws-per-address N]
                          [--max-subscriptions-per-connection N]
       entity-memory backfill [--data-dir DIR] [--session ID] [--rebuild]
       entity-memory verify [--data-dir DIR]`;

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

/** Flags shared by the maintenance commands; the database is opened (and migrated) directly. */
async function maintenance(argv: string[], extra: Record<string, { type: 'string' | 'boolean' }>) {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' }, ...extra }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const dataDir = values['data-dir'];
  const config = loadConfig(typeof dataDir === 'string' ? ['--data-dir', dataDir] : [], process.env);
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
  const db = await openDb({ file: databaseFile(config) });
  return { values, config, logger, db, deps: { db, config, logger, pubsub: createEventPubSub(), sessionLocks: new KeyedLocks() } };
}

/** `backfill`: brings every session repo (or one) in line with the database, now. */
async function backfill(argv: string[]): Promise<number> {
  const { values, db, deps } = await maintenance(argv, { session: { type: 'string' }, rebuild: { type: 'boolean' } });
  try {
    const sessionId = typeof values.session === 'string' ? values.session : undefined;
    if (sessionId !== undefined && !isValidId(sessionId)) throw new ConfigError(`--session ${JSON.stringify(sessionId)} is not a session id`);
    if (sessionId !== undefined && !(await db.session.findUnique({ where: { sessionId } }))) {
      throw new ConfigError(`no session ${sessionId}`);
    }
    const results = await reconcile(deps, { sessionId, rebuildAll: values.rebuild === true, onProgress: progress('reconcile') });
    // Queued turns are committed here too, in one stream per session, without a server.
    const { MirrorWorker } = await import('./mirror/worker.js');
    const worker = new MirrorWorker(deps, { bulkThreshold: 0 });
    await worker.start();
    const queued = results.filter((r) => r.outcome === 'queued');
    const bar = progress('mirror');
    for (const [i, r] of queued.entries()) {
      worker.notify(r.sessionId);
      await worker.idle();
      bar(i + 1, queued.length);
    }
    await worker.stop();
    const rows = await verify(deps);
    const bad = rows.filter((row) => !row.ok && (sessionId === undefined || row.sessionId === sessionId));
    for (const r of results) if (r.outcome !== 'in-sync') console.log(`${r.sessionId}\t${r.outcome}\t${r.turns} turns`);
    console.log(`${results.length} sessions reconciled, ${bad.length} still out of sync`);
    return bad.length === 0 ? 0 : 1;
  } finally {
    await db.$disconnect();
  }
}

/** `verify`: per session, closed turns in the database against commits in its repo; exit 1 on any mismatch. */
async function verifyCommand(argv: string[]): Promise<number> {
  const { db, deps } = await maintenance(argv, {});
  try {
    const rows = await verify(deps, progress('verify'));
    console.log('session\tdag_turns\tgit_commits\tstatus');
    for (const row of rows) console.log(`${row.sessionId}\t${row.dagTurns}\t${row.gitCommits}\t${row.ok ? 'ok' : 'MISMATCH'}`);
    const bad = rows.filter((row) => !row.ok).length;
    console.log(`${rows.length} sessions, ${bad} mismatched`);
    return bad === 0 ? 0 : 1;
  } finally {
    await db.$disconnect();
  }
}

async function serve(argv: string[]): Promise<void> {
  const config = loadConfig(argv);
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  console.log(`entity-memory: GraphiQL at ${server.url}/graphql (data in ${config.dataDir})`);
  const { auth } = server;
  if (auth.source === 'file' || auth.source === 'generated') {
    // Printed once for the person who started the server; the JSON log never carries the token.
    console.log(
      `entity-memory: reachable beyond loopback, so every request needs the token (${auth.source === 'generated' ? 'new, ' : ''}kept in ${auth.file}); open ${server.browseUrl}/graphql#token=${auth.token}`,
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
}

async function main(args: string[]): Promise<void> {
  const [command = 'serve', ...rest] = args;
  if (command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command === 'serve') return serve(rest);
  if (command === 'backfill') process.exit(await backfill(rest));
  if (command === 'verify') process.exit(await verifyCommand(rest));
  if (command.startsWith('-')) return serve(args);
  throw new ConfigError(`unknown command ${JSON.stringify(command)}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`entity-memory: ${error.message} (see --help)`);
    process.exit(2);
  }
  console.error(`entity-memory: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
