/**
 * Issue 27: an axe-core scan (the maintained accessibility rules engine, run inside the page) of
 * the pages people use most: a session in a project (conversation with tool calls, code changes,
 * timeline, branches, the rewind preview open) and its project page (history, a skipped turn's
 * snapshot, the restore preview open), the search page and a file's blame. No serious or critical
 * violation.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { CreateSession } from '../api/operations.js';
import { outcome, recordTurn } from '../projects/project-turns.js';
import { openPage } from './browser.js';
import { shopProject } from './shop.js';

const WAIT = { timeout: 45_000 };
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical violations on the page as it is now, one line each. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

describe('accessibility', () => {
  it('the session page and the project page have no serious or critical axe-core violation', async () => {
    const { api, workdir, projectId } = await shopProject('em-e2e-a11y-');
    const sessionId = 'prices';
    await api.ok(CreateSession, { input: { sessionId, title: 'Show prices in euros', projectId: projectId } });
    writeFileSync(join(workdir, 'src', 'price.js'), 'export const price = (n) => `${n} EUR`;\n');
    await api.raw(
      `mutation ($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`,
      {
        input: {
          sessionId,
          user: { content: 'Show prices in euros' },
          assistant: {
            content: 'Done:\n\n| file | change |\n| --- | --- |\n| src/price.js | new |',
            metadata: { toolCalls: [{ id: 'toolu_1', name: 'Write', input: { file_path: 'src/price.js', content: 'export const price = (n) => `${n} EUR`;\n' } }] },
          },
          toolResults: [{ content: 'File written', toolName: 'Write', toolCallId: 'toolu_1' }],
          touchedPaths: ['src/price.js'],
        },
      },
    );
    expect((await outcome(api, sessionId, 1)).result).toBe('COMMITTED');
    // A second turn skipped: the user has an uncommitted README edit.
    writeFileSync(join(workdir, 'README.md'), '# Shop, edited by you\n');
    writeFileSync(join(workdir, 'src', 'price.js'), 'export const price = (n) => `€${n}`;\n');
    await recordTurn(api, { sessionId, content: 'Use the euro sign', touchedPaths: ['src/price.js'] });
    expect((await outcome(api, sessionId, 2)).result).toBe('SKIPPED_DIRTY');

    const { page } = await openPage(api.url);
    await page.goto(`${api.url}/sessions/${sessionId}`);
    await page.getByText('Turn 2 / 2', { exact: true }).waitFor(WAIT);
    await page.getByRole('region', { name: 'Code changes' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Previous turn', exact: true }).click();
    await page.getByText('Turn 1 / 2', { exact: true }).waitFor(WAIT);
    await page.getByRole('table').waitFor(WAIT);
    await page.getByRole('button', { name: 'Rewind to here', exact: true }).click();
    await page.getByRole('dialog', { name: 'Rewind to turn 1' }).getByText(/back to its state after turn 1/).waitFor(WAIT);
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${api.url}/projects/${projectId}`);
    const sessions = page.getByRole('region', { name: 'Sessions', exact: true });
    await sessions.getByText('Turn 2').first().waitFor(WAIT);
    await sessions.getByRole('button', { name: 'Restore files to turn 1', exact: true }).click();
    await page.getByRole('dialog', { name: 'Restore to turn 1' }).getByRole('button', { name: 'Cancel' }).waitFor(WAIT);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('dialog', { name: 'Restore to turn 1' }).getByRole('button', { name: 'Cancel' }).click();

    // The skipped turn's snapshot, in the tree since the turn: taken out ("Undo apply"), then the apply's preview open.
    await sessions.getByRole('button', { name: 'Undo apply', exact: true }).click();
    await sessions.getByRole('status').filter({ hasText: "Took turn 2's snapshot out of the working tree" }).waitFor(WAIT);
    expect(readFileSync(join(workdir, 'src', 'price.js'), 'utf8')).toBe('export const price = (n) => `${n} EUR`;\n');
    await sessions.getByRole('button', { name: 'Apply snapshot', exact: true }).click();
    await page.getByRole('dialog', { name: "Apply turn 2's snapshot" }).getByText('1 path is written into the working tree').waitFor(WAIT);
    expect(await seriousViolations(page)).toEqual([]);

    // The search page with its hits, and a file's blame.
    await page.goto(`${api.url}/search?q=euro*`);
    await page.getByRole('region', { name: 'Show prices in euros' }).locator('mark').first().waitFor(WAIT);
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${api.url}/projects/${projectId}/blame?path=README.md`);
    await page.getByRole('table', { name: 'Blame' }).getByRole('row').first().waitFor(WAIT);
    expect(await seriousViolations(page)).toEqual([]);
  });
});
