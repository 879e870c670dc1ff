/**
 * The browser boundary against a real server: a page on another site (foreign Origin), a
 * cross-site form post, DNS rebinding (a foreign Host), over HTTP and the WebSocket upgrade.
 * Each refusal also proves nothing was written.
 */
import { describe, expect, it } from 'vitest';
import { CreateSession } from '../api/operations.js';
import { startTestServer } from '../helpers/server.js';
import { rawWs, wsClient, wsRequest } from '../helpers/ws.js';
import { corsHeaders, createSessionBody, send, writtenState } from './boundary-helpers.js';

const json = { 'content-type': 'application/json', accept: 'application/json' };
const SESSIONS_QUERY = '{ sessions(first: 1) { totalCount } }';

describe('Origin', () => {
  it('refuses a foreign origin on POST and GET with 403 FORBIDDEN, no CORS headers, and writes nothing', async () => {
    const api = await startTestServer();
    const before = await writtenState(api);
    for (const origin of ['http://evil.example', 'null', `http://localhost:1`, 'https://127.0.0.1:443']) {
      const post = await send(`${api.url}/graphql`, { method: 'POST', headers: { ...json, origin }, body: createSessionBody('evil') });
      expect(post.status, origin).toBe(403);
      expect(post.json?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(post.json?.errors?.[0]?.message).toContain('--allowed-origin');
      expect(corsHeaders(post)).toEqual([]);

      const get = await send(`${api.url}/graphql?query=${encodeURIComponent(SESSIONS_QUERY)}`, {
        headers: { origin, 'x-graphql-yoga-csrf': '1' },
      });
      expect(get.status, origin).toBe(403);
      expect(corsHeaders(get)).toEqual([]);
      expect(get.body).not.toContain('totalCount');

      const preflight = await send(`${api.url}/graphql`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(preflight.status).toBe(403);
      expect(corsHeaders(preflight)).toEqual([]);
    }
    expect(await writtenState(api)).toEqual(before);
    expect(before.sessions).toBe(0);
  });

  it("serves its own origin, the loopback spellings of it, and requests without an Origin", async () => {
    const api = await startTestServer();
    const port = new URL(api.url).port;
    for (const origin of [api.url, `http://localhost:${port}`, `http://[::1]:${port}`, undefined]) {
      const response = await send(`${api.url}/graphql`, {
        method: 'POST',
        headers: { ...json, ...(origin ? { origin } : {}) },
        body: JSON.stringify({ query: SESSIONS_QUERY }),
      });
      expect(response.status, origin).toBe(200);
      expect(response.json?.data).toEqual({ sessions: { totalCount: 0 } });
      // Echoed exactly for an allowed origin, never with credentials.
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    }
    // Same host name, other port: another local app, not us.
    const other = await send(`${api.url}/graphql`, {
      method: 'POST',
      headers: { ...json, origin: `http://127.0.0.1:${Number(port) === 65535 ? 1 : Number(port) + 1}` },
      body: JSON.stringify({ query: SESSIONS_QUERY }),
    });
    expect(other.status).toBe(403);
  });

  it('serves an --allowed-origin and the --public-url origin, with a preflight that names exactly that origin', async () => {
    const api = await startTestServer({ allowedOrigins: ['http://app.example:5173'], publicUrl: 'https://mem.example' });
    // A public URL means a token (generated here), which an allowed page sends like any client.
    const json = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${api.token}` };
    for (const origin of ['http://app.example:5173', 'https://mem.example']) {
      const preflight = await send(`${api.url}/graphql`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(origin);
      expect(preflight.headers['access-control-allow-headers']).toContain('authorization');
      expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
      expect(preflight.headers.vary).toContain('Origin');

      const post = await send(`${api.url}/graphql`, { method: 'POST', headers: { ...json, origin }, body: createSessionBody(`from-${new URL(origin).hostname}`) });
      expect(post.status).toBe(200);
      expect(post.headers['access-control-allow-origin']).toBe(origin);
    }
    expect((await writtenState(api)).sessions).toBe(2);
    expect((await send(`${api.url}/graphql`, { method: 'POST', headers: { ...json, origin: 'http://app.example:5174' }, body: '{}' })).status).toBe(403);
  });

  it('refuses the WebSocket upgrade from a foreign origin before the handshake, and takes its own', async () => {
    const api = await startTestServer();
    for (const origin of ['http://evil.example', 'null']) {
      const refused = await rawWs(api.url, { headers: { origin } }).outcome;
      expect(refused).toMatchObject({ kind: 'refused', status: 403 });
      if (refused.kind === 'refused') expect(JSON.parse(refused.body).errors[0].extensions.code).toBe('FORBIDDEN');
    }
    const own = wsClient(api.url, { headers: { origin: api.url } });
    const created = await wsRequest(own, CreateSession, { input: { sessionId: 'own-origin' } });
    expect(created.errors).toBeUndefined();
    expect((await writtenState(api)).sessions).toBe(1);
  });
});

describe('request bodies', () => {
  it('refuses form, multipart, text/plain and untyped POSTs with 415 and writes nothing', async () => {
    const api = await startTestServer();
    const before = await writtenState(api);
    const query = encodeURIComponent(`mutation { createSession(input: { sessionId: "form" }) { sessionId } }`);
    const bodies: [string | undefined, string][] = [
      ['application/x-www-form-urlencoded', `query=${query}`],
      ['multipart/form-data; boundary=X', `--X\r\nContent-Disposition: form-data; name="query"\r\n\r\n${decodeURIComponent(query)}\r\n--X--\r\n`],
      ['text/plain;charset=UTF-8', createSessionBody('plain')],
      ['TEXT/PLAIN', createSessionBody('upper')],
      [undefined, createSessionBody('untyped')],
    ];
    for (const [contentType, body] of bodies) {
      // No Origin: a form post from a page would also be refused by Origin; this is the second wall.
      const response = await send(`${api.url}/graphql`, { method: 'POST', headers: contentType ? { 'content-type': contentType } : {}, body });
      expect(response.status, contentType).toBe(415);
      expect(response.json?.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(response.json?.errors?.[0]?.message).toContain('application/json');
    }
    expect(await writtenState(api)).toEqual(before);
  });

  it('runs a GET query only with the CSRF header (a link or an <img> cannot add one)', async () => {
    const api = await startTestServer();
    const url = `${api.url}/graphql?query=${encodeURIComponent(SESSIONS_QUERY)}`;
    const bare = await send(url, { headers: { accept: 'application/json' } });
    expect(bare.status).toBe(403);
    expect(bare.json?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(bare.json?.errors?.[0]?.message).toContain('x-graphql-yoga-csrf');
    expect(bare.body).not.toContain('totalCount');
    const withHeader = await send(url, { headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1' } });
    expect(withHeader.status).toBe(200);
    expect(withHeader.json?.data).toEqual({ sessions: { totalCount: 0 } });
  });

  it('keeps GraphiQL working: the page renders and its same-origin JSON POST runs', async () => {
    const api = await startTestServer();
    const page = await send(`${api.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('GraphiQL');
    expect(page.body).toContain('entity-memory.token');
    const query = await send(`${api.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', origin: api.url },
      body: JSON.stringify({ query: SESSIONS_QUERY }),
    });
    expect(query.status).toBe(200);
    expect(query.json?.data).toEqual({ sessions: { totalCount: 0 } });
  });
});

describe('Host (DNS rebinding)', () => {
  it('refuses a name it was not given on HTTP and on the upgrade; IP literals and localhost pass', async () => {
    const api = await startTestServer();
    const port = new URL(api.url).port;
    const before = await writtenState(api);
    for (const host of [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `localhost.evil.example:${port}`, 'bad host']) {
      const post = await send(`${api.url}/graphql`, { method: 'POST', headers: { ...json, host }, body: createSessionBody('rebound') });
      expect(post.status, host).toBe(403);
      expect(post.json?.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
      expect(corsHeaders(post)).toEqual([]);
      // Same-origin from the attacker's point of view: the rebinding page sends its own name in both.
      const rebound = await send(`${api.url}/graphql`, {
        method: 'POST',
        headers: { ...json, host, origin: `http://${host}` },
        body: createSessionBody('rebound'),
      });
      expect(rebound.status, host).toBe(403);
      const upgrade = await rawWs(api.url, { headers: { host } }).outcome;
      expect(upgrade, host).toMatchObject({ kind: 'refused', status: 403 });
    }
    expect(await writtenState(api)).toEqual(before);

    for (const host of [`localhost:${port}`, `LOCALHOST:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `10.1.2.3:${port}`]) {
      const ok = await send(`${api.url}/graphql`, { method: 'POST', headers: { ...json, host }, body: JSON.stringify({ query: SESSIONS_QUERY }) });
      expect(ok.status, host).toBe(200);
    }
    expect((await rawWs(api.url, { headers: { host: `localhost:${port}` } }).outcome).kind).toBe('acked');
    // /health is for probes that use whatever name they have; it says ok or unreachable per part, never where.
    expect((await send(`${api.url}/health`, { headers: { host: 'probe.internal' } })).status).toBe(200);
  });

  it('answers to the --public-url and --allowed-origin names', async () => {
    const api = await startTestServer({ publicUrl: 'https://mem.example', allowedOrigins: ['http://ui.example:8080'] });
    const json = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${api.token}` };
    for (const host of ['mem.example', 'ui.example:8080']) {
      const ok = await send(`${api.url}/graphql`, { method: 'POST', headers: { ...json, host }, body: JSON.stringify({ query: SESSIONS_QUERY }) });
      expect(ok.status, host).toBe(200);
    }
    expect((await send(`${api.url}/graphql`, { method: 'POST', headers: { ...json, host: 'other.example' }, body: '{}' })).status).toBe(403);
  });
});
