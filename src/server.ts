/**
 * HTTP and WebSocket: `/graphql` (POST, GET, GraphiQL, and graphql-ws on the
 * same path), `/health`, and the web UI at every other path (src/http/web-ui.ts). `start()` listens before the database is ready so
 * /health can say 503 while migrations run; `stop()` closes every socket.
 *
 * Every request but /health passes src/http/gate.ts first (Host, Origin, token, body type);
 * the WebSocket upgrade passes Host and Origin before the handshake, then the connection caps
 * (src/http/limits.ts), then the token in graphql-ws's `connection_init`. What a socket has
 * not sent yet is bounded (src/http/send-buffer.ts): one that falls behind is closed, 1013.
 * The subscribers of one operation share one stream of results, serialised once and written to
 * their sockets by one loop (src/http/fan-out.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getOperationAST, GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { createApp, type App, type AppOptions } from './app.js';
import { DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION, type Config } from './config.js';
import { lockDataDir, sharedDataDir, type DataDirLock } from './data-dir-lock.js';
import { checkBoundary, checkHttp, refuseUpgrade, sendRefusal } from './http/gate.js';
import { ConnectionLimits, normaliseAddress, WS_CLOSE_FORBIDDEN, WS_CLOSE_TOO_MANY } from './http/limits.js';
import { connectionParamsToken, exposedBeyondLoopback, resolveAuth, tokenMatches, type Auth } from './http/token.js';
import { localUrl, removeServerFile, writeServerFile } from './http/server-file.js';
import { createWebUi, DEFAULT_WEB_DIR, isWebUiPath } from './http/web-ui.js';
import { boundSendBuffer } from './http/send-buffer.js';
import { FanOut } from './http/fan-out.js';
import { operationKey } from './schema/shared-events.js';
import type { Logger } from './logger.js';
import { withRequest } from './request-context.js';

/**
 * A client that opens a socket and never says `connection_init` is closed (4408) after this
 * long; graphql-ws's 3 s default is tight for a loaded machine, and the caps bound the cost.
 */
const CONNECTION_INIT_TIMEOUT_MS = 10_000;
/** An over-cap socket that does not answer our close frame is cut off after this long. */
const OVER_CAP_CLOSE_GRACE_MS = 2_000;

/**
 * Largest graphql-ws frame: room for a turn's user and assistant message and two tool results
 * at the content limit, with JSON escaping. A larger frame closes the socket (1009).
 */
export function wsMaxPayload(config: Pick<Config, 'maxContentBytes'>): number {
  return 4 * config.maxContentBytes + 1024 * 1024;
}

