/**
 * Issue 29: both transports and the gate. `/mcp` refuses what `/graphql` refuses (a foreign Origin,
 * a foreign Host, a missing or wrong token once one is set) before any MCP session exists;
 * `entity-memory mcp` relays stdio to the running server, says in one line when there is none,
 * and keeps working across a restart of the server.
 */
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { EMBEDDED } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { send } from '../security/boundary-helpers.js';
import { callTool, httpClient, ok, stdioClient } from './mcp-client.js';

const TOKEN = 'tok_mcp_0123456789abcdefABCDEF';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
});
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function recordTurn(api: TestServer, sessionId: string, content: string): Promise<void> {
  const created = await api.raw('mutation($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }', { id: sessionId });
  expect(created.errors).toBeUndefined();
  const result = await api.raw(
    'mutation($input: RecordTurnInput!) { recordTurn(input: $input) { number } }',
    { input: { sessionId, user: { content }, assistant: { content: `Answered: ${content}` } } },
  );
  expect(result.errors).toBeUndefined();
}

describe('/mcp behind the gate of /graphql', () => {
  it('refuses a foreign Origin, a foreign Host and a missing or wrong token, and opens no session', async () => {
    const api = await startTestServer({ token: TOKEN }, {}, { token: null });
    const url = `${api.url}/mcp`;
    const auth = { authorization: `Bearer ${TOKEN}` };
    const refusals: [Record<string, string>, number, string][] = [
      [{}, 401, 'UNAUTHENTICATED'],
      [{ authorization: `Bearer ${TOKEN}x` }, 401, 'UNAUTHENTICATED'],
      [{ ...auth, origin: 'http://evil.example' }, 403, 'FORBIDDEN'],
      [{ ...auth, host: 'evil.example' }, 403, 'FORBIDDEN'],
    ];
    for (const [headers, status, code] of refusals) {
      const post = await send(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: INITIALIZE });
      expect(post.status, JSON.stringify(headers)).toBe(status);
      expect(post.json?.errors?.[0]?.extensions?.code).toBe(code);
      expect(post.headers['mcp-session-id']).toBeUndefined();
    }
    // A GET with a browser's Accept is not the web UI's token-free page here.
    const page = await send(url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(401);
    // A form post (no preflight from a browser) is refused like one to /graphql.
    const form = await send(url, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: INITIALIZE });
    expect(form.status).toBe(415);
    expect((await api.server.app.mcp()).sessions()).toBe(0);

    // With the token: a session, then an unknown session id is 404 (the client initializes again).
    const client = await httpClient({ ...api, token: TOKEN });
    expect((await client.listTools()).tools).toHaveLength(8);
    expect((await api.server.app.mcp()).sessions()).toBe(1);
    const stale = await send(url, {
      method: 'POST',
      headers: { ...HEADERS, ...auth, 'mcp-session-id': 'not-a-session', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(stale.status).toBe(404);
    const noSession = await send(url, { method: 'POST', headers: { ...HEADERS, ...auth }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(noSession.status).toBe(400);
    expect(noSession.body).toMatch(/the first request of a session is initialize/);
    const junk = await send(url, { method: 'POST', headers: { ...HEADERS, ...auth }, body: '{"jsonrpc":' });
    expect(junk.status).toBe(400);
  });
});

describe('resources/list', () => {
  it('pages through every session, newest first, 50 at a time', async () => {
    const api = await startTestServer();
    for (let n = 0; n < 55; n++) await recordTurn(api, `paged-${String(n).padStart(2, '0')}`, `prompt ${n}`);
    const client = await httpClient(api);
    const first = await client.listResources();
    expect(first.resources).toHaveLength(50);
    expect(first.resources[0]).toMatchObject({ uri: 'entity-memory://session/paged-54', mimeType: 'text/markdown' });
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listResources({ cursor: first.nextCursor });
    expect(second.resources.map((r) => r.uri)).toEqual(['paged-04', 'paged-03', 'paged-02', 'paged-01', 'paged-00'].map((id) => `entity-memory://session/${id}`));
    expect(second.nextCursor).toBeUndefined();
  });
});

describe('entity-memory mcp (stdio)', () => {
  it('relays the tools and resources of the server running on the data dir, across restarts of that server, on its port or another', async () => {
    const dataDir = tempDir();
    let api = await startTestServer({ dataDir, ...EMBEDDED });
    await recordTurn(api, 'stdio-1', 'how do we rotate the signing keys');
    const client = await stdioClient(dataDir);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('get_turn_diff');
    const found = await ok(client, 'search', { query: 'signing keys', role: 'user' });
    expect(found.data).toMatchObject({ totalCount: 1, hits: [{ session: 'stdio-1', turn: 1, role: 'user' }] });
    const turn = await ok(client, 'get_turn', { session: 'stdio-1' });
    expect(turn.data).toMatchObject({ prompt: 'how do we rotate the signing keys', reply: 'Answered: how do we rotate the signing keys', project: null });
    const resource = await client.readResource({ uri: 'entity-memory://session/stdio-1/turn/1' });
    expect((resource.contents[0] as { text: string }).text).toContain('how do we rotate the signing keys');
    const bad = await callTool(client, 'get_turn', { session: 'stdio-1', turn: 'last' });
    expect(bad.isError).toBe(true);

    // The server restarts on the same data dir: the relay opens a new MCP session and goes on.
    await api.server.stop();
    const down = await callTool(client, 'get_turn', { session: 'stdio-1' }).then(
      (answer) => answer.text,
      (error: Error) => error.message,
    );
    expect(down).toMatch(/did not answer.*is it still running\?/);
    api = await startTestServer({ dataDir, ...EMBEDDED, port: Number(new URL(api.url).port) });
    const after = await ok(client, 'get_turn', { session: 'stdio-1' });
    expect(after.data).toMatchObject({ turn: 1 });

    // Started again on another port (a free one, whichever the system gives): the relay reads where from the data dir's server.json.
    await api.server.stop();
    api = await startTestServer({ dataDir, ...EMBEDDED });
    const moved = await ok(client, 'search', { query: 'signing keys', role: 'user' });
    expect(moved.data).toMatchObject({ totalCount: 1 });
  });

  it('says in one line that no server runs on the data dir, and exits 2', async () => {
    const dataDir = tempDir();
    const run = await cli(['mcp', '--data-dir', dataDir]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`entity-memory: no entity-memory server is running on the data dir ${dataDir}: start one (entity-memory serve, or npm start in its folder) and the agent's MCP server again\n`);
    const flag = await cli(['mcp', '--nope']);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/^entity-memory: Unknown option '--nope'/);
  });
});
