/**
 * The script injected into GraphiQL's page, run against a minimal page environment (there is
 * no browser on the test machines): it takes `#token=` once, clears it from the address bar,
 * and adds the token to this server's /graphql requests only.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { TOKEN_SCRIPT, TOKEN_STORAGE_KEY, renderGraphiQLWithToken } from '../../src/http/graphiql.js';

function page(href: string, stored?: string) {
  const storage = new Map<string, string>(stored ? [[TOKEN_STORAGE_KEY, stored]] : []);
  let location = new URL(href);
  const fetched: { url: string; authorization: string | null }[] = [];
  const sent: { url: string; data: string }[] = [];
  class FakeWebSocket {
    constructor(readonly url: string) {}
    send(data: string) {
      sent.push({ url: this.url, data });
    }
  }
  const context: Record<string, unknown> = {
    URL,
    Headers,
    Request,
    WebSocket: FakeWebSocket,
    sessionStorage: { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => storage.set(k, v) },
    history: { replaceState: (_state: unknown, _title: string, url: string) => (location = new URL(url, location)) },
    fetch: (input: string | Request, init?: RequestInit) => {
      const url = input instanceof Request ? input.url : String(input);
      fetched.push({ url: new URL(url, location).href, authorization: new Headers(init?.headers).get('authorization') });
      return Promise.resolve(undefined);
    },
  };
  Object.defineProperty(context, 'location', { get: () => location });
  context.window = context;
  runInNewContext(TOKEN_SCRIPT.replace(/^<script>/, '').replace(/<\/script>$/, ''), context);
  const win = context as { fetch: (input: string | Request, init?: RequestInit) => Promise<unknown>; WebSocket: typeof FakeWebSocket };
  return { win, storage, fetched, sent, location: () => location };
}

describe('the GraphiQL token script', () => {
  it('keeps #token= in sessionStorage, removes it from the address bar, and sends it to /graphql on this origin only', async () => {
    const { win, storage, fetched, location } = page('http://127.0.0.1:4000/graphql?x=1#token=abc%2Bdef');
    expect(storage.get(TOKEN_STORAGE_KEY)).toBe('abc+def');
    expect(location().href).toBe('http://127.0.0.1:4000/graphql?x=1');

    await win.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' } });
    await win.fetch(new Request('http://127.0.0.1:4000/graphql'));
    await win.fetch('https://unpkg.com/@graphql-yoga/graphiql/dist/editor.worker.js');
    await win.fetch('http://127.0.0.1:4001/graphql');
    await win.fetch('/graphql', { headers: { authorization: 'Bearer typed-by-hand' } });
    expect(fetched.map((f) => f.authorization)).toEqual(['Bearer abc+def', 'Bearer abc+def', null, null, 'Bearer typed-by-hand']);
  });

  it('uses the stored token on a reload, adds it to graphql-ws connection_init here only, and does nothing without one', () => {
    const { win, sent } = page('http://localhost:4000/graphql', 'stored-token');
    new win.WebSocket('ws://localhost:4000/graphql').send(JSON.stringify({ type: 'connection_init', payload: { a: 1 } }));
    new win.WebSocket('ws://elsewhere.example/graphql').send(JSON.stringify({ type: 'connection_init' }));
    new win.WebSocket('ws://localhost:4000/graphql').send(JSON.stringify({ type: 'subscribe', id: '1' }));
    expect(sent.map((s) => JSON.parse(s.data) as unknown)).toEqual([
      { type: 'connection_init', payload: { token: 'stored-token', a: 1 } },
      { type: 'connection_init' },
      { type: 'subscribe', id: '1' },
    ]);

    const none = page('http://localhost:4000/graphql');
    void none.win.fetch('/graphql');
    expect(none.fetched[0]?.authorization).toBeNull();
  });

  it('goes into the head of yoga’s page, before GraphiQL’s own scripts', async () => {
    const html = await renderGraphiQLWithToken({ title: 'entity-memory' });
    expect(html.indexOf(TOKEN_SCRIPT)).toBeGreaterThan(html.indexOf('<head>'));
    expect(html.indexOf(TOKEN_SCRIPT)).toBeLessThan(html.indexOf('<script', html.indexOf(TOKEN_SCRIPT) + TOKEN_SCRIPT.length));
  });
});

describe('the GraphiQL page', () => {
  it('loads nothing from another origin: GraphiQL works without the internet', async () => {
    const html = await renderGraphiQLWithToken({ title: 'entity-memory', endpoint: '/graphql' });
    // Every script, style, worker and icon is inline (or a data: URL), none fetched from a CDN.
    expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/\bimport\s*(\(|[^;]*\bfrom\s*)["'](https?:)?\/\//);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr\.net|cdnjs/);
    expect(html).toContain('renderYogaGraphiQL');
    expect(html.length).toBeGreaterThan(1_000_000);
  });
});
