// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

// Each test gets the module afresh: "settled" is the page's, once for good.
let settledModule: typeof import('./page-settled');
beforeEach(async () => {
  vi.resetModules();
  settledModule = await import('./page-settled');
});

function Sidebar({ waits }: { waits: boolean }) {
  const shown = settledModule.usePageSettled(waits);
  return <p>{shown ? 'sidebar' : 'waiting'}</p>;
}

describe('usePageSettled', () => {
  it('is true at once for a page that does not wait', () => {
    render(<Sidebar waits={false} />);
    expect(screen.getByText('sidebar')).toBeTruthy();
  });

  it('waits until the page says it has settled, then stays so for every later page', () => {
    render(<Sidebar waits />);
    expect(screen.getByText('waiting')).toBeTruthy();
    act(() => settledModule.markPageSettled());
    expect(screen.getByText('sidebar')).toBeTruthy();
    cleanup();
    render(<Sidebar waits />);
    expect(screen.getByText('sidebar')).toBeTruthy();
  });

  it('gives up waiting after MAX_WAIT_MS for a page that never says so', () => {
    vi.useFakeTimers();
    render(<Sidebar waits />);
    act(() => vi.advanceTimersByTime(settledModule.MAX_WAIT_MS - 1));
    expect(screen.getByText('waiting')).toBeTruthy();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByText('sidebar')).toBeTruthy();
  });
});
