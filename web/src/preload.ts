/**
 * The first reads of a session page, sent while the app's own script is still loading: the page
 * runs this small script first (a classic script in its head, built apart by vite.config.ts), so on a cold
 * open the server answers while the browser compiles the app, instead of after (on a 2-core
 * machine that was ~300 ms of a 10,000-turn session's open).
 *
 * On /sessions/<id> it reads the page query (SessionPage), and when the address shows the
 * session's latest (no `branch` or `at`) and that answer names a head turn, what the page reads
 * next for it: the conversation's last turns, the timeline's first page and the turn's code
 * changes. The documents and variables are the page's own, so the app's client takes each
 * answer in place of its request (lib/preloaded.ts). Anything else the page needs it reads
 * itself, as without this script; a failed read here is read again by the app.
 */
import type { ReplayCodeChangesQueryVariables, ReplayConversationQueryVariables, ReplayTimelinePageQueryVariables, SessionPageQueryVariables } from './gql/graphql';
// The queries as strings (the build prints them: preload-queries.ts), not the documents and
// gql.ts's map of every document of the app: this script stays a few kilobytes.
import { PRELOAD_QUERIES } from './preload-queries';
import { TIMELINE_PAGE, WINDOW } from './features/replay/window';
import { preloadKey } from './lib/preloaded';
import { currentToken, takeTokenFromLocation } from './lib/token';

// The headers urql's fetch sends for a query (its makeFetchOptions): the same answer either way.
const ACCEPT = 'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed';

interface Variables {
  SessionPage: SessionPageQueryVariables;
  ReplayConversation: ReplayConversationQueryVariables;
  ReplayTimelinePage: ReplayTimelinePageQueryVariables;
  ReplayCodeChanges: ReplayCodeChangesQueryVariables;
}

/** Answers' data as it arrives, by preloadKey: the app's first render can take it at once (lib/preloaded.ts). */
const arrived = new Map<string, unknown>();

/** An answer's body as JSON, read once (null when the request or the read failed, or the status was not ok). */
type Body = { data?: unknown; errors?: unknown } | null;

function preload<Name extends keyof Variables>(answers: Map<string, Promise<Response>>, operationName: Name, variables: Variables[Name]): Promise<Body> {
  const token = currentToken();
  const answer = fetch('/graphql', {
    method: 'POST',
    headers: { accept: ACCEPT, 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    // The document as urql sends it: with the __typename fields its cache adds.
    body: JSON.stringify({ query: PRELOAD_QUERIES[operationName], operationName, variables }),
  });
  const key = preloadKey(operationName, variables);
  answers.set(key, answer);
  // Read here, while the app's script still loads: only a whole answer without errors is kept.
  return answer
    .then((response) => (response.ok ? (response.clone().json() as Promise<Body>) : null))
    .then((body) => {
      if (body && body.data != null && body.errors === undefined) arrived.set(key, body.data);
      return body;
    })
    .catch(() => null);
}

/** Reads ahead (the page query, then what it names); settles once it has sent all it will. */
async function start(answers: Map<string, Promise<Response>>, sessionId: string): Promise<void> {
  const page = (await preload(answers, 'SessionPage', { sessionId })) as { data?: { session?: { currentBranch: string; detached: boolean; project: unknown; head: { sha: string; turn: { branch: string } | null } | null } | null } } | null;
  const search = new URLSearchParams(window.location.search);
  if (!page || search.has('branch') || search.has('at')) return;
  const session = page.data?.session;
  const head = session?.head;
  if (!session || session.detached || !head?.turn) return;
  // As the page asks them at its latest (SessionPage.tsx, Conversation.tsx, Timeline.tsx, CodeChanges.tsx).
  void preload(answers, 'ReplayConversation', { sessionId, branch: head.turn.branch, before: null, last: WINDOW });
  void preload(answers, 'ReplayTimelinePage', { sessionId, branch: session.currentBranch, after: null, first: TIMELINE_PAGE });
  if (session.project) void preload(answers, 'ReplayCodeChanges', { sessionId, sha: head.sha });
}

// The session page's path, read as lib/router.ts's parseRoute reads it (that module brings React).
const parts = window.location.pathname.split('/').filter(Boolean);
if (parts.length === 2 && parts[0] === 'sessions') {
  // The token may be in the address: taken here, before anything reads it (main.tsx's call then finds none).
  takeTokenFromLocation();
  const answers = new Map<string, Promise<Response>>();
  // Never in the app's way: whatever fails here, the app reads for itself.
  const done = (async () => start(answers, decodeURIComponent(parts[1]!)))().catch(() => {});
  window.__entityMemoryPreloaded = { answers, arrived, later: new Set(['ReplayConversation', 'ReplayTimelinePage', 'ReplayCodeChanges']), done };
}
