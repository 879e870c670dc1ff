/**
 * A session page opened cold (web/src/preload.ts): its first reads leave while the app's script
 * loads, and the app takes their answers instead of asking again. Each of the page's reads at the
 * latest turn is sent once (twice would mean the app asked again), the page shows what they say,
 * and an address at an older turn preloads only the page query and still opens there.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { CreateSession } from '../api/operations.js';
import { eventually } from '../helpers/git.js';
import { outcome, recordTurn } from '../projects/project-turns.js';
import { openPage } from './browser.js';
import { shopProject } from './shop.js';

const WAIT = { timeout: 45_000 };

/** The operation names of the page's GraphQL POSTs, in the order sent. */
function sentOperations(page: Page): string[] {
  const sent: string[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'POST' || !request.url().endsWith('/graphql')) return;
    const body = JSON.parse(request.postData() ?? '{}') as { operationName?: string };
    sent.push(body.operationName ?? '?');
  });
  return sent;
}

const count = (names: string[], name: string) => names.filter((n) => n === name).length;

describe('a cold open of a session page', () => {
  it("sends the page's first reads once, before the app runs, and the app shows their answers", async () => {
    const { api, workdir, projectId } = await shopProject('em-e2e-cold-open-');
    const sessionId = 'prices';
    await api.ok(CreateSession, { input: { sessionId, title: 'Show prices in euros', projectId: projectId } });
    writeFileSync(join(workdir, 'src', 'price.js'), 'export const price = (n) => `${n} EUR`;\n');
    await recordTurn(api, { sessionId, content: 'Show prices in euros', touchedPaths: ['src/price.js'] });
    expect((await outcome(api, sessionId, 1)).result).toBe('COMMITTED');
    writeFileSync(join(workdir, 'src', 'format.js'), 'export const cents = (n) => Math.round(n * 100);\n');
    await recordTurn(api, { sessionId, content: 'Add a cents helper', touchedPaths: ['src/format.js'] });
    expect((await outcome(api, sessionId, 2)).result).toBe('COMMITTED');
    // The session repo has both turns too: a page opened while the mirror is behind reads again
    // until it is not (SessionPage.tsx), and those reads would be counted below.
    await eventually(async () => {
      const result = await api.raw(`{ session(sessionId: "${sessionId}") { mirror { inSync } } }`);
      return (result.data as { session: { mirror: { inSync: boolean } } } | undefined)?.session.mirror.inSync === true;
    });

    // At the latest: the page query, then the conversation, the timeline and the turn's code changes.
    const { page, errors, blocked } = await openPage(api.url);
    const sent = sentOperations(page);
    await page.goto(`${api.url}/sessions/${sessionId}`);
    await page.getByText('Turn 2 / 2', { exact: true }).waitFor(WAIT);
    const code = page.getByRole('region', { name: 'Code changes', exact: true });
    await code.getByText('src/format.js', { exact: false }).first().waitFor(WAIT);
    const timeline = page.getByRole('list', { name: 'Timeline', exact: true });
    await expect.poll(() => timeline.getByRole('listitem').count(), WAIT).toBe(2);
    await page.getByRole('main').getByRole('article').filter({ hasText: 'Add a cents helper' }).first().waitFor(WAIT);
    const preloaded = ['SessionPage', 'ReplayConversation', 'ReplayTimelinePage', 'ReplayCodeChanges'];
    // The page query leaves first, before the app's script has run; none of the four is asked twice.
    expect(sent[0]).toBe('SessionPage');
    expect(preloaded.map((name) => count(sent, name))).toEqual([1, 1, 1, 1]);
    // The page script's own reads follow (the sidebars, the mirror), each sent by the app.
    expect(count(sent, 'SessionMirror')).toBe(1);

    // At an older turn: only the page query is read ahead; the page opens at turn 1.
    const older = await openPage(api.url);
    const sentOlder = sentOperations(older.page);
    const first = (await outcome(api, sessionId, 1)).commit!.sha;
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    await older.page.goto(`${api.url}/sessions/${sessionId}`);
    await older.page.getByText('Turn 2 / 2', { exact: true }).waitFor(WAIT);
    await older.page.getByRole('button', { name: 'Previous turn', exact: true }).click();
    await older.page.getByText('Turn 1 / 2', { exact: true }).waitFor(WAIT);
    const at = new URL(older.page.url()).searchParams.get('at');
    expect(at).toMatch(/^[0-9a-f]{40}$/);
    const reopened = await openPage(api.url);
    const sentReopened = sentOperations(reopened.page);
    await reopened.page.goto(`${api.url}/sessions/${sessionId}?at=${at}`);
    await reopened.page.getByText('Turn 1 / 2', { exact: true }).waitFor(WAIT);
    await reopened.page.getByRole('region', { name: 'Code changes', exact: true }).getByText('src/price.js', { exact: false }).first().waitFor(WAIT);
    expect(count(sentReopened, 'SessionPage')).toBe(1);
    expect(sentReopened[0]).toBe('SessionPage');
    expect(count(sentReopened, 'ReplayCodeChanges')).toBe(1);
    expect(sentOlder.length).toBeGreaterThan(0);

    expect([...errors, ...older.errors, ...reopened.errors]).toEqual([]);
    expect([...blocked.urls, ...older.blocked.urls, ...reopened.blocked.urls]).toEqual([]);
  });
});
