/**
 * The MCP resources: a session's conversation (`entity-memory://session/{sessionId}`) and one
 * turn of it (`…/turn/{n}`), as markdown. Listing pages through the sessions, newest first.
 */
import { encodeCursor } from '../services/page.js';
import { ToolError, type Run } from './execute.js';
import type { McpSessionSummaryFragment } from './gql/graphql.js';
import { ConversationQuery, SessionsQuery, TurnQuery } from './operations.js';
import { clip, firstLine, MAX_RESULT_CHARS, outcomeLine, SCHEME, sessionUri, turnMarkdown, turnUri } from './render.js';

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: `${SCHEME}://session/{sessionId}`,
    name: 'session',
    title: 'A session',
    description: "A recorded session's conversation as markdown: its turns in order, each message cut short (read a turn for all of it).",
    mimeType: 'text/markdown',
  },
  {
    uriTemplate: `${SCHEME}://session/{sessionId}/turn/{n}`,
    name: 'turn',
    title: 'A turn of a session',
    description: "One turn as markdown: the prompt, every reply, tool call and tool result in order, and the project commit's outcome.",
    mimeType: 'text/markdown',
  },
] as const;

const PAGE = 50;

export async function listResources(run: Run, cursor: string | undefined) {
  const { sessions } = await run(SessionsQuery, { first: PAGE, ...(cursor ? { after: cursor } : {}) });
  return {
    resources: sessions.edges.map(({ node }) => ({
      uri: sessionUri(node.sessionId),
      name: node.sessionId,
      title: node.title ? firstLine(node.title, 100) : `Session ${node.sessionId}`,
      description: `${node.agentId ?? node.source ?? 'agent'} session, ${node.turnCount.totalCount} turns, last active ${node.lastActivityAt}${node.project ? `, project ${node.project.name}` : ''}`,
      mimeType: 'text/markdown',
    })),
    ...(sessions.pageInfo.hasNextPage && sessions.pageInfo.endCursor ? { nextCursor: sessions.pageInfo.endCursor } : {}),
  };
}

type Parsed = { sessionId: string; turn?: number };

/** The session (and turn) a URI names, or a clear refusal. */
export function parseResourceUri(uri: string): Parsed {
  const match = /^entity-memory:\/\/session\/([^/?#]+)(?:\/turn\/(\d{1,9}))?$/.exec(uri);
  if (!match) {
    throw new ToolError(`${JSON.stringify(uri.slice(0, 200))} is not a resource of this server: use ${SCHEME}://session/{sessionId} or ${SCHEME}://session/{sessionId}/turn/{n}.`, 'BAD_USER_INPUT', { field: 'uri' });
  }
  let sessionId: string;
  try {
    sessionId = decodeURIComponent(match[1]!);
  } catch {
    throw new ToolError(`The session id in ${JSON.stringify(uri.slice(0, 200))} is not well encoded.`, 'BAD_USER_INPUT', { field: 'uri' });
  }
  return match[2] !== undefined ? { sessionId, turn: Number(match[2]) } : { sessionId };
}

function header(session: McpSessionSummaryFragment): string[] {
  return [
    `# ${session.title ? firstLine(session.title, 200) : `Session ${session.sessionId}`}`,
    '',
    `- session: ${session.sessionId}`,
    `- agent: ${session.agentId ?? session.source ?? 'unknown'}`,
    `- project: ${session.project ? `${session.project.name} (${session.project.projectId})` : 'none'}`,
    `- branch: ${session.currentBranch}, ${session.turnCount.totalCount} turns`,
    `- started ${session.createdAt}, last active ${session.lastActivityAt}`,
    '',
  ];
}

export async function readResource(run: Run, uri: string): Promise<string> {
  const parsed = parseResourceUri(uri);
  if (parsed.turn !== undefined) return readTurn(run, parsed.sessionId, parsed.turn);
  return readSession(run, parsed.sessionId);
}

async function readTurn(run: Run, sessionId: string, number: number): Promise<string> {
  const page = number <= 1 ? { first: 1 } : { after: encodeCursor('turn', number - 1), first: 1 };
  const { session } = await run(TurnQuery, { sessionId, ...page });
  if (!session) throw new ToolError(`No session ${JSON.stringify(sessionId)}.`, 'NOT_FOUND', { field: 'uri' });
  const turn = session.turns.edges[0]?.node;
  if (!turn || turn.number !== number) {
    throw new ToolError(`Session ${session.sessionId} has ${session.turnCount.totalCount} turns on its branch ${session.currentBranch}: turn ${number} is not one of them.`, 'NOT_FOUND', { field: 'uri' });
  }
  const head = header(session).join('\n');
  const outcome = outcomeLine(turn.projectCommit);
  // The longest messages are cut further until the whole fits.
  for (let perMessage = 20_000; ; perMessage = Math.floor(perMessage / 2)) {
    const text = `${head}\n${turnMarkdown(turn.number, turn.messages, outcome, perMessage)}`;
    if (text.length <= MAX_RESULT_CHARS || perMessage < 100) return clip(text, MAX_RESULT_CHARS - 40);
  }
}

/** The conversation from its first turn, each message cut to 1,500 characters, until the budget is spent. */
async function readSession(run: Run, sessionId: string): Promise<string> {
  const parts: string[] = [];
  let size = 0;
  let after: string | undefined;
  let first = true;
  for (;;) {
    const { session } = await run(ConversationQuery, { sessionId, first: 20, ...(after ? { after } : {}) });
    if (!session) throw new ToolError(`No session ${JSON.stringify(sessionId)}.`, 'NOT_FOUND', { field: 'uri' });
    if (first) {
      const head = header(session).join('\n');
      parts.push(head);
      size += head.length;
      first = false;
    }
    for (const { node: turn } of session.turns.edges) {
      const block = turnMarkdown(turn.number, turn.messages, outcomeLine(turn.projectCommit), 1_500);
      if (size + block.length > MAX_RESULT_CHARS - 300) {
        parts.push(`\n(Cut here to stay short: turns ${turn.number} to ${session.turnCount.totalCount} follow; read ${turnUri(session.sessionId, turn.number)} and the next turns one by one.)`);
        return parts.join('\n');
      }
      parts.push(block);
      size += block.length + 1;
    }
    const last = session.turns.edges.at(-1)?.node.number;
    if (!session.turns.pageInfo.hasNextPage || last === undefined) return parts.join('\n');
    after = encodeCursor('turn', last);
  }
}
