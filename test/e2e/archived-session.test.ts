/**
 * An archived session (entity-memory archive) in the web UI: the sessions list marks it, and
 * opening it brings its repo back by itself, then shows it as before (its turns, its timeline);
 * past the disk budget (serve --max-disk) the sidebar says how full the data dir is.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { EMBEDDED } from '../helpers/database.js';
import { eventually } from '../helpers/git.js';
import { startTestServer } from '../helpers/server.js';
import { openPage } from './browser.js';

const WAIT = { timeout: 45_000 };

describe('an archived session in the web UI', () => {
  it('is marked in the list, and opening it brings its repo back and shows it', async () => {
    let api = await startTestServer(EMBEDDED);
    expect((await api.raw(`mutation { createSession(input: { sessionId: "shelved", title: "Shelved work" }) { sessionId } }`)).errors).toBeUndefined();
    for (const n of [1, 2, 3]) {
      expect((await api.raw(`mutation { recordTurn(input: { sessionId: "shelved", user: { content: "step ${n}" }, assistant: { content: "done ${n}" } }) { number } }`)).errors).toBeUndefined();
    }
    await eventually(async () => {
      const result = await api.raw(`{ session(sessionId: "shelved") { mirror { inSync } } }`);
      return (result.data as { session: { mirror: { inSync: boolean } } }).session.mirror.inSync;
    });
    const then = new Date(Date.now() - 30 * 86_400_000);
    await api.server.app.db.turn.updateMany({ where: { sessionId: 'shelved' }, data: { createdAt: then, closedAt: then } });
    await api.server.stop();
    const archived = await cli(['archive', 'shelved', '--data-dir', api.dataDir]);
    expect(archived.status).toBe(0);
    const repo = join(api.dataDir, 'sessions', 'shelved');
    expect(existsSync(repo)).toBe(false);

    // With a disk budget it is past (every idle session archived already): the sidebar says so.
    api = await startTestServer({ ...EMBEDDED, dataDir: api.dataDir, maxDiskBytes: 1 });
    await api.server.app.diskBudget!.firstCheck();
    const { page, errors, blocked } = await openPage(api.url);
    await page.goto(`${api.url}/`);
    const sessions = page.getByRole('navigation', { name: 'Sessions', exact: true });
    await sessions.getByText('archived', { exact: false }).first().waitFor(WAIT);
    await page.getByRole('alert').filter({ hasText: /^Disk: \S+ \S+ of 1 B: near the budget/ }).waitFor(WAIT);
    await sessions.getByRole('link', { name: 'Shelved work', exact: true }).click();
    await page.getByText('Turn 3 / 3', { exact: true }).waitFor(WAIT);
    await expect.poll(() => page.getByRole('list', { name: 'Timeline', exact: true }).getByRole('listitem').count(), WAIT).toBe(3);
    expect(existsSync(join(repo, '.git', 'HEAD'))).toBe(true);
    // The turn's context, written on request beside the branches.
    await page.getByRole('button', { name: 'Export context', exact: true }).click();
    await page.getByRole('status').filter({ hasText: /^Context of turn 3 written \(5 messages\): git show refs\/contexts\/main\/3:commits\/commit_\S+\.json$/ }).waitFor(WAIT);
    expect(existsSync(join(api.dataDir, 'archive', 'shelved.json'))).toBe(false);
    // Read again, the list no longer marks it.
    await page.reload();
    await page.getByText('Turn 3 / 3', { exact: true }).waitFor(WAIT);
    await sessions.getByRole('link', { name: 'Shelved work', exact: true }).waitFor(WAIT);
    expect(await sessions.getByText('archived', { exact: false }).count()).toBe(0);
    expect(errors).toEqual([]);
    expect(blocked.urls).toEqual([]);
  });
});
