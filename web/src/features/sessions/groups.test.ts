import { describe, expect, it } from 'vitest';
import { activityLabel, dayLabel, filterVariables, groupSessions, NO_FILTER, parseFilter, type ListedSession } from './groups';

const now = new Date(2026, 11, 6, 10, 0);
const at = (day: number, hour = 9) => new Date(2026, 11, day, hour).toISOString();
const session = (sessionId: string, createdAt: string, parent?: string, project?: string): ListedSession => ({
  id: sessionId,
  sessionId,
  title: sessionId,
  createdAt,
  agentId: null,
  source: 'claude-code',
  parentSession: parent ? { sessionId: parent } : null,
  project: project ? { projectId: project, name: project.toUpperCase() } : null,
});

describe('the sessions list', () => {
  it('names days Today, Yesterday, then by date', () => {
    expect(dayLabel(new Date(2026, 11, 6, 0, 1), now)).toBe('Today');
    expect(dayLabel(new Date(2026, 11, 5, 23, 59), now)).toBe('Yesterday');
    expect(dayLabel(new Date(2026, 11, 3), now)).toBe('Dec 3, 2026');
  });

  it('groups by day in the order given, and nests a sub-agent under its listed parent (an orphan stays on top)', () => {
    const groups = groupSessions(
      [session('a', at(6)), session('a-agent-1', at(6), 'a'), session('b', at(5)), session('a-agent-2', at(5), 'a'), session('orphan', at(3), 'gone')],
      now,
    );
    expect(groups.map((g) => [g.label, g.projects.flatMap((p) => p.sessions).map((t) => [t.session.sessionId, t.subagents.map((s) => s.sessionId)])])).toEqual([
      ['Today', [['a', ['a-agent-1', 'a-agent-2']]]],
      ['Yesterday', [['b', []]]],
      ['Dec 3, 2026', [['orphan', []]]],
    ]);
  });

  it('groups a day by project, in the order of their newest session, sessions of no project in a group of their own', () => {
    const groups = groupSessions([session('a', at(6, 9), undefined, 'web'), session('b', at(6, 8)), session('c', at(6, 7), undefined, 'api'), session('d', at(6, 6), undefined, 'web'), session('e', at(5), undefined, 'api')], now);
    expect(groups.map((g) => [g.label, g.projects.map((p) => [p.project?.name ?? null, p.sessions.map((t) => t.session.sessionId)])])).toEqual([
      ['Today', [['WEB', ['a', 'd']], [null, ['b']], ['API', ['c']]]],
      ['Yesterday', [['API', ['e']]]],
    ]);
  });

  it('turns the filters into the query: nothing for any, local midnight for Today, six and twenty-nine days before it for the last 7 and 30 days', () => {
    expect(filterVariables(NO_FILTER, now)).toEqual({ projectId: null, agent: null, startedAfter: null });
    expect(filterVariables({ projectId: 'p1', agent: 'codex', started: 'today' }, now)).toEqual({ projectId: 'p1', agent: 'codex', startedAfter: new Date(2026, 11, 6).toISOString() });
    expect(filterVariables({ ...NO_FILTER, started: 'week' }, now).startedAfter).toBe(new Date(2026, 10, 30).toISOString());
    expect(filterVariables({ ...NO_FILTER, started: 'month' }, now).startedAfter).toBe(new Date(2026, 10, 7).toISOString());
  });

  it('reads a kept filter, and anything else as none', () => {
    expect(parseFilter(JSON.stringify({ projectId: 'p1', agent: 'gemini', started: 'week' }))).toEqual({ projectId: 'p1', agent: 'gemini', started: 'week' });
    for (const text of [null, '', '{', '[]', '{"started":"yesterday","agent":3}']) expect(parseFilter(text)).toEqual(NO_FILTER);
  });

  it('says when a session was last active', () => {
    expect(activityLabel(new Date(2026, 11, 6, 9, 59, 30), now)).toBe('active now');
    expect(activityLabel(new Date(2026, 11, 6, 9, 55), now)).toBe('active 5 min ago');
    expect(activityLabel(new Date(2026, 11, 6, 7, 0), now)).toBe('active 3 h ago');
    expect(activityLabel(new Date(2026, 11, 3, 7, 0), now)).toBe('active Dec 3');
  });
});
