/**
 * HTTP and WebSocket: `/graphql` (POST, GET, GraphiQL, and graphql-ws on the
 * same path) and `/health`. `start()` listens before the database is ready so
 * /health can say 503 while migrations run; `stop()` closes every socket.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { createApp, type App, type AppOptions } from './app.js';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { withRequest } from './request-context.js';

/** graphql-ws hands these back to execute/subscribe; rootValue carries yoga's enveloped functions. */
interface EnvelopedArgs extends ExecutionArgs {
  rootValue: { execute: (args: ExecutionArgs) => unknown; subscribe: (args: ExecutionArgs) => unknown };
}

export interface RunningServer {
  /** e.g. http://127.0.0.1:4000 */
  url: string;
  port: number;
  app: App;
  stop(): Promise<void>;
}

export async function startServer(config: Config, logger: Logger, options: AppOptions = {}): Promise<RunningServer> {
  let app: App | undefined;
  const http = createServer((req, res) => handle(req, res));

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health') {
      const ready = app !== undefined;
      res.writeHead(ready ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(ready ? { status: 'ok' } : { status: 'starting' }));
      return;
    }
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

  const wss = new WebSocketServer({ server: http, path: '/graphql' });
  const wsServer = useServer(
    {
      execute: (args) => withRequest(null, () => (args as EnvelopedArgs).rootValue.execute(args)) as never,
      subscribe: (args) => withRequest(null, () => (args as EnvelopedArgs).rootValue.subscribe(args)) as never,
      onSubscribe: async (ctx, _id, params) => {
        if (!app) return [new GraphQLError('The server is starting; try again in a moment.')];
        const { schema, execute, subscribe, contextFactory, parse, validate } = app.yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
        });
        const document = parse(params.query);
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
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
    http.once('error', reject);
    http.listen(config.port, config.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  try {
    app = await createApp(config, logger, options);
  } catch (error) {
    await closeHttp(http, wss);
    throw error;
  }
  const ready = app;
  logger.info({ url: `${url}/graphql`, dataDir: config.dataDir }, 'entity-memory is ready');

  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    app: ready,
    stop: () => {
      stopping ??= (async () => {
        await wsServer.dispose();
        await closeHttp(http, wss);
        await ready.close();
      })();
      return stopping;
    },
  };
}

async function closeHttp(http: Server, wss: WebSocketServer): Promise<void> {
  for (const client of wss.clients) client.terminate();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  await new Promise<void>((resolve) => {
    http.close(() => resolve());
    http.closeAllConnections();
  });
}
