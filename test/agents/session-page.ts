/**
 * A real agent's recorded turn as the web UI shows it, for the agent tests: the session page
 * opened in Chromium at its one turn, and what every such test checks there (the reply, the
 * agent's commit beside the conversation, no empty message, no page error, nothing fetched from
 * elsewhere). Each test checks its own agent's tool calls itself.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { openPage } from '../e2e/browser.js';
import type { TestServer } from '../helpers/server.js';
import type { Script } from './scripted-model.js';

/**
 * The turn the Codex and Gemini browser tests show: a file written, then edited, a command, and a
 * reply in markdown (drawn as such). Claude Code's test writes three lines instead of two.
 */
export const SHOWN_TURN: { script: Script; prompt: string } = {
  prompt: 'TURN1: write a.txt, edit it, generate gen.txt',
  script: {
    turns: [
      {
        match: /TURN1/,
        steps: [
          { write: 'a.txt', content: 'one\ntwo\n' },
          { edit: 'a.txt', old: 'one', new: 'uno' },
          { bash: 'echo generated > gen.txt' },
          { text: 'Wrote **a.txt** and gen.txt.' },
        ],
      },
    ],
  },
};

/** How long a page waits for what it shows: the session page draws once its data has come. */
export const WAIT = { timeout: 45_000 };

/** The session page at its first (and only) turn, drawn. */
export async function openRecordedTurn(api: TestServer, sessionId: string) {
  const { page, errors, blocked } = await openPage(api.url);
  await page.goto(`${api.url}/sessions/${encodeURIComponent(sessionId)}`);
  await page.getByText('Turn 1 / 1', { exact: true }).waitFor(WAIT);
  return { page, main: page.getByRole('main'), errors, blocked };
}

/**
 * What every agent's page must show for the turn: `reply` as its last message, the agent's commit
 * of `files` (each `added <path> +n −m`) under Code changes, no message an empty box; and no page
 * error, nothing blocked.
 */
export async function expectTurnShown(opened: Awaited<ReturnType<typeof openRecordedTurn>>, reply: string, files: string[]): Promise<void> {
  const { page, main, errors, blocked } = opened;
  await expect.poll(() => main.getByRole('article').last().innerText(), WAIT).toContain(reply);
  const code = codeChanges(page);
  await expect.poll(() => code.locator('.change-list summary').allTextContents(), WAIT).toEqual(files);
  expect(await code.innerText()).toContain('Committed');
  const empty = async () => (await main.getByRole('article').allInnerTexts()).filter((text) => text.replace(/^(User|Assistant|Tool result)\b:?\s*/, '').trim() === '');
  await expect.poll(empty, WAIT).toEqual([]);
  expect(blocked.urls).toEqual([]);
  expect(errors).toEqual([]);
}

/** Beside the conversation, what the turn did to the user's repo. */
function codeChanges(page: Page) {
  return page.getByRole('region', { name: 'Code changes', exact: true });
}
