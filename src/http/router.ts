/**
 * Which path goes where, in this order: `/health` (never gated), then the gate (src/http/gate.ts:
 * Host, Origin, token, body type), then the web UI's static files at every path but /graphql
 * (src/http/web-ui.ts), `/hooks/<agent>` (src/http/hooks-route.ts), `/mcp` (src/mcp/http.ts), then yoga at /graphql (POST, GET, and GraphiQL in a browser). The static
 * files are served while the database is still opening; the API answers 503 until it is open.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { isMcpPath } from '../mcp/path.js';
import { withRequest } from '../request-context.js';
import { checkHttp, sendRefusal } from './gate.js';
import { handleHookRequest, isHooksPath } from './hooks-route.js';
import { createWebUi, DEFAULT_WEB_DIR, isWebUiPath } from './web-ui.js';

/** The client's `X-Request-Id`, if it sent one (withRequest checks its shape). */
function requestIdOf(req: IncomingMessage): string | undefined {
  const header = req.headers['x-request-id'];
  return Array.isArray(header) ? header[0] : header;
}

export interface RouterOptions {
  config: Config;
  logger: Logger;
  /** The token every API request must bear; undefined when none is required. */
  token: string | undefined;
  /** The app once its database is open; undefined while it opens (/health says starting, the API 503). */
  app: () => App | undefined;
}

/**
 * The HTTP server's request listener. Never throws: every request is answered (yoga answers its
 * own failures; /health's report never rejects).
 */
export function createRouter({ config, logger, token, app }: RouterOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const webUi = createWebUi(config.webDir ?? DEFAULT_WEB_DIR, logger);
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    // No page of this server may be framed by another (GraphiQL with a prefilled mutation is one
    // click from running it): every answer says so; the web UI's own policy repeats it.
    res.setHeader('content-security-policy', "frame-ancestors 'none'");
    res.setHeader('x-frame-options', 'DENY');
    const ready = app();
    if (path === '/health') {
      const answer = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(body));
      };
      if (!ready) answer(503, { status: 'starting' });
      else void ready.health.report().then((report) => answer(report.status === 'ok' ? 200 : 503, report));
      return;
    }
    const refusal = checkHttp(config, token, req, path);
    if (refusal) {
      sendRefusal(res, refusal);
      return;
    }
    if (isHooksPath(path)) {
      void handleHookRequest(req, res, path, ready, logger);
      return;
    }
    if (isMcpPath(path)) {
      if (!ready) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'The server is starting; try again in a moment.' }, id: null }));
        return;
      }
      withRequest(requestIdOf(req), () => {
        void ready.mcp().then((mcp) => mcp.handle(req, res));
      });
      return;
    }
    // Static files: served while the database is still opening too.
    if (isWebUiPath(path)) {
      webUi.handle(req, res, path);
      return;
    }
    // CORS answers differ by Origin; caches must not hand one origin's answer to another.
    res.setHeader('vary', 'Origin');
    if (!ready) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ errors: [{ message: 'The server is starting; try again in a moment.' }] }));
      return;
    }
    const yoga = ready.yoga;
    withRequest(requestIdOf(req), () => {
      void yoga.handle(req, res);
    });
  };
}
