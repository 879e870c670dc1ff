/**
 * The bearer token against a real server: required everywhere but /health once set (HTTP POST
 * and GET, graphql-ws), generated into <data-dir>/token when the server binds beyond loopback,
 * and never written into the JSON log.
 */
import { statSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CreateSession } from '../api/operations.js';
import { startTestServer, testConfig } from '../helpers/server.js';
import { rawWs, wsClient, wsRequest } from '../helpers/ws.js';
import { createSessionBody, send, writtenState } from './boundary-helpers.js';

const TOKEN = 'tok_0123456789abcdefABCDEF';
const json = { 'content-type': 'application/json', accept: 'application/json' };
const SESSIONS_QUERY = '{ sessions(first: 1) { totalCount } }';

/** A logger whose JSON lines the test can read. */
function capturedLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('a token set on loopback', () => {
  it('is required on POST and GET: missing or wrong gets 401 UNAUTHENTICATED with WWW-Authenticate, and nothing is written', async () => {
    const api = await startTestServer({ token: TOKEN }, {}, { token: null });
    const before = await writtenState(api);
    const cases: [Record<string, string>, string][] = [
      [{}, 'Bearer realm="entity-memory"'],
      [{ authorization: `Bearer ${TOKEN}x` }, 'Bearer realm="entity-memory", error="invalid_token"'],
      [{ authorization: `Bearer ${TOKEN.slice(0, -1)}` }, 'Bearer realm="entity-memory", error="invalid_token"'],
      [{ authorization: 'Bearer short' }, 'Bearer realm="entity-memory", error="invalid_token"'],
      // The right token under another scheme is not a bearer token.
      [{ authorization: `Basic ${TOKEN}` }, 'Bearer realm="entity-memory"'],
    ];
    for (const [headers, challenge] of cases) {
      const post = await send(`${api.url}/graphql`, { method: 'POST', headers: { ...json, ...headers }, body: createSessionBody('no-token') });
      expect(post.status, JSON.stringify(headers)).toBe(401);
      expect(post.headers['www-authenticate']).toBe(challenge);
      expect(post.json?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      const get = await send(`${api.url}/graphql?query=${encodeURIComponent(SESSIONS_QUERY)}`, {
        headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1', ...headers },
      });
      expect(get.status).toBe(401);
      expect(get.body).not.toContain('totalCount');
    }
    expect(await writtenState(api)).toEqual(before);

    const right = await send(`${api.url}/graphql`, { method: 'POST', headers: { ...json, authorization: `bearer ${TOKEN}` }, body: createSessionBody('with-token') });
    expect(right.status).toBe(200);
    expect(right.json?.errors).toBeUndefined();
    const get = await send(`${api.url}/graphql?query=${encodeURIComponent(SESSIONS_QUERY)}`, {
      headers: { accept: 'application/json', 'x-graphql-yoga-csrf': '1', authorization: `Bearer ${TOKEN}` },
    });
    expect(get.json?.data).toEqual({ sessions: { totalCount: 1 } });
  });

  it('leaves /health open with nothing but the status of each part, and serves the static GraphiQL page without running its query', async () => {
    const api = await startTestServer({ token: TOKEN }, {}, { token: null });
    const health = await send(`${api.url}/health`);
    expect(health.status).toBe(200);
    // Each part's state and a count: no address, path, version or error text to an unauthenticated caller.
    expect(Object.keys(health.json as object).sort()).toEqual(['database', 'git', 'leases', 'sessionsFolder', 'status', ...(api.server.app.config.redisUrl ? ['redis'] : [])].sort());
    expect(health.json).toMatchObject({ status: 'ok', database: 'ok', sessionsFolder: 'ok', git: 'ok' });

    const mutation = encodeURIComponent('mutation { createSession(input: { sessionId: "via-page" }) { sessionId } }');
    const page = await send(`${api.url}/graphql?query=${mutation}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('entity-memory.token');
    expect(page.body).not.toContain(TOKEN);
    expect((await writtenState(api)).sessions).toBe(0);
  });

  it('closes a graphql-ws connection with 4403 when connectionParams lack the token or carry a wrong one', async () => {
    const api = await startTestServer({ token: TOKEN }, {}, { token: null });
    for (const connectionParams of [undefined, {}, { token: 'wrong-token-0123456789' }, { authorization: `Bearer ${TOKEN}!` }, { token: 42 }]) {
      const outcome = await rawWs(api.url, { connectionParams: connectionParams as Record<string, unknown> | undefined }).outcome;
      expect(outcome, JSON.stringify(connectionParams)).toMatchObject({ kind: 'closed', code: 4403 });
      if (outcome.kind === 'closed') expect(outcome.reason).toContain('token');
    }
    expect((await rawWs(api.url, { connectionParams: { token: TOKEN } }).outcome).kind).toBe('acked');
    const client = wsClient(api.url, { connectionParams: { authorization: `Bearer ${TOKEN}` } });
    const created = await wsRequest(client, CreateSession, { input: { sessionId: 'ws-token' } });
    expect(created.errors).toBeUndefined();
    expect((await writtenState(api)).sessions).toBe(1);
  });
});

describe('no token on loopback', () => {
  it('serves HTTP and graphql-ws without one, as before', async () => {
    const api = await startTestServer();
    expect(api.server.auth).toEqual({ token: undefined, source: 'none', file: undefined });
    const post = await send(`${api.url}/graphql`, { method: 'POST', headers: json, body: JSON.stringify({ query: SESSIONS_QUERY }) });
    expect(post.status).toBe(200);
    expect((await rawWs(api.url).outcome).kind).toBe('acked');
  });
});

describe('binding beyond loopback', () => {
  it('generates a token into <data-dir>/token (0600), requires it, warns without logging it, and reuses it on restart', async () => {
    const { logger, lines } = capturedLogger();
    const config = testConfig({ host: '0.0.0.0' });
    const api = await startTestServer(config, {}, { logger, token: null });
    const file = join(config.dataDir, 'token');
    expect(api.server.auth.source).toBe('generated');
    expect(api.server.auth.file).toBe(file);
    const token = readFileSync(file, 'utf8').trim();
    expect(token).toBe(api.server.auth.token);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const local = `http://127.0.0.1:${api.server.port}`;
    const missing = await send(`${local}/graphql`, { method: 'POST', headers: json, body: createSessionBody('lan') });
    expect(missing.status).toBe(401);
    expect((await rawWs(local).outcome)).toMatchObject({ kind: 'closed', code: 4403 });
    const ok = await send(`${local}/graphql`, { method: 'POST', headers: { ...json, authorization: `Bearer ${token}` }, body: createSessionBody('lan') });
    expect(ok.json?.errors).toBeUndefined();
    expect((await rawWs(local, { connectionParams: { token } }).outcome).kind).toBe('acked');

    const warning = lines.map((line) => JSON.parse(line) as { level: number; msg: string; url?: string; tokenFile?: string }).find((l) => l.level === 40);
    expect(warning?.msg).toContain('beyond loopback');
    expect(warning?.url).toContain('#token=<token>');
    expect(warning?.tokenFile).toBe(file);
    expect(lines.join('\n')).not.toContain(token);

    await api.server.stop();
    // A file left readable by others is tightened; the token in it is kept.
    chmodSync(file, 0o644);
    const again = await startTestServer(config, {}, { token: null });
    expect(again.server.auth).toEqual({ token, source: 'file', file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('also requires one with a --public-url on loopback: a reverse proxy brings the world in over loopback', async () => {
    const api = await startTestServer({ publicUrl: 'https://mem.example' }, {}, { token: null });
    expect(api.server.auth.source).toBe('generated');
    expect(api.server.browseUrl).toBe('https://mem.example');
    const response = await send(`${api.url}/graphql`, { method: 'POST', headers: { ...json, host: 'mem.example' }, body: createSessionBody('proxied') });
    expect(response.status).toBe(401);
    expect((await writtenState(api)).sessions).toBe(0);
  });

  it('uses a configured token instead of generating one (kept in the token file, 0600, for the hooks and the CLI), and replaces a token file holding junk', async () => {
    const configured = testConfig({ host: '0.0.0.0', token: TOKEN });
    writeFileSync(join(configured.dataDir, 'token'), 'an-older-token-0123456789\n', { mode: 0o644 });
    const withToken = await startTestServer(configured, {}, { token: null });
    expect(withToken.server.auth).toEqual({ token: TOKEN, source: 'config', file: join(configured.dataDir, 'token') });
    expect(readFileSync(join(configured.dataDir, 'token'), 'utf8')).toBe(`${TOKEN}\n`);
    expect(statSync(join(configured.dataDir, 'token')).mode & 0o777).toBe(0o600);

    const config = testConfig({ host: '0.0.0.0' });
    writeFileSync(join(config.dataDir, 'token'), 'x\n', { mode: 0o644 });
    const api = await startTestServer(config, {}, { token: null });
    expect(api.server.auth.source).toBe('generated');
    expect(readFileSync(join(config.dataDir, 'token'), 'utf8').trim()).toBe(api.server.auth.token);
    expect(statSync(join(config.dataDir, 'token')).mode & 0o777).toBe(0o600);
  });
});
