/**
 * The sidebar's session list (ui.md: navigation "Sessions", a link per session named by its
 * title, or its id when untitled), grouped by the day each started (Today, Yesterday, dates) and
 * within a day by project, with the agent it came from and when it was last active, and each
 * sub-agent's session nested under the session that started it (groups.ts).
 *
 * Filters ("Project", "Agent", "Started", kept in the browser) narrow it on the server. It loads
 * a page of sessions at a time with the cursors the server returns: "More sessions" the next
 * older page (`after` the last one's cursor), and a turn committed in a session it does not list
 * yet the newer ones (`before` the first one's), so a list of thousands stays one page long
 * until asked, and a new session shows up without a reload.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useClient, useSubscription } from 'urql';
import { graphql } from '../../gql';
import { AgentSelect, ProjectSelect } from '../../lib/FilterSelects';
import type { SessionsNavQuery as SessionsPage } from '../../gql/graphql';
import { Link } from '../../lib/Link';
import { onReconnected } from '../../lib/client';
import { agentName } from '../../lib/agents';
import { sessionPath } from '../../lib/router';
import { activityLabel, filterVariables, groupSessions, NO_FILTER, parseFilter, type ListedSession, type SessionFilter } from './groups';
import { clockTime, dateTime } from '../../lib/dates';

/** Sessions per page. */
const PAGE = 100;
const FILTER_KEY = 'entity-memory.session-filter';

export const SessionsNavQuery = graphql(`
  query SessionsNav($first: Int, $after: String, $last: Int, $before: String, $projectId: String, $agent: String, $startedAfter: DateTime) {
    sessions(first: $first, after: $after, last: $last, before: $before, projectId: $projectId, agent: $agent, startedAfter: $startedAfter) {
      totalCount
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
      edges {
        node {
          id
          sessionId
          title
          createdAt
          lastActivityAt
          agentId
          source
          archive {
            archivedAt
          }
          parentSession {
            sessionId
          }
          project {
            projectId
            name
          }
        }
      }
    }
  }
`);

const AnyTurnCommitted = graphql(`
  subscription AnyTurnCommitted {
    turnCommitted {
      session {
        sessionId
        lastActivityAt
      }
    }
  }
`);

type Listed = SessionsPage['sessions']['edges'][number]['node'];

interface List {
  sessions: Listed[];
  totalCount: number;
  startCursor: string | null;
  endCursor: string | null;
  hasMore: boolean;
}

function keptFilter(): SessionFilter {
  try {
    return parseFilter(localStorage.getItem(FILTER_KEY));
  } catch {
    return NO_FILTER;
  }
}

/**
 * `onShown`: called once the first list (or its error) is on the page, for what the shell puts
 * below it (the Projects list) to come in after it rather than be pushed down under the pointer.
 */
