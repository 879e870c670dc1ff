/**
 * The sidebar's project list (ui.md: navigation "Projects", a link per project named by
 * its name, a button "New project" that opens the New project dialog). Refetched after a
 * project is created and when the live connection comes back.
 */
import { useEffect, useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { Link } from '../../lib/Link';
import { onReconnected } from '../../lib/client';
import { navigate, projectPath } from '../../lib/router';
import { NewProjectDialog, type CreatedProject } from './NewProjectDialog';
import './projects.css';

export const ProjectsNavQuery = graphql(`
  query ProjectsNav($first: Int!) {
    projects(first: $first) {
      totalCount
      edges {
        node {
          id
          projectId
          name
          status
          sessions(first: 0) {
            totalCount
          }
        }
      }
    }
  }
`);

export function ProjectsNav({ currentProjectId }: { currentProjectId?: string }) {
  const [{ data, error }, refetch] = useQuery({ query: ProjectsNavQuery, variables: { first: 100 } });
  const [open, setOpen] = useState(false);
  const [notice, setNotice] = useState<string>();
  useEffect(() => onReconnected(() => refetch({ requestPolicy: 'network-only' })), [refetch]);

  const created = (project: CreatedProject) => {
    setOpen(false);
    setNotice(project.joinError ? `Project ${project.name} was created, but the session could not join it: ${project.joinError}` : undefined);
    refetch({ requestPolicy: 'network-only' });
    navigate(projectPath(project.projectId));
  };

  return (
    <nav aria-label="Projects" className="nav-list">
      <h2>Projects</h2>
      {error && <p role="alert">Projects could not be loaded: {error.message}</p>}
      {notice && <p role="alert">{notice}</p>}
      {data && data.projects.edges.length === 0 && <p className="muted">No projects yet.</p>}
      <ul>
        {data?.projects.edges.map(({ node }) => (
          <li key={node.id}>
            <Link href={projectPath(node.projectId)} aria-current={node.projectId === currentProjectId ? 'page' : undefined}>
              {node.name}
            </Link>{' '}
            <span className="muted project-facts">
              {node.sessions.totalCount} {node.sessions.totalCount === 1 ? 'session' : 'sessions'}
              {node.status !== 'ACTIVE' && ` · ${node.status.toLowerCase()}`}
            </span>
          </li>
        ))}
      </ul>
      {/* Under the list once it is in, where it stays. */}
      {(data || error) && (
        <button type="button" className="new-project" onClick={() => setOpen(true)}>
          New project
        </button>
      )}
      {open && <NewProjectDialog onClose={() => setOpen(false)} onCreated={created} />}
    </nav>
  );
}
