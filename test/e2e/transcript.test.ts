/**
 * Issue 27 item 3: a Claude Code session, imported from a transcript as Claude Code writes it
 * (test/importers/fixtures/claude-code/tools.jsonl: thinking, Bash, Read, Edit, the results),
 * reads in the browser as Claude Code shows it: the Edit as a diff of its file, the Bash call as
 * its command with its output under it, the Read as its path, the thinking collapsed; no message
 * is an empty box and no result names its call by a bare id.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importClaudeCode } from '../../src/services/imports/import-claude-code.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { openPage, screenshot } from './browser.js';

const WAIT = { timeout: 45_000 };
const FIXTURE = join(import.meta.dirname, '..', 'importers', 'fixtures', 'claude-code', 'tools.jsonl');
const SESSION = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e02';

describe('an imported Claude Code session in the browser', () => {
  it('reads like Claude Code shows it: an Edit as a diff, a Bash call as command and output, a Read as its path', async () => {
    const root = tempDir('em-e2e-transcript-');
    const projects = join(root, 'projects', '-home-dev-shop');
    mkdirSync(projects, { recursive: true });
    copyFileSync(FIXTURE, join(projects, `${SESSION}.jsonl`));
    const api = await startTestServer({ allowedRoots: [root] });
    const summary = await importClaudeCode({ paths: [projects] }, api.server.app.deps);
    expect(summary.errors).toEqual([]);
    expect(summary.sessions).toBe(1);

    const { page, errors } = await openPage(api.url);
    await page.goto(`${api.url}/sessions/${SESSION}`);
    const main = page.getByRole('main');

    const edit = main.getByRole('group', { name: 'Tool call: Edit' });
    await edit.waitFor(WAIT);
    expect(await edit.locator('summary').innerText()).toBe('/home/dev/shop/src/price.ts +1 −1');
    expect((await edit.locator('pre .diff-del').allInnerTexts()).join('')).toContain('String(cents)');
    expect((await edit.locator('pre .diff-add').allInnerTexts()).join('')).toContain('(cents / 100).toFixed(2)');
    // In TypeScript's colours once the highlighter is in (a chunk loaded after the page), the text unchanged.
    await expect.poll(() => edit.locator('pre .diff-add .hljs-number').allInnerTexts(), { timeout: 45_000 }).toEqual(['100', '2']);
    expect((await edit.locator('pre .diff-add').allInnerTexts()).join('')).toContain('(cents / 100).toFixed(2)');

    const bash = main.getByRole('group', { name: 'Tool call: Bash' }).first();
    expect(await bash.locator('.shell-command').innerText()).toBe('$ npm test');
    // Its output sits under it, summarised by what the call ran, the call linked by name, not id.
    const result = main.getByRole('article').filter({ hasText: 'Tool result: Bash' }).first();
    expect(await result.locator('summary').innerText()).toContain('npm test');
    expect(await result.locator('summary').innerText()).not.toMatch(/toolu_|[0-9a-f]{8}-[0-9a-f]{4}-/);
    await result.locator('summary').click();
    expect((await result.locator('pre').innerText()).length).toBeGreaterThan(0);

    expect(await main.getByRole('group', { name: 'Tool call: Read' }).first().innerText()).toContain('/home/dev/shop/src/price.ts');
    const thinking = main.locator('details.thinking').first();
    expect(await thinking.getAttribute('open')).toBeNull();
    expect(await thinking.innerText()).toContain('Thinking');

    // No message is an empty box.
    const texts = await main.getByRole('article').allInnerTexts();
    expect(texts.length).toBeGreaterThan(4);
    for (const text of texts) expect(text.replace(/^(User|Assistant|System|Tool result)\b:?\s*/, '').trim(), JSON.stringify(texts)).not.toBe('');
    await screenshot(page, 'session-transcript');
    expect(errors).toEqual([]);
  }, 120_000);
});
