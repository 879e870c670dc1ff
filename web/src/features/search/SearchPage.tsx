/**
 * The search page (/search?q=…&project=…&agent=…&role=…&since=…&until=…, the days inclusive): the hits of `search`, best first,
 * grouped by session in the order their best hit comes; each hit its role, its turn, its snippet
 * with the matching words marked, and a link that opens the session at that turn with the
 * message scrolled into view and marked (?at=<the turn's commit>&message=<id>). Filters and the
 * query live in the address, so a search is a link.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { useClient, useQuery } from 'urql';
import { graphql } from '../../gql';
import type { SearchPageQuery as SearchPageData } from '../../gql/graphql';
import { errorMessage } from '../../lib/errors';
import { AgentSelect, ProjectSelect } from '../../lib/FilterSelects';
import { Link } from '../../lib/Link';
import { replaceSearch, sessionPath, useSearch } from '../../lib/router';
import './search.css';

const PAGE = 20;

const SearchQuery = graphql(`
  query SearchPage($query: String!, $filter: SearchFilter, $first: Int, $after: String) {
    search(query: $query, filter: $filter, first: $first, after: $after) {
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          rank
          turnNumber
          snippet
          highlights {
            start
            end
          }
          session {
            id
            sessionId
            title
          }
          message {
            id
            messageId
            role
            turn {
              branch
              commit {
                sha
              }
            }
          }
        }
      }
    }
  }
`);

// The count is its own request: on a common word it takes longer than the page, which need not wait for it.
const SearchCountQuery = graphql(`
  query SearchCount($query: String!, $filter: SearchFilter) {
    search(query: $query, filter: $filter, first: 0) {
      totalCount
      rankedMatches
    }
  }
`);

type Hit = SearchPageData['search']['edges'][number]['node'];

const ROLES = ['USER', 'ASSISTANT', 'TOOL', 'SYSTEM'] as const;

/** The snippet with its highlights as <mark>s. */
function Snippet({ text, ranges }: { text: string; ranges: { start: number; end: number }[] }) {
  const parts: ReactNode[] = [];
  let at = 0;
  ranges.forEach((range, i) => {
    if (range.start > at) parts.push(text.slice(at, range.start));
    parts.push(<mark key={i}>{text.slice(range.start, range.end)}</mark>);
    at = range.end;
  });
  if (at < text.length) parts.push(text.slice(at));
  return <p className="snippet">{parts}</p>;
}

/** Where a hit opens: its session at its turn, the message marked. */
function hitPath(hit: Hit): string {
  const params = new URLSearchParams();
  const turn = hit.message.turn;
  if (turn?.branch) params.set('branch', turn.branch);
  if (turn?.commit?.sha) params.set('at', turn.commit.sha);
  params.set('message', hit.message.messageId);
  return `${sessionPath(hit.session.sessionId)}?${params.toString()}`;
}

/** The hits grouped by session, in the order each session's best hit comes. */
function bySession(hits: Hit[]): { session: Hit['session']; hits: Hit[] }[] {
  const groups = new Map<string, { session: Hit['session']; hits: Hit[] }>();
  for (const hit of hits) {
    const group = groups.get(hit.session.sessionId) ?? { session: hit.session, hits: [] };
    group.hits.push(hit);
    groups.set(hit.session.sessionId, group);
  }
  return [...groups.values()];
}

/** `value` when it is a day as a date field writes it (YYYY-MM-DD), else null. */
function dayParam(value: string | null): string | null {
  return value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(new Date(`${value}T00:00`).getTime()) ? value : null;
}

/** The start of `day` plus `plus` days, in the user's time zone, as an ISO instant. */
function dayStart(day: string, plus: number): string {
  const at = new Date(`${day}T00:00`);
  at.setDate(at.getDate() + plus);
  return at.toISOString();
}

