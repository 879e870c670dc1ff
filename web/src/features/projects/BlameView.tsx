/**
 * Which turn wrote each line of a project's file (/projects/<id>/blame?path=…&rev=…): the file's
 * lines with a gutter per range of lines one commit last changed: the agent's (its session's
 * turn, a link that opens the conversation at that turn) or the user's (the commit's author,
 * sha and headline); under it the file's history, each commit whose it is and a link to the
 * blame as it stood then. Reached from a file of a turn's code changes ("Blame").
 */
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import type { ProjectBlameQuery } from '../../gql/graphql';
import { dateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { Link } from '../../lib/Link';
import { blamePath, projectPath, sessionPath, useSearch } from '../../lib/router';
import './projects.css';

const BlameQuery = graphql(`
  query ProjectBlame($projectId: String!, $path: String!, $rev: String) {
    project(projectId: $projectId) {
      id
      projectId
      name
      blame(path: $path, rev: $rev) {
        startLine
        endLine
        lines
        origin
        turnNumber
        session {
          id
          sessionId
          title
        }
        turn {
          number
          branch
          commit {
            sha
          }
        }
        commit {
          sha
          shortSha
          headline
          author {
            name
          }
        }
      }
    }
  }
`);

const HistoryQuery = graphql(`
  query ProjectFileHistory($projectId: String!, $path: String!) {
    project(projectId: $projectId) {
      id
      fileHistory(path: $path, first: 50) {
        totalCount
        edges {
          node {
            origin
            turnNumber
            session {
              id
              sessionId
              title
            }
            turn {
              number
              branch
              commit {
                sha
              }
            }
            commit {
              sha
              shortSha
              headline
              author {
                name
                date
              }
            }
          }
        }
      }
    }
  }
`);

type Range = NonNullable<ProjectBlameQuery['project']>['blame'][number];

/** Where an agent's range (or commit) opens: its session at its turn. */
function turnLink(range: Pick<Range, 'session' | 'turn'>): string | null {
  if (!range.session) return null;
  const sha = range.turn?.commit?.sha;
  if (!sha) return sessionPath(range.session.sessionId);
  const params = new URLSearchParams({ branch: range.turn!.branch, at: sha });
  return `${sessionPath(range.session.sessionId)}?${params.toString()}`;
}

/** An agent's range or commit: its turn (a link to it in the conversation; "restore" for a restore), then its session. */
function AgentTurn({ of, title }: { of: Pick<Range, 'session' | 'turn' | 'turnNumber'>; title?: string }) {
  const href = turnLink(of);
  const what = of.turnNumber !== null ? `turn ${of.turnNumber}` : 'restore';
  const where = of.session?.title || of.session?.sessionId || '';
  return (
    <>
      {href ? (
        <Link href={href} title={title === undefined ? undefined : `${where}: ${title}`}>
          {what}
        </Link>
      ) : (
        what
      )}
      <span className="muted"> {where}</span>
    </>
  );
}

function Gutter({ range }: { range: Range }) {
  if (range.origin === 'AGENT') {
    return (
      <>
        <span className="badge">agent</span> <AgentTurn of={range} title={range.commit.headline} />
      </>
    );
  }
  return (
    <span title={range.commit.headline}>
      <span className="badge">you</span> {range.commit.author.name} <code className="muted">{range.commit.shortSha}</code>
    </span>
  );
}

/**
 * The commits that changed the file, newest first: whose each is (a turn of a session, or the
 * author), and a link to the file's blame as it stood after it.
 */
function FileHistory({ projectId, path, rev }: { projectId: string; path: string; rev: string | null }) {
  const [{ data, error }] = useQuery({ query: HistoryQuery, variables: { projectId, path } });
  const history = data?.project?.fileHistory;
  return (
    <section aria-labelledby="file-history-heading" className="file-history">
      <h2 id="file-history-heading">History</h2>
      {error && <p role="alert">{errorMessage(error)}</p>}
      {history && history.edges.length === 0 && <p className="muted">No commit of the current branch changed this file.</p>}
      {history && history.edges.length > 0 && (
        <ol aria-label="Commits that changed the file">
          {history.edges.map(({ node: entry }) => (
            <li key={entry.commit.sha} aria-current={rev !== null && entry.commit.sha.startsWith(rev) ? 'true' : undefined}>
              <span className="badge">{entry.origin === 'AGENT' ? 'agent' : 'you'}</span>{' '}
              {entry.origin === 'AGENT' ? <AgentTurn of={entry} /> : entry.commit.author.name} {entry.commit.headline}{' '}
              <time className="muted" dateTime={entry.commit.author.date}>
                {dateTime(new Date(entry.commit.author.date))}
              </time>{' '}
              <Link href={blamePath(projectId, path, entry.commit.sha)}>Blame at {entry.commit.shortSha}</Link>
            </li>
          ))}
        </ol>
      )}
      {history && history.totalCount > history.edges.length && (
        <p className="muted">
          The newest {history.edges.length} of {history.totalCount} commits.
        </p>
      )}
    </section>
  );
}

export function BlameView({ projectId }: { projectId: string }) {
  const params = useSearch();
  const path = params.get('path') ?? '';
  const rev = params.get('rev');
  const [{ data, error, fetching }] = useQuery({ query: BlameQuery, variables: { projectId, path, rev }, pause: path === '' });
  const project = data?.project;
  return (
    <main className="blame-page" aria-labelledby="blame-heading">
      <h1 id="blame-heading">
        <code>{path || '(no file)'}</code>
      </h1>
      <p className="muted">
        Which turn wrote each line
        {project && (
          <>
            {' '}
            in <Link href={projectPath(project.projectId)}>{project.name}</Link>
          </>
        )}
        , at {rev ? <code>{rev.slice(0, 10)}</code> : 'HEAD'}.
      </p>
      {error && <p role="alert">{errorMessage(error)}</p>}
      {fetching && !data && <p role="status">Reading the file…</p>}
      {data && !project && <p role="alert">No project {projectId}.</p>}
      {project && (
        <table className="blame" aria-label="Blame">
          <tbody>
            {project.blame.flatMap((range) =>
              range.lines.map((text, i) => (
                <tr key={range.startLine + i} className={`blame-${range.origin.toLowerCase()}`}>
                  {i === 0 && (
                    <td className="blame-gutter" rowSpan={range.lines.length}>
                      <Gutter range={range} />
                    </td>
                  )}
                  <td className="blame-num">{range.startLine + i}</td>
                  <td className="blame-code">
                    <code>{text}</code>
                  </td>
                </tr>
              )),
            )}
          </tbody>
        </table>
      )}
      {path !== '' && <FileHistory projectId={projectId} path={path} rev={rev} />}
    </main>
  );
}
