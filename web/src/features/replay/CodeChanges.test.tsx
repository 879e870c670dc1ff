// @vitest-environment jsdom
/**
 * A file of a turn's code changes: a long patch starts collapsed and is not rendered until
 * opened, then goes on the page in steps (a task each), whole in the end, in either layout.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { FileDiff, type DiffFile } from './CodeChanges';

afterEach(cleanup);

const LINES = 1_000;
const patch = ['@@ -0,0 +1,1000 @@', ...Array.from({ length: LINES }, (_, i) => `+line ${i + 1}`)].join('\n');
const file: DiffFile = { path: 'gen/routes.txt', oldPath: null, status: 'ADDED', additions: LINES, deletions: 0, patch, truncated: false };

describe('FileDiff', () => {
  it('keeps a long patch off the page while collapsed, then renders all of it in steps once opened', async () => {
    const { container } = render(
      <ul>
        <FileDiff file={file} colour={false} layout="unified" />
      </ul>,
    );
    const details = container.querySelector('details')!;
    expect(details.open).toBe(false);
    expect(container.querySelectorAll('.diff-add')).toHaveLength(0);

    // Opened (as a click on its summary does): the first step at once (act runs no timers), then every line.
    act(() => {
      details.open = true;
      details.dispatchEvent(new Event('toggle'));
    });
    const first = container.querySelectorAll('.diff-add').length;
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(LINES);
    await screen.findByText(`+line ${LINES}`, { exact: false }, { timeout: 30_000 });
    expect(container.querySelectorAll('.diff-add')).toHaveLength(LINES);
    expect(container.querySelector('pre')!.textContent).toBe(`${patch}\n`);
  });

  it('renders the split layout in steps too, every row in the end', async () => {
    const { container } = render(
      <ul>
        <FileDiff file={{ ...file, additions: 3, patch: '@@ -0,0 +1,3 @@\n+a\n+b\n+c' }} colour={false} layout="split" />
      </ul>,
    );
    // A short patch starts open.
    expect(container.querySelector('details')!.open).toBe(true);
    expect([...container.querySelectorAll('table.split tr')].map((tr) => tr.textContent)).toEqual(['@@ -0,0 +1,3 @@', '1a', '2b', '3c']);

    cleanup();
    const long = render(
      <ul>
        <FileDiff file={file} colour={false} layout="split" />
      </ul>,
    );
    await userEvent.click(screen.getByText('gen/routes.txt'));
    await screen.findByText(`line ${LINES}`, {}, { timeout: 30_000 });
    expect(long.container.querySelectorAll('table.split tr')).toHaveLength(LINES + 1);
  });
});