export function SessionsNav({ currentSessionId, onShown }: { currentSessionId?: string; onShown?: () => void }) {
  const client = useClient();
  const [filter, setFilter] = useState<SessionFilter>(keptFilter);
  // The time filter's start is fixed when the filter is chosen (or the list reloaded), not at every render.
  const [reloads, setReloads] = useState(0);
  const variables = useMemo(() => filterVariables(filter, new Date()), [filter, reloads]);
  const [list, setList] = useState<List | null>(null);
  // What the live handlers read: the list as last rendered.
  const shownList = useRef(list);
  shownList.current = list;
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  // Answers to a filter no longer shown are dropped.
  const generation = useRef(0);

  const fetchPage = useCallback(
    async (page: { first?: number; after?: string | null; last?: number; before?: string | null }) => {
      const result = await client.query(SessionsNavQuery, { ...variables, ...page }, { requestPolicy: 'network-only' }).toPromise();
      if (result.error) throw new Error(result.error.message);
      return result.data!.sessions;
    },
    [client, variables],
  );

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const page = await fetchPage({ first: PAGE });
      if (mine !== generation.current) return;
      setList({ sessions: page.edges.map((e) => e.node), totalCount: page.totalCount, startCursor: page.pageInfo.startCursor ?? null, endCursor: page.pageInfo.endCursor ?? null, hasMore: page.pageInfo.hasNextPage });
      setError(null);
    } catch (failed) {
      if (mine === generation.current) setError((failed as Error).message);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [fetchPage]);

  useEffect(() => {
    void reload();
  }, [reload]);
  useEffect(() => onReconnected(() => setReloads((n) => n + 1)), []);
  const shown = list !== null || error !== null;
  useEffect(() => {
    if (shown) onShown?.();
  }, [shown, onShown]);

  /** The sessions of `page` not listed yet, by id (a page read while sessions were added overlaps the list). */
  const unlisted = (shown: List, page: SessionsPage['sessions']) => {
    const known = new Set(shown.sessions.map((s) => s.sessionId));
    return page.edges.map((e) => e.node).filter((s) => !known.has(s.sessionId));
  };

  const more = async () => {
    const list = shownList.current;
    if (!list?.endCursor) return;
    const mine = generation.current;
    setLoading(true);
    try {
      const page = await fetchPage({ first: PAGE, after: list.endCursor });
      if (mine !== generation.current) return;
      setList((shown) => {
        if (!shown) return shown;
        return {
          ...shown,
          sessions: [...shown.sessions, ...unlisted(shown, page)],
          totalCount: page.totalCount,
          endCursor: page.pageInfo.endCursor ?? shown.endCursor,
          hasMore: page.pageInfo.hasNextPage,
        };
      });
    } catch (failed) {
      setError((failed as Error).message);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  };

  /** The sessions started since the first one listed, put on top; the whole list again when they are more than a page. */
  const newer = async () => {
    const list = shownList.current;
    if (!list?.startCursor) return reload();
    const mine = generation.current;
    try {
      const page = await fetchPage({ last: PAGE, before: list.startCursor });
      if (mine !== generation.current) return;
      if (page.pageInfo.hasPreviousPage) return reload();
      setList((shown) => {
        if (!shown) return shown;
        return { ...shown, sessions: [...unlisted(shown, page), ...shown.sessions], totalCount: page.totalCount, startCursor: page.pageInfo.startCursor ?? shown.startCursor };
      });
    } catch (failed) {
      setError((failed as Error).message);
    }
  };

  useSubscription({ query: AnyTurnCommitted }, (_previous, event) => {
    const { sessionId, lastActivityAt } = event.turnCommitted.session;
    const list = shownList.current;
    if (list?.sessions.some((s) => s.sessionId === sessionId)) {
      setList((shown) => shown && { ...shown, sessions: shown.sessions.map((s) => (s.sessionId === sessionId ? { ...s, lastActivityAt } : s)) });
    } else if (list) {
      void newer();
    }
    return event;
  });

  const choose = (change: Partial<SessionFilter>) => {
    const next = { ...filter, ...change };
    try {
      localStorage.setItem(FILTER_KEY, JSON.stringify(next));
    } catch {
      // Not kept: it still applies here.
    }
    setFilter(next);
  };

  const now = new Date();
  const filtered = filter.projectId !== '' || filter.agent !== '' || filter.started !== '';
  return (
    <nav aria-label="Sessions" className="nav-list">
      <h2>Sessions</h2>
      <SessionFilters filter={filter} choose={choose} />
      {error && <p role="alert">Sessions could not be loaded: {error}</p>}
      {list && list.sessions.length === 0 && <p className="muted">{filtered ? 'No sessions match these filters.' : 'No sessions yet.'}</p>}
      {groupSessions<Listed>(list?.sessions ?? [], now).map((group) => (
        <section key={group.label} className="session-day" aria-label={group.label}>
          <h3 className="day">{group.label}</h3>
          {group.projects.map(({ project, sessions }) => (
            <div key={project?.projectId ?? ''} className="session-project">
              {(project || group.projects.length > 1) && <h4 className="session-project-name">{project ? project.name : 'No project'}</h4>}
              <ul>
                {sessions.map(({ session, subagents }) => (
                  <li key={session.id}>
                    <SessionLink session={session} current={currentSessionId} now={now} />
                    {subagents.length > 0 && (
                      <ul className="subagents" aria-label={`Sub-agents of ${session.title || session.sessionId}`}>
                        {subagents.map((subagent) => (
                          <li key={subagent.id}>
                            <SessionLink session={subagent} current={currentSessionId} now={now} />
                          </li>
                        ))}
                      </ul>
                    )}
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </section>
      ))}
      {list && list.sessions.length > 0 && (
        <p className="muted session-count">
          {list.sessions.length} of {list.totalCount} sessions
        </p>
      )}
      {list?.hasMore && (
        <button type="button" onClick={() => void more()} disabled={loading}>
          More sessions
        </button>
      )}
    </nav>
  );
}

function SessionFilters({ filter, choose }: { filter: SessionFilter; choose: (change: Partial<SessionFilter>) => void }) {
  return (
    <div className="session-filters" role="group" aria-label="Filter sessions">
      <ProjectSelect value={filter.projectId} onChange={(projectId) => choose({ projectId })} />
      <AgentSelect value={filter.agent} onChange={(agent) => choose({ agent })} />
      <label>
        Started
        <select value={filter.started} onChange={(e) => choose({ started: e.target.value as SessionFilter['started'] })}>
          <option value="">Any time</option>
          <option value="today">Today</option>
          <option value="week">Last 7 days</option>
          <option value="month">Last 30 days</option>
        </select>
      </label>
    </div>
  );
}

function SessionLink({ session, current, now }: { session: ListedSession & { lastActivityAt: string; archive?: { archivedAt: string } | null }; current?: string; now: Date }) {
  const agent = agentName(session);
  const started = clockTime(new Date(session.createdAt));
  const active = new Date(session.lastActivityAt);
  return (
    <>
      <Link href={sessionPath(session.sessionId)} aria-current={session.sessionId === current ? 'page' : undefined}>
        {session.title || session.sessionId}
      </Link>
      <span className="muted session-facts" title={`Last active ${dateTime(active)}`}>
        {agent ? `${agent} · ` : ''}
        {started}
        {active.getTime() - new Date(session.createdAt).getTime() >= 60_000 ? ` · ${activityLabel(active, now)}` : ''}
        {session.archive ? ' · archived' : ''}
      </span>
    </>
  );
}
