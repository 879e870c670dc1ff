/**
 * The checks every request passes before yoga (or graphql-ws) sees it, in this order:
 *
 * | check | refused with |
 * | --- | --- |
 * | `Host` is an IP literal, `localhost` or a configured name | 403 FORBIDDEN |
 * | `Origin` absent, the server's own, or configured | 403 FORBIDDEN, no Access-Control-* headers |
 * | `Authorization: Bearer <token>` when a token is required (not for GraphiQL's page nor the web UI's GET/HEAD) | 401 UNAUTHENTICATED + WWW-Authenticate |
 * | body is JSON: never form, multipart or text/plain | 415 BAD_USER_INPUT |
 *
 * /health is not gated (it says only ok/starting). The static pages (GraphiQL at /graphql in a
 * browser, the web UI at other paths, src/http/web-ui.ts) hold no data and take the token from
 * `#token=` in the browser, so they pass the Host and Origin checks only. The WebSocket upgrade
 * gets the first two; its token comes in graphql-ws's `connection_init` (src/http/ws-admission.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { foreignOriginMessage, hostAllowed, originAllowed, unknownHostMessage, type BoundaryConfig } from './origin.js';
import { bearerToken, tokenMatches } from './token.js';
import { isWebUiRequest } from './web-ui.js';

export interface Refusal {
  status: number;
  code: 'FORBIDDEN' | 'UNAUTHENTICATED' | 'BAD_USER_INPUT' | 'NOT_FOUND';
  message: string;
  headers?: Record<string, string>;
}

/** Bodies a web page on another site can send without a CORS preflight; nothing here takes them. */
const SIMPLE_BODY_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
/** What yoga parses in a POST; anything else (or nothing) is refused before it. */
const POST_BODY_TYPES = new Set(['application/json', 'application/graphql+json', 'application/graphql']);

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Host, then Origin: the browser boundary shared by HTTP and the WebSocket upgrade. */
export function checkBoundary(config: BoundaryConfig, req: IncomingMessage): Refusal | undefined {
  const host = single(req.headers.host);
  if (!hostAllowed(config, host)) return { status: 403, code: 'FORBIDDEN', message: unknownHostMessage(host ?? '') };
  const origin = single(req.headers.origin);
  if (!originAllowed(config, origin, host)) return { status: 403, code: 'FORBIDDEN', message: foreignOriginMessage(origin ?? '') };
  return undefined;
}

/**
 * GraphiQL's page: static HTML that yoga renders instead of executing anything, for exactly
 * these requests (yoga's own test plus its endpoint match). It needs no token; its script
 * adds the token to the queries it sends.
 */
function isGraphiQLPage(req: IncomingMessage, path: string): boolean {
  // Mirrors yoga's shouldRenderGraphiQL (GET with text/html in Accept); test/security/auth.test.ts
  // checks that such a GET with a query still renders the page and runs nothing.
  return (path === '/graphql' || path === '/graphql/') && req.method === 'GET' && (single(req.headers.accept) ?? '').includes('text/html');
}

/**
 * Every check for an HTTP request to anything but /health.
 * @param token the token in force, or undefined when none is required.
 * @returns the refusal to send, or undefined to pass the request on.
 */
export function checkHttp(config: BoundaryConfig, token: string | undefined, req: IncomingMessage, path: string): Refusal | undefined {
  const boundary = checkBoundary(config, req);
  if (boundary) return boundary;
  // A preflight carries no credentials by design; yoga answers it with CORS headers for allowed origins only.
  if (token !== undefined && req.method !== 'OPTIONS' && !isGraphiQLPage(req, path) && !isWebUiRequest(req, path)) {
    const presented = bearerToken(single(req.headers.authorization));
    if (!tokenMatches(token, presented)) {
      return {
        status: 401,
        code: 'UNAUTHENTICATED',
        message:
          presented === undefined
            ? 'This server needs a token: send Authorization: Bearer <token> (it is in <data-dir>/token, or the one it was started with).'
            : 'The token is not the one this server was started with.',
        headers: { 'www-authenticate': presented === undefined ? 'Bearer realm="entity-memory"' : 'Bearer realm="entity-memory", error="invalid_token"' },
      };
    }
  }
  const contentType = single(req.headers['content-type'])?.split(';')[0]?.trim().toLowerCase();
  if ((contentType !== undefined && SIMPLE_BODY_TYPES.has(contentType)) || (req.method === 'POST' && !POST_BODY_TYPES.has(contentType ?? ''))) {
    return {
      status: 415,
      code: 'BAD_USER_INPUT',
      message: `Send GraphQL requests as application/json; ${contentType ? `${contentType} bodies are` : 'a body without a content type is'} refused (a web page on another site can send those without asking, and there are no uploads).`,
    };
  }
  return undefined;
}

function body(refusal: Refusal): string {
  return JSON.stringify({ errors: [{ message: refusal.message, extensions: { code: refusal.code } }] });
}

/** Sends a refusal as a GraphQL-shaped JSON error. */
export function sendRefusal(res: ServerResponse, refusal: Refusal): void {
  res.writeHead(refusal.status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...refusal.headers,
  });
  res.end(body(refusal));
}

/** Refuses a WebSocket upgrade with a plain HTTP response, before any handshake. */
export function refuseUpgrade(socket: Duplex, refusal: Refusal): void {
  const text = body(refusal);
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}\r\n` +
      'Connection: close\r\nContent-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}
