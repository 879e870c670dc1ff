/**
 * Projects in a real browser against a real server (ui.md): the New project dialog opened from
 * a session page (a relative folder and a folder outside the allowed roots refused, creating
 * nothing; then a real folder committed and joined by the session), and the project page (its
 * sessions, its history with the agent's commits told apart from the user's, its working tree
 * clean or dirty, the dirty-tree alert arriving live and dismissed, and "Apply snapshot" on a
 * turn skipped because of the user's uncommitted change).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { CreateSession } from '../api/operations.js';
import { git } from '../helpers/git.js';
import { onlyError, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { CreateProject, Projects, ProjectView } from '../projects/operations.js';
import { FAST_COMMITTER, outcome, recordTurn, userGit } from '../projects/project-turns.js';
import { openPage, screenshot } from './browser.js';

const WAIT = { timeout: 45_000 };

async function projectServer(): Promise<{ api: TestServer; root: string }> {
  const root = tempDir('em-e2e-projects-');
  const api = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
  return { api, root };
}

async function projectCount(api: TestServer): Promise<number> {
  return (await api.ok(Projects, {})).projects.totalCount;
}

/** Writes files (path → content) under `dir`, making folders as needed. */
function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** The text of what describes a field (its error, through aria-describedby), or '' when nothing does. */
async function descriptionOf(field: Locator): Promise<string> {
  return field.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );
}

/** Operation names of the subscriptions the page has sent over its socket, as they go. */
function sentSubscriptions(page: Page): Set<string> {
  const names = new Set<string>();
  page.on('websocket', (socket) => {
    socket.on('framesent', ({ payload }) => {
      if (typeof payload !== 'string') return;
      const message = JSON.parse(payload) as { type?: string; payload?: { operationName?: string; query?: string } };
      if (message.type !== 'subscribe') return;
      const name = message.payload?.operationName ?? /subscription\s+(\w+)/.exec(message.payload?.query ?? '')?.[1];
      if (name) names.add(name);
    });
  });
  return names;
}

/** The project page's "Working tree" fact. */
function workingTree(page: Page): Locator {
  return page.getByRole('main').locator('dt:text-is("Working tree") + dd');
}

