/**
 * The sessions list's shape (issue 27 item 4): sessions grouped by the day they started (Today,
 * Yesterday, then dates), each sub-agent's session nested under the session that started it
 * when that one is listed too. Pure, so it is tested alone.
 */
export interface ListedSession {
  id: string;
  sessionId: string;
  title: string | null;
  createdAt: string;
  agentId: string | null;
  source: string | null;
  parentSession: { sessionId: string } | null;
}

export interface SessionTree<S extends ListedSession = ListedSession> {
  session: S;
  subagents: S[];
}

export interface SessionGroup<S extends ListedSession = ListedSession> {
  label: string;
  sessions: SessionTree<S>[];
}

function dayKey(date: Date): string {
  return `${date.getFullYear()}-${date.getMonth()}-${date.getDate()}`;
}

/** "Today", "Yesterday", or the date ("Dec 3, 2026"), in the browser's time zone. */
export function dayLabel(date: Date, now: Date): string {
  if (dayKey(date) === dayKey(now)) return 'Today';
  const yesterday = new Date(now);
  yesterday.setDate(now.getDate() - 1);
  if (dayKey(date) === dayKey(yesterday)) return 'Yesterday';
  return date.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

/** `sessions` (in the order to show them) grouped by day, sub-agents under their listed parent. */
export function groupSessions<S extends ListedSession>(sessions: readonly S[], now: Date): SessionGroup<S>[] {
  const listed = new Set(sessions.map((s) => s.sessionId));
  const subagents = new Map<string, S[]>();
  for (const session of sessions) {
    const parent = session.parentSession?.sessionId;
    if (parent && listed.has(parent) && parent !== session.sessionId) {
      const list = subagents.get(parent) ?? [];
      list.push(session);
      subagents.set(parent, list);
    }
  }
  const groups: SessionGroup<S>[] = [];
  for (const session of sessions) {
    const parent = session.parentSession?.sessionId;
    if (parent && listed.has(parent) && parent !== session.sessionId) continue;
    const label = dayLabel(new Date(session.createdAt), now);
    let group = groups[groups.length - 1];
    if (!group || group.label !== label) groups.push((group = { label, sessions: [] }));
    group.sessions.push({ session, subagents: subagents.get(session.sessionId) ?? [] });
  }
  return groups;
}
