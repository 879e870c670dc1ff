/**
 * Which turn wrote each line of a project's file (/projects/<id>/blame?path=…&rev=…): the file's
 * lines with a gutter per range of lines one commit last changed: the agent's (its session's
 * turn, a link that opens the conversation at that turn) or the user's (the commit's author,
 * sha and headline). Reached from a file of a turn's code changes ("Blame").
 */
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import type { ProjectBlameQuery } from '../../gql/graphql';
import { errorMessage } from '../../lib/errors';
import { Link } from '../../lib/Link';
import { projectPath, sessionPath, useSearch } from '../../lib/router';
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

type Range = NonNullable<ProjectBlameQuery['project']>['blame'][number];

/** Where an agent's range opens: its session at its turn. */
function turnLink(range: Range): string | null {
  if (!range.session) return null;
  const sha = range.turn?.commit?.sha;
  if (!sha) return sessionPath(range.session.sessionId);
  const params = new URLSearchParams({ branch: range.turn!.branch, at: sha });
  return `${sessionPath(range.session.sessionId)}?${params.toString()}`;
}

function Gutter({ range }: { range: Range }) {
  if (range.origin === 'AGENT') {
    const href = turnLink(range);
    const what = range.turnNumber !== null ? `turn ${range.turnNumber}` : 'restore';
    const where = range.session?.title || range.session?.sessionId || '';
    return (
      <>
        <span className="badge">agent</span>{' '}
        {href ? (
          <Link href={href} title={`${where}: ${range.commit.headline}`}>
            {what}
          </Link>
        ) : (
          what
        )}
        <span className="muted"> {where}</span>
      </>
    );
  }
  return (
    <span title={range.commit.headline}>
      <span className="badge">you</span> {range.commit.author.name} <code className="muted">{range.commit.shortSha}</code>
    </span>
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
    </main>
  );
}
