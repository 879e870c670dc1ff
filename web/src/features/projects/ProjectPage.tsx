/**
 * One project's page: its folder and state (status, auto-commit, working tree, whether a
 * first commit is missing), its sessions with their turns' project outcomes (snapshots to
 * apply, files to restore), and the repo's history with the agent's commits told apart.
 * Live: every projectCommitted or dirtyTreeWarning event of the project, and a reconnect,
 * refetch what the page shows.
 */
import { useCallback, useEffect, useState } from 'react';
import { useMutation, useQuery, useSubscription } from 'urql';
import { graphql } from '../../gql';
import { onReconnected } from '../../lib/client';
import { PathList } from '../../lib/PathList';
import { ProjectHistory } from './ProjectHistory';
import { SessionTurns } from './SessionTurns';
import './projects.css';

// Git-backed fields cost 300 to 450 each (schema.graphql); sessions are rows only.
const ProjectPageQuery = graphql(`
  query ProjectPage($projectId: String!) {
    project(projectId: $projectId) {
      id
      projectId
      name
      description
      workdir
      status
      createdAt
      autoCommit {
        state
        message
        unsafeKeys
      }
      needsInitialCommit
      workingTree {
        isRepo
        clean
        branch
        dirtyPaths
      }
      sessions(first: 50) {
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
  }
`);

const ProjectCommittedEvents = graphql(`
  subscription ProjectPageCommitted($projectId: String!) {
    projectCommitted(projectId: $projectId) {
      turnNumber
    }
  }
`);

const ProjectWarningEvents = graphql(`
  subscription ProjectPageWarning($projectId: String!) {
    dirtyTreeWarning(projectId: $projectId) {
      turnNumber
    }
  }
`);

const AUTO_COMMIT_TEXT: Record<string, string> = {
  ENABLED: "on: the agent's edits are committed at the end of each turn",
  TRUSTED: "on, with the repo's filter drivers trusted",
  DISABLED_UNSAFE_CONFIG: "off: the repo's config defines filter drivers you have not trusted",
  UNAVAILABLE: 'off: the folder cannot be used now',
};

const UpdateProjectStatus = graphql(`
  mutation UpdateProjectStatus($input: UpdateProjectInput!) {
    updateProject(input: $input) {
      id
      status
    }
  }
`);

const STATUSES = ['ACTIVE', 'PAUSED', 'DONE'] as const;

/** The project's status (active / paused / done), changed here by the user (updateProject). */
function ProjectStatusSelect({ projectId, status, onChanged }: { projectId: string; status: string; onChanged: () => void }) {
  const [{ fetching }, update] = useMutation(UpdateProjectStatus);
  const [failed, setFailed] = useState<string>();
  const choose = async (next: (typeof STATUSES)[number]) => {
    setFailed(undefined);
    const result = await update({ input: { projectId, status: next } });
    if (result.error) setFailed(result.error.graphQLErrors[0]?.message ?? result.error.message);
    else onChanged();
  };
  return (
    <>
      <select aria-label="Status" value={status} disabled={fetching} onChange={(event) => void choose(event.target.value as (typeof STATUSES)[number])}>
        {STATUSES.map((value) => (
          <option key={value} value={value}>
            {value.toLowerCase()}
          </option>
        ))}
      </select>
      {failed && <p role="alert">The status could not be changed: {failed}</p>}
    </>
  );
}

export function ProjectPage({ projectId }: { projectId: string }) {
  const [{ data, error, fetching }, refetch] = useQuery({ query: ProjectPageQuery, variables: { projectId } });
  // Bumped by live events: the history and the sessions' turns refetch on it too.
  const [version, setVersion] = useState(0);
  const refresh = useCallback(() => {
    refetch({ requestPolicy: 'network-only' });
    setVersion((v) => v + 1);
  }, [refetch]);
  useSubscription({ query: ProjectCommittedEvents, variables: { projectId } }, (_previous, event) => {
    refresh();
    return event;
  });
  useSubscription({ query: ProjectWarningEvents, variables: { projectId } }, (_previous, event) => {
    refresh();
    return event;
  });
  useEffect(() => onReconnected(refresh), [refresh]);

  if (error && !data) {
    return (
      <main>
        <p role="alert">The project could not be loaded: {error.message}</p>
      </main>
    );
  }
  if (!data) return <main aria-busy="true">{fetching && <p className="muted">Loading…</p>}</main>;
  const project = data.project;
  if (!project) {
    return (
      <main className="empty">
        <h1>Not found</h1>
        <p>There is no project {projectId}.</p>
      </main>
    );
  }
  const tree = project.workingTree;
  const sessions = project.sessions.edges.map((edge) => edge.node);

  return (
    <main className="project-page">
      <header>
        <h1>{project.name}</h1>
        {project.description && <p>{project.description}</p>}
      </header>
      {error && <p role="alert">Refreshing failed: {error.message}</p>}
      <dl className="facts">
        <dt>Folder</dt>
        <dd>
          <code>{project.workdir}</code>
        </dd>
        <dt>Status</dt>
        <dd>
          <ProjectStatusSelect projectId={project.projectId} status={project.status} onChanged={refresh} />
        </dd>
        <dt>Auto-commit</dt>
        <dd>
          <span className={`state state-${project.autoCommit.state.toLowerCase()}`}>{AUTO_COMMIT_TEXT[project.autoCommit.state] ?? project.autoCommit.state}</span>
          {project.autoCommit.message && <p className="detail">{project.autoCommit.message}</p>}
        </dd>
        <dt>Working tree</dt>
        <dd>
          {!tree.isRepo ? (
            'not a git repository (any more)'
          ) : (
            <>
              {tree.branch ? (
                <>
                  on branch <code>{tree.branch}</code>
                </>
              ) : (
                'detached HEAD'
              )}
              {', '}
              {tree.clean ? 'clean' : `${tree.dirtyPaths.length} uncommitted ${tree.dirtyPaths.length === 1 ? 'path' : 'paths'}`}
              <PathList paths={tree.dirtyPaths} />
            </>
          )}
        </dd>
      </dl>
      {project.needsInitialCommit && (
        <p className="notice" role="note">
          This repo has no commit yet: every file counts as your uncommitted change, so the agent's edits are not committed
          (each turn is skipped as dirty) until you make a first commit in <code>{project.workdir}</code>.
        </p>
      )}

      <section aria-labelledby="project-sessions">
        <h2 id="project-sessions">Sessions</h2>
        {sessions.length === 0 && <p className="muted">No session works in this project yet.</p>}
        {sessions.map((session) => (
          <SessionTurns key={session.id} sessionId={session.sessionId} title={session.title ?? null} version={version} onChanged={refresh} />
        ))}
        {project.sessions.totalCount > sessions.length && (
          <p className="muted">
            Showing {sessions.length} of {project.sessions.totalCount} sessions.
          </p>
        )}
      </section>

      <ProjectHistory projectId={project.projectId} version={version} />
    </main>
  );
}
