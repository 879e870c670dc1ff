/**
 * Search from the UI (issue 28), in Chromium: `/` focuses the search field, Enter opens the
 * search page with the hits grouped by session and their words marked, a hit opens its session
 * at its turn with the message scrolled into view and marked, a date range narrows, and the address keeps it all; a
 * malformed query is said in words.
 */
import { describe, expect, it } from 'vitest';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { eventually } from '../helpers/git.js';
import { startTestServer } from '../helpers/server.js';
import { openPage } from './browser.js';

const WAIT = { timeout: 45_000 };

/** Today plus `days`, as a date field writes it (the browser's time zone is this process's). */
function localDay(days: number): string {
  const at = new Date();
  at.setDate(at.getDate() + days);
  return `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;
}

describe('search in the UI', () => {
  it('finds a message from the search field and opens it in its session, marked', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'parser', title: 'Fix the parser' } });
    await api.ok(CreateSession, { input: { sessionId: 'other', title: 'Something else' } });
    const turns = [
      ['Where does the lexer start?', 'In src/lexer.ts.'],
      ['Why does the quokka parser hang on CRLF input?', 'The quokka parser loops: its line reader never sees \\r.'],
      ['Then fix it', 'Fixed: the reader splits on \\r\\n too.'],
    ];
    for (const [user, assistant] of turns) await api.ok(RecordTurn, { input: { sessionId: 'parser', user: { content: user! }, assistant: { content: assistant! } } });
    await api.ok(RecordTurn, { input: { sessionId: 'other', user: { content: 'Is the quokka a marsupial?' }, assistant: { content: 'Yes.' } } });
    // The hit opens at its turn's commit: wait until the turns are mirrored.
    await eventually(async () => {
      const result = await api.raw('{ session(sessionId: "parser") { turns(first: 5) { edges { node { commit { sha } } } } } }');
      const edges = (result.data as { session: { turns: { edges: { node: { commit: { sha: string } | null } }[] } } }).session.turns.edges;
      return edges.length === 3 && edges.every((e) => e.node.commit);
    });

    const { page, errors, blocked } = await openPage(api.url);
    await page.goto(`${api.url}/`);
    const field = page.getByRole('searchbox', { name: 'Search messages', exact: true });
    await field.waitFor(WAIT);
    await page.keyboard.press('/');
    await expect.poll(() => field.evaluate((el) => el === document.activeElement), WAIT).toBe(true);
    await page.keyboard.type('quokka parser');
    await page.keyboard.press('Enter');

    await page.getByRole('status').filter({ hasText: '2 messages found' }).waitFor(WAIT);
    expect(new URL(page.url()).pathname).toBe('/search');
    expect(new URL(page.url()).searchParams.get('q')).toBe('quokka parser');
    const group = page.getByRole('region', { name: 'Fix the parser', exact: true });
    await group.waitFor(WAIT);
    expect(await page.getByRole('region', { name: 'Something else' }).count()).toBe(0);
    const hits = group.getByRole('link').filter({ hasText: 'turn 2' });
    expect(await hits.count()).toBe(2);
    expect(await group.locator('mark').allInnerTexts()).toEqual(['quokka', 'parser', 'quokka', 'parser']);

    // A date range narrows, the days in the address: up to two days ago nothing; from yesterday both again.
    const to = page.getByLabel('To', { exact: true });
    await to.fill(localDay(-2));
    await page.getByRole('status').filter({ hasText: 'Nothing found for quokka parser.' }).waitFor(WAIT);
    expect(new URL(page.url()).searchParams.get('until')).toBe(localDay(-2));
    await to.fill('');
    await page.getByLabel('From', { exact: true }).fill(localDay(-1));
    await page.getByRole('status').filter({ hasText: '2 messages found' }).waitFor(WAIT);
    expect(new URL(page.url()).searchParams.get('since')).toBe(localDay(-1));
    expect(new URL(page.url()).searchParams.get('until')).toBeNull();

    // The assistant's hit: its session at turn 2 of 3, the message marked and in view.
    await hits.filter({ hasText: 'loops' }).click();
    await page.getByText('Turn 2 / 3', { exact: true }).waitFor(WAIT);
    const marked = page.locator('article[aria-current="true"]');
    await marked.waitFor(WAIT);
    expect(await marked.innerText()).toContain('The quokka parser loops');
    await expect.poll(() => marked.evaluate((el) => { const r = el.getBoundingClientRect(); return r.bottom > 0 && r.top < window.innerHeight; }), WAIT).toBe(true);
    expect(new URL(page.url()).searchParams.get('message')).toBeTruthy();
    // A reload (or the link, copied) opens the same.
    await page.reload();
    await page.getByText('Turn 2 / 3', { exact: true }).waitFor(WAIT);
    await page.locator('article[aria-current="true"]').filter({ hasText: 'The quokka parser loops' }).waitFor(WAIT);

    // A malformed query is said, not a blank page.
    await field.fill('"quokka');
    await field.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'never closed' }).waitFor(WAIT);

    expect(blocked.urls).toEqual([]);
    expect(errors).toEqual([]);
  });
});
