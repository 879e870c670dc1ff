/**
 * Headless Chromium for the end-to-end tests and the UI benchmark: the system's own browser
 * (Debian's `chromium`; playwright-core never downloads one), launched with everything that
 * phones home turned off, and a guard that keeps each page on the server's origin.
 * No vitest here, so bench/ can use it too; test/e2e/browser.ts adds the per-test cleanup.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** The executables looked up on PATH, in this order. */
const NAMES = ['chromium', 'chromium-browser'];

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The first of NAMES found on PATH, or undefined. */
export function chromiumOnPath(path: string = process.env.PATH ?? ''): string | undefined {
  for (const name of NAMES) {
    for (const dir of path.split(delimiter).filter(Boolean)) {
      const candidate = join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not in this folder
      }
    }
  }
  return undefined;
}

/**
 * The Chromium executable.
 * @throws Error saying how to install it when none is on PATH.
 */
export function findChromium(): string {
  const found = chromiumOnPath();
  if (!found) {
    throw new Error(
      `No Chromium on PATH (looked for ${NAMES.join(', ')}). The end-to-end tests use the system's browser: ` +
        'install Debian\'s chromium: apt-get install -y chromium',
    );
  }
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
}

/** What a context tried to load from elsewhere (aborted by noNetwork, seen by watchOrigins); a test expects it empty. */
export interface BlockedRequests {
  readonly urls: string[];
}

/**
 * Aborts every request of the context that is not to `allowedOrigin` (http and ws alike),
 * and records it. Data and blob URLs are the page's own and pass.
 */
export async function noNetwork(context: BrowserContext, allowedOrigin: string): Promise<BlockedRequests> {
  const { isLocal, isLocalSocket } = originOf(allowedOrigin);
  const blocked: BlockedRequests = { urls: [] };
  await context.route(
    () => true,
    (route) => {
      const url = route.request().url();
      if (isLocal(url)) return route.continue();
      blocked.urls.push(url);
      return route.abort('blockedbyclient');
    },
  );
  await context.routeWebSocket(
    () => true,
    (ws) => {
      const url = ws.url();
      if (isLocalSocket(url)) return ws.connectToServer();
      blocked.urls.push(url);
      return ws.close({ code: 1008, reason: 'blocked by the test' });
    },
  );
  return blocked;
}

/**
 * Records, without intercepting, every request and WebSocket of the context that is not to
 * `allowedOrigin`, for benchmarks: interception (noNetwork) sends each request through this
 * process and puts a WebSocket stand-in in the page, which cost a cold open of the session
 * page ~200 ms on a 2-core machine. The page's Content-Security-Policy keeps it to its origin
 * anyway; a benchmark expects the list empty.
 */
export function watchOrigins(context: BrowserContext, allowedOrigin: string): BlockedRequests {
  const { isLocal, isLocalSocket } = originOf(allowedOrigin);
  const seen: BlockedRequests = { urls: [] };
  context.on('request', (request) => {
    if (!isLocal(request.url())) seen.urls.push(request.url());
  });
  context.on('page', (page) =>
    page.on('websocket', (ws) => {
      if (!isLocalSocket(ws.url())) seen.urls.push(ws.url());
    }),
  );
  return seen;
}

/** What counts as `allowedOrigin`'s own: a request to it (data and blob URLs too), a WebSocket to its host. */
function originOf(allowedOrigin: string): { isLocal: (url: string) => boolean; isLocalSocket: (url: string) => boolean } {
  const allowed = new URL(allowedOrigin);
  const wsOrigin = `${allowed.protocol === 'https:' ? 'wss:' : 'ws:'}//${allowed.host}`;
  return {
    isLocal: (url) => {
      if (url.startsWith('data:') || url.startsWith('blob:')) return true;
      try {
        return new URL(url).origin === allowed.origin;
      } catch {
        return false;
      }
    },
    isLocalSocket: (url) => url.startsWith(`${wsOrigin}/`),
  };
}
