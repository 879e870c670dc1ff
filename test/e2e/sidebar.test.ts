/**
 * The sidebar's GraphiQL link stays where it is while the page loads: the sessions and projects
 * lists come in after the first paint, and a link below them moved under the pointer as they did.
 * The API's answers are held until the link has been measured, so the lists surely come later.
 */
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { openPage } from './browser.js';

const WAIT = { timeout: 45_000 };

describe('the sidebar', () => {
  it('keeps the GraphiQL link in place while the sessions and projects lists come in', async () => {
    const api = await startTestServer();
    for (let n = 1; n <= 8; n++) {
      expect((await api.raw(`mutation { createSession(input: { sessionId: "s${n}", title: "Session ${n}" }) { sessionId } }`)).errors).toBeUndefined();
    }
    const { page, errors, blocked } = await openPage(api.url);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/graphql', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${api.url}/`);
    const link = page.getByRole('link', { name: 'GraphiQL', exact: true });
    await link.waitFor(WAIT);
    const before = await link.boundingBox();
    expect(await page.getByRole('navigation', { name: 'Sessions', exact: true }).getByRole('link').count()).toBe(0);

    release();
    const sessions = page.getByRole('navigation', { name: 'Sessions', exact: true });
    await expect.poll(() => sessions.getByRole('link', { name: /^Session \d$/ }).count(), WAIT).toBe(8);
    await page.getByRole('navigation', { name: 'Projects', exact: true }).waitFor(WAIT);
    expect(await link.boundingBox()).toEqual(before);
    expect(await link.getAttribute('href')).toBe('/graphql');
    expect(blocked.urls).toEqual([]);
    expect(errors).toEqual([]);
  });
});
