/**
 * Who gets a graphql-ws socket at /graphql, in this order: the path (404 otherwise), then Host and
 * Origin before the handshake (src/http/gate.ts), then the connection caps (src/http/limits.ts:
 * accepted and closed 4429), then the token in graphql-ws's `connection_init` (closed 4403).
 * What a socket has not sent yet is bounded (src/http/send-buffer.ts): one that falls behind is
 * closed, 1013. The subscribers of one operation share one stream of results, serialised once and
 * written to their sockets by one loop (src/http/fan-out.ts).
 */
import type { IncomingMessage, Server } from 'node:http';
import { getOperationAST, GraphQLError, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { App } from '../app.js';
import { DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION, type Config } from '../config.js';
import type { Logger } from '../logger.js';
import { withRequest } from '../request-context.js';
import { operationKey } from '../schema/shared-events.js';
import { FanOut } from './fan-out.js';
import { checkBoundary, refuseUpgrade } from './gate.js';
import { ConnectionLimits, normaliseAddress, WS_CLOSE_FORBIDDEN, WS_CLOSE_TOO_MANY } from './limits.js';
import { boundSendBuffer } from './send-buffer.js';
import { connectionParamsToken, tokenMatches } from './token.js';

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

export interface WsAdmissionOptions {
  config: Config;
  logger: Logger;
  /** The token `connection_init` must carry; undefined when none is required. */
  token: string | undefined;
  /** The app once its database is open; undefined while it opens (a subscribe is answered "starting"). */
  app: () => App | undefined;
}

export interface WsAdmission {
  /** The sockets' server (no port of its own): the caller terminates its clients and closes it. */
  wss: WebSocketServer;
  /** WebSocket connections holding a slot under the caps now (over-cap sockets being closed are not counted). */
  open(): number;
  /** Stops graphql-ws (closes its sockets, 1001). */
  dispose(): Promise<void>;
}

/**
 * Serves graphql-ws on `http`'s upgrades at /graphql. A socket error is the peer's doing and
 * logged at debug; nothing here throws once set up.
 */
export function admitWebSockets(http: Server, { config, logger, token, app }: WsAdmissionOptions): WsAdmission {
  const limits = new ConnectionLimits(config);
  const maxOperations = config.maxSubscriptionsPerConnection ?? DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION;
  const maxBufferedBytes = config.maxWsBufferedBytes ?? wsMaxPayload(config);
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
        if (token === undefined || tokenMatches(token, connectionParamsToken(ctx.connectionParams))) return true;
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
        const ready = app();
        if (!ready) return [new GraphQLError('The server is starting; try again in a moment.')];
        // The operation being subscribed is already counted in ctx.subscriptions.
        if (Object.keys(ctx.subscriptions).length > maxOperations) {
          return [
            userError(
              `This connection already runs ${maxOperations} operations, the most one connection may; complete one first or open another connection.`,
              { limit: maxOperations },
            ),
          ];
        }
        const { schema, execute, subscribe, contextFactory, parse, validate } = ready.yoga.getEnveloped({
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
  return {
    wss,
    open: () => limits.open,
    dispose: async () => {
      await wsServer.dispose();
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
