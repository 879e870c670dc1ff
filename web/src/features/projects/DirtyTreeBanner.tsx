/**
 * The live dirty-tree warning (ui.md: an alert with the warning's message and the paths,
 * appearing without a reload). One banner per project, the newest warning replacing an
 * older one (warnings.ts), each dismissable.
 */
import { useReducer } from 'react';
import { useSubscription } from 'urql';
import { graphql } from '../../gql';
import { Link } from '../../lib/Link';
import { projectPath, sessionPath } from '../../lib/router';
import { PathList } from '../../lib/PathList';
import { warningsReducer, type BannerWarning } from './warnings';
import './projects.css';

const AnyDirtyTreeWarning = graphql(`
  subscription AnyDirtyTreeWarning {
    dirtyTreeWarning {
      at
      message
      dirtyPaths
      reason
      turnNumber
      project {
        projectId
        name
      }
      session {
        sessionId
        title
      }
    }
  }
`);

export function DirtyTreeBanner() {
  const [warnings, dispatch] = useReducer(warningsReducer, []);
  useSubscription({ query: AnyDirtyTreeWarning }, (_previous, event) => {
    const w = event.dirtyTreeWarning;
    dispatch({
      type: 'add',
      warning: {
        projectId: w.project.projectId,
        projectName: w.project.name,
        message: w.message,
        dirtyPaths: w.dirtyPaths,
        reason: w.reason ?? null,
        turnNumber: w.turnNumber,
        sessionId: w.session.sessionId,
        sessionTitle: w.session.title ?? null,
        at: w.at,
      },
    });
    return event;
  });
  if (warnings.length === 0) return null;
  return (
    <div className="banners">
      {warnings.map((warning) => (
        <WarningBanner key={warning.projectId} warning={warning} onDismiss={() => dispatch({ type: 'dismiss', projectId: warning.projectId })} />
      ))}
    </div>
  );
}

export function WarningBanner({ warning, onDismiss }: { warning: BannerWarning; onDismiss: () => void }) {
  return (
    <div role="alert" className="banner dirty-banner">
      <div className="dirty-banner-text">
        <p>
          <strong>
            <Link href={projectPath(warning.projectId)}>{warning.projectName}</Link>
          </strong>
          {', '}
          <Link href={sessionPath(warning.sessionId)}>turn {warning.turnNumber}</Link>
          {warning.sessionTitle ? ` of ${warning.sessionTitle}` : ''}: {warning.message}
        </p>
        <PathList paths={warning.dirtyPaths} />
      </div>
      <button type="button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
