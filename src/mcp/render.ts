/**
 * How the MCP server writes what it read for a model: turns as short summaries and as markdown,
 * text cut to a budget with a note saying what was left out, and the resource URIs.
 */
import { readableText } from '../services/search/readable.js';

/** No tool result or resource is longer than this (the issue's bound; a model's context is the cost). */
export const MAX_RESULT_CHARS = 25_000;

export const SCHEME = 'entity-memory';

export function sessionUri(sessionId: string): string {
  return `${SCHEME}://session/${encodeURIComponent(sessionId)}`;
}

export function turnUri(sessionId: string, turn: number): string {
  return `${sessionUri(sessionId)}/turn/${turn}`;
}

/** `text` cut to `max` characters, and how many were left out (0: none). */
export function cut(text: string, max: number): { text: string; omitted: number } {
  if (text.length <= max) return { text, omitted: 0 };
  // Never split a surrogate pair.
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), omitted: text.length - end };
}

/** `text` cut to `max` characters with "… (N more characters)" after it when it was cut. */
export function clip(text: string, max: number): string {
  const { text: kept, omitted } = cut(text, max);
  return omitted > 0 ? `${kept}… (${omitted} more characters)` : kept;
}

/** The first line of `text`, at most `max` characters. */
export function firstLine(text: string, max = 120): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return clip(line, max);
}

export interface TurnMessage {
  role: string;
  content: string;
  toolName: string | null;
  toolCallId: string | null;
  metadata: unknown;
}

export interface ToolCallSummary {
  id: string | null;
  name: string;
  /** The call's input in a line: the path, command or pattern it names, else its JSON, cut. */
  input: string;
  /**
   * The first line of its result as a person reads it (JSON, as hooks record a tool's answer, read
   * as its string values), `failed: ` before it when the call failed; null when none was recorded.
   */
  result: string | null;
}

interface RecordedToolCall {
  id?: unknown;
  name?: unknown;
  input?: unknown;
}

/** What a call's input is about, in one line: the fields a model recognises first, else the JSON. */
export function summariseInput(input: unknown, max = 200): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const record = input as Record<string, unknown>;
    for (const key of ['file_path', 'path', 'notebook_path', 'command', 'cmd', 'pattern', 'url', 'query', 'description', 'prompt']) {
      const value = record[key];
      if (typeof value === 'string' && value !== '') return clip(`${key}: ${value.replace(/\s+/g, ' ')}`, max);
      if (Array.isArray(value) && value.every((part) => typeof part === 'string')) return clip(`${key}: ${value.join(' ')}`, max);
    }
  }
  if (typeof input === 'string') return clip(input.replace(/\s+/g, ' '), max);
  return clip(JSON.stringify(input ?? null), max);
}

/** Whether a tool result says its call failed (metadata.isError). */
function failed(message: TurnMessage): boolean {
  return (message.metadata as { isError?: unknown } | null)?.isError === true;
}

/** The tool calls the turn's assistant messages made (metadata.toolCalls), each with its result's first line. */
export function toolCallsOf(messages: readonly TurnMessage[]): ToolCallSummary[] {
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'TOOL' || !message.toolCallId) continue;
    results.set(message.toolCallId, `${failed(message) ? 'failed: ' : ''}${firstLine(readableText(message.content), 160)}`);
  }
  const calls: ToolCallSummary[] = [];
  for (const message of messages) {
    if (message.role !== 'ASSISTANT') continue;
    const recorded = (message.metadata as { toolCalls?: unknown } | null)?.toolCalls;
    if (!Array.isArray(recorded)) continue;
    for (const call of recorded as RecordedToolCall[]) {
      const id = typeof call.id === 'string' ? call.id : null;
      calls.push({ id, name: typeof call.name === 'string' ? call.name : 'tool', input: summariseInput(call.input), result: id ? results.get(id) ?? null : null });
    }
  }
  return calls;
}

/** The turn's reply: its assistant messages' text, in order. */
export function replyOf(messages: readonly TurnMessage[]): string {
  return messages
    .filter((m) => m.role === 'ASSISTANT' && m.content.trim() !== '')
    .map((m) => m.content.trim())
    .join('\n\n');
}

/** The turn's prompt: its user message. */
export function promptOf(messages: readonly TurnMessage[]): string {
  return messages.find((m) => m.role === 'USER')?.content ?? '';
}

/** One turn as markdown, every message in order, each cut to `perMessage` characters (a tool's result as toolCallsOf reads it). */
export function turnMarkdown(number: number, messages: readonly TurnMessage[], outcome: string | null, perMessage: number): string {
  const lines = [`## Turn ${number}`, ''];
  for (const message of messages) {
    if (message.role === 'USER') lines.push('**User:**', '', clip(message.content, perMessage), '');
    else if (message.role === 'ASSISTANT') {
      if (message.content.trim() !== '') lines.push('**Assistant:**', '', clip(message.content, perMessage), '');
      const calls = (message.metadata as { toolCalls?: unknown } | null)?.toolCalls;
      if (Array.isArray(calls)) {
        for (const call of calls as RecordedToolCall[]) {
          lines.push(`- tool call \`${typeof call.name === 'string' ? call.name : 'tool'}\`: ${summariseInput(call.input, Math.min(perMessage, 500))}`);
        }
        if (calls.length > 0) lines.push('');
      }
    } else if (message.role === 'TOOL') {
      // As a person reads it: a hooked tool's JSON as its values.
      const about = [message.toolName, failed(message) ? 'failed' : null].filter(Boolean).join(', ');
      lines.push(`**Tool result${about ? ` (${about})` : ''}:**`, '', '```', clip(readableText(message.content), perMessage).replaceAll('```', '`\u200b``'), '```', '');
    } else lines.push(`**${message.role.toLowerCase()}:**`, '', clip(message.content, perMessage), '');
  }
  if (outcome) lines.push(`Project: ${outcome}`, '');
  return lines.join('\n');
}

/** A turn's project commit outcome in words. */
export function outcomeLine(commit: { result: string; reason?: string | null; commitSha?: string | null; snapshotSha?: string | null } | null): string | null {
  if (!commit) return null;
  const result = commit.result.toLowerCase().replaceAll('_', ' ');
  const parts = [result];
  if (commit.commitSha) parts.push(`commit ${commit.commitSha.slice(0, 12)}`);
  if (commit.snapshotSha) parts.push(`snapshot ${commit.snapshotSha.slice(0, 12)}`);
  if (commit.reason) parts.push(commit.reason);
  return parts.join(', ');
}
