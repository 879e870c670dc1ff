/**
 * The web UI's static files (web/dist, built by scripts/build-web.mjs) at every path but
 * /graphql and /health. `/assets/*` are content-hashed, so cached for good; any other page a
 * browser asks for gets index.html, where the UI's router takes over (/sessions/…, /projects/…).
 *
 * They hold no data, so the gate lets GET and HEAD through without the token (src/http/gate.ts);
 * Host and Origin are checked as everywhere. Every answer carries a strict Content-Security-Policy.
 * A missing build (no web/dist or no stamp) answers 503 with a page saying how to build it.
 */
import { closeSync, createReadStream, fstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { openRealFileSync } from '../fs/inside.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Logger } from '../logger.js';
import { isMcpPath } from '../mcp/path.js';
import { PACKAGE_ROOT } from '../package-root.js';

/** web/dist of this package: where scripts/build-web.mjs builds to. */
export const DEFAULT_WEB_DIR = join(PACKAGE_ROOT, 'web', 'dist');

/** Written last by scripts/build-web.mjs: a folder without it is not a (complete) build. */
const STAMP_FILE = '.build-stamp';

export const WEB_UI_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>entity-memory: the web UI is not built</title></head>
<body>
<h1>The web UI is not built</h1>
<p>Build it with <code>npm run build:web</code> (<code>npm start</code> does it), then reload this page.</p>
<p>The API is up: GraphiQL is at <a href="/graphql">/graphql</a>.</p>
</body>
</html>
`;

/** Paths the UI leaves to others: yoga's endpoint (GraphiQL in a browser) and the health check. */
export function isWebUiPath(path: string): boolean {
  // The API's paths are not the UI's: a GET of them carries the token like any other request.
  return path !== '/health' && path !== '/graphql' && !path.startsWith('/graphql/') && !isMcpPath(path) && !path.startsWith('/hooks/');
}

/** A GET or HEAD of the UI: static files, no data, so no token (the gate's exemption). */
export function isWebUiRequest(req: IncomingMessage, path: string): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && isWebUiPath(path);
}

export interface WebUi {
  /** Answers a request whose path isWebUiPath (after the gate's checks). */
  handle(req: IncomingMessage, res: ServerResponse, path: string): void;
}

/**
 * @param dir the built UI (web/dist); read per request, so a rebuild swapped in is served at once.
 * @param logger warned once, now, when the build is missing.
 */
export function createWebUi(dir: string, logger: Logger): WebUi {
  const root = resolve(dir);
  if (!isBuilt(root)) {
    logger.warn({ webDir: root }, 'the web UI is not built: / answers 503 until `npm run build:web` (npm start does it)');
  }
  return {
    handle(req, res, path) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        send(res, req, 405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' }, 'Method not allowed: the web UI is read with GET.\n');
        return;
      }
      if (!isBuilt(root)) {
        send(res, req, 503, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '10' }, NOT_BUILT_PAGE);
        return;
      }
      const file = resolveInside(root, path);
      if (file === undefined) {
        notFound(req, res);
        return;
      }
      const found = fileInside(root, file);
      if (found) {
        const isAsset = path.startsWith('/assets/');
        serveFile(req, res, found.real, found.stats, isAsset ? IMMUTABLE : 'no-cache');
        return;
      }
      const wantsPage = path === '/' || (req.headers.accept ?? '').includes('text/html');
      const index = join(root, 'index.html');
      const indexFound = wantsPage && !path.startsWith('/assets/') ? fileInside(root, index) : undefined;
      if (indexFound) serveFile(req, res, indexFound.real, indexFound.stats, 'no-cache');
      else notFound(req, res);
    },
  };
}

function isBuilt(root: string): boolean {
  return fileStats(join(root, STAMP_FILE)) !== undefined && fileStats(join(root, 'index.html')) !== undefined;
}

function fileStats(file: string): Stats | undefined {
  try {
    const stats = statSync(file);
    return stats.isFile() ? stats : undefined;
  } catch {
    return undefined;
  }
}

/** The file's stats when its real path (symbolic links followed) is inside the real `root`: a link out of web/dist is not served. */
function fileInside(root: string, file: string): { real: string; stats: Stats } | undefined {
  try {
    const real = realpathSync(file);
    const inside = relative(realpathSync(root), real);
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return undefined;
    const stats = fileStats(real);
    return stats && { real, stats };
  } catch {
    return undefined;
  }
}

/**
 * The file a URL path names inside `root`, or undefined when the path could name anything
 * outside it (`..` plain or percent-encoded, backslashes, NUL) or a dotfile such as the stamp.
 */
function resolveInside(root: string, path: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/');
  if (segments.some((segment) => segment.startsWith('.'))) return undefined;
  const file = resolve(root, `.${sep}${segments.filter(Boolean).join(sep)}`);
  const inside = relative(root, file);
  if (inside.startsWith('..') || resolve(root, inside) !== file) return undefined;
  return file;
}

function serveFile(req: IncomingMessage, res: ServerResponse, file: string, stats: Stats, cacheControl: string): void {
  const etag = `W/"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`;
  const headers = {
    'content-type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'cache-control': cacheControl,
    etag,
  };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ...WEB_UI_HEADERS, ...headers });
    res.end();
    return;
  }
  // Opened through no link and checked to be the file its real path names now: a folder swapped
  // for a symlink since fileInside looked does not lead the read out of web/dist.
  const fd = openRealFileSync(file);
  if (fd === null) {
    notFound(req, res);
    return;
  }
  res.writeHead(200, { ...WEB_UI_HEADERS, ...headers, 'content-length': String(fstatSync(fd).size) });
  if (req.method === 'HEAD') {
    closeSync(fd);
    res.end();
    return;
  }
  const stream = createReadStream(file, { fd });
  // Swapped away by a rebuild mid-read: the socket is cut, the browser retries.
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

function notFound(req: IncomingMessage, res: ServerResponse): void {
  send(res, req, 404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, 'Not found.\n');
}

function send(res: ServerResponse, req: IncomingMessage, status: number, headers: Record<string, string>, body: string): void {
  res.writeHead(status, { ...WEB_UI_HEADERS, ...headers, 'content-length': String(Buffer.byteLength(body)) });
  res.end(req.method === 'HEAD' ? undefined : body);
}
