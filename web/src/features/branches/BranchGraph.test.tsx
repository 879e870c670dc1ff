// @vitest-environment jsdom
/**
 * The branch graph as users and tests find it (ui.md: figure "Branches"): lanes, fork
 * connectors, the current branch, the viewed commit, and commits that view on click/Enter.
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BranchGraph } from './BranchGraph';
import { commit, f3, fork, m1, m3, main, r2, retry } from './fixtures';
import type { BranchInput } from './lanes';

afterEach(cleanup);

const noop = () => {};

function graph() {
  return screen.getByRole('figure', { name: 'Branches' });
}

/** The centre of a commit's dot on a lane, as drawn. */
function centre(sha: string, lane: string): string {
  const dot = graph().querySelector(`[data-sha="${sha}"][data-lane="${lane}"] circle.dot`)!;
  return `${dot.getAttribute('cx')} ${dot.getAttribute('cy')}`;
}

/** Where a connector or lane line starts and ends ("x y"): "M x y V y2" or "M x y C … x2 bend V y2". */
function ends(path: Element): [string, string] {
  const numbers = path.getAttribute('d')!.match(/-?\d+(\.\d+)?/g)!;
  return [`${numbers[0]} ${numbers[1]}`, `${numbers.at(-3)} ${numbers.at(-1)}`];
}

function connectors(lane: string): Element[] {
  return [...graph().querySelectorAll(`path[data-kind="fork"][data-lane="${lane}"]`)];
}

describe('BranchGraph', () => {
  it('draws main alone: a dot per commit, newest first, a line between them, no connector', () => {
    render(<BranchGraph branches={[main(true)]} onView={noop} />);
    const dots = within(graph()).getAllByRole('button');
    expect(dots.map((d) => d.getAttribute('aria-label'))).toEqual(['turn 3: q3 (main)', 'turn 2: q2 (main)', 'turn 1: q1 (main)']);
    expect(graph().querySelectorAll('path[data-kind="lane"]')).toHaveLength(2);
    expect(graph().querySelectorAll('path[data-kind="fork"]')).toHaveLength(0);
    expect(graph().querySelector('text.lane-label')?.textContent).toContain('main');
    expect(graph().textContent).not.toContain('showing the last');
  });

  it('starts a retry lane at its fork point on main', () => {
    render(<BranchGraph branches={[main(), retry(true)]} onView={noop} />);
    expect(within(graph()).getByRole('button', { name: 'turn 2: q2 again (retry-a2b)' })).toBeTruthy();
    const [connector] = connectors('retry-a2b');
    expect(connector).toBeDefined();
    expect(ends(connector!)).toEqual([centre(m1.sha, 'main'), centre(r2.sha, 'retry-a2b')]);
    // The retry's lane is the second column, to the right of main's.
    const column = (sha: string, lane: string) => Number(centre(sha, lane).split(' ')[0]);
    expect(column(r2.sha, 'retry-a2b')).toBeGreaterThan(column(m1.sha, 'main'));
    // Turn 2 of main and of the retry share a row.
    expect(centre(r2.sha, 'retry-a2b').split(' ')[1]).toBe(centre('m2'.padEnd(40, '0'), 'main').split(' ')[1]);
  });

  it('starts a fork off a retry at the retry’s commit', () => {
    render(<BranchGraph branches={[main(), retry(), fork(true)]} onView={noop} />);
    const [connector] = connectors('fork-u9');
    expect(ends(connector!)).toEqual([centre(r2.sha, 'retry-a2b'), centre(f3.sha, 'fork-u9')]);
    // The fork point is the retry's commit, drawn once, on the retry's lane.
    expect([...graph().querySelectorAll(`[data-sha="${r2.sha}"]`)].map((d) => d.getAttribute('data-lane'))).toEqual(['retry-a2b']);
    expect(connectors('retry-a2b')).toHaveLength(1);
    const labels = [...graph().querySelectorAll('text.lane-label')].map((t) => t.getAttribute('data-lane'));
    expect(labels).toEqual(['main', 'retry-a2b', 'fork-u9']);
  });

  it('marks the current branch', () => {
    render(<BranchGraph branches={[main(), retry(true), fork()]} onView={noop} />);
    const current = [...graph().querySelectorAll('text.lane-label.current')];
    expect(current.map((t) => t.getAttribute('data-lane'))).toEqual(['retry-a2b']);
    expect(current[0]!.querySelector('title')?.textContent).toBe('retry-a2b (current branch)');
    const heavy = [...graph().querySelectorAll('path.edge.current')].map((p) => p.getAttribute('data-lane'));
    expect(heavy).toEqual(['retry-a2b']);
  });

  it('highlights the viewed commit, and only it', () => {
    render(<BranchGraph branches={[main(), retry(), fork()]} viewedSha={r2.sha} onView={noop} />);
    const viewed = within(graph())
      .getAllByRole('button')
      .filter((d) => d.getAttribute('aria-current') === 'true');
    // r2 is drawn once on its own lane (the fork point of fork-u9 is not drawn twice).
    expect(viewed.map((d) => d.getAttribute('aria-label'))).toEqual(['turn 2: q2 again (retry-a2b)']);
    expect(viewed[0]!.querySelector('circle.ring')).not.toBeNull();
  });

  it('views a commit, with its lane, on click and on Enter', async () => {
    const onView = vi.fn();
    const user = userEvent.setup();
    render(<BranchGraph branches={[main(), retry(), fork()]} onView={onView} />);
    await user.click(within(graph()).getByRole('button', { name: 'turn 3: another way (fork-u9)' }));
    expect(onView).toHaveBeenLastCalledWith(f3.sha, 'fork-u9');
    within(graph()).getByRole('button', { name: 'turn 3: q3 (main)' }).focus();
    await user.keyboard('{Enter}');
    expect(onView).toHaveBeenLastCalledWith(m3.sha, 'main');
    expect(onView).toHaveBeenCalledTimes(2);
  });

  it('draws the last commits of a long lane, its fork points, and says how many are left out', () => {
    const mainCommits = Array.from({ length: 50 }, (_, i) => commit(`m${10000 - i}`.padEnd(40, 'a'), 10000 - i, `q${10000 - i}`));
    const long: BranchInput = { name: 'main', kind: 'MAIN', isCurrent: true, forkPoint: null, commits: mainCommits, total: 10000 };
    const early: BranchInput = { name: 'retry-x', kind: 'RETRY', isCurrent: false, forkPoint: { ...commit('m20'.padEnd(40, 'a'), 20, 'q20'), branch: 'main' }, commits: [commit('x21'.padEnd(40, 'b'), 21, 'other')], total: 1 };
    render(<BranchGraph branches={[long, early]} onView={noop} />);
    const onMain = within(graph())
      .getAllByRole('button')
      .filter((d) => d.getAttribute('aria-label')!.endsWith('(main)'));
    expect(onMain).toHaveLength(51);
    expect(within(graph()).getByRole('button', { name: 'turn 20: q20 (main)' })).toBeTruthy();
    expect(graph().querySelector('figcaption')?.textContent).toContain('main: showing the last 50 of 10000 turns');
    // The line from turn 20 up to turn 9951 skips commits: dashed.
    expect(graph().querySelectorAll('path.elided[data-lane="main"]')).toHaveLength(1);
  });
});
