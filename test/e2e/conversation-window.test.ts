/**
 * The conversation of a long session reads a window of turns with the server's cursors (issue
 * 27 item 6: none is built in the browser): opened at an older turn it shows the ten turns up to
 * it, "Load earlier messages" the ten before those, and the latest turns once back at the tip.
 */
import { describe, expect, it } from 'vitest';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { eventually } from '../helpers/git.js';
import { startTestServer } from '../helpers/server.js';
import { openPage } from './browser.js';

const TURNS = 25;

describe('the conversation window', () => {
  it('opens at an older turn with the turns before it, loads earlier ones, and goes back to the latest', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'long', title: 'A long one' } });
    for (let i = 1; i <= TURNS; i++) await api.ok(RecordTurn, { input: { sessionId: 'long', user: { content: `question ${i}` }, assistant: { content: `answer ${i}` } } });
    const shas = await eventually(async () => {
      const result = await api.raw('{ session(sessionId: "long") { turns(first: 50) { edges { node { number commit { sha } } } } } }');
      const edges = (result.data as { session: { turns: { edges: { node: { number: number; commit: { sha: string } | null } }[] } } }).session.turns.edges;
      return edges.length === TURNS && edges.every((e) => e.node.commit) && edges.map((e) => e.node.commit!.sha);
    });

    const { page, errors, blocked } = await openPage(api.url);
    await page.goto(`${api.url}/sessions/long?at=${shas[14]}`);
    const main = page.getByRole('main');
    const turnsShown = () => main.locator('section.turn h2').allInnerTexts();
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `Turn ${from + i}`);
    await expect.poll(turnsShown, { timeout: 45_000 }).toEqual(range(6, 15));
    expect(await page.getByText('Turn 15 / 25').count()).toBe(1);

    await main.getByRole('button', { name: 'Load earlier messages' }).click();
    await expect.poll(turnsShown, { timeout: 45_000 }).toEqual(range(1, 15));
    expect(await main.getByRole('button', { name: 'Load earlier messages' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Back to latest' }).click();
    await expect.poll(turnsShown, { timeout: 45_000 }).toEqual(range(16, 25));
    // One step back ends the conversation at turn 24 (from the window already read, or a new one
    // ending there: either way the turns before it lead up to it).
    await page.getByRole('button', { name: 'Previous turn' }).click();
    await expect.poll(async () => (await turnsShown()).slice(-9), { timeout: 45_000 }).toEqual(range(16, 24));
    expect(errors).toEqual([]);
    expect(blocked.urls).toEqual([]);
  }, 240_000);
});
