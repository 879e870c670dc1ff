import { describe, expect, it } from 'vitest';
import { dayLabel, groupSessions, type ListedSession } from './groups';

const now = new Date(2026, 11, 6, 10, 0);
const at = (day: number, hour = 9) => new Date(2026, 11, day, hour).toISOString();
const session = (sessionId: string, createdAt: string, parent?: string): ListedSession => ({
  id: sessionId,
  sessionId,
  title: sessionId,
  createdAt,
  agentId: null,
  source: 'claude-code',
  parentSession: parent ? { sessionId: parent } : null,
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
    expect(groups.map((g) => [g.label, g.sessions.map((t) => [t.session.sessionId, t.subagents.map((s) => s.sessionId)])])).toEqual([
      ['Today', [['a', ['a-agent-1', 'a-agent-2']]]],
      ['Yesterday', [['b', []]]],
      ['Dec 3, 2026', [['orphan', []]]],
    ]);
  });
});
