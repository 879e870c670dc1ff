/**
 * A turn commit's message (on-disk contract): a headline of at most 72
 * characters, a summary, and trailers that tie the commit to its turn.
 */
import { excerpt, oneLine } from '../text.js';

export interface TurnSummary {
  sessionId: string;
  number: number;
  userContent: string;
  /** The turn's reply, if it has one. */
  assistantContent: string | null;
  /** Tool names of the turn's tool results, in order (null for unnamed ones). */
  toolNames: (string | null)[];
  toolCount: number;
  durationMs: number | null;
  tokens: number | null;
  /** Ids of the messages the commit adds, in seq order. */
  messageIds: string[];
}

/**
 * "read, grep × 3, list": names in first-use order, with a count when used
 * more than once. Names are folded like excerpts: a tool name may hold a
 * newline, and a line of its own such as "Session-Id: x" would read as a trailer.
 */
export function toolsLine(names: (string | null)[]): string | null {
  const counts = new Map<string, number>();
  for (const name of names) {
    const key = name == null ? 'tool' : oneLine(name);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 0) return null;
  return [...counts].map(([name, count]) => (count > 1 ? `${name} × ${count}` : name)).join(', ');
}

export function metaLine(summary: Pick<TurnSummary, 'durationMs' | 'toolCount' | 'tokens'>): string | null {
  const parts: string[] = [];
  if (summary.durationMs !== null) parts.push(`turn took ${(summary.durationMs / 1000).toFixed(1)}s`);
  if (summary.toolCount > 0) parts.push(`${summary.toolCount} ${summary.toolCount === 1 ? 'tool' : 'tools'}`);
  if (summary.tokens !== null) parts.push(`${summary.tokens} tokens`);
  return parts.length > 0 ? `[meta: ${parts.join(', ')}]` : null;
}

/**
 * How many stored characters of a user message are enough for its turn's headline: HEADLINE_CHARS
 * characters, each at most two (a CRLF), each stored as at most three (PostgreSQL's escape of a
 * NUL or a %: src/db/nul-text.ts), after the escape's mark; with room to spare.
 */
export const HEADLINE_SOURCE_CHARS = 1024;
const HEADLINE_CHARS = 60;

/**
 * A turn commit's headline, "turn 3: <the user message's first 60 characters, on one line>":
 * the first line of its message, made from the database alone (a list shows it without git).
 * It reads no further than the first HEADLINE_SOURCE_CHARS characters of the message.
 */
export function turnHeadline(number: number, userContent: string): string {
  return `turn ${number}: ${excerpt(userContent, HEADLINE_CHARS)}`.trimEnd();
}

export function turnCommitMessage(summary: TurnSummary): string {
  const paragraphs: string[] = [turnHeadline(summary.number, summary.userContent)];
  const body: string[] = [];
  if (summary.assistantContent !== null) body.push(`assistant: ${excerpt(summary.assistantContent, 80)}`.trimEnd());
  const tools = toolsLine(summary.toolNames);
  if (tools) body.push(`tools: ${tools}`);
  if (body.length > 0) paragraphs.push(body.join('\n'));
  const meta = metaLine(summary);
  if (meta) paragraphs.push(meta);
  paragraphs.push(
    [`Session-Id: ${summary.sessionId}`, `Turn: ${summary.number}`, `Message-Ids: ${summary.messageIds.join(',')}`].join('\n'),
  );
  return `${paragraphs.join('\n\n')}\n`;
}

/**
 * Our trailers from a commit's trailers as git parsed them (`CommitInfo.trailers`,
 * `%(trailers:only,unfold)`); null when they are not there. Git decides what is a
 * trailer, so a line in a message body can never pose as one.
 */
export function turnTrailers(trailers: Readonly<Record<string, string>>): { sessionId: string; turn: number; messageIds: string[] } | null {
  const sessionId = trailers['Session-Id'];
  const turn = trailers['Turn'];
  const ids = trailers['Message-Ids'];
  if (!sessionId || !turn || !/^\d+$/.test(turn) || ids === undefined) return null;
  return { sessionId, turn: Number(turn), messageIds: ids ? ids.split(',') : [] };
}
