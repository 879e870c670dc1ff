// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { warningsReducer, type BannerWarning } from './warnings';

function warning(projectId: string, at: string, message = `dirty ${projectId} at ${at}`): BannerWarning {
  return {
    projectId,
    projectName: `Project ${projectId}`,
    message,
    dirtyPaths: ['notes.md'],
    reason: null,
    turnNumber: 1,
    sessionId: 's1',
    sessionTitle: null,
    at,
  };
}

describe('the dirty-tree banner state', () => {
  it('adds warnings newest first, one per project', () => {
    let state = warningsReducer([], { type: 'add', warning: warning('a', '2026-01-01T00:00:01Z') });
    state = warningsReducer(state, { type: 'add', warning: warning('b', '2026-01-01T00:00:02Z') });
    expect(state.map((w) => w.projectId)).toEqual(['b', 'a']);
  });

  it('replaces an older warning of the same project with the newer one', () => {
    let state = warningsReducer([], { type: 'add', warning: warning('a', '2026-01-01T00:00:01Z', 'old') });
    state = warningsReducer(state, { type: 'add', warning: warning('b', '2026-01-01T00:00:02Z') });
    state = warningsReducer(state, { type: 'add', warning: warning('a', '2026-01-01T00:00:03Z', 'new') });
    expect(state.map((w) => [w.projectId, w.message])).toEqual([
      ['a', 'new'],
      ['b', 'dirty b at 2026-01-01T00:00:02Z'],
    ]);
  });

  it('keeps the newer warning when an older one arrives late', () => {
    const newer = warningsReducer([], { type: 'add', warning: warning('a', '2026-01-01T00:00:05Z', 'new') });
    const after = warningsReducer(newer, { type: 'add', warning: warning('a', '2026-01-01T00:00:01Z', 'old') });
    expect(after).toBe(newer);
  });

  it('dismisses one project and leaves the others', () => {
    let state = warningsReducer([], { type: 'add', warning: warning('a', '2026-01-01T00:00:01Z') });
    state = warningsReducer(state, { type: 'add', warning: warning('b', '2026-01-01T00:00:02Z') });
    state = warningsReducer(state, { type: 'dismiss', projectId: 'b' });
    expect(state.map((w) => w.projectId)).toEqual(['a']);
    expect(warningsReducer(state, { type: 'dismiss', projectId: 'a' })).toEqual([]);
  });

  it('shows a warning again once a newer one comes after a dismissal', () => {
    let state = warningsReducer([], { type: 'add', warning: warning('a', '2026-01-01T00:00:01Z') });
    state = warningsReducer(state, { type: 'dismiss', projectId: 'a' });
    state = warningsReducer(state, { type: 'add', warning: warning('a', '2026-01-01T00:00:02Z', 'again') });
    expect(state.map((w) => w.message)).toEqual(['again']);
  });
});
