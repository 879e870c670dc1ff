/**
 * GraphiQL with the token: the page is static and served without a token (it holds no data);
 * a small script in its head takes the token from the address bar once and adds it to the
 * page's own requests to /graphql. Self-contained, so GraphiQL's assets can change around it.
 *
 * The page is @graphql-yoga/render-graphiql's, which inlines GraphiQL's script, styles and
 * editor workers (about 9 MB, from localhost), where yoga's own page loads them from a CDN:
 * without the internet that page stayed blank ("Loading entity-memory..."), and this server
 * runs on machines that may reach nothing but themselves. That module is loaded at the first
 * GraphiQL page, not at start-up: its strings are 32 MB of V8 heap that a server nobody opens
 * GraphiQL on should not hold (bench/startup.ts).
 *
 * The editor opens on SAMPLE_OPERATIONS, and subscriptions go over graphql-ws (the same
 * socket the web UI uses) instead of yoga's default server-sent events.
 */
import type { GraphiQLOptions } from 'graphql-yoga';

/**
 * What the editor shows first: read-only sample operations (GraphiQL keeps what the user
 * types instead, per browser). Ctrl+Enter runs the operation under the cursor.
 */
export const SAMPLE_OPERATIONS = `# entity-memory: agent sessions mirrored into git, one commit per turn.
# Ctrl+Enter runs the operation under the cursor (or pick one with the run button).
# Writing: createSession and recordTurn, see the Docs (book icon).

# The latest sessions, each with its timeline: the commits of its current branch, newest first.
query Sessions {
  sessions(first: 10) {
    totalCount
    edges {
      node {
        sessionId
        title
        currentBranch
        timeline(first: 5) {
          edges { node { sha headline } }
        }
      }
    }
  }
}

# Live: each turn as it is committed to git (runs until stopped).
subscription TurnCommitted {
  turnCommitted {
    session { sessionId }
    turn { number }
    commit { sha headline }
  }
}
`;

/** yoga's GraphiQL options (src/yoga.ts). */
export const GRAPHIQL_OPTIONS = {
  title: 'entity-memory',
  defaultQuery: SAMPLE_OPERATIONS,
  subscriptionsProtocol: 'WS',
} satisfies GraphiQLOptions;

/** The sessionStorage key; the web UI at `/` (same origin) reads the same one. */
export const TOKEN_STORAGE_KEY = 'entity-memory.token';

/**
 * Runs before GraphiQL loads. `#token=…` is read once into sessionStorage (per tab, gone when
 * it closes) and removed from the address bar, so it is neither bookmarked nor shown on screen.
 * fetch is wrapped so that same-origin requests to /graphql carry `Authorization: Bearer`, and
 * WebSocket `connection_init` messages carry `{ token }` in their payload, in case GraphiQL is
 * switched to graphql-ws. Requests to other origins (GraphiQL's CDN) never see the token.
 */
export const TOKEN_SCRIPT = `<script>(function () {
  var KEY = ${JSON.stringify(TOKEN_STORAGE_KEY)};
  var match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match) {
    try { sessionStorage.setItem(KEY, decodeURIComponent(match[1])); } catch (e) {}
    history.replaceState(null, '', location.pathname + location.search);
  }
  var token = null;
  try { token = sessionStorage.getItem(KEY); } catch (e) {}
  if (!token) return;
  var endpoint = new URL('/graphql', location.href);
  var originalFetch = window.fetch;
  window.fetch = function (input, init) {
    var url = new URL(input instanceof Request ? input.url : String(input), location.href);
    if (url.origin === endpoint.origin && url.pathname === endpoint.pathname) {
      var headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
      if (!headers.has('authorization')) headers.set('authorization', 'Bearer ' + token);
      init = Object.assign({}, init, { headers: headers });
    }
    return originalFetch.call(this, input, init);
  };
  var originalSend = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (typeof data === 'string' && data.indexOf('"connection_init"') !== -1 && new URL(this.url).host === location.host) {
      try {
        var message = JSON.parse(data);
        if (message.type === 'connection_init') {
          message.payload = Object.assign({ token: token }, message.payload);
          data = JSON.stringify(message);
        }
      } catch (e) {}
    }
    return originalSend.call(this, data);
  };
})();</script>`;

/** yoga's GraphiQL page with TOKEN_SCRIPT at the start of its head. */
export async function renderGraphiQLWithToken(options: GraphiQLOptions): Promise<string> {
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const html = renderGraphiQL(options);
  return html.includes('<head>') ? html.replace('<head>', () => `<head>${TOKEN_SCRIPT}`) : `${TOKEN_SCRIPT}${html}`;
}
