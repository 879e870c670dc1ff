/**
 * The Project and Agent choices that narrow a list (the sessions list, the search page): a
 * labelled select each, "" for any. In lib/: both features use them.
 */
import { useQuery } from 'urql';
import { graphql } from '../gql';
import { AGENT_NAMES } from './agents';

const FilterProjects = graphql(`
  query FilterProjects {
    projects(first: 100) {
      edges {
        node {
          id
          projectId
          name
        }
      }
    }
  }
`);

/** "Project": any, or one of the first 100 projects (one not among them, chosen before, stays listed). */
export function ProjectSelect({ value, onChange }: { value: string; onChange: (projectId: string) => void }) {
  const [{ data }] = useQuery({ query: FilterProjects });
  const projects = data?.projects.edges.map((e) => e.node) ?? [];
  return (
    <label>
      Project
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any project</option>
        {projects.map((p) => (
          <option key={p.id} value={p.projectId}>
            {p.name}
          </option>
        ))}
        {value !== '' && !projects.some((p) => p.projectId === value) && <option value={value}>{value}</option>}
      </select>
    </label>
  );
}

/** "Agent": any, or one of the agents sessions come from (AGENT_NAMES). */
export function AgentSelect({ value, onChange }: { value: string; onChange: (agent: string) => void }) {
  return (
    <label>
      Agent
      <select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any agent</option>
        {Object.entries(AGENT_NAMES).map(([id, name]) => (
          <option key={id} value={id}>
            {name}
          </option>
        ))}
      </select>
    </label>
  );
}
