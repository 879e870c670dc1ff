/**
 * The sidebar's session list (ui.md: navigation "Sessions", a link per session named by its
 * title, or its id when untitled), grouped by the day each started (Today, Yesterday, dates),
 * with the agent it came from, and each sub-agent's session nested under the session that
 * started it (groups.ts). Refetched when any session commits a turn, so a new session shows up
 * without a reload.
 */
import { useEffect } from 'react';
import { useQuery, useSubscription } from 'urql';
import { graphql } from '../../gql';
import { Link } from '../../lib/Link';
import { onReconnected } from '../../lib/client';
import { agentName } from '../../lib/agents';
import { sessionPath } from '../../lib/router';
import { groupSessions, type ListedSession } from './groups';

export const SessionsNavQuery = graphql(`
  query SessionsNav($first: Int!) {
    sessions(first: $first) {
      totalCount
      edges {
        node {
          id
          sessionId
          title
          createdAt
          agentId
          source
          parentSession {
            sessionId
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
      }
    }
  }
`);

export function SessionsNav({ currentSessionId }: { currentSessionId?: string }) {
  const [{ data, error }, refetch] = useQuery({ query: SessionsNavQuery, variables: { first: 100 } });
  const known = new Set(data?.sessions.edges.map((edge) => edge.node.sessionId));
  useSubscription({ query: AnyTurnCommitted }, (_previous, event) => {
    if (!known.has(event.turnCommitted.session.sessionId)) refetch({ requestPolicy: 'network-only' });
    return event;
  });
  useEffect(() => onReconnected(() => refetch({ requestPolicy: 'network-only' })), [refetch]);
  return (
    <nav aria-label="Sessions" className="nav-list">
      <h2>Sessions</h2>
      {error && <p role="alert">Sessions could not be loaded: {error.message}</p>}
      {data && data.sessions.edges.length === 0 && <p className="muted">No sessions yet.</p>}
      {groupSessions(data?.sessions.edges.map((edge) => edge.node) ?? [], new Date()).map((group) => (
        <section key={group.label} className="session-day" aria-label={group.label}>
          <h3 className="day">{group.label}</h3>
          <ul>
            {group.sessions.map(({ session, subagents }) => (
              <li key={session.id}>
                <SessionLink session={session} current={currentSessionId} />
                {subagents.length > 0 && (
                  <ul className="subagents" aria-label={`Sub-agents of ${session.title || session.sessionId}`}>
                    {subagents.map((subagent) => (
                      <li key={subagent.id}>
                        <SessionLink session={subagent} current={currentSessionId} />
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}

function SessionLink({ session, current }: { session: ListedSession; current?: string }) {
  const agent = agentName(session);
  const started = new Date(session.createdAt).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
  return (
    <>
      <Link href={sessionPath(session.sessionId)} aria-current={session.sessionId === current ? 'page' : undefined}>
        {session.title || session.sessionId}
      </Link>
      <span className="muted session-facts">
        {agent ? `${agent} · ` : ''}
        {started}
      </span>
    </>
  );
}
