/**
 * The sessions list with more sessions than a page (issue 27 item 4), in a real browser: a page
 * of 100 at a time ("More sessions", with the server's cursors), the filters by agent and
 * project narrowing it on the server and kept across a reload, the sessions of a project under
 * its name, and a new session put on top as its first turn lands, without a reload.
 */
import { describe, expect, it } from 'vitest';
import { CreateSession } from '../api/operations.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { CreateProject } from '../projects/operations.js';
import { recordTurn, userRepo } from '../projects/project-turns.js';
import { openPage, screenshot } from './browser.js';

const SESSIONS = 230;
const agentOf = (i: number) => (i % 3 === 0 ? 'gemini' : 'claude-code');

describe('the sessions list', () => {
  it('pages, filters on the server, keeps its filters, groups by project, and takes in a new session live', async () => {
    const root = tempDir('em-e2e-list-');
    const api = await startTestServer({ allowedRoots: [root] });
    const project = await api.ok(CreateProject, { input: { name: 'Web', workdir: userRepo(root) } });
    for (let i = 0; i < SESSIONS; i++) {
      const sessionId = `s${String(i).padStart(3, '0')}`;
      await api.ok(CreateSession, { input: { sessionId, title: `Session ${i}`, agentId: agentOf(i), ...(i < 10 && { projectId: project.createProject.projectId }) } });
    }
    const geminis = Array.from({ length: SESSIONS }, (_, i) => agentOf(i)).filter((agent) => agent === 'gemini').length;

    const { page, blocked, errors } = await openPage(api.url);
    await page.goto(`${api.url}/`);
    const nav = page.getByRole('navigation', { name: 'Sessions' });
    const links = nav.getByRole('link');
    const count = nav.locator('.session-count');
    await expect.poll(() => count.textContent(), { timeout: 45_000 }).toBe(`100 of ${SESSIONS} sessions`);
    expect(await links.count()).toBe(100);
    expect(await links.first().textContent()).toBe(`Session ${SESSIONS - 1}`);

    const more = nav.getByRole('button', { name: 'More sessions' });
    await more.click();
    await expect.poll(() => count.textContent(), { timeout: 45_000 }).toBe(`200 of ${SESSIONS} sessions`);
    await more.click();
    await expect.poll(() => count.textContent(), { timeout: 45_000 }).toBe(`${SESSIONS} of ${SESSIONS} sessions`);
    expect(await more.count()).toBe(0);
    expect(await links.count()).toBe(SESSIONS);
    expect(new Set(await links.allTextContents()).size).toBe(SESSIONS);

    const filters = nav.getByRole('group', { name: 'Filter sessions' });
    await filters.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Gemini CLI' });
    await expect.poll(() => count.textContent(), { timeout: 45_000 }).toBe(`${geminis} of ${geminis} sessions`);
    expect((await links.allTextContents()).every((title) => agentOf(Number(title.replace('Session ', ''))) === 'gemini')).toBe(true);

    await page.reload();
    await expect.poll(() => count.textContent(), { timeout: 45_000 }).toBe(`${geminis} of ${geminis} sessions`);
    expect(await filters.getByRole('combobox', { name: 'Agent' }).inputValue()).toBe('gemini');

    await filters.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Any agent' });
    await filters.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Web' });
    await expect.poll(() => count.textContent(), { timeout: 45_000 }).toBe('10 of 10 sessions');
    expect(await nav.getByRole('heading', { name: 'Web', level: 4 }).count()).toBe(1);
    await screenshot(page, 'sessions-list-project');

    await filters.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Any project' });
    await expect.poll(() => count.textContent(), { timeout: 45_000 }).toBe(`100 of ${SESSIONS} sessions`);
    await api.ok(CreateSession, { input: { sessionId: 'fresh', title: 'A new one', agentId: 'codex' } });
    await recordTurn(api, { sessionId: 'fresh' });
    await expect.poll(() => links.first().textContent(), { timeout: 45_000 }).toBe('A new one');
    expect(await count.textContent()).toBe(`101 of ${SESSIONS + 1} sessions`);
    expect(errors).toEqual([]);
    expect(blocked.urls).toEqual([]);
  }, 240_000);
});
