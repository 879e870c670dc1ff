/**
 * GraphiQL at /graphql in headless Chromium with every other origin blocked: the page loads
 * from the server alone, its editor opens on the sample operations, the sample query runs
 * over HTTP and shows the server's answer, and the sample subscription runs over graphql-ws
 * and shows a turn committed while it listens.
 */
import { describe, expect, it } from 'vitest';
import type { Locator, Page, WebSocket } from 'playwright-core';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { startTestServer } from '../helpers/server.js';
import { openPage, screenshot } from './browser.js';

/** An editor's text as shown, with Monaco's non-breaking spaces read as spaces. */
async function textOf(editor: Locator): Promise<string> {
  return (await editor.innerText()).replace(/\u00a0/g, ' ');
}

/** Clicks the editor line showing `text` (Monaco runs the operation under the cursor). */
async function runOperationAt(page: Page, text: string) {
  await page.getByRole('region', { name: 'Operation Editor' }).getByText(text, { exact: true }).click();
  await page.keyboard.press('Control+Enter');
}

describe('GraphiQL in a browser', () => {
  it('loads with no other origin reachable, runs the sample query, and runs the sample subscription over graphql-ws', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'graphiql-e2e', title: 'Seen in GraphiQL' } });
    await api.ok(RecordTurn, { input: { sessionId: 'graphiql-e2e', user: { content: 'first question' }, assistant: { content: 'first answer' } } });

    const { page, blocked, errors } = await openPage(api.url);
    // Tall enough that Monaco renders every line of the sample (it draws only the visible ones).
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.goto(`${api.url}/graphql`);

    const editor = page.getByRole('region', { name: 'Operation Editor' });
    await expect.poll(() => textOf(editor), { timeout: 45_000 }).toContain('subscription TurnCommitted {');
    const sample = await textOf(editor);
    expect(sample).toContain('query Sessions {');
    expect(sample).toContain('timeline(first: 5) {');

    const result = page.getByRole('region', { name: 'Result Window' });
    await runOperationAt(page, 'query Sessions {');
    await expect.poll(() => textOf(result), { timeout: 45_000 }).toContain('"headline": "turn 1: first question"');
    expect(await textOf(result)).toContain('"title": "Seen in GraphiQL"');

    // The subscription: wait until its `subscribe` message is on the socket, then commit a turn.
    const socket = page.waitForEvent('websocket');
    await runOperationAt(page, 'subscription TurnCommitted {');
    const ws: WebSocket = await socket;
    expect(new URL(ws.url()).pathname).toBe('/graphql');
    await ws.waitForEvent('framesent', { predicate: (frame) => String(frame.payload).includes('"type":"subscribe"'), timeout: 45_000 });
    await api.ok(RecordTurn, { input: { sessionId: 'graphiql-e2e', user: { content: 'second question' }, assistant: { content: 'second answer' } } });
    await expect.poll(() => textOf(result), { timeout: 45_000 }).toContain('"headline": "turn 2: second question"');
    expect(await textOf(result)).toContain('"turnCommitted"');

    await screenshot(page, 'graphiql-subscription');
    expect(blocked.urls).toEqual([]);
    expect(errors.filter((e) => e.startsWith('pageerror'))).toEqual([]);
  });
});
