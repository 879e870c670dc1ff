/**
 * The end-to-end tests' browser: one headless Chromium per test file (launched on first use,
 * closed after the file), a fresh context and page per test (closed after the test), every
 * request to another origin aborted and recorded, and screenshots under .e2e-screenshots/.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, vi } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { onCleanup } from '../helpers/leftovers.js';
import { launchChromium, noNetwork, type BlockedRequests } from './chromium.js';

export { noNetwork, type BlockedRequests } from './chromium.js';

// A browser test walks a page through many waits (45 s each at most); on a loaded 2-core machine
// the walk can take minutes where a quiet one takes seconds.
vi.setConfig({ testTimeout: 180_000 });

const SCREENSHOTS = fileURLToPath(new URL('../../.e2e-screenshots/', import.meta.url));

let browser: Promise<Browser> | undefined;
/** The pages this test opened, for its failure message. */
const opened: BrowserPage[] = [];

// A failed test says where each of its pages stood: the address, the text on the page, what the
// page logged as errors and what it asked elsewhere, and a screenshot. Registered after the
// leftovers' afterEach, so it runs first (after-hooks run in reverse), while the pages are open.
afterEach(async (context) => {
  const pages = opened.splice(0);
  if (context.task.result?.state !== 'fail') return;
  for (const [index, { page, errors, blocked }] of pages.entries()) {
    if (page.isClosed()) continue;
    const text = await page
      .locator('body')
      .innerText({ timeout: 5_000 })
      .catch((error: Error) => `(unreadable: ${error.message})`);
    const shot = await screenshot(page, `failed-${context.task.name}-${index}`).catch(() => '(no screenshot)');
    process.stderr.write(
      `--- page ${index}: ${page.url()}\n${text.slice(0, 4000)}\n--- its errors: ${JSON.stringify(errors)}; blocked: ${JSON.stringify(blocked.urls)}; screenshot: ${shot}\n`,
    );
  }
});

afterAll(async () => {
  const launched = browser;
  browser = undefined;
  await (await launched?.catch(() => undefined))?.close();
});

/** This file's browser, launched on first use. */
export function sharedBrowser(): Promise<Browser> {
  browser ??= launchChromium();
  return browser;
}

export interface BrowserPage {
  context: BrowserContext;
  page: Page;
  /** Requests the page made to any origin but the server's (aborted). */
  blocked: BlockedRequests;
  /** Page errors and console errors, for failure messages. */
  errors: string[];
}

/** A new context and page that may only talk to `serverUrl`'s origin; closed after the test. */
export async function openPage(serverUrl: string): Promise<BrowserPage> {
  const context = await (await sharedBrowser()).newContext();
  onCleanup(() => context.close());
  const blocked = await noNetwork(context, new URL(serverUrl).origin);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  const opening = { context, page, blocked, errors };
  opened.push(opening);
  return opening;
}

/** Saves a full-page PNG as .e2e-screenshots/<name>.png (at the repo root) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = `${SCREENSHOTS}${name.replace(/[^\w.-]+/g, '-')}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}
