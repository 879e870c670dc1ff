/**
 * The sessions list's shape (issue 27 item 4): sessions grouped by the day they started (Today,
 * Yesterday, then dates), within a day by project (in the order their newest session comes),
 * each sub-agent's session nested under the session that started it when that one is listed
 * too. Pure, so it is tested alone.
 */
import { fullDate, monthDay } from '../../lib/dates';

export interface ListedSession {
  id: string;
  sessionId: string;
  title: string | null;
  createdAt: string;
  agentId: string | null;
  source: string | null;
  parentSession: { sessionId: string } | null;
  project: { projectId: string; name: string } | null;
}

export interface SessionTree<S extends ListedSession = ListedSession> {
  session: S;
  subagents: S[];
}

/** The sessions of one project (or of none) within a day. */
export interface ProjectGroup<S extends ListedSession = ListedSession> {
  project: S['project'];
  sessions: SessionTree<S>[];
}

export interface SessionGroup<S extends ListedSession = ListedSession> {
  label: string;
  projects: ProjectGroup<S>[];
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
  return fullDate(date);
}

/** `sessions` (in the order to show them) grouped by day then project, sub-agents under their listed parent. */
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
    if (!group || group.label !== label) groups.push((group = { label, projects: [] }));
    const projectId = session.project?.projectId ?? null;
    let byProject = group.projects.find((p) => (p.project?.projectId ?? null) === projectId);
    if (!byProject) group.projects.push((byProject = { project: session.project, sessions: [] }));
    byProject.sessions.push({ session, subagents: subagents.get(session.sessionId) ?? [] });
  }
  return groups;
}

/** The sessions list's filters, as the selects hold them ('' is "any"). */
export interface SessionFilter {
  projectId: string;
  agent: string;
  started: '' | 'today' | 'week' | 'month';
}

export const NO_FILTER: SessionFilter = { projectId: '', agent: '', started: '' };

/** The filter kept in the browser, or none when what is kept is not one. */
export function parseFilter(text: string | null): SessionFilter {
  try {
    const value = JSON.parse(text ?? '') as Partial<Record<keyof SessionFilter, unknown>>;
    const started = ['today', 'week', 'month'].includes(value.started as string) ? (value.started as SessionFilter['started']) : '';
    return {
      projectId: typeof value.projectId === 'string' ? value.projectId : '',
      agent: typeof value.agent === 'string' ? value.agent : '',
      started,
    };
  } catch {
    return NO_FILTER;
  }
}

/** The `sessions` arguments for a filter: "Today" from local midnight, the last 7 or 30 days from midnight that many days back. */
export function filterVariables(filter: SessionFilter, now: Date): { projectId: string | null; agent: string | null; startedAfter: string | null } {
  let startedAfter: string | null = null;
  if (filter.started !== '') {
    const from = new Date(now.getFullYear(), now.getMonth(), now.getDate());
    from.setDate(from.getDate() - (filter.started === 'today' ? 0 : filter.started === 'week' ? 6 : 29));
    startedAfter = from.toISOString();
  }
  return { projectId: filter.projectId || null, agent: filter.agent || null, startedAfter };
}

/** When a session was last active, said briefly: "active now", "active 5 min ago", "active 3 h ago", "active Dec 3". */
export function activityLabel(lastActivityAt: Date, now: Date): string {
  const minutes = Math.floor((now.getTime() - lastActivityAt.getTime()) / 60_000);
  if (minutes < 1) return 'active now';
  if (minutes < 60) return `active ${minutes} min ago`;
  if (minutes < 24 * 60) return `active ${Math.floor(minutes / 60)} h ago`;
  return `active ${monthDay(lastActivityAt)}`;
}
