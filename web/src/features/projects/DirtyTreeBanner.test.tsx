// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WarningBanner } from './DirtyTreeBanner';

afterEach(cleanup);

describe('a dirty-tree banner', () => {
  it('is an alert with the message, the paths, the project and the turn, and can be dismissed', async () => {
    const onDismiss = vi.fn();
    render(
      <WarningBanner
        warning={{
          projectId: 'p1',
          projectName: 'Shop',
          message: "You have uncommitted changes; the agent's edits won't be auto-committed for now.",
          dirtyPaths: ['notes.md', 'src/a.ts'],
          reason: null,
          turnNumber: 3,
          sessionId: 's1',
          sessionTitle: 'Fix checkout',
          at: '2026-01-01T00:00:00Z',
        }}
        onDismiss={onDismiss}
      />,
    );
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('uncommitted changes');
    expect(alert.textContent).toContain('notes.md');
    expect(alert.textContent).toContain('src/a.ts');
    expect(screen.getByRole('link', { name: 'Shop' }).getAttribute('href')).toBe('/projects/p1');
    expect(screen.getByRole('link', { name: 'turn 3' }).getAttribute('href')).toBe('/sessions/s1');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(onDismiss).toHaveBeenCalledOnce();
  });
});
