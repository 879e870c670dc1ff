/**
 * The pure parts of the Branches panel: picking a branch's own commits out of a page of
 * the log, and the lane layout's rows and edges.
 */
import { describe, expect, it } from 'vitest';
import { fork, m1, m2, m3, main, r2, retry } from './fixtures';
import { headlineNumber, headlineText, layoutLanes, walkOwnCommits, type LogCommit } from './lanes';

const log = (...commits: [sha: string, parent?: string][]): Map<string, LogCommit> =>
  new Map(commits.map(([sha, parent]) => [sha, { sha, headline: `commit ${sha}`, parentShas: parent ? [parent] : [] }]));

describe('walkOwnCommits', () => {
  const page = log(['c4', 'c3'], ['c3', 'c2'], ['c2', 'c1'], ['c1'], ['x3', 'c2']);
  const head = (sha: string, number: number) => ({ sha, headline: '', number });

  it('walks first parents from the tip down to the fork point, numbering down from the tip', () => {
    expect(walkOwnCommits(head('x3', 3), 'c2', 50, page)).toEqual([{ sha: 'x3', headline: 'commit x3', number: 3 }]);
    expect(walkOwnCommits(head('c4', 4), null, 50, page)?.map((c) => [c.sha, c.number])).toEqual([
      ['c4', 4],
      ['c3', 3],
      ['c2', 2],
      ['c1', 1],
    ]);
  });

  it('stops at the number wanted', () => {
    expect(walkOwnCommits(head('c4', 4), null, 2, page)?.map((c) => c.sha)).toEqual(['c4', 'c3']);
  });

  it('gives null when the walk leaves the page before it is done', () => {
    expect(walkOwnCommits(head('c4', 4), null, 3, log(['c4', 'c3'], ['c3', 'c2']))).toBeNull();
    expect(walkOwnCommits(head('zz', 9), null, 1, page)).toBeNull();
  });
});

describe('layoutLanes', () => {
  it('puts main first and gives a row per turn number, newest on top', () => {
    const layout = layoutLanes([retry(), fork(), main()]);
    expect(layout.lanes.map((l) => [l.name, l.column])).toEqual([
      ['main', 0],
      ['retry-a2b', 1],
      ['fork-u9', 2],
    ]);
    expect(layout.rows).toEqual([3, 2, 1]);
    const at = (sha: string, lane: string) => layout.dots.find((d) => d.sha === sha && d.lane === lane);
    expect(at(m3.sha, 'main')).toMatchObject({ row: 0, column: 0, isHead: true, text: 'q3' });
    expect(at(m1.sha, 'main')).toMatchObject({ row: 2, column: 0, isHead: false });
    expect(at(r2.sha, 'retry-a2b')).toMatchObject({ row: 1, column: 1, isHead: true });
    // A fork point is drawn on its own lane only.
    expect(layout.dots.filter((d) => d.sha === r2.sha)).toHaveLength(1);
  });

  it('connects each lane to its fork point, solid when no commit is left out', () => {
    const layout = layoutLanes([main(), retry(), fork()]);
    expect(layout.edges.filter((e) => e.kind === 'fork')).toEqual([
      { lane: 'retry-a2b', kind: 'fork', from: { column: 0, row: 2 }, to: { column: 1, row: 1 }, elided: false },
      { lane: 'fork-u9', kind: 'fork', from: { column: 1, row: 1 }, to: { column: 2, row: 0 }, elided: false },
    ]);
    expect(layout.edges.filter((e) => e.kind === 'lane' && e.lane === 'main')).toHaveLength(2);
  });

  it('draws the fork point of a lane whose parent’s commits are cut, and dashes the gap', () => {
    const short = { ...main(), commits: [m3], total: 3 };
    const layout = layoutLanes([short, retry()]);
    expect(layout.dots.filter((d) => d.lane === 'main').map((d) => d.number)).toEqual([3, 1]);
    expect(layout.edges.find((e) => e.lane === 'main')).toMatchObject({ elided: true });
    expect(layout.rows).toEqual([3, 2, 1]);
    expect(layout.dots.some((d) => d.sha === m2.sha)).toBe(false);
  });

  it('starts a retry of turn 1 (no fork point) with no connector', () => {
    const root = { ...retry(), forkPoint: null, commits: [{ sha: 'r1', headline: 'turn 1: again', number: 1 }] };
    const layout = layoutLanes([main(), root]);
    expect(layout.edges.filter((e) => e.kind === 'fork')).toEqual([]);
    expect(layout.dots.find((d) => d.sha === 'r1')).toMatchObject({ column: 1, row: 2 });
  });

  it('reads headlines', () => {
    expect(headlineText('turn 12: fix it')).toBe('fix it');
    expect(headlineNumber('turn 12: fix it')).toBe(12);
    expect(headlineNumber('initial')).toBeNull();
  });
});
