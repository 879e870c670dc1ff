/**
 * Branches for the tests: main with three turns, a retry of turn 2 (forking at turn 1)
 * and a fork off that retry (forking at its turn 2), as useBranchGraph gives them.
 */
import type { BranchInput, CommitPoint } from './lanes';

export const commit = (sha: string, number: number, text: string): CommitPoint => ({ sha, number, headline: `turn ${number}: ${text}` });

export const m1 = commit('m1'.padEnd(40, '0'), 1, 'q1');
export const m2 = commit('m2'.padEnd(40, '0'), 2, 'q2');
export const m3 = commit('m3'.padEnd(40, '0'), 3, 'q3');
export const r2 = commit('r2'.padEnd(40, '0'), 2, 'q2 again');
export const f3 = commit('f3'.padEnd(40, '0'), 3, 'another way');

export const main = (isCurrent = false): BranchInput => ({ name: 'main', kind: 'MAIN', isCurrent, forkPoint: null, commits: [m3, m2, m1], total: 3 });
export const retry = (isCurrent = false): BranchInput => ({
  name: 'retry-a2b',
  kind: 'RETRY',
  isCurrent,
  forkPoint: { ...m1, branch: 'main' },
  commits: [r2],
  total: 1,
});
export const fork = (isCurrent = false): BranchInput => ({
  name: 'fork-u9',
  kind: 'FORK',
  isCurrent,
  forkPoint: { ...r2, branch: 'retry-a2b' },
  commits: [f3],
  total: 1,
});
