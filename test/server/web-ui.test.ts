/**
 * The web UI served by a real server (src/http/web-ui.ts): content types and cache headers,
 * the Content-Security-Policy, index.html for client-side routes, GraphiQL still at /graphql,
 * path traversal kept inside the folder, the token not needed for the static files (but still
 * for the API), and the 503 page when the UI is not built. Raw paths go through node:http,
 * since fetch and URL normalise `..` away.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { capturedLogger } from '../helpers/logger.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { createSessionBody } from '../security/boundary-helpers.js';

const CSP =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'";
const TOKEN = 'tok_0123456789abcdefABCDEF';
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/app-1a2b3c.js"></script></head><body>UI-INDEX-MARKER</body></html>';
const SCRIPT = 'console.log("UI-SCRIPT-MARKER");';
const SECRET = 'SECRET-OUTSIDE-THE-UI';
const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request with `path` sent exactly as given (no URL normalisation). */
function raw(base: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Raw> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A built UI in a temp folder, with a secret file beside it that must never be served. */
function fakeBuild(options: { stamp?: boolean } = {}): string {
  const parent = tempDir('em-web-');
  const dir = join(parent, 'dist');
  mkdirSync(join(dir, 'assets'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'app-1a2b3c.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'app-1a2b3c.css'), 'body{color:red}');
  if (options.stamp !== false) writeFileSync(join(dir, '.build-stamp'), 'STAMP-HASH\n');
  writeFileSync(join(parent, 'secret.txt'), SECRET);
  return dir;
}

function expectUiHeaders(response: Raw): void {
  expect(response.headers['content-security-policy']).toBe(CSP);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
}

describe('the web UI at /', () => {
  it('serves index.html without caching, assets as JavaScript and CSS cached for good, with the CSP on each', async () => {
    const api = await startTestServer({ webDir: fakeBuild() });
    const page = await raw(api.url, '/', { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.body).toBe(INDEX);
    expectUiHeaders(page);

    const script = await raw(api.url, '/assets/app-1a2b3c.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body).toBe(SCRIPT);
    expectUiHeaders(script);

    const style = await raw(api.url, '/assets/app-1a2b3c.css?v=1');
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(style.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const head = await raw(api.url, '/assets/app-1a2b3c.js', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(SCRIPT)));
    expect(head.body).toBe('');

    const again = await raw(api.url, '/', { headers: { ...HTML, 'if-none-match': String(page.headers.etag) } });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });

  it('answers client-side routes with index.html, unknown assets and non-page requests with 404, other methods with 405', async () => {
    const api = await startTestServer({ webDir: fakeBuild() });
    for (const path of ['/sessions/x', '/projects/y', '/sessions/abc?turn=3']) {
      const page = await raw(api.url, path, { headers: HTML });
      expect(page.status, path).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.body).toBe(INDEX);
    }
    const missingAsset = await raw(api.url, '/assets/nope-123.js', { headers: HTML });
    expect(missingAsset.status).toBe(404);
    expectUiHeaders(missingAsset);
    expect((await raw(api.url, '/sessions/x', { headers: { accept: 'application/json' } })).status).toBe(404);

    const post = await raw(api.url, '/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expectUiHeaders(post);
    expect((await raw(api.url, '/sessions/x', { method: 'DELETE' })).status).toBe(405);
  });

  it('still renders GraphiQL for a browser at /graphql, and /health stays JSON', async () => {
    const api = await startTestServer({ webDir: fakeBuild() });
    const graphiql = await raw(api.url, '/graphql', { headers: HTML });
    expect(graphiql.status).toBe(200);
    expect(graphiql.headers['content-type']).toContain('text/html');
    expect(graphiql.body).toContain('renderYogaGraphiQL');
    expect(graphiql.body).not.toContain('UI-INDEX-MARKER');
    // Another page cannot frame GraphiQL (a prefilled mutation would be one click from running).
    expect(graphiql.headers['content-security-policy']).toBe("frame-ancestors 'none'");
    expect(graphiql.headers['x-frame-options']).toBe('DENY');
    const health = await raw(api.url, '/health', { headers: HTML });
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok', database: 'ok', sessionsFolder: 'ok' });
  });

  it('never serves a file outside the folder, nor its dotfiles', async () => {
    const api = await startTestServer({ webDir: fakeBuild() });
    const attempts = [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/%2E%2E/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/assets\\..\\..\\secret.txt',
      '/assets/%5c..%5c..%5csecret.txt',
      '/index.html%00.js',
      '/assets/app-1a2b3c.js%00',
      '/.build-stamp',
      '/%2ebuild-stamp',
      '/assets/%E0%A4%A.js',
    ];
    for (const path of attempts) {
      for (const headers of [HTML, { accept: '*/*' }]) {
        const response = await raw(api.url, path, { headers });
        expect(response.status, `${path} ${headers.accept}`).toBe(404);
        expect(response.body).not.toContain(SECRET);
        expect(response.body).not.toContain('STAMP-HASH');
      }
    }
  });

  it('never follows a symbolic link out of the folder', async () => {
    const dir = fakeBuild();
    symlinkSync(join(dir, '..', 'secret.txt'), join(dir, 'passwd.txt'));
    symlinkSync(join(dir, '..'), join(dir, 'assets', 'up'));
    symlinkSync(join(dir, 'assets', 'app-1a2b3c.js'), join(dir, 'assets', 'alias.js'));
    const api = await startTestServer({ webDir: dir });
    for (const path of ['/passwd.txt', '/assets/up/secret.txt']) {
      const response = await raw(api.url, path, { headers: { accept: '*/*' } });
      expect(response.status, path).toBe(404);
      expect(response.body).not.toContain(SECRET);
    }
    // A link that stays inside is served.
    expect((await raw(api.url, '/assets/alias.js')).body).toBe(SCRIPT);
  });

  it('needs no token for the static files, while the API still does; Host and Origin are still checked', async () => {
    const api = await startTestServer({ token: TOKEN, webDir: fakeBuild() }, {}, { token: null });
    const page = await raw(api.url, '/sessions/x', { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.body).toBe(INDEX);
    expect((await raw(api.url, '/assets/app-1a2b3c.js')).status).toBe(200);

    const post = await raw(api.url, '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: createSessionBody('no-token') });
    expect(post.status).toBe(401);
    const postRoot = await raw(api.url, '/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(postRoot.status).toBe(401);

    const port = new URL(api.url).port;
    expect((await raw(api.url, '/', { headers: { ...HTML, host: `evil.example:${port}` } })).status).toBe(403);
    expect((await raw(api.url, '/', { headers: { ...HTML, origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('answers 503 with a page saying how to build the UI when it is missing or has no stamp, and warns once at start', async () => {
    for (const webDir of [join(tempDir('em-web-'), 'dist'), fakeBuild({ stamp: false })]) {
      const { logger, lines } = capturedLogger<{ level: number; msg: string }>();
      const api = await startTestServer({ webDir }, {}, { logger });
      for (const path of ['/', '/sessions/x', '/assets/app-1a2b3c.js']) {
        const response = await raw(api.url, path, { headers: HTML });
        expect(response.status, path).toBe(503);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.body).toContain('npm run build:web');
        expectUiHeaders(response);
      }
      expect(lines.filter((line) => line.level === 40 && line.msg.includes('not built'))).toHaveLength(1);
      // The API does not depend on the UI.
      expect((await api.raw('{ sessions(first: 1) { totalCount } }')).data).toEqual({ sessions: { totalCount: 0 } });
    }
  });

  it('serves the real build (web/dist, fresh from the global setup): its module script is JavaScript', async () => {
    const api = await startTestServer();
    const page = await raw(api.url, '/', { headers: HTML });
    expect(page.status).toBe(200);
    const src = /<script type="module"[^>]*\ssrc="(\/assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(src).toBeDefined();
    const script = await raw(api.url, src!);
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body.length).toBeGreaterThan(1000);
  });

  it('ships under 200 KB of gzipped JavaScript at first load of / (issue 27; the markdown parser comes later), GraphiQL not included', async () => {
    const api = await startTestServer();
    const page = await raw(api.url, '/', { headers: HTML });
    const scripts = [...page.body.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
    const preloads = [...page.body.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    let gzipped = 0;
    let production = false;
    for (const src of [...scripts, ...preloads]) {
      const script = await raw(api.url, src);
      expect(script.status).toBe(200);
      expect(script.body).not.toContain('graphiql');
      gzipped += gzipSync(Buffer.from(script.body)).length;
      // React's production build (its errors are minified), though this suite runs with NODE_ENV=test.
      production ||= script.body.includes('Minified React error');
    }
    expect(gzipped).toBeLessThan(200 * 1024);
    expect(production, "React's development build was shipped").toBe(true);
  });
});