export function SearchPage() {
  const client = useClient();
  const params = useSearch();
  const query = params.get('q') ?? '';
  const project = params.get('project') ?? '';
  const agent = params.get('agent') ?? '';
  const role = params.get('role') ?? '';
  // Days (YYYY-MM-DD, the user's own time zone), from the start of `since` to the end of `until`.
  const since = dayParam(params.get('since'));
  const until = dayParam(params.get('until'));
  const filter = {
    ...(since ? { since: dayStart(since, 0) } : {}),
    ...(until ? { until: dayStart(until, 1) } : {}),
    ...(project ? { projectId: project } : {}),
    ...(agent ? { agent } : {}),
    ...(ROLES.includes(role as (typeof ROLES)[number]) ? { role: role as (typeof ROLES)[number] } : {}),
  };
  const [{ data, error, fetching }] = useQuery({ query: SearchQuery, variables: { query, filter, first: PAGE }, pause: query.trim() === '', requestPolicy: 'network-only' });
  const [{ data: countData }] = useQuery({ query: SearchCountQuery, variables: { query, filter }, pause: query.trim() === '' || !data, requestPolicy: 'network-only' });
  const count = data && countData ? countData.search : null;

  // Later pages, appended ("More results"); back to none when the search changes.
  const [more, setMore] = useState<{ hits: Hit[]; endCursor: string | null; hasNextPage: boolean } | null>(null);
  const [moreError, setMoreError] = useState<string | null>(null);
  const key = JSON.stringify({ query, filter });
  useEffect(() => {
    setMore(null);
    setMoreError(null);
  }, [key]);
  const first = data?.search;
  const hits = [...(first?.edges.map((e) => e.node) ?? []), ...(more?.hits ?? [])];
  const endCursor = more ? more.endCursor : (first?.pageInfo.endCursor ?? null);
  const hasNextPage = more ? more.hasNextPage : (first?.pageInfo.hasNextPage ?? false);
  const loadMore = async () => {
    const result = await client.query(SearchQuery, { query, filter, first: PAGE, after: endCursor }, { requestPolicy: 'network-only' }).toPromise();
    if (result.error) {
      setMoreError(errorMessage(result.error));
      return;
    }
    const page = result.data!.search;
    setMore({ hits: [...(more?.hits ?? []), ...page.edges.map((e) => e.node)], endCursor: page.pageInfo.endCursor ?? null, hasNextPage: page.pageInfo.hasNextPage });
  };

  return (
    <main className="search-page" aria-labelledby="search-heading">
      <h1 id="search-heading">Search</h1>
      <div className="search-filters" role="group" aria-label="Filter the search">
        <ProjectSelect value={project} onChange={(projectId) => replaceSearch({ project: projectId || null })} />
        <AgentSelect value={agent} onChange={(id) => replaceSearch({ agent: id || null })} />
        <label>
          Role
          <select value={role} onChange={(e) => replaceSearch({ role: e.target.value || null })}>
            <option value="">Any role</option>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r.toLowerCase()}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" value={since ?? ''} max={until ?? undefined} onChange={(e) => replaceSearch({ since: e.target.value || null })} />
        </label>
        <label>
          To
          <input type="date" value={until ?? ''} min={since ?? undefined} onChange={(e) => replaceSearch({ until: e.target.value || null })} />
        </label>
      </div>
      {query.trim() === '' && (
        <p className="muted">
          Type in the search field (<kbd>/</kbd> goes there): words, <code>"a phrase"</code>, <code>-word</code>, <code>prefix*</code>, <code>role:tool</code>,{' '}
          <code>tool:Bash</code>, <code>path:src/app.ts</code>, <code>session:ID</code>.
        </p>
      )}
      {error && <p role="alert">{errorMessage(error)}</p>}
      {fetching && !first && <p role="status">Searching…</p>}
      {first && (
        <p role="status" className="search-count">
          {first.edges.length === 0
            ? `Nothing found for ${query}.`
            : count === null
              ? 'Counting…'
              : `${count.totalCount.toLocaleString('en-US')} ${count.totalCount === 1 ? 'message' : 'messages'} found` +
                (count.totalCount > count.rankedMatches
                  ? `: the best of the newest ${count.rankedMatches.toLocaleString('en-US')} are shown. Add a word, or a date range, to find older ones.`
                  : '')}
        </p>
      )}
      {bySession(hits).map(({ session, hits: sessionHits }) => (
        <section key={session.sessionId} className="search-group" aria-label={session.title || session.sessionId}>
          <h2>
            <Link href={sessionPath(session.sessionId)}>{session.title || session.sessionId}</Link>
          </h2>
          <ol className="search-hits">
            {sessionHits.map((hit) => (
              <li key={hit.message.id}>
                <Link href={hitPath(hit)} className="search-hit">
                  <span className="badge">{hit.message.role.toLowerCase()}</span>
                  {hit.turnNumber !== null && <span className="muted"> turn {hit.turnNumber}</span>}
                  <Snippet text={hit.snippet} ranges={hit.highlights} />
                </Link>
              </li>
            ))}
          </ol>
        </section>
      ))}
      {moreError && <p role="alert">{moreError}</p>}
      {hasNextPage && (
        <button type="button" onClick={() => void loadMore()}>
          More results
        </button>
      )}
    </main>
  );
}
