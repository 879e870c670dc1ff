import { describe, expect, it } from 'vitest';
import { decideCommit, isTouched, splitAtClose, type CommitInput } from '../../src/projects/ownership.js';

describe('splitAtClose', () => {
  it.each([
    {
      name: 'touchedPaths: dirty paths inside them are the agent’s, every other dirty path is a suspect',
      input: { touched: ['src/', 'README.md'], dirtyAtStart: [], dirtyAtClose: ['README.md', 'notes.txt', 'src/a.ts'], changedBeforeStart: [] },
      agent: ['README.md', 'src/a.ts'],
      suspects: ['notes.txt'],
    },
    {
      name: 'touchedPaths: a path the user had changed before the turn is the user’s, even when the agent edits it too',
      input: { touched: ['a.txt', 'b.txt'], dirtyAtStart: ['a.txt'], dirtyAtClose: ['a.txt', 'b.txt'], changedBeforeStart: [] },
      agent: ['b.txt'],
      suspects: ['a.txt'],
    },
    {
      name: 'touchedPaths: what a skipped turn of the session left, unchanged since, is the agent’s, not the user’s',
      input: { touched: ['c.txt'], dirtyAtStart: ['b.txt', 'notes.txt'], dirtyAtClose: ['b.txt', 'c.txt', 'notes.txt'], changedBeforeStart: [], carried: ['b.txt'] },
      agent: ['b.txt', 'c.txt'],
      suspects: ['notes.txt'],
    },
    {
      name: 'no touchedPaths: the same for what a skipped turn left',
      input: { touched: null, dirtyAtStart: ['b.txt', 'notes.txt'], dirtyAtClose: ['b.txt', 'c.txt', 'notes.txt'], changedBeforeStart: [], carried: ['b.txt'] },
      agent: ['b.txt', 'c.txt'],
      suspects: ['notes.txt'],
    },
    {
      name: 'no touchedPaths: what became dirty during the turn is the agent’s, what was dirty before is a suspect',
      input: { touched: null, dirtyAtStart: ['mine.txt'], dirtyAtClose: ['mine.txt', 'agent.txt'], changedBeforeStart: [] },
      agent: ['agent.txt'],
      suspects: ['mine.txt'],
    },
    {
      name: 'no touchedPaths: a change made before the turn’s startedAt is the user’s',
      input: { touched: null, dirtyAtStart: [], dirtyAtClose: ['early.txt', 'agent.txt'], changedBeforeStart: ['early.txt'] },
      agent: ['agent.txt'],
      suspects: ['early.txt'],
    },
    {
      name: 'a clean tree at close: nothing on either side',
      input: { touched: ['a.txt'], dirtyAtStart: [], dirtyAtClose: [], changedBeforeStart: [] },
      agent: [],
      suspects: [],
    },
  ])('$name', ({ input, agent, suspects }) => {
    expect(splitAtClose(input)).toEqual({ agent, suspects });
  });
});

describe('decideCommit', () => {
  const base: CommitInput = { agent: ['a.txt'], suspects: [], dirtyNow: ['a.txt'], claimed: new Set(), busy: null, detached: false, final: false };
  it.each<{ name: string; input: Partial<CommitInput>; expected: ReturnType<typeof decideCommit> }>([
    { name: 'commits the agent’s paths when nothing else is in the way', input: {}, expected: { kind: 'commit', paths: ['a.txt'] } },
    { name: 'a user operation in progress wins', input: { busy: 'a merge is in progress' }, expected: { kind: 'busy', reason: 'a merge is in progress' } },
    { name: 'a detached HEAD is a skip', input: { detached: true }, expected: { kind: 'busy', reason: 'HEAD is detached (no branch is checked out)' } },
    { name: 'a suspect still dirty waits while it may be another agent’s', input: { suspects: ['u.txt'], dirtyNow: ['a.txt', 'u.txt'] }, expected: { kind: 'wait', userPaths: ['u.txt'] } },
    { name: 'and is the user’s on the last look', input: { suspects: ['u.txt'], dirtyNow: ['a.txt', 'u.txt'], final: true }, expected: { kind: 'dirty', userPaths: ['u.txt'] } },
    { name: 'a suspect another agent turn claimed is not the user’s', input: { suspects: ['u.txt'], dirtyNow: ['u.txt'], claimed: new Set(['u.txt']), final: true }, expected: { kind: 'commit', paths: ['a.txt'] } },
    { name: 'a suspect the user committed meanwhile is no longer in the way', input: { suspects: ['u.txt'], dirtyNow: ['a.txt'], final: true }, expected: { kind: 'commit', paths: ['a.txt'] } },
    { name: 'nothing of the agent’s: nothing to commit', input: { agent: [] }, expected: { kind: 'nothing' } },
  ])('$name', ({ input, expected }) => {
    expect(decideCommit({ ...base, ...input })).toEqual(expected);
  });
});

describe('isTouched', () => {
  it.each([
    ['a.txt', ['a.txt'], true],
    ['src/a.ts', ['src'], true],
    ['src/a.ts', ['./src/'], true],
    ['srcx/a.ts', ['src'], false],
    ['b.txt', [], false],
  ] as const)('%s in %j: %s', (path, touched, expected) => {
    expect(isTouched(path, touched)).toBe(expected);
  });
});
