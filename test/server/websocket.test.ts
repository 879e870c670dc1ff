import { describe, expect, it } from 'vitest';
import { CreateSession, SessionView } from '../api/operations.js';
import { startTestServer } from '../helpers/server.js';
import { wsClient, wsRequest } from '../helpers/ws.js';

describe('graphql-ws on /graphql', () => {
  it('runs mutations and queries over a real WebSocket with the graphql-ws client', async () => {
    const api = await startTestServer();
    const client = wsClient(api.url);
    const created = await wsRequest(client, CreateSession, { input: { sessionId: 'ws-1', title: 'over a socket' } });
    expect(created.errors).toBeUndefined();
    expect(created.data?.createSession.sessionId).toBe('ws-1');
    // What the socket wrote is what HTTP reads.
    const viaHttp = await api.ok(SessionView, { sessionId: 'ws-1' });
    expect(viaHttp.session?.title).toBe('over a socket');

    const bad = await wsRequest(client, CreateSession, { input: { sessionId: '../ws' } });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
