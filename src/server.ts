/**
 * The HTTP server: `start()` listens before the database is ready so /health can say 503 while
 * migrations run; `stop()` closes every socket. Which path goes where is src/http/router.ts
 * (`/graphql` with GraphiQL, `/health`, the web UI at every other path); who gets a graphql-ws
 * socket on an upgrade is src/http/ws-admission.ts.
 */
import { createServer, type Server } from 'node:http';
import { capHttpConnections } from './http/limits.js';
import type { AddressInfo } from 'node:net';
import type { WebSocketServer } from 'ws';
import { createApp, type App, type AppOptions } from './app.js';
import { privateDataDir } from './private-files.js';
import type { Config } from './config.js';
import { lockDataDir, sharedDataDir, type DataDirLock } from './data-dir-lock.js';
import { createRouter } from './http/router.js';
import { exposedBeyondLoopback, resolveAuth, type Auth } from './http/token.js';
import { localUrl, removeServerFile, writeServerFile } from './http/server-file.js';
import { admitWebSockets } from './http/ws-admission.js';
import type { Logger } from './logger.js';

/** The port or address cannot be listened on; the message is one line saying what to change. */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

function listenError(error: NodeJS.ErrnoException, config: Pick<Config, 'host' | 'port'>): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ListenError(`port ${config.port} is in use; pass --port (0 picks a free one)`, error.code);
    case 'EACCES':
      return new ListenError(`port ${config.port} needs privileges this user lacks; pass --port above 1023`, error.code);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ListenError(`cannot listen on --host ${config.host}: no such address on this machine`, error.code);
    default:
      return error;
  }
}

export interface RunningServer {
  /** e.g. http://127.0.0.1:4000 */
  url: string;
  /** Where a person should point a browser: `publicUrl`, or `url` with a wildcard bind as localhost. */
  browseUrl: string;
  port: number;
  /** The token in force and where it came from (`source: 'none'` when none is required). */
  auth: Auth;
  /** WebSocket connections holding a slot under the caps now (over-cap sockets being closed are not counted). */
  openWebSockets(): number;
  app: App;
  stop(): Promise<void>;
}

/**
 * Takes the data dir's lock, listens, then opens the database; resolves once all are done.
 * @param held the data dir's lock when the caller took it already (the command line does, before
 *   loading this module, so a second serve is refused at once); released by `stop()` or a failed
 *   start either way. Default: taken here.
 * @throws DataDirBusyError when another process holds the data dir; ListenError when the port
 *   or address cannot be bound; DatabaseError when the database cannot be opened or migrated;
 *   the file system's error when the token file cannot be read or written. Whatever was taken
 *   (lock, port) is released again.
 */
export async function startServer(config: Config, logger: Logger, options: AppOptions = {}, held?: DataDirLock): Promise<RunningServer> {
  const lock =
    held ??
    (config.databaseUrl ? sharedDataDir(config.dataDir) : undefined) ??
    (await lockDataDir(config.dataDir, {
      command: 'serve',
      onCompromised: (error) => logger.error({ err: error, dataDir: config.dataDir }, 'lost the data dir lock; another process may now take it'),
    }));
  try {
    return await listenAndOpen(config, logger, options, lock.release);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function listenAndOpen(config: Config, logger: Logger, options: AppOptions, releaseLock: () => Promise<void>): Promise<RunningServer> {
  let app: App | undefined;
  const auth = resolveAuth(config);
  const opened = () => app;
  const http = createServer(createRouter({ config, logger, token: auth.token, app: opened }));
  capHttpConnections(http, config, (address, reason) => logger.warn({ address, reason }, 'refused a connection over the per-address cap'));
  const sockets = admitWebSockets(http, { config, logger, token: auth.token, app: opened });

  await new Promise<void>((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => reject(listenError(error, config));
    http.once('error', fail);
    http.listen(config.port, config.host, () => {
      http.off('error', fail);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  const browseUrl = config.publicUrl ?? (wildcard ? `http://localhost:${port}` : url);
  if (exposedBeyondLoopback(config)) {
    // The token itself stays out of the JSON log; the command line prints the URL once.
    logger.warn(
      { host: config.host, port, publicUrl: config.publicUrl, tokenSource: auth.source, tokenFile: auth.file, url: `${browseUrl}/graphql#token=<token>` },
      'reachable beyond loopback (bind address or --public-url): every API request needs the bearer token (the static pages and /health do not)',
    );
  }

  try {
    const tightened = privateDataDir(config.dataDir);
    if (tightened.length > 0) logger.warn({ paths: tightened }, 'the data dir was readable by other accounts on this machine; it is private to you now (0700 folders, 0600 files)');
    app = await createApp(config, logger, options);
  } catch (error) {
    await closeHttp(http, sockets.wss);
    throw error;
  }
  const ready = app;
  // For `entity-memory import` on this data dir: it sends here instead of opening the database.
  const serverFile = { url: localUrl(config.host, port), pid: process.pid };
  try {
    writeServerFile(config.dataDir, serverFile);
  } catch (error) {
    logger.warn({ err: error, dataDir: config.dataDir }, 'could not write server.json; `entity-memory import` cannot find this server');
  }
  logger.info({ url: `${url}/graphql`, dataDir: config.dataDir }, 'entity-memory is ready');

  let stopping: Promise<void> | undefined;
  return {
    url,
    browseUrl,
    port,
    auth,
    openWebSockets: () => sockets.open(),
    app: ready,
    stop: () => {
      stopping ??= (async () => {
        try {
          removeServerFile(config.dataDir, serverFile);
          await sockets.dispose();
          await closeHttp(http, sockets.wss);
          await ready.close();
        } finally {
          await releaseLock();
        }
      })();
      return stopping;
    },
  };
}

/** Every socket closed: the WebSocket clients cut off, then the HTTP connections, idle or not. */
async function closeHttp(http: Server, wss: WebSocketServer): Promise<void> {
  for (const client of wss.clients) client.terminate();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    http.closeAllConnections();
  });
}
