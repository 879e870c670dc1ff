/**
 * Issue 25 items 7 and 9 in a real browser: a session captured live through Claude Code's hooks
 * (the hook command run once per event, as the agent runs it). The session page shows the agent's
 * name, then the open turn's messages as their events arrive, marked in progress, with
 * "Recording" while the agent is live; the turn closing at Stop or when the session ends, and
 * Recording going away. The project page shows a hooked session's turn commit arriving live.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { graphql } from '../graphql/index.js';
import { git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { claudeEvents, runHook } from '../hooks/hook-events.js';
import { CreateProject } from '../projects/operations.js';
import { FAST_COMMITTER, userRepo } from '../projects/project-turns.js';
import { openPage, screenshot } from './browser.js';

const WAIT = { timeout: 45_000 };

const OpenTurn = graphql(`
  query LiveE2eOpenTurn($sessionId: String!) {
    session(sessionId: $sessionId) {
      recording
      openTurn {
        number
      }
    }
  }
`);

function hooks(api: TestServer) {
  return async (event: object) => expect(await runHook('claude-code', api.dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });
}

/** The articles of the turn being written (the section marked in progress). */
const liveTurn = (page: Page, number: number) => page.getByRole('main').getByRole('region', { name: `Turn ${number}` });

describe('a live session in the browser', () => {
  it("shows a hooked turn's messages as they arrive, Recording and the agent, then the turn closing", async () => {
    const root = tempDir('em-e2e-live-');
    const api = await startTestServer({ allowedRoots: [root] });
    const send = hooks(api);
    const c = claudeEvents('live-cc', root);
    await send(c.sessionStart());

    const { page, errors } = await openPage(api.url);
    await page.goto(`${api.url}/sessions/live-cc`);
    const header = page.locator('.session-header');
    await header.getByText('Claude Code', { exact: true }).waitFor(WAIT);
    expect(await page.getByRole('status').filter({ hasText: 'Recording' }).count()).toBe(0);
    await page.getByRole('main').getByText('No turns yet.').waitFor(WAIT);

    // The prompt opens turn 1: it shows at once, in progress, with Recording.
    await send(c.prompt('p1', 'Count the lines of the README'));
    const turn1 = liveTurn(page, 1);
    await turn1.getByRole('article').filter({ hasText: 'Count the lines of the README' }).waitFor(WAIT);
    await turn1.getByText('in progress').waitFor(WAIT);
    await page.getByRole('status').filter({ hasText: 'Recording' }).waitFor(WAIT);
    await page.getByText('Turn 1 / 1 (in progress)').waitFor(WAIT);
    expect(await page.getByRole('main').getByText('No turns yet.').count()).toBe(0);

    // Each tool call and its result show as their event arrives, the turn still open.
    for (let i = 1; i <= 3; i++) {
      await send(c.postTool('p1', `toolu_${i}`, 'Bash', { command: `wc -l README.md # ${i}` }, { stdout: `${i * 10} README.md` }));
      await turn1.getByRole('article').filter({ hasText: `Tool result: Bash` }).nth(i - 1).waitFor(WAIT);
      expect((await api.ok(OpenTurn, { sessionId: 'live-cc' })).session).toEqual({ recording: true, openTurn: { number: 1 } });
    }
    expect(await turn1.getByRole('article').count()).toBe(7);
    await screenshot(page, 'session-live');

    // From here on, the page never shows fewer messages than it has now: a turn that closes stays
    // on the page while its committed form is read (every change to the page is counted).
    await page.evaluate(() => {
      const seen = window as unknown as { fewestArticles: number };
      seen.fewestArticles = Infinity;
      const count = () => (seen.fewestArticles = Math.min(seen.fewestArticles, document.querySelectorAll('main article').length));
      count();
      new MutationObserver(count).observe(document.body, { childList: true, subtree: true });
    });
    const fewestArticles = () => page.evaluate(() => (window as unknown as { fewestArticles: number }).fewestArticles);

    // Stop: the reply shows, the turn closes and commits, Recording goes away.
    await send(c.stop('p1', 'The README has **30** lines.'));
    await page.getByRole('main').getByRole('article').filter({ hasText: 'The README has 30 lines.' }).waitFor(WAIT);
    await page.getByText('Turn 1 / 1', { exact: true }).waitFor(WAIT);
    await page.getByRole('status').filter({ hasText: 'Recording' }).waitFor({ state: 'detached', ...WAIT });
    await page.getByRole('main').getByText('in progress').waitFor({ state: 'detached', ...WAIT });
    // The committed turn 1 now lists its commit on the timeline.
    await page.getByRole('list', { name: 'Timeline' }).getByRole('listitem').filter({ hasText: 'turn 1' }).waitFor(WAIT);

    // Turn 2 opens, grows, and closes when the session ends (no Stop).
    await send(c.prompt('p2', 'And the LICENSE?'));
    const turn2 = liveTurn(page, 2);
    await turn2.getByRole('article').filter({ hasText: 'And the LICENSE?' }).waitFor(WAIT);
    await page.getByRole('status').filter({ hasText: 'Recording' }).waitFor(WAIT);
    await page.getByText('Turn 2 / 2 (in progress)').waitFor(WAIT);
    // A command that fails (PostToolUseFailure): marked failed, on its call and its result, while the turn is open.
    await send({ ...c.postTool('p2', 'toolu_9', 'Bash', { command: 'wc -l LICENSE' }, undefined), hook_event_name: 'PostToolUseFailure', error: 'Exit code 1\nwc: LICENSE: No such file' });
    await turn2.getByRole('article').filter({ hasText: 'Tool result: Bash' }).waitFor(WAIT);
    expect(await turn2.getByRole('group', { name: 'Tool call: Bash' }).locator('.tool-call-name').innerText()).toBe('Bash failed');
    expect(await turn2.getByRole('article').filter({ hasText: 'Tool result: Bash' }).locator('summary').innerText()).toMatch(/ failed: Exit code 1$/);
    await send(c.sessionEnd());
    await page.getByRole('status').filter({ hasText: 'Recording' }).waitFor({ state: 'detached', ...WAIT });
    await page.getByText('Turn 2 / 2', { exact: true }).waitFor(WAIT);
    await page.getByRole('main').getByText('in progress').waitFor({ state: 'detached', ...WAIT });
    expect((await api.ok(OpenTurn, { sessionId: 'live-cc' })).session).toEqual({ recording: false, openTurn: null });
    // Both turns' messages are on the page: 2 prompts, 4 calls, 4 results, 1 reply.
    expect(await page.getByRole('main').getByRole('article').count()).toBe(11);
    expect(await fewestArticles()).toBe(7);
    expect(errors).toEqual([]);
  });

  it("shows a hooked session's project commit arriving live on the project page", async () => {
    const root = tempDir('em-e2e-live-project-');
    const api = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
    const workdir = userRepo(root);
    const { createProject } = await api.ok(CreateProject, { input: { name: 'Shop', workdir } });
    const send = hooks(api);
    const c = claudeEvents('live-shop', workdir);

    const { page, errors } = await openPage(api.url);
    await page.goto(`${api.url}/projects/${createProject.projectId}`);
    await page.getByRole('heading', { name: 'Shop' }).waitFor(WAIT);
    const agentCommits = page.locator('li.commit.by-agent');
    await page.locator('li.commit.by-you').first().waitFor(WAIT);
    expect(await agentCommits.count()).toBe(0);

    await send(c.sessionStart());
    await send(c.prompt('p1', 'Add a price list'));
    writeFileSync(join(workdir, 'prices.md'), '# Prices\n');
    await send(c.postTool('p1', 'toolu_1', 'Write', { file_path: join(workdir, 'prices.md'), content: '# Prices\n' }, { type: 'create' }));
    await send(c.stop('p1', 'Added prices.md.'));

    // The agent's commit and the hooked session show without a reload.
    await page.getByRole('main').getByText('live-shop').first().waitFor(WAIT);
    await agentCommits.first().waitFor(WAIT);
    expect(await agentCommits.count()).toBe(1);
    const sha = (await agentCommits.first().locator('code').getAttribute('title'))!;
    expect(git(workdir, 'show', '--name-only', '--format=', sha).trim()).toBe('prices.md');
    expect(errors).toEqual([]);
  });
});
