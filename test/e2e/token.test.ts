/**
 * The token in a real browser, against a server that requires one (ui.md): `/#token=…` is
 * taken once into sessionStorage and removed from the address bar, and the UI's requests then
 * carry it (the Sessions navigation lists a session made through the API, also after a
 * reload); without it the UI says visibly that the sessions could not be loaded. GraphiQL
 * takes the token the same way.
 */
import { describe, expect, it } from 'vitest';
import type { Page, Response } from 'playwright-core';
import { CreateSession } from '../api/operations.js';
import { startTestServer } from '../helpers/server.js';
import { openPage, screenshot } from './browser.js';

const TOKEN = 'e2e-token-0123456789abcdef';
const STORAGE_KEY = 'entity-memory.token';

/** Statuses of the page's /graphql responses, as they come. */
function graphqlStatuses(page: Page): number[] {
  const statuses: number[] = [];
  page.on('response', (response: Response) => {
    if (new URL(response.url()).pathname === '/graphql') statuses.push(response.status());
  });
  return statuses;
}

describe('the token in the browser', () => {
  it('takes #token= into sessionStorage, clears it from the address bar, and lists the sessions with it', async () => {
    const api = await startTestServer({ token: TOKEN });
    expect(api.token).toBe(TOKEN);
    await api.ok(CreateSession, { input: { sessionId: 'token-e2e', title: 'Made through the API' } });

    const { page, blocked } = await openPage(api.url);
    const statuses = graphqlStatuses(page);
    await page.goto(`${api.url}/#token=${TOKEN}`);
    const sessions = page.getByRole('navigation', { name: 'Sessions' });
    await expect.poll(() => sessions.getByRole('link', { name: 'Made through the API' }).isVisible(), { timeout: 45_000 }).toBe(true);

    expect(await page.evaluate(() => location.hash)).toBe('');
    expect(page.url()).not.toContain(TOKEN);
    expect(await page.evaluate((key) => sessionStorage.getItem(key), STORAGE_KEY)).toBe(TOKEN);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    await screenshot(page, 'token-sessions');

    // A reload has no fragment any more: the token comes from sessionStorage.
    await page.reload();
    await expect.poll(() => sessions.getByRole('link', { name: 'Made through the API' }).isVisible(), { timeout: 45_000 }).toBe(true);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(blocked.urls).toEqual([]);
  });

  it('shows visibly that the sessions could not be loaded when the page has no token', async () => {
    const api = await startTestServer({ token: TOKEN });
    await api.ok(CreateSession, { input: { sessionId: 'token-e2e', title: 'Made through the API' } });

    const { page, blocked } = await openPage(api.url);
    const statuses = graphqlStatuses(page);
    await page.goto(`${api.url}/`);
    const sessions = page.getByRole('navigation', { name: 'Sessions' });
    const error = sessions.getByRole('alert');
    await expect.poll(() => error.isVisible(), { timeout: 45_000 }).toBe(true);
    expect(await error.innerText()).toContain('Sessions could not be loaded');
    expect(await sessions.getByRole('link').count()).toBe(0);
    expect(statuses).toContain(401);
    await screenshot(page, 'token-missing');
    expect(blocked.urls).toEqual([]);
  });

  it('gives GraphiQL the token from #token= too: its query gets data', async () => {
    const api = await startTestServer({ token: TOKEN });
    await api.ok(CreateSession, { input: { sessionId: 'token-e2e', title: 'Made through the API' } });

    const { page, blocked } = await openPage(api.url);
    await page.goto(`${api.url}/graphql#token=${TOKEN}`);
    expect(await page.evaluate(() => location.hash)).toBe('');
    const editor = page.getByRole('region', { name: 'Operation Editor' });
    await editor.getByText('query Sessions {', { exact: true }).click({ timeout: 45_000 });
    await page.keyboard.press('Control+Enter');
    const result = page.getByRole('region', { name: 'Result Window' });
    await expect.poll(async () => (await result.innerText()).replace(/\u00a0/g, ' '), { timeout: 45_000 }).toContain('"title": "Made through the API"');
    expect(blocked.urls).toEqual([]);
  });
});
