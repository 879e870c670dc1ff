/**
 * A project repo's history, newest first, a page at a time ("Load more"), each commit
 * marked "agent" or "you" (commits.ts), its files under "Files" (read when opened), each with
 * "Blame" as it stood after that commit. Pages are fetched by cursor; a live change
 * starts again from the newest page, since new commits shift every later page.
 */
import { useEffect, useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { Link } from '../../lib/Link';
import { dateTime } from '../../lib/dates';
import { blamePath, sessionPath } from '../../lib/router';
import { agentSessionOf, isAgentCommit } from './commits';
import { useRefetchOn } from './useRefetchOn';

const PAGE_SIZE = 25;

// history costs 750 plus about 12 per commit of the page.
const ProjectHistoryQuery = graphql(`
  query ProjectHistory($projectId: String!, $first: Int!, $after: String) {
    project(projectId: $projectId) {
      id
      history(first: $first, after: $after) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            id
            sha
            shortSha
            headline
            message
            author {
              name
              email
              date
            }
            committer {
              name
              email
            }
          }
        }
      }
    }
  }
`);

// A commit's files, read when its "Files" is opened (one git process each: not for a whole page).
const CommitFilesQuery = graphql(`
  query ProjectCommitFiles($id: ID!) {
    node(id: $id) {
      ... on Commit {
        id
        diff {
          files {
            path
            status
          }
        }
      }
    }
  }
`);

/** The files a commit changed, each with "Blame" as it stood after the commit (a deleted one has none). */
function CommitFiles({ projectId, id, sha }: { projectId: string; id: string; sha: string }) {
  const [{ data, error }] = useQuery({ query: CommitFilesQuery, variables: { id } });
  if (error) return <p role="alert">The files could not be loaded: {error.graphQLErrors[0]?.message ?? error.message}</p>;
  const files = data?.node && 'diff' in data.node ? data.node.diff.files : undefined;
  if (!files) return <p className="muted">Loading…</p>;
  if (files.length === 0) return <p className="muted">No file changed.</p>;
  return (
    <ul className="commit-files">
      {files.map((file) => (
        <li key={file.path}>
          <span className={`change-status change-${file.status.toLowerCase()}`}>{file.status.toLowerCase()}</span> <code>{file.path}</code>
          {file.status !== 'DELETED' && (
            <>
              {' '}
              <Link href={blamePath(projectId, file.path, sha)} aria-label={`Blame ${file.path} at ${sha.slice(0, 7)}`}>
                Blame
              </Link>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/** "Files" under a commit: its files, read once opened. */
function FilesOf({ projectId, id, sha }: { projectId: string; id: string; sha: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="commit-files-toggle" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Files</summary>
      {open && <CommitFiles projectId={projectId} id={id} sha={sha} />}
    </details>
  );
}

export function ProjectHistory({ projectId, version }: { projectId: string; version: number }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [total, setTotal] = useState<number>();
  useEffect(() => setCursors([null]), [version]);
  return (
    <section aria-labelledby="project-history" className="history">
      <h2 id="project-history">History{total !== undefined && <span className="muted"> ({total} commits)</span>}</h2>
      <ol className="commits">
        {cursors.map((after, index) => (
          <HistoryPage
            key={after ?? ''}
            projectId={projectId}
            after={after}
            version={version}
            onTotal={index === 0 ? setTotal : undefined}
            onMore={index === cursors.length - 1 ? (cursor) => setCursors((list) => [...list, cursor]) : undefined}
          />
        ))}
      </ol>
    </section>
  );
}

function HistoryPage({
  projectId,
  after,
  version,
  onTotal,
  onMore,
}: {
  projectId: string;
  after: string | null;
  version: number;
  onTotal?: (total: number) => void;
  onMore?: (cursor: string) => void;
}) {
  const [{ data, error, fetching }, refetch] = useQuery({ query: ProjectHistoryQuery, variables: { projectId, first: PAGE_SIZE, after } });
  useRefetchOn(version, refetch);
  const history = data?.project?.history;
  useEffect(() => {
    if (history) onTotal?.(history.totalCount);
  }, [history, onTotal]);
  if (error) {
    return (
      <li role="alert" className="field-error">
        The history could not be loaded: {error.graphQLErrors[0]?.message ?? error.message}
      </li>
    );
  }
  if (!history) return fetching ? <li className="muted">Loading…</li> : null;
  if (history.totalCount === 0) return <li className="muted">No commits yet.</li>;
  return (
    <>
      {history.edges.map(({ node }) => {
        const agent = isAgentCommit(node);
        const session = agent ? agentSessionOf(node) : null;
        return (
          <li key={node.sha} className={agent ? 'commit by-agent' : 'commit by-you'}>
            <span className={`badge ${agent ? 'badge-agent' : 'badge-you'}`}>{agent ? 'agent' : 'you'}</span>
            <span className="commit-headline">{node.headline}</span>
            <span className="muted commit-meta">
              <code title={node.sha}>{node.shortSha}</code> {node.author.name}, <time dateTime={node.author.date}>{dateTime(new Date(node.author.date))}</time>
              {session && (
                <>
                  {' · '}
                  <Link href={sessionPath(session)}>session</Link>
                </>
              )}
            </span>
            <FilesOf projectId={projectId} id={node.id} sha={node.sha} />
          </li>
        );
      })}
      {onMore && history.pageInfo.hasNextPage && history.pageInfo.endCursor && (
        <li className="more">
          <button type="button" onClick={() => onMore(history.pageInfo.endCursor!)}>
            Load more
          </button>
        </li>
      )}
    </>
  );
}