describe('projects in the browser', () => {
  it('creates a project from a session page: refuses a relative folder and one outside the allowed roots, then commits and joins a real one', async () => {
    const { api, root } = await projectServer();
    const sessionId = 'storefront-setup';
    const title = 'Set up the storefront';
    await api.ok(CreateSession, { input: { sessionId, title, model: 'claude-sonnet-4' } });
    await recordTurn(api, { sessionId, content: 'Sketch the storefront page layout' });
    const outside = tempDir('em-e2e-outside-');

    const { page, blocked, errors } = await openPage(api.url);
    await page.goto(`${api.url}/sessions/${sessionId}`);
    const projects = page.getByRole('navigation', { name: 'Projects', exact: true });
    await projects.getByRole('button', { name: 'New project', exact: true }).click(WAIT);
    const dialog = page.getByRole('dialog', { name: 'New project', exact: true });
    await dialog.waitFor(WAIT);
    const folder = dialog.getByRole('textbox', { name: 'Folder', exact: true });
    const name = dialog.getByRole('textbox', { name: 'Name', exact: true });
    const create = dialog.getByRole('button', { name: 'Create project', exact: true });

    // A relative folder: refused in the form, nothing sent.
    await folder.fill('code/storefront');
    await name.fill('Storefront');
    await create.click();
    await expect.poll(() => descriptionOf(folder), WAIT).toContain('relative path');
    expect(await folder.getAttribute('aria-invalid')).toBe('true');
    expect(await projectCount(api)).toBe(0);

    // A real folder outside the allowed roots: the server's own error, next to Folder.
    const refused = onlyError(await api.request(CreateProject, { input: { name: 'Storefront', workdir: outside } }));
    expect(await projectCount(api)).toBe(0);
    await folder.fill(outside);
    await name.fill('Storefront');
    await create.click();
    await expect.poll(() => descriptionOf(folder), WAIT).toContain(refused.message);
    expect(await projectCount(api)).toBe(0);
    expect(await dialog.isVisible()).toBe(true);

    // A real folder with files: git init, one first commit, and the session joins.
    const workdir = join(root, 'storefront');
    writeFiles(workdir, {
      'README.md': '# Storefront\n\nThe shop\'s product pages.\n',
      'src/index.html': '<!doctype html>\n<title>Storefront</title>\n',
    });
    await folder.fill(workdir);
    await name.fill('Storefront');
    const commit = dialog.getByRole('checkbox', { name: 'Commit existing files', exact: true });
    await commit.check();
    const joinSession = dialog.getByRole('checkbox', { name: `Add session ${title} to this project`, exact: true });
    await joinSession.waitFor(WAIT);
    expect(await joinSession.isChecked()).toBe(true);
    await create.click();

    await projects.getByRole('link', { name: 'Storefront', exact: true }).waitFor(WAIT);
    await dialog.waitFor({ state: 'detached', ...WAIT });
    await page.getByRole('heading', { level: 1, name: 'Storefront', exact: true }).waitFor(WAIT);
    const list = (await api.ok(Projects, {})).projects;
    expect(list.totalCount).toBe(1);
    const projectId = list.edges[0]!.node.projectId;
    expect(new URL(page.url()).pathname).toBe(`/projects/${projectId}`);
    const view = (await api.ok(ProjectView, { projectId })).project!;
    expect(view).toMatchObject({ name: 'Storefront', workdir });
    expect(view.sessions.edges.map((edge) => edge.node.sessionId)).toEqual([sessionId]);
    expect(git(workdir, 'log', '--oneline').trim().split('\n')).toHaveLength(1);
    expect(git(workdir, 'ls-files').trim().split('\n').sort()).toEqual(['README.md', 'src/index.html']);
    // The project page lists the session that joined.
    await page.getByRole('region', { name: 'Sessions', exact: true }).getByRole('link', { name: title, exact: true }).waitFor(WAIT);

    expect(blocked.urls).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('shows a project page: sessions, history by agent and by you, the working tree, the live dirty-tree alert and a skipped turn\'s snapshot', async () => {
    const { api, root } = await projectServer();
    const workdir = join(root, 'checkout-service');
    mkdirSync(workdir);
    userGit(workdir, 'init', '-q', '-b', 'main');
    writeFiles(workdir, {
      'README.md': '# Checkout service\n\nCart totals and the payment hand-off.\n',
      'src/cart.js': 'export const total = (items) => items.reduce((sum, item) => sum + item.price * item.quantity, 0);\n',
      'package.json': '{ "name": "checkout-service", "type": "module" }\n',
    });
    userGit(workdir, 'add', '-A');
    userGit(workdir, 'commit', '-q', '-m', 'Start the checkout service');
    const { createProject } = await api.ok(CreateProject, {
      input: { name: 'Checkout service', description: 'Cart totals and the payment hand-off of the web shop.', workdir },
    });
    const projectId = createProject.projectId;
    const sessionId = 'fix-cart-rounding';
    const title = 'Fix rounding in cart totals';
    await api.ok(CreateSession, { input: { sessionId, title, model: 'claude-sonnet-4', projectId } });

    const { page, blocked, errors } = await openPage(api.url);
    await page.setViewportSize({ width: 1400, height: 900 });
    const subscriptions = sentSubscriptions(page);
    await page.goto(`${api.url}/projects/${projectId}`);
    const main = page.getByRole('main');
    await main.getByRole('heading', { level: 1, name: 'Checkout service', exact: true }).waitFor(WAIT);
    const sessions = main.getByRole('region', { name: 'Sessions', exact: true });
    await sessions.getByRole('link', { name: title, exact: true }).waitFor(WAIT);
    const history = main.getByRole('region', { name: /^History/ });
    const commitItem = (headline: string) => history.getByRole('listitem').filter({ hasText: headline });
    await commitItem('Start the checkout service').waitFor(WAIT);
    expect(await commitItem('Start the checkout service').getByText('you', { exact: true }).count()).toBe(1);
    await expect.poll(() => workingTree(page).innerText(), WAIT).toContain('clean');
    // Live from here on: the page and the banner have asked for their events.
    await expect
      .poll(() => ['ProjectPageCommitted', 'ProjectPageWarning', 'AnyDirtyTreeWarning'].filter((name) => !subscriptions.has(name)), WAIT)
      .toEqual([]);
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    // Turn 1: the agent edits src/cart.js; its commit shows up as the agent's, without reload.
    writeFiles(workdir, {
      'src/cart.js': 'const cents = (amount) => Math.round(amount * 100) / 100;\nexport const total = (items) => cents(items.reduce((sum, item) => sum + item.price * item.quantity, 0));\n',
    });
    await recordTurn(api, { sessionId, content: 'Round the cart total to whole cents', touchedPaths: ['src/cart.js'] });
    const first = await outcome(api, sessionId, 1);
    expect(first.result).toBe('COMMITTED');
    const agentHeadline = git(workdir, 'log', '-1', '--format=%s', first.commit!.sha).trim();
    await commitItem(agentHeadline).waitFor(WAIT);
    expect(await commitItem(agentHeadline).getByText('agent', { exact: true }).count()).toBe(1);
    expect(await commitItem(agentHeadline).getByText('you', { exact: true }).count()).toBe(0);

    // The user's own commit, made with git.
    writeFiles(workdir, { 'CHANGELOG.md': '# Changelog\n\n- Cart totals are rounded to whole cents.\n' });
    userGit(workdir, 'add', 'CHANGELOG.md');
    userGit(workdir, 'commit', '-q', '-m', 'Note the rounding fix in the changelog');

    // Turn 2: the agent adds src/tax.js while the user has an uncommitted README.md edit → skipped, warned live.
    writeFiles(workdir, {
      'README.md': '# Checkout service\n\nCart totals, taxes and the payment hand-off.\n',
      'src/tax.js': 'export const VAT_RATE = 0.2;\nexport const withTax = (amount) => amount * (1 + VAT_RATE);\n',
    });
    await recordTurn(api, { sessionId, content: 'Move the tax rate into its own module', touchedPaths: ['src/tax.js'] });
    const alert = page.getByRole('alert').filter({ hasText: 'uncommitted changes' });
    await alert.waitFor(WAIT);
    expect(await alert.innerText()).toContain('README.md');
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    const second = await outcome(api, sessionId, 2);
    expect(second).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['README.md'], paths: ['src/tax.js'], commit: null });
    expect(second.snapshot?.sha).toBeTruthy();

    // The warning refreshed the page: the user's commit, the dirty tree, the skipped turn's snapshot.
    await commitItem('Note the rounding fix in the changelog').waitFor(WAIT);
    expect(await commitItem('Note the rounding fix in the changelog').getByText('you', { exact: true }).count()).toBe(1);
    expect(await history.getByRole('listitem').count()).toBe(3);
    await expect.poll(() => workingTree(page).innerText(), WAIT).toMatch(/uncommitted paths?/);
    expect(await workingTree(page).innerText()).toContain('README.md');
    // The agent's src/tax.js is still in the tree, uncommitted: its snapshot is there already, so no Apply.
    const skipped = sessions.getByRole('listitem').filter({ hasText: 'Turn 2' }).filter({ hasText: 'src/tax.js' });
    await skipped.getByRole('status').filter({ hasText: 'Applied: the working tree holds this snapshot.' }).waitFor(WAIT);
    expect(await sessions.getByRole('button', { name: 'Apply snapshot', exact: true }).count()).toBe(0);

    await page.evaluate(() => window.scrollTo(0, 0));
    await screenshot(page, 'project-page');

    await alert.getByRole('button', { name: 'Dismiss', exact: true }).click();
    await alert.waitFor({ state: 'detached', ...WAIT });
    expect(await page.getByRole('alert').filter({ hasText: 'uncommitted changes' }).count()).toBe(0);

    // The user rewrites the agent's file: the snapshot cannot be applied, and the page says why before any click.
    writeFiles(workdir, { 'src/tax.js': '// the user\'s own tax module\n' });
    await page.reload();
    await skipped.getByRole('alert').filter({ hasText: 'Not possible now: you changed src/tax.js since the snapshot was taken.' }).waitFor(WAIT);
    expect(await skipped.getByRole('button', { name: 'Apply snapshot', exact: true }).isDisabled()).toBe(true);

    // Once the user removes it, the snapshot is offered again.
    rmSync(join(workdir, 'src', 'tax.js'));
    await page.reload();
    await skipped.getByRole('button', { name: 'Apply snapshot', exact: true }).waitFor(WAIT);
    await expect.poll(() => skipped.getByRole('button', { name: 'Apply snapshot', exact: true }).isEnabled(), WAIT).toBe(true);

    // Apply shows what it writes first, writes on confirm, and can be undone.
    await skipped.getByRole('button', { name: 'Apply snapshot', exact: true }).click();
    const panel = page.getByRole('dialog', { name: "Apply turn 2's snapshot", exact: true });
    await panel.getByText('1 path is written into the working tree; nothing is committed or staged.').waitFor(WAIT);
    expect((await panel.getByRole('listitem').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim())).toEqual(['src/tax.js created']);
    expect(existsSync(join(workdir, 'src', 'tax.js'))).toBe(false);
    await panel.getByRole('button', { name: 'Apply', exact: true }).click();
    await panel.getByRole('status').filter({ hasText: "Wrote 1 path of turn 2's snapshot into the working tree" }).waitFor(WAIT);
    expect(readFileSync(join(workdir, 'src', 'tax.js'), 'utf8')).toBe('export const VAT_RATE = 0.2;\nexport const withTax = (amount) => amount * (1 + VAT_RATE);\n');
    await panel.getByRole('button', { name: 'Undo apply', exact: true }).click();
    await panel.getByRole('status').filter({ hasText: "Took turn 2's snapshot out of the working tree" }).waitFor(WAIT);
    expect(existsSync(join(workdir, 'src', 'tax.js'))).toBe(false);
    expect(await panel.getByRole('button', { name: 'Undo apply' }).count()).toBe(0);
    await panel.getByRole('button', { name: 'Close', exact: true }).click();
    await skipped.getByRole('button', { name: 'Apply snapshot', exact: true }).waitFor(WAIT);

    // The project's status, changed on its page, shows in the sidebar beside its session count.
    const nav = page.getByRole('navigation', { name: 'Projects', exact: true });
    await expect.poll(() => nav.innerText(), WAIT).toMatch(/\b1 session\b/);
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('PAUSED');
    await expect.poll(() => nav.innerText(), WAIT).toContain('1 session · paused');
    expect((await api.ok(ProjectView, { projectId })).project?.status).toBe('PAUSED');

    expect(blocked.urls).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('restores files with a preview that names the user\'s change, then undoes it; rewinds the conversation from the session page', async () => {
    const { api, root } = await projectServer();
    const workdir = join(root, 'shop');
    mkdirSync(workdir);
    userGit(workdir, 'init', '-q', '-b', 'main');
    writeFiles(workdir, { 'README.md': '# Shop\n' });
    userGit(workdir, 'add', '-A');
    userGit(workdir, 'commit', '-q', '-m', 'Start the shop');
    const { createProject } = await api.ok(CreateProject, { input: { name: 'Shop', workdir } });
    const sessionId = 'prices';
    await api.ok(CreateSession, { input: { sessionId, title: 'Show prices in euros', projectId: createProject.projectId } });
    writeFiles(workdir, { 'src/price.js': 'export const price = (n) => `${n} EUR`;\n' });
    await recordTurn(api, { sessionId, content: 'Show prices in euros', touchedPaths: ['src/price.js'] });
    expect((await outcome(api, sessionId, 1)).result).toBe('COMMITTED');
    writeFiles(workdir, { 'src/price.js': 'export const price = (n) => `€${n.toFixed(2)}`;\n', 'src/format.js': 'export const cents = (n) => Math.round(n * 100);\n' });
    await recordTurn(api, { sessionId, content: 'Use the euro sign and two decimals', touchedPaths: ['src/price.js', 'src/format.js'] });
    expect((await outcome(api, sessionId, 2)).result).toBe('COMMITTED');
    const read = (path: string) => readFileSync(join(workdir, path), 'utf8');

    const { page, errors } = await openPage(api.url);
    await page.goto(`${api.url}/projects/${createProject.projectId}`);
    const sessions = page.getByRole('main').getByRole('region', { name: 'Sessions', exact: true });
    // The user edits a file the restore would write: the preview says so and Restore cannot be pressed.
    writeFiles(workdir, { 'src/format.js': '// mine\n' });
    await sessions.getByRole('button', { name: 'Restore files to turn 1', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore to turn 1', exact: true });
    await dialog.getByRole('alert').filter({ hasText: 'Not possible while you have changes in src/format.js' }).waitFor(WAIT);
    expect((await dialog.getByRole('listitem').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim())).toEqual(['src/format.js deleted — changed by you since the agent left it', 'src/price.js restored']);
    expect(await dialog.getByRole('button', { name: 'Restore', exact: true }).isDisabled()).toBe(true);
    expect(read('src/format.js')).toBe('// mine\n');
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();

    // Put back, the preview is clean; Restore writes turn 1's files, and Undo restore puts turn 2's back.
    writeFiles(workdir, { 'src/format.js': 'export const cents = (n) => Math.round(n * 100);\n' });
    await sessions.getByRole('button', { name: 'Restore files to turn 1', exact: true }).click();
    await dialog.getByText('2 paths go back to their state after turn 1.').waitFor(WAIT);
    await dialog.getByRole('button', { name: 'Restore', exact: true }).click();
    await dialog.getByRole('status').filter({ hasText: 'Restored 2 paths to their state after turn 1 and committed them.' }).waitFor(WAIT);
    expect(read('src/price.js')).toBe('export const price = (n) => `${n} EUR`;\n');
    expect(existsSync(join(workdir, 'src/format.js'))).toBe(false);
    await dialog.getByRole('button', { name: 'Undo restore', exact: true }).click();
    await dialog.getByRole('status').filter({ hasText: 'to their state after turn 2' }).waitFor(WAIT);
    expect(read('src/format.js')).toBe('export const cents = (n) => Math.round(n * 100);\n');
    expect(await dialog.getByRole('button', { name: 'Undo restore' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();

    // The session page: back one turn, "Rewind to here", the conversation only.
    await page.goto(`${api.url}/sessions/${sessionId}`);
    await page.getByText('Turn 2 / 2', { exact: true }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Previous turn', exact: true }).click();
    await page.getByText('Turn 1 / 2', { exact: true }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Rewind to here', exact: true }).click();
    const rewind = page.getByRole('dialog', { name: 'Rewind to turn 1', exact: true });
    await rewind.getByRole('radio', { name: 'Conversation only', exact: true }).check();
    await rewind.getByText('The next message will fork from turn 1 on a new branch. Turn 2 stays on main.').waitFor(WAIT);
    expect(await rewind.getByRole('listitem').count()).toBe(0);
    await rewind.getByRole('button', { name: 'Rewind', exact: true }).click();
    await rewind.getByRole('status').filter({ hasText: 'The next message forks from turn 1' }).waitFor(WAIT);
    const session = (await api.raw(`{ session(sessionId: "${sessionId}") { detached head { turn { number } } } }`)).data as { session: { detached: boolean; head: { turn: { number: number } } } };
    expect(session.session).toEqual({ detached: true, head: { turn: { number: 1 } } });
    // The files were not asked for.
    expect(read('src/price.js')).toBe('export const price = (n) => `€${n.toFixed(2)}`;\n');
    expect(errors).toEqual([]);
  });

  it('joins an existing project from the session page of a session in none', async () => {
    const { api, root } = await projectServer();
    const workdir = join(root, 'docs-site');
    mkdirSync(workdir);
    userGit(workdir, 'init', '-q', '-b', 'main');
    writeFiles(workdir, { 'index.md': '# Docs\n' });
    userGit(workdir, 'add', '-A');
    userGit(workdir, 'commit', '-q', '-m', 'Start the docs');
    const { createProject } = await api.ok(CreateProject, { input: { name: 'Docs site', workdir } });
    await api.ok(CreateSession, { input: { sessionId: 'loose', title: 'A session in no project' } });

    const { page, errors } = await openPage(api.url);
    await page.goto(`${api.url}/sessions/loose`);
    const join_ = page.getByRole('combobox', { name: 'Join project', exact: true });
    await join_.waitFor(WAIT);
    await join_.selectOption(createProject.projectId);
    await page.getByRole('button', { name: 'Join', exact: true }).click();
    await page.getByRole('link', { name: 'Project: Docs site', exact: true }).waitFor(WAIT);
    expect(await page.getByRole('combobox', { name: 'Join project' }).count()).toBe(0);
    const view = (await api.ok(ProjectView, { projectId: createProject.projectId })).project!;
    expect(JSON.stringify(view)).toContain('loose');
    expect(errors).toEqual([]);
  });
});
