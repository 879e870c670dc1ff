/**
 * The session replay page in a real browser against a real server: a coding session made
 * through the API (four turns on main, a retry of turn 3, a fork from turn 1), bound to a
 * project. The page's position, replay buttons and arrow keys, read-only status, Timeline,
 * Branches graph and switch, Changes, mirror status, project indicator and dirty-tree banner
 * are checked, and so is what browsing must never do (issue 27): move the session's write point
 * (the API's currentBranch and head, the session repo's HEAD), another page, or where the next
 * turn goes. The position is in the address (a reload opens it again); "Continue from here",
 * confirmed, is what moves the session. A turn recorded while the page is open shows up live.
 * Saves the session-replay and session-read-only screenshots (docs/screenshots).
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { AppendMessage, CreateSession, EndTurn, RecordTurn } from '../api/operations.js';
import { BranchView, Checkout, RetryTurn } from '../branching/operations.js';
import { eventually, git } from '../helpers/git.js';
import type { TestServer } from '../helpers/server.js';
import { AddSessionToProject, CreateProject } from '../projects/operations.js';
import { projectServer, userRepo } from '../projects/project-turns.js';
import { openPage, screenshot } from './browser.js';
import { describeMissing, expectContractNames } from './ui-contract.js';

const WAIT = { timeout: 45_000 };
const SESSION = 'cli-verbose';
const TITLE = 'Add a --verbose flag to the CLI';
const PROJECT = 'todo-cli';

/** The main branch's four turns: short prompts, a markdown reply with code, tool results. */
const TURNS = [
  {
    user: 'Add a --verbose flag to the CLI',
    assistant:
      "I'll add the flag in `parseArgs` and thread it through to the logger:\n\n```ts\nexport interface Options {\n  verbose: boolean;\n  file: string;\n}\n\nexport function parseArgs(argv: string[]): Options {\n  return { verbose: argv.includes('--verbose'), file: argv.find((a) => !a.startsWith('-')) ?? 'todo.md' };\n}\n```\n\nThen `main()` passes `options.verbose` to `createLogger`.",
    tool: { toolName: 'read_file', content: 'src/cli.ts (42 lines)\nimport { createLogger } from "./log";\nexport function main(argv: string[]) { … }' },
  },
  {
    user: 'Log each file the CLI reads when verbose',
    assistant: 'Done: `readTodos` now logs each path it opens with `log.debug`, which only prints with **--verbose**.',
    tool: { toolName: 'edit_file', content: 'src/todos.ts: +3 −1' },
  },
  {
    user: 'Write a test for parseArgs',
    assistant: 'Added `test/cli.test.ts` with three cases: no flags, `--verbose`, and a file name after the flag.',
    tool: { toolName: 'bash', content: '$ npm test\n ✓ test/cli.test.ts (3 tests) 12ms\n Test Files  1 passed (1)' },
  },
  {
    user: 'Document the flag in the README',
    assistant: 'The README now has an **Options** section:\n\n- `--verbose`: log every file the CLI reads\n- `--help`: print the usage',
    tool: null,
  },
] as const;

/** The session as the API sees it: current branch, viewed commit, repo path. */
async function sessionView(api: TestServer, branch?: string) {
  const view = await api.ok(BranchView, { sessionId: SESSION, branch });
  if (!view.session) throw new Error(`no session ${SESSION}`);
  return view.session;
}

/** The session's view once the mirror has every turn in git. */
function settled(api: TestServer) {
  return eventually(async () => {
    const view = await sessionView(api);
    return view.mirror.inSync ? view : undefined;
  });
}

/** The position text ("Turn X / Y") the page shows now. */
async function position(page: Page): Promise<string> {
  const text = await page.getByText(/Turn \d+ \/ \d+/).first().textContent();
  return text?.trim() ?? '';
}

