/**
 * search: every session's messages by words, phrases, prefixes and qualifiers, ranked, each hit
 * with its session, turn and a snippet with its matches (src/services/search).
 */
import { queryFromInfo } from '@pothos/plugin-prisma';
import { DEFAULT_SEARCH_PAGE, MAX_SEARCH_PAGE, RANKED_MATCHES, searchMessages, type SearchHit } from '../services/search/search.js';
import type { TextRange } from '../services/search/snippet.js';
import { builder } from './builder.js';
import { pageTotalCount } from './connection.js';
import { QUERY_COST } from './cost.js';
import { RoleEnum } from './enums.js';
import { Message } from './message.js';
import { Session } from './session.js';

const TextRangeRef = builder.objectRef<TextRange>('TextRange').implement({
  description: 'A range of a text: [start, end), in UTF-16 code units (as JavaScript strings count).',
  fields: (t) => ({ start: t.exposeInt('start'), end: t.exposeInt('end') }),
});

const SearchHitRef = builder.objectRef<SearchHit>('SearchHit').implement({
  description: 'A message that matches a search.',
  fields: (t) => ({
    message: t.field({ type: Message, resolve: (hit) => hit.message }),
    session: t.field({ type: Session, resolve: (hit) => hit.session }),
    turnNumber: t.int({ nullable: true, description: 'The number of the turn the message was recorded in; null outside a turn.', resolve: (hit) => hit.turnNumber }),
    snippet: t.exposeString('snippet', {
      description:
        "Up to 300 characters of the message's text around its first match, as plain text; from its tools' names and inputs when only they matched (a path:, a tool:).",
    }),
    highlights: t.field({ type: [TextRangeRef], description: "Where the matching words are in snippet, in order.", resolve: (hit) => hit.highlights }),
    rank: t.float({
      description: 'How well it matches, higher first (bm25 on SQLite, ts_rank on PostgreSQL): comparable within one search only.',
      resolve: (hit) => hit.rank,
    }),
  }),
});

const SearchHitConnection = builder.connectionObject(
  {
    type: SearchHitRef,
    name: 'SearchHitConnection',
    fields: (t) => ({
      totalCount: t.int({ description: 'Every message that matches (a count: on a common word, slower than a page).', resolve: pageTotalCount }),
      rankedMatches: t.int({
        description: `How many of the newest matches are ranked (${RANKED_MATCHES}): when totalCount is more, the hits are the best of the newest ${RANKED_MATCHES}, and pages end there. Add a word, or filter by date, to reach older ones.`,
        resolve: () => RANKED_MATCHES,
      }),
    }),
  },
  { name: 'SearchHitEdge' },
);

const SearchFilterInput = builder.inputType('SearchFilter', {
  description: 'Narrows a search; each field given must hold, as well as the query.',
  fields: (t) => ({
    projectId: t.string({ description: 'Only the sessions of this project.' }),
    sessionId: t.string({ description: 'Only this session (as session: in the query).' }),
    agent: t.string({ description: "Only the sessions of this agent: its agentId, or for an import without one its source (as sessions(agent:))." }),
    role: t.field({ type: RoleEnum, description: 'Only messages of this role (as role: in the query).' }),
    toolName: t.string({ description: "Only messages whose tools' names or inputs hold this name's words (as tool: in the query)." }),
    since: t.field({ type: 'DateTime', description: 'Only messages written at or after this time.' }),
    until: t.field({ type: 'DateTime', description: 'Only messages written before this time.' }),
  }),
});

builder.queryFields((t) => ({
  search: t.field({
    type: SearchHitConnection,
    description:
      'Every session\'s messages that match `query`, best first (newest first among equals). The query: words (all must match), "a phrase", ' +
      '-word (must not match), prefix*, and the qualifiers role:user|assistant|tool|system, tool:NAME, path:PATH (among the tools\' inputs), session:ID. ' +
      'A word is a run of letters and digits, any case: src/app.ts is the phrase "src app ts". The first 100,000 characters of each message are searched. ' +
      `A query with more than ${RANKED_MATCHES} matches ranks its ${RANKED_MATCHES} newest (rankedMatches). ` +
      `A malformed query is BAD_USER_INPUT with extensions.position. Pages of at most ${MAX_SEARCH_PAGE} (${DEFAULT_SEARCH_PAGE} when first is omitted), ${RANKED_MATCHES} hits deep.`,
    args: {
      query: t.arg.string({ required: true }),
      filter: t.arg({ type: SearchFilterInput }),
      first: t.arg.int({ description: `How many hits: ${DEFAULT_SEARCH_PAGE} when omitted, at most ${MAX_SEARCH_PAGE}. The query's cost counts the selection this many times.` }),
      after: t.arg.string({ description: 'The endCursor of the page before.' }),
    },
    // The ranked page, then its messages, sessions, turns and projects (5 queries); the selection counted first: times.
    complexity: (args: { first?: number | null }) => ({ field: 5 * QUERY_COST, multiplier: args.first ?? DEFAULT_SEARCH_PAGE }),
    // The hits' messages read with what the client selected of them (as Pothos plans it), so a
    // hit's message is not read a second time to resolve its fields.
    resolve: (_root, args, ctx, info) => searchMessages(ctx.deps.db, args, queryFromInfo({ context: ctx, info, path: ['edges', 'node', 'message'], select: {} }).select),
  }),
}));
