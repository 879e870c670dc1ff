import { describe, expect, it } from 'vitest';
import { changedPaths, planRestore, type AgentEvent } from '../../src/projects/restore-plan.js';

const F = '100644';
const rec = (path: string, oid: string | null, baseOid: string | null) => ({ path, mode: oid ? F : null, oid, baseMode: baseOid ? F : null, baseOid });

describe('planRestore', () => {
  // Turn 1 edits a (a0 -> a1) and creates n; turn 2 edits a again (a1 -> a2); turn 3 deletes b.
  const turns: AgentEvent[] = [
    { files: [rec('a', 'a1', 'a0'), rec('n', 'n1', null)] },
    { files: [rec('a', 'a2', 'a1')] },
    { files: [rec('b', null, 'b0')] },
  ];

  it('restores to a turn: later edits undone, paths first touched later back to their state before', () => {
    const plan = planRestore(turns, 0);
    expect(plan.paths).toEqual(['a', 'b', 'n']);
    expect(plan.lastLeft).toEqual([
      { path: 'a', mode: F, oid: 'a2' },
      { path: 'b', mode: null, oid: null },
      { path: 'n', mode: F, oid: 'n1' },
    ]);
    expect(plan.writes).toEqual([
      { path: 'a', mode: F, oid: 'a1' },
      { path: 'b', mode: F, oid: 'b0' },
    ]);
  });

  it('restores to before the first turn: created files removed, edited ones back to HEAD', () => {
    expect(planRestore(turns, -1).writes).toEqual([
      { path: 'a', mode: F, oid: 'a0' },
      { path: 'b', mode: F, oid: 'b0' },
      { path: 'n', mode: null, oid: null },
    ]);
  });

  it('a recorded restore is what the agent last left, so restoring to the latest turn undoes it', () => {
    const restored = planRestore(turns, 0);
    const events: AgentEvent[] = [...turns, { files: restored.writes.map((w) => ({ ...w, baseMode: null, baseOid: null })) }];
    const undo = planRestore(events, 2);
    expect(undo.lastLeft.find((s) => s.path === 'a')).toEqual({ path: 'a', mode: F, oid: 'a1' });
    expect(undo.writes).toEqual([
      { path: 'a', mode: F, oid: 'a2' },
      { path: 'b', mode: null, oid: null },
    ]);
  });

  it('restoring to the latest turn changes nothing', () => {
    expect(planRestore(turns, 2).writes).toEqual([]);
  });
});

describe('changedPaths', () => {
  it('lists paths whose content or presence differs', () => {
    expect(
      changedPaths(
        [
          { path: 'a', mode: F, oid: 'x' },
          { path: 'b', mode: null, oid: null },
          { path: 'c', mode: F, oid: 'y' },
          { path: 'd', mode: F, oid: 'z' },
        ],
        [
          { path: 'a', mode: F, oid: 'x' },
          { path: 'b', mode: F, oid: 'new' },
          { path: 'c', mode: null, oid: null },
          { path: 'd', mode: '100755', oid: 'z' },
        ],
      ),
    ).toEqual(['b', 'c', 'd']);
  });
});
