/**
 * The UI's live connection across a server restart (issue 12: "a lost WebSocket reconnects
 * and refetches what it missed"). A session page is open on a server with a fixed port; the
 * server stops and a second one starts on the same port and data folder. The page's
 * reconnect is held at the browser (routeWebSocket) until a turn has been recorded and
 * committed through the second server, so the COMMITTED event is published while the page is
 * not subscribed: the new turn can only reach the page through the refetch that follows the
 * reconnect. A turn recorded after that arrives live.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Page, WebSocketRoute } from 'playwright-core';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { BranchView } from '../branching/operations.js';
import { eventually } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { openPage, screenshot } from './browser.js';

const WAIT = { timeout: 45_000 };
const SESSION = 'reconnect';

/** A port nothing listens on now (the OS's pick, released again). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((resolve, reject) => probe.close((error) => (error ? reject(error) : resolve())));
  return address.port;
}

function recordTurn(api: TestServer, n: number, user: string) {
  return api.ok(RecordTurn, {
    input: { sessionId: SESSION, user: { messageId: `u${n}`, content: user }, assistant: { messageId: `a${n}`, content: `Reply ${n}.` } },
  });
}

/** Resolves once the mirror has every turn of the session in git (its COMMITTED events are out). */
function settled(api: TestServer, turns: number) {
  return eventually(async () => {
    const { session } = await api.ok(BranchView, { sessionId: SESSION });
    return session?.mirror.inSync && session.head?.turn?.number === turns ? session : undefined;
  });
}

/** The position text ("Turn X / Y") the page shows now. */
async function position(page: Page): Promise<string> {
  const text = await page.getByText(/Turn \d+ \/ \d+/).first().textContent();
  return text?.trim() ?? '';
}

/**
 * The page's /graphql sockets, passed through to the server (frames relayed one by one so the
 * server's connection_ack can be counted), except that a new socket waits while `hold()` is on:
 * the page sees it still connecting, and nothing reaches the server until `release()`.
 */
async function gateGraphqlSockets(page: Page, origin: string) {
  const url = `${origin.replace(/^http/, 'ws')}/graphql`;
  let open: () => void = () => {};
  let gate: Promise<void> | undefined;
  const state = { held: 0, acks: 0 };
  await page.routeWebSocket(url, async (ws: WebSocketRoute) => {
    if (gate) {
      state.held += 1;
      await gate;
    }
    const server = ws.connectToServer();
    ws.onMessage((message) => server.send(message));
    server.onMessage((message) => {
      if (typeof message === 'string' && JSON.parse(message).type === 'connection_ack') state.acks += 1;
      ws.send(message);
    });
  });
  return {
    state,
    hold() {
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    release() {
      gate = undefined;
      open();
    },
  };
}

describe('the live connection across a server restart', () => {
  it('reconnects, refetches the turn it missed, and follows new turns live again', async () => {
    const port = await freePort();
    const first = await startTestServer({ port });
    await first.ok(CreateSession, { input: { sessionId: SESSION, title: 'Survives a restart' } });
    await recordTurn(first, 1, 'First question');
    await recordTurn(first, 2, 'Second question');
    await settled(first, 2);

    const { page, blocked, errors } = await openPage(first.url);
    const sockets = await gateGraphqlSockets(page, first.url);
    await page.goto(`${first.url}/sessions/${SESSION}`);
    const main = page.getByRole('main');
    const timeline = page.getByRole('list', { name: 'Timeline', exact: true });
    await expect.poll(() => position(page), WAIT).toBe('Turn 2 / 2');
    await expect.poll(() => timeline.getByRole('listitem').count(), WAIT).toBe(2);
    // The live connection is up (acknowledged) before the server goes away.
    await expect.poll(() => sockets.state.acks, WAIT).toBe(1);

    // The server stops; the page's next sockets are held until the missed turn is in.
    sockets.hold();
    await first.server.stop();
    const second = await startTestServer({ port, dataDir: first.dataDir });
    expect(second.url).toBe(first.url);
    const missed = 'Asked while the page was away';
    await recordTurn(second, 3, missed);
    await settled(second, 3);
    // The page has tried to reconnect (held), and has not been connected to the second server.
    await expect.poll(() => sockets.state.held, WAIT).toBeGreaterThanOrEqual(1);
    expect(sockets.state.acks).toBe(1);
    expect(await position(page)).toBe('Turn 2 / 2');

    // Let it through: the refetch after the reconnect brings the missed turn, without a reload.
    sockets.release();
    await expect.poll(() => sockets.state.acks, WAIT).toBe(2);
    await expect.poll(() => position(page), { ...WAIT, message: `the missed turn after the reconnect; page errors:\n${errors.join('\n')}` }).toBe('Turn 3 / 3');
    await expect.poll(() => main.getByRole('article').filter({ hasText: missed }).count(), WAIT).toBe(1);
    await expect.poll(() => timeline.getByRole('listitem').count(), WAIT).toBe(3);
    await expect.poll(() => timeline.getByRole('listitem').first().innerText(), WAIT).toBe(`turn 3: ${missed}`);

    // Subscribed again: a turn recorded now arrives live.
    const live = 'Asked after the reconnect';
    await recordTurn(second, 4, live);
    await expect.poll(() => position(page), WAIT).toBe('Turn 4 / 4');
    await expect.poll(() => main.getByRole('article').filter({ hasText: live }).count(), WAIT).toBe(1);
    await expect.poll(() => timeline.getByRole('listitem').count(), WAIT).toBe(4);
    expect(sockets.state.acks).toBe(2);
    await screenshot(page, 'reconnect');
    expect(blocked.urls).toEqual([]);
  });
});