describe('the session replay page', () => {
  it('replays, branches, lists changes and follows new turns live, keeping the UI contract', async () => {
    const { api, root } = await projectServer();
    const workdir = userRepo(root, 'todo-cli');
    const { createProject } = await api.ok(CreateProject, { input: { name: PROJECT, workdir } });
    await api.ok(CreateSession, { input: { sessionId: SESSION, title: TITLE, model: 'claude-sonnet' } });
    await api.ok(AddSessionToProject, { input: { sessionId: SESSION, projectId: createProject.projectId } });

    // Four turns on main.
    for (const [index, turn] of TURNS.entries()) {
      const n = index + 1;
      await api.ok(RecordTurn, {
        input: {
          sessionId: SESSION,
          user: { messageId: `u${n}`, content: turn.user },
          assistant: { messageId: `a${n}`, content: turn.assistant },
          toolResults: turn.tool ? [{ messageId: `t${n}`, toolName: turn.tool.toolName, content: turn.tool.content }] : [],
        },
      });
    }
    let view = await settled(api);
    const repo = view.repoPath;
    const [c4, c3, c2, c1] = git(repo, 'rev-list', 'main').trim().split('\n');
    expect(c1).toBeDefined();

    // A retry of turn 3: retry-a3b, which becomes current.
    const retried = await api.ok(RetryTurn, {
      input: {
        sessionId: SESSION,
        userMessageId: 'u3',
        assistant: { messageId: 'a3b', content: 'Added `test/cli.test.ts` with a table of cases, `--verbose` anywhere in argv included:\n\n```ts\nit.each([[[], false], [["--verbose"], true]])("parses %j", (argv, verbose) => {\n  expect(parseArgs(argv).verbose).toBe(verbose);\n});\n```' },
        toolResults: [{ messageId: 't3b', toolName: 'bash', content: '$ npm test\n ✓ test/cli.test.ts (2 tests) 9ms' }],
      },
    });
    expect(retried.retryTurn.branch).toBe('retry-a3b');
    view = await settled(api);
    expect(view.currentBranch).toBe('retry-a3b');

    // A fork from turn 1: check it out, then a new user message, a reply and the end of the turn.
    await api.ok(Checkout, { input: { sessionId: SESSION, sha: c1! } });
    await api.ok(AppendMessage, { input: { sessionId: SESSION, role: 'USER', content: 'Use an env var DEBUG=todo instead of a flag', messageId: 'u9' } });
    await api.ok(AppendMessage, { input: { sessionId: SESSION, role: 'ASSISTANT', content: 'Switched to `process.env.DEBUG?.includes("todo")`; the flag is gone.', messageId: 'a9' } });
    const fork = await api.ok(EndTurn, { input: { sessionId: SESSION } });
    expect(fork.endTurn.branch).toBe('fork-u9');
    view = await settled(api);
    expect(view.currentBranch).toBe('fork-u9');
    expect(view.branches.map((b) => b.name)).toEqual(['main', 'retry-a3b', 'fork-u9']);

    // The page, on the fork's tip.
    const { page, blocked, errors } = await openPage(api.url);
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${api.url}/sessions/${SESSION}`);
    const main = page.getByRole('main');
    const timeline = page.getByRole('list', { name: 'Timeline', exact: true });
    const readOnly = page.getByRole('status').filter({ hasText: 'read-only' });
    await expect.poll(() => position(page), WAIT).toBe('Turn 2 / 2');
    await expect.poll(() => main.getByText('Use an env var DEBUG=todo instead of a flag').isVisible(), WAIT).toBe(true);

    // Branches: a lane per branch, names visible.
    const branches = page.getByRole('figure', { name: 'Branches', exact: true });
    for (const name of ['main', 'retry-a3b', 'fork-u9']) {
      await expect.poll(() => branches.locator(`text.lane-label[data-lane="${name}"]`).isVisible(), WAIT).toBe(true);
      expect(await branches.locator(`text.lane-label[data-lane="${name}"]`).textContent()).toContain(name);
    }

    // Where the next turn goes, which browsing must leave alone: fork-u9's tip.
    const forkTip = view.head!.sha;
    const expectWritePointKept = async () => {
      const now = await sessionView(api);
      expect(now.currentBranch).toBe('fork-u9');
      expect(now.head?.sha).toBe(forkTip);
      expect(now.detached).toBe(false);
      expect(git(repo, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/fork-u9');
      expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(forkTip);
    };

    // A second page on the session, at its latest: browsing in the first never moves it.
    const second = await openPage(api.url);
    await second.page.goto(`${api.url}/sessions/${SESSION}`);
    await expect.poll(() => position(second.page), WAIT).toBe('Turn 2 / 2');

    // The Branch combobox shows main on this page; the session stays on fork-u9.
    const branchSwitch = page.getByRole('combobox', { name: 'Branch', exact: true });
    expect(await branchSwitch.inputValue()).toBe('fork-u9');
    await branchSwitch.selectOption('main');
    await expect.poll(() => position(page), WAIT).toBe('Turn 4 / 4');
    expect(new URL(page.url()).searchParams.get('branch')).toBe('main');
    await expectWritePointKept();
    // Arrow keys belong to a focused select: leave it.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

    /** The page views turn `number` of `total` (sha `sha`) on main: position, conversation, timeline and address agree; the session did not move. */
    const expectViewing = async (number: number, total: number, sha: string) => {
      await expect.poll(() => position(page), WAIT).toBe(`Turn ${number} / ${total}`);
      await expect.poll(() => timeline.locator('li[aria-current="true"] button').getAttribute('title'), WAIT).toBe(sha);
      const older = number < total;
      expect(new URL(page.url()).searchParams.get('at')).toBe(older ? sha : null);
      await expectWritePointKept();
      const userText = number === 0 ? '' : TURNS[number - 1]!.user;
      await expect.poll(() => main.getByRole('article').filter({ hasText: userText }).count(), WAIT).toBe(1);
      // Nothing after the viewed turn is shown.
      if (number < TURNS.length) expect(await main.getByText(TURNS[number]!.user).count()).toBe(0);
      await expect.poll(() => readOnly.count(), WAIT).toBe(older ? 1 : 0);
      expect(await position(second.page)).toBe('Turn 2 / 2');
    };

    // At latest: not read-only; the timeline lists main's commits, newest first.
    await expectViewing(4, 4, c4!);
    const mainView = await sessionView(api, 'main');
    const commits = mainView.timeline.edges.map((e) => e.node.headline);
    expect(commits).toEqual(TURNS.map((t, i) => `turn ${i + 1}: ${t.user}`).reverse());
    await expect.poll(() => timeline.getByRole('listitem').allInnerTexts(), WAIT).toEqual(commits);
    await expect.poll(() => page.getByRole('status').filter({ hasText: /^Mirror/ }).innerText(), WAIT).toContain('in sync');
    await expect.poll(() => page.getByRole('link', { name: `Project: ${PROJECT}` }).isVisible(), WAIT).toBe(true);

    // Changes: the viewed commit's message files.
    const changes = page.getByRole('region', { name: 'Changes', exact: true });
    const filesOf = (sha: string) => git(repo, 'diff-tree', '--root', '--no-commit-id', '--name-only', '-r', sha).trim().split('\n');
    const expectChanges = async (sha: string) => {
      const files = filesOf(sha);
      expect(files.filter((f) => /^messages\/.+\.json$/.test(f)).length).toBeGreaterThan(0);
      for (const file of files) await expect.poll(() => changes.getByText(file, { exact: true }).isVisible(), WAIT).toBe(true);
      expect(await changes.getByRole('listitem').count()).toBe(files.length);
    };
    await expectChanges(c4!);
    // The project's side of the turn: these turns changed no file of it, said in words.
    const code = page.getByRole('region', { name: 'Code changes', exact: true });
    await expect.poll(() => code.innerText(), WAIT).toContain('No file changed in this turn');
    await screenshot(page, 'session-replay');

    // Previous turn (button), Left, Next turn (button), Right, Back to latest.
    await page.getByRole('button', { name: 'Previous turn', exact: true }).click();
    await expectViewing(3, 4, c3!);
    await expectChanges(c3!);
    await page.keyboard.press('ArrowLeft');
    await expectViewing(2, 4, c2!);
    await expectChanges(c2!);
    await screenshot(page, 'session-read-only');
    // A reload opens the same view, from the address.
    await page.reload();
    await expectViewing(2, 4, c2!);
    await page.getByRole('button', { name: 'Next turn', exact: true }).click();
    await expectViewing(3, 4, c3!);
    await page.keyboard.press('ArrowLeft');
    await expectViewing(2, 4, c2!);
    await page.keyboard.press('ArrowRight');
    await expectViewing(3, 4, c3!);
    // k and j as well as the arrows.
    await page.keyboard.press('k');
    await expectViewing(2, 4, c2!);
    await page.keyboard.press('j');
    await expectViewing(3, 4, c3!);
    await page.getByRole('button', { name: 'Back to latest', exact: true }).click();
    await expectViewing(4, 4, c4!);

    // A timeline row views its commit.
    await timeline.getByRole('listitem').filter({ hasText: 'turn 1:' }).getByRole('button').click();
    await expectViewing(1, 4, c1!);
    await expectChanges(c1!);
    // g then l: the latest turn.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('g');
    await page.keyboard.press('l');
    await expectViewing(4, 4, c4!);

    // A dot of the graph views its commit.
    await branches.getByRole('button', { name: /^turn 3: .*\(main\)$/ }).click();
    await expectViewing(3, 4, c3!);

    // The agent writes while this page shows an older turn of main: the turn goes where the session
    // is (fork-u9's turn 3), the second page follows it live, this one stays where it is.
    await api.ok(RecordTurn, { input: { sessionId: SESSION, user: { messageId: 'u10', content: 'Also accept DEBUG=*' }, assistant: { messageId: 'a10', content: 'Done.' } } });
    await expect.poll(() => position(second.page), WAIT).toBe('Turn 3 / 3');
    expect((await sessionView(api)).currentBranch).toBe('fork-u9');
    expect(await position(page)).toBe('Turn 3 / 4');
    await second.page.close();

    // "Continue from here" moves the session, and only once confirmed: main's latest becomes where the next turn goes.
    await page.getByRole('button', { name: 'Back to latest', exact: true }).click();
    await expect.poll(() => position(page), WAIT).toBe('Turn 4 / 4');
    await page.getByRole('button', { name: 'Continue from here', exact: true }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Continue from here' });
    expect(await confirm.innerText()).toContain('will continue main from its latest turn');
    expect((await sessionView(api)).currentBranch).toBe('fork-u9');
    await confirm.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect.poll(async () => (await sessionView(api)).currentBranch, WAIT).toBe('main');
    // The repo's checkout follows the database's switch (the mirror's, after its event).
    await expect.poll(() => git(repo, 'symbolic-ref', 'HEAD').trim(), WAIT).toBe('refs/heads/main');
    await expect.poll(() => page.getByRole('button', { name: 'Continue from here' }).count(), WAIT).toBe(0);
    await expect.poll(() => new URL(page.url()).search, WAIT).toBe('');

    // A turn recorded while the page is open: live in the timeline, the conversation and the position.
    // The user has an uncommitted edit in the project, so the turn also brings the dirty-tree warning.
    writeFileSync(join(workdir, 'notes.txt'), 'v2: try --verbose on CI\n');
    mkdirSync(join(workdir, 'src'), { recursive: true });
    writeFileSync(join(workdir, 'src', 'cli.ts'), 'export const VERBOSE_FLAG = "--verbose";\n');
    const live = { user: 'Add -v as a short alias', assistant: 'Done: `-v` and `--verbose` both set `options.verbose`.' };
    await api.ok(RecordTurn, {
      input: { sessionId: SESSION, user: { messageId: 'u5', content: live.user }, assistant: { messageId: 'a5', content: live.assistant }, touchedPaths: ['src/cli.ts'] },
    });
    await expect.poll(() => position(page), WAIT).toBe('Turn 5 / 5');
    await expect.poll(() => main.getByRole('article').filter({ hasText: live.user }).count(), WAIT).toBe(1);
    await expect.poll(() => main.getByText('both set', { exact: false }).isVisible(), WAIT).toBe(true);
    await expect.poll(() => timeline.getByRole('listitem').first().innerText(), WAIT).toBe(`turn 5: ${live.user}`);
    await expect.poll(() => timeline.getByRole('listitem').count(), WAIT).toBe(5);
    const c5 = (await settled(api)).head!.sha;
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(c5);
    await expect.poll(() => page.getByRole('status').filter({ hasText: /^Mirror/ }).innerText(), WAIT).toContain('in sync');

    const alert = page.getByRole('alert').filter({ hasText: /uncommitted changes/ });
    await expect.poll(() => alert.isVisible(), WAIT).toBe(true);
    expect(await alert.innerText()).toContain('notes.txt');

    // Beside the conversation, what the turn did to the code: skipped for the user's notes.txt, the
    // agent's src/cli.ts kept on its snapshot, with its patch.
    await expect.poll(() => code.getByText('Not committed: your uncommitted changes were in the way').isVisible(), WAIT).toBe(true);
    expect(await code.innerText()).toContain('In the way: notes.txt');
    expect(await code.innerText()).toContain('Kept on a private snapshot');
    expect(await code.locator('.change-list summary').allTextContents()).toEqual(['added src/cli.ts +1 −0']);
    expect(await code.locator('pre .diff-add').allInnerTexts()).toEqual(['+export const VERBOSE_FLAG = "--verbose";\n']);
    // Side by side: the new file's line on the right, with its number, nothing facing it on the left.
    await code.getByRole('radio', { name: 'Split', exact: true }).check();
    const row = code.locator('table.split tr').filter({ hasText: 'VERBOSE_FLAG' });
    await row.waitFor(WAIT);
    expect(await row.locator('td').allTextContents()).toEqual(['', '', '1', 'export const VERBOSE_FLAG = "--verbose";']);
    await code.getByRole('radio', { name: 'Unified', exact: true }).check();
    await code.locator('pre .diff-add').waitFor(WAIT);
    const missing = await expectContractNames(page, { session: TITLE, project: PROJECT, dirtyTree: true, timeoutMs: 3000 });
    expect(missing, describeMissing(missing)).toEqual([]);

    expect(blocked.urls).toEqual([]);
    expect(errors).toEqual([]);
  }, 180_000); // one long walk through the page: ~30 s quiet, ~60 s on a loaded 2-core machine
});