/** graphql-ws hands these back to execute/subscribe; rootValue carries yoga's enveloped functions. */
interface EnvelopedArgs extends ExecutionArgs {
  rootValue: { execute: (args: ExecutionArgs) => unknown; subscribe: (args: ExecutionArgs) => unknown };
}

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
  const limits = new ConnectionLimits(config);
  const maxOperations = config.maxSubscriptionsPerConnection ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION;
  const maxBufferedBytes = config.maxWsBufferedBytes ?? wsMaxPayload(config);
  const webUi = createWebUi(config.webDir ?? DEFAULT_WEB_DIR, logger);
  const http = createServer((req, res) => handle(req, res));

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/health') {
      const answer = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(body));
      };
      if (!app) answer(503, { status: 'starting' });
      else void app.health.report().then((report) => answer(report.status === 'ok' ? 200 : 503, report));
      return;
    }
    const refusal = checkHttp(config, auth.token, req, path);
    if (refusal) {
      sendRefusal(res, refusal);
      return;
    }
    // Static files: served while the database is still opening too.
    if (isWebUiPath(path)) {
      webUi.handle(req, res, path);
      return;
    }
    // CORS answers differ by Origin; caches must not hand one origin's answer to another.
    res.setHeader('vary', 'Origin');
    if (!app) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ errors: [{ message: 'The server is starting; try again in a moment.' }] }));
      return;
    }
    const yoga = app.yoga;
    const header = req.headers['x-request-id'];
    withRequest(Array.isArray(header) ? header[0] : header, () => {
      void yoga.handle(req, res);
    });
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: wsMaxPayload(config) });
  http.on('upgrade', (req: IncomingMessage, socket, head) => {
    socket.on('error', () => {}); // a peer resetting mid-refusal is not our failure
    if ((req.url ?? '/').split('?')[0] !== '/graphql') {
      refuseUpgrade(socket, { status: 404, code: 'NOT_FOUND', message: 'graphql-ws is served at /graphql.' });
      return;
    }
    const refusal = checkBoundary(config, req);
    if (refusal) {
      refuseUpgrade(socket, refusal);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const address = normaliseAddress(req.socket.remoteAddress);
      // Socket errors are the peer's doing (a frame over maxPayload, a reset) and ws closes the socket
      // itself (1009, 1006); graphql-ws would print each with a stack to the console, a debug line will do.
      const onError = (error: Error) => logger.debug({ err: error, address }, 'WebSocket client error');
      const over = limits.admit(address);
      if (over !== undefined) {
        ws.on('error', onError);
        ws.close(WS_CLOSE_TOO_MANY, over);
        const cutOff = setTimeout(() => ws.terminate(), OVER_CAP_CLOSE_GRACE_MS);
        ws.once('close', () => clearTimeout(cutOff));
        return;
      }
      ws.once('close', () => limits.release(address));
      boundSendBuffer(ws, maxBufferedBytes, logger, address);
      wss.emit('connection', ws, req);
      ws.removeAllListeners('error');
      ws.on('error', onError);
    });
  });
  const fanOut = new FanOut();
  const wsServer = useServer(
    {
      connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
      onConnect: (ctx) => {
        if (auth.token === undefined || tokenMatches(auth.token, connectionParamsToken(ctx.connectionParams))) return true;
        // Closed here for a reason that says what to do; graphql-ws's own close after `false` is then a no-op.
        ctx.extra.socket.close(WS_CLOSE_FORBIDDEN, 'Forbidden: send the server token as connectionParams { token }');
        return false;
      },
      // A subscription joins the others of the same operation: one stream, serialised once, written
      // to the sockets a batch per event-loop turn so requests are served during a large fan-out.
      onOperation: (ctx, id, _payload, args, result) => {
        if (getOperationAST(args.document, args.operationName)?.operation !== 'subscription') return undefined;
        if (typeof (result as Partial<AsyncIterator<unknown>>).next !== 'function') return undefined;
        return fanOut.join(operationKey(args), ctx.extra.socket, id, result as AsyncIterator<ExecutionResult>);
      },
      execute: (args) => withRequest(null, () => (args as EnvelopedArgs).rootValue.execute(args)) as never,
      subscribe: (args) => withRequest(null, () => (args as EnvelopedArgs).rootValue.subscribe(args)) as never,
      onSubscribe: async (ctx, _id, params) => {
        if (!app) return [new GraphQLError('The server is starting; try again in a moment.')];
        // The operation being subscribed is already counted in ctx.subscriptions.
        if (Object.keys(ctx.subscriptions).length > maxOperations) {
          return [
            userError(
              `This connection already runs ${maxOperations} operations, the most one connection may; complete one first or open another connection.`,
              { limit: maxOperations },
            ),
          ];
        }
        const { schema, execute, subscribe, contextFactory, parse, validate } = app.yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
        });
        // A syntax error answers this operation's id; thrown, it would close the whole socket (4500).
        let document: ReturnType<typeof parse>;
        try {
          document = parse(params.query);
        } catch (error) {
          return [error instanceof GraphQLError ? asUserError(error) : userError('The query could not be parsed.')];
        }
        const errors = validate(schema, document);
        if (errors.length > 0) return errors.map(asUserError);
        return {
          schema,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
      },
    },
    wss,
  );

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
    app = await createApp(config, logger, options);
  } catch (error) {
    await closeHttp(http, wss);
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
    openWebSockets: () => limits.open,
    app: ready,
    stop: () => {
      stopping ??= (async () => {
        try {
          removeServerFile(config.dataDir, serverFile);
          await wsServer.dispose();
          await closeHttp(http, wss);
          await ready.close();
        } finally {
          await releaseLock();
        }
      })();
      return stopping;
    },
  };
}

/** A client's mistake, coded as the contract's BAD_USER_INPUT. */
function userError(message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions, code: 'BAD_USER_INPUT' } });
}

function asUserError(error: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, code: 'BAD_USER_INPUT' },
  });
}

async function closeHttp(http: Server, wss: WebSocketServer): Promise<void> {
  for (const client of wss.clients) client.terminate();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    http.closeAllConnections();
  });
}
