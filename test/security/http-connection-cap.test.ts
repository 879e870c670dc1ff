/**
 * Issue 26 item 7: plain HTTP connections are capped per address as WebSockets are. A peer
 * holding connections open with headers it never finishes (slowloris) gets, beyond the cap, a 503
 * saying why and a closed socket, instead of one file descriptor each; once it lets go, it is
 * served again.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HTTP_CONNECTIONS_BEYOND_WS } from '../../src/http/limits.js';
import { startTestServer } from '../helpers/server.js';

/** A connection that sends half a request's headers and then waits; resolves once connected. */
function slowClient(port: number): Promise<{ socket: Socket; answer: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const answer = new Promise<string>((done) => socket.on('close', () => done(received)));
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      resolve({ socket, answer });
    });
  });
}

describe('HTTP connections per address', () => {
  it('refuses those beyond the cap with a 503 saying why, and serves the address again once it lets go', async () => {
    const api = await startTestServer({ maxWsPerAddress: 2 });
    const port = Number(new URL(api.url).port);
    const cap = 2 + HTTP_CONNECTIONS_BEYOND_WS;
    const held = [];
    for (let i = 0; i < cap; i++) held.push(await slowClient(port));
    // One more: answered 503 and closed by the server, while the others are still held.
    const over = await slowClient(port);
    const refused = await over.answer;
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toContain(`too many connections from 127.0.0.1: ${cap} at most`);
    expect((await fetch(`${api.url}/health`).then((r) => r.status, () => 'refused'))).not.toBe(200);

    // The held ones let go: the next request is served.
    const closed = held.map(({ socket, answer }) => {
      socket.destroy();
      return answer;
    });
    await Promise.all(closed);
    await expect.poll(async () => (await fetch(`${api.url}/health`)).status, { timeout: 20_000 }).toBe(200);
  });
});
