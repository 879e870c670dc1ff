/**
 * For a session in no project: join one of the existing projects from the session page
 * (addSessionToProject). From its next turn, the agent's edits in that folder are committed
 * there; what the server refuses (the folder cannot be used now) is shown in its words.
 */
import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../../gql';

const JoinableProjects = graphql(`
  query JoinableProjects {
    projects(first: 100) {
      edges {
        node {
          id
          projectId
          name
          workdir
        }
      }
    }
  }
`);

const JoinProjectMutation = graphql(`
  mutation JoinProject($input: AddSessionToProjectInput!) {
    addSessionToProject(input: $input) {
      id
      project {
        id
        projectId
        name
      }
    }
  }
`);

export function JoinProject({ sessionId, onJoined }: { sessionId: string; onJoined: () => void }) {
  const [{ data }] = useQuery({ query: JoinableProjects });
  const [{ fetching }, join] = useMutation(JoinProjectMutation);
  const [chosen, setChosen] = useState('');
  const [failed, setFailed] = useState<string>();
  const projects = data?.projects.edges.map((edge) => edge.node) ?? [];
  if (projects.length === 0) return null;
  const submit = async () => {
    if (!chosen) return;
    setFailed(undefined);
    const result = await join({ input: { sessionId, projectId: chosen } });
    if (result.error) setFailed(result.error.graphQLErrors[0]?.message ?? result.error.message);
    else onJoined();
  };
  return (
    <span className="join-project">
      <select aria-label="Join project" value={chosen} onChange={(event) => setChosen(event.target.value)}>
        <option value="">Join a project…</option>
        {projects.map((project) => (
          <option key={project.id} value={project.projectId} title={project.workdir}>
            {project.name}
          </option>
        ))}
      </select>{' '}
      <button type="button" disabled={!chosen || fetching} onClick={() => void submit()}>
        Join
      </button>
      {failed && <span role="alert"> {failed}</span>}
    </span>
  );
}
