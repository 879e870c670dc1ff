/**
 * Which turn wrote each line, in Chromium (issue 28): from a turn's code changes, "Blame" opens
 * the file with a gutter per range; the agent's ranges link to their turn in the conversation,
 * the user's name their author; under it the file's history, each commit's blame a click away;
 * and from the project's history, a commit's files, each with its blame at that commit.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateSession } from '../api/operations.js';
import { outcome, recordTurn, userGit } from '../projects/project-turns.js';
import { openPage } from './browser.js';
import { shopProject } from './shop.js';

const WAIT = { timeout: 45_000 };

describe('blame in the UI', () => {
  it("opens a turn's file with each range's turn or author, and an agent's range opens its turn", async () => {
    const { api, workdir, projectId } = await shopProject('em-e2e-blame-');
    await api.ok(CreateSession, { input: { sessionId: 'prices', title: 'Prices', projectId: projectId } });
    writeFileSync(join(workdir, 'src', 'price.js'), 'export const price = (n) => n;\nexport const tax = 0.2;\n');
    await recordTurn(api, { sessionId: 'prices', content: 'Add prices', touchedPaths: ['src/price.js'] });
    expect((await outcome(api, 'prices', 1)).result).toBe('COMMITTED');
    // The user changes the first line and commits it.
    writeFileSync(join(workdir, 'src', 'price.js'), 'export const price = (n) => Math.round(n);\nexport const tax = 0.2;\n');
    userGit(workdir, 'commit', '-q', '-am', 'Round prices');
    writeFileSync(join(workdir, 'src', 'price.js'), 'export const price = (n) => Math.round(n);\nexport const tax = 0.2;\nexport const currency = "EUR";\n');
    await recordTurn(api, { sessionId: 'prices', content: 'Add the currency', touchedPaths: ['src/price.js'] });
    expect((await outcome(api, 'prices', 2)).result).toBe('COMMITTED');

    const { page, errors, blocked } = await openPage(api.url);
    await page.goto(`${api.url}/sessions/prices`);
    const code = page.getByRole('region', { name: 'Code changes', exact: true });
    await code.getByRole('link', { name: 'Blame src/price.js', exact: true }).click();
    const table = page.getByRole('table', { name: 'Blame', exact: true });
    await table.waitFor(WAIT);
    expect(new URL(page.url()).pathname).toBe(`/projects/${projectId}/blame`);
    const rows = table.getByRole('row');
    await expect.poll(() => rows.count(), WAIT).toBe(3);
    const texts = (await rows.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
    expect(texts[0]).toMatch(/^you .*1 export const price = \(n\) => Math\.round\(n\);$/);
    expect(texts[1]).toMatch(/^agent turn 1 Prices 2 export const tax = 0\.2;$/);
    expect(texts[2]).toMatch(/^agent turn 2 Prices 3 export const currency = "EUR";$/);

    // The file's history, newest first, each commit whose it is; "Blame at <sha>" shows the file as it stood then.
    const history = page.getByRole('list', { name: 'Commits that changed the file', exact: true });
    await expect.poll(() => history.getByRole('listitem').count(), WAIT).toBe(3);
    const entries = (await history.getByRole('listitem').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
    expect(entries[0]).toMatch(/^agent turn 2 Prices .* Blame at [0-9a-f]{7}$/);
    expect(entries[1]).toMatch(/^you .* Round prices .* Blame at [0-9a-f]{7}$/);
    expect(entries[2]).toMatch(/^agent turn 1 Prices .* Blame at [0-9a-f]{7}$/);
    await history.getByRole('listitem').nth(2).getByRole('link', { name: /^Blame at / }).click();
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    const then = (await rows.allInnerTexts()).map((text) => text.replace(/\s+/g, ' ').trim());
    expect(then[0]).toMatch(/^agent turn 1 Prices 1 export const price = \(n\) => n;$/);
    expect(new URL(page.url()).searchParams.get('rev')).toMatch(/^[0-9a-f]{40}$/);
    await history.locator('li[aria-current="true"]').filter({ hasText: 'turn 1' }).waitFor(WAIT);

    // Turn 1's range opens the conversation at turn 1.
    await table.getByRole('link', { name: 'turn 1', exact: true }).click();
    await page.getByText('Turn 1 / 2', { exact: true }).waitFor(WAIT);
    // From the project's history: a commit's files, each with Blame as it stood after that commit.
    await page.goto(`${api.url}/projects/${projectId}`);
    const newest = page.locator('li.commit').first();
    await newest.waitFor(WAIT);
    await newest.locator('summary', { hasText: 'Files' }).click();
    await newest.getByRole('link', { name: /^Blame src\/price\.js at [0-9a-f]{7}$/ }).click();
    await table.waitFor(WAIT);
    await expect.poll(() => rows.count(), WAIT).toBe(3);
    expect(new URL(page.url()).searchParams.get('rev')).toMatch(/^[0-9a-f]{40}$/);

    expect(blocked.urls).toEqual([]);
    expect(errors).toEqual([]);
  });
});
