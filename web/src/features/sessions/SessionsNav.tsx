/**
 * The sidebar's session list (ui.md: navigation "Sessions", a link per session named by its
 * title, or its id when untitled). Refetched when any session commits a turn, so a new
 * session shows up without a reload.
 */
import { useEffect } from 'react';
import { useQuery, useSubscription } from 'urql';
import { graphql } from '../../gql';
import { Link } from '../../lib/Link';
import { onReconnected } from '../../lib/client';
import { sessionPath } from '../../lib/router';

export const SessionsNavQuery = graphql(`
  query SessionsNav($first: Int!) {
    sessions(first: $first) {
      totalCount
      edges {
        node {
          id
          sessionId
          title
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
      <ul>
        {data?.sessions.edges.map(({ node }) => (
          <li key={node.id}>
            <Link href={sessionPath(node.sessionId)} aria-current={node.sessionId === currentSessionId ? 'page' : undefined}>
              {node.title || node.sessionId}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
