/** `entity-memory serve` (the default command): the API and the mirror, until SIGTERM or SIGINT. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig, serveFlagHelp } from '../config.js';
import { lockDataDir, sharedDataDir } from '../data-dir-lock.js';
import type { Logger } from '../logger.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { answeredInfo, COMMON_LINES } from './help.js';

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
    const { ensureWebBuild } = (await import(script)) as typeof import('../../scripts/build-web.mjs');
    await ensureWebBuild({ log: (message) => void logger.then((l) => l.info(message.replace(/^entity-memory: /, ''))) });
  } catch (error) {
    (await logger).error({ err: error }, 'the web UI could not be built; serving the API, and / answers 503 until `npm run build:web` succeeds');
  }
}

/** @returns undefined once serving (the process lives on until a signal), or an exit status. */
export async function serve(argv: string[]): Promise<number | undefined> {
  if (answeredInfo(argv, serveHelp)) return 0;
  const config = loadConfig(argv);
  // Taken before the server's modules load, so a second serve on this data dir is refused at once
  // (with PostgreSQL, servers share the data dir: src/data-dir-lock.ts, sharedDataDir).
  const lock = config.databaseUrl ? sharedDataDir(config.dataDir) : await lockDataDir(config.dataDir, {
    command: 'serve',
    onCompromised: (error) => console.error(`entity-memory: lost the lock of data dir ${config.dataDir} (${error.message}); another process may take it`),
  });
  // The web UI's check (a stat per input, or a build when they changed) runs while the server's modules load.
  const loggerReady = import('../logger.js').then(({ createLogger }) => createLogger(config.logLevel));
  const webUi = buildWebUi(loggerReady);
  const { startServer } = await import('../server.js');
  const logger = await loggerReady;
  await webUi;
  const server = await startServer(config, logger, {}, lock);
  console.log(`entity-memory: web UI at ${server.browseUrl}/, GraphiQL at ${server.url}/graphql (data in ${config.dataDir})`);
  const { auth } = server;
  if (auth.source === 'file' || auth.source === 'generated') {
    // The token is printed once, on a terminal, for the person who started the server; never into
    // a pipe or a file (a service manager's journal keeps what it is given), nor the JSON log.
    const token = process.stdout.isTTY ? auth.token : `<the token in ${auth.file}>`;
    console.log(
      `entity-memory: reachable beyond loopback, so every request needs the token (${auth.source === 'generated' ? 'new, ' : ''}kept in ${auth.file}); open ${server.browseUrl}/graphql#token=${token} (the web UI at ${server.browseUrl}/ takes the same #token=)`,
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
