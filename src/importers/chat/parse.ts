/**
 * Issue 13: the generic chat-log format (docs/importing.md, "Generic chat
 * logs"), a pure parser into our message model (src/importers/model.ts). No
 * database, no git, no file access: the caller reads the file.
 *
 * One file is one session: an optional first line `{"session": {...}}`, then
 * one OpenAI-style message a line (`role`, `content`, `tool_calls`,
 * `tool_call_id`, `name`, plus our `id`, `parent`, `created_at`, `metadata`).
 * - `id` defaults to `<session id>-<line number>` (shortened with a hash when
 *   that would pass 128 characters), so importing the same file again yields
 *   the same ids;
 * - `parent` defaults to the previous message line, so a plain log is linear;
 *   an explicit parent makes branches (a second assistant reply to one user
 *   message is a retry, a user message under an earlier message a fork);
 * - a `tool` message's caller is the assistant message whose `tool_calls`
 *   holds its `tool_call_id`.
 * A line that cannot be used is reported in `problems` with its number; the
 * lines after it are still read.
 */
import { createHash } from 'node:crypto';
import { isValidId } from '../../ids.js';
import { asObject, titleFrom } from '../claude-code/blocks.js';
import { splitLines, type JsonlLine } from '../jsonl.js';
import type {
  ImportedMessage,
  ImportedMetadata,
  ImportedRole,
  ImportedSession,
  ImportProblem,
  ImportResult,
} from '../model.js';

/** The agentId of a chat-log session whose header names none. */
export const CHAT_AGENT_ID = 'chat';

export interface ChatLogOptions {
  /** The log's path: its base name (without `.jsonl`) is the session id unless the header gives one. */
  path?: string;
}

const ROLES: Record<string, ImportedRole> = {
  user: 'USER',
  assistant: 'ASSISTANT',
  tool: 'TOOL',
  system: 'SYSTEM',
  // OpenAI's newer name for the system role.
  developer: 'SYSTEM',
};

/** A tool call as kept in an assistant message's metadata (the same shape the Claude Code importer keeps). */
interface ToolCall {
  id: string;
  name: string;
  /** `function.arguments` parsed when it is JSON, else as given. */
  input: unknown;
}

/** Reads a whole chat log. A last line without a newline is read when it is a complete JSON object. */
export function parseChatLog(text: string | Buffer, options: ChatLogOptions = {}): ImportResult {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const split = splitLines(bytes, 1);
  const rest = bytes.subarray(split.consumedBytes).toString('utf8');
  const tail = split.consumedBytes === 0 && rest.startsWith('\uFEFF') ? rest.slice(1) : rest;
  return parseChatLines(split.lines, { line: split.nextLine, text: tail }, { consumedBytes: split.consumedBytes, bytes: bytes.length }, options);
}

/**
 * Reads a chat log given as lines (read by the caller, e.g. streaming: src/importers/line-reader.ts),
 * `tail` its last line without a newline (empty when none), `sizes.consumedBytes` where that tail
 * starts and `sizes.bytes` the log's size.
 */
export function parseChatLines(
  complete: readonly JsonlLine[],
  tail: JsonlLine,
  sizes: { consumedBytes: number; bytes: number },
  options: ChatLogOptions = {},
): ImportResult {
  const lines = [...complete];
  let consumedBytes = sizes.consumedBytes;
  let nextLine = tail.line;
  const problems: ImportProblem[] = [];
  if (tail.text.trim() !== '') {
    if (asObject(tryJson(tail.text)) !== null) {
      lines.push(tail);
      consumedBytes = sizes.bytes;
      nextLine += 1;
    } else {
      problems.push({ line: nextLine, message: 'The last line has no newline and is not a complete JSON object: not read.' });
    }
  }

  const skipped: Record<string, number> = {};
  const records: { line: number; record: Record<string, unknown> }[] = [];
  let header: Record<string, unknown> | undefined;
  let headerLine = 0;
  for (const { line, text: lineText } of lines) {
    const value = tryJson(lineText);
    const record = asObject(value);
    if (value === undefined || record === null) {
      problems.push({ line, message: value === undefined ? 'Not valid JSON: line skipped.' : 'Not a JSON object: line skipped.' });
      continue;
    }
    if ('session' in record && !('role' in record)) {
      const fields = asObject(record.session);
      if (records.length > 0 || header !== undefined || problems.some((p) => p.line < line)) {
        problems.push({ line, message: 'A session header must be the first line: line skipped.' });
      } else if (fields === null) {
        problems.push({ line, message: '"session" must be an object: line skipped.' });
      } else {
        header = fields;
        headerLine = line;
      }
      skipped.session = (skipped.session ?? 0) + 1;
      continue;
    }
    records.push({ line, record });
  }

  const session = readSession(header, headerLine, options.path, problems);
  const builder = new Builder(session.id, problems);
  for (const { line, record } of records) builder.add(line, record);
  if (session.title === null) {
    const prompt = builder.messages.find((m) => m.role === 'USER' && m.content.trim() !== '');
    if (prompt) session.title = titleFrom(prompt.content);
  }
  problems.sort((a, b) => a.line - b.line);
  return {
    session,
    messages: builder.messages,
    updates: [],
    problems,
    skipped,
    newestLeafId: builder.newestLeafId(),
    consumedBytes,
    nextLine,
    records: records.length + (skipped.session ?? 0),
  };
}

/** The session header: the first line's fields, else the file's base name. */
function readSession(
  header: Record<string, unknown> | undefined,
  line: number,
  path: string | undefined,
  problems: ImportProblem[],
): ImportedSession {
  const session: ImportedSession = { id: null, title: null, agentId: CHAT_AGENT_ID, model: null, metadata: {} };
  if (header) {
    const id = header.id;
    if (typeof id === 'string' && isValidId(id)) session.id = id;
    else if (id !== undefined) problems.push({ line, message: `session.id ${JSON.stringify(id)} is not a valid id: the file name is used instead.` });
    if (typeof header.title === 'string' && header.title.trim() !== '') session.title = header.title;
    if (typeof header.agentId === 'string' && header.agentId.trim() !== '') session.agentId = header.agentId;
    if (typeof header.model === 'string' && header.model.trim() !== '') session.model = header.model;
    const metadata = asObject(header.metadata);
    if (metadata) session.metadata = { ...metadata };
    else if (header.metadata !== undefined && header.metadata !== null) problems.push({ line, message: 'session.metadata must be an object: ignored.' });
  }
  if (session.id === null && path !== undefined) {
    const stem = fileStem(path);
    if (isValidId(stem)) session.id = stem;
    else problems.push({ line: 0, message: `The file name ${JSON.stringify(stem)} is not a valid session id and no header line names one.` });
  } else if (session.id === null) {
    problems.push({ line: 0, message: 'No session id: the log has no header line naming one and no file name.' });
  }
  return session;
}

/** Turns message records into ImportedMessages in file order, resolving ids, parents and callers. */
class Builder {
  readonly messages: ImportedMessage[] = [];
  /** Our message ids, and the ids the file wrote when they differ, to our ids. */
  private readonly ids = new Map<string, string>();
  private readonly successors = new Map<string, number>();
  /** tool_call id to the assistant message holding it and the tool's name (the latest such message). */
  private readonly toolCalls = new Map<string, { messageId: string; name: string }>();
  private previous: string | null = null;

  constructor(
    private readonly sessionId: string | null,
    private readonly problems: ImportProblem[],
  ) {}

  add(line: number, record: Record<string, unknown>): void {
    const problem = (message: string) => this.problems.push({ line, message });
    const roleName = typeof record.role === 'string' ? record.role.toLowerCase() : undefined;
    const role = roleName !== undefined ? ROLES[roleName] : undefined;
    if (!role) {
      problem(`Unknown role ${JSON.stringify(record.role ?? null)} (user, assistant, tool or system): line skipped.`);
      return;
    }

    const fallbackId = defaultId(this.sessionId, line);
    let messageId = fallbackId;
    const rawId = record.id;
    if (rawId !== undefined && rawId !== null) {
      const given = typeof rawId === 'number' ? String(rawId) : rawId;
      if (typeof given !== 'string') {
        problem('"id" must be a string: the line number gives the id.');
      } else if (this.ids.has(given)) {
        problem(`The id ${JSON.stringify(given)} is used by an earlier line: line skipped.`);
        return;
      } else if (isValidId(given)) {
        messageId = given;
      } else {
        problem(`The id ${JSON.stringify(given)} is not a valid id: the message gets ${fallbackId}; "parent" may still name it.`);
        this.ids.set(given, fallbackId);
      }
    }
    if (this.ids.has(messageId)) {
      problem(`The id ${messageId} is used by an earlier line: line skipped.`);
      return;
    }

    let predecessorId: string | null;
    if (!('parent' in record)) predecessorId = this.previous;
    else if (record.parent === null) predecessorId = null;
    else {
      const parent = typeof record.parent === 'number' ? String(record.parent) : record.parent;
      const known = typeof parent === 'string' ? this.ids.get(parent) : undefined;
      if (known === undefined) {
        problem(`Unknown parent ${JSON.stringify(record.parent)} (a parent must be an earlier line's id): line skipped.`);
        return;
      }
      predecessorId = known;
    }

    const metadata: ImportedMetadata = {};
    const given = asObject(record.metadata);
    if (given) Object.assign(metadata, given);
    else if (record.metadata !== undefined && record.metadata !== null) problem('"metadata" must be an object: ignored.');
    const content = readContent(record.content, metadata);
    const message: ImportedMessage = {
      messageId,
      role,
      content,
      predecessorId,
      createdAt: readTime(record.created_at, problem),
      opensTurn: role === 'USER',
      line,
    };

    const calls = role === 'ASSISTANT' ? readToolCalls(record.tool_calls, problem) : [];
    if (calls.length > 0) metadata.toolCalls = calls;
    if (role === 'TOOL') {
      const toolCallId = typeof record.tool_call_id === 'string' ? record.tool_call_id : undefined;
      const call = toolCallId !== undefined ? this.toolCalls.get(toolCallId) : undefined;
      if (toolCallId !== undefined) message.toolCallId = toolCallId;
      if (call) message.callerId = call.messageId;
      else problem(toolCallId === undefined ? 'A tool result without "tool_call_id": it has no caller.' : `No earlier assistant message has the tool call ${JSON.stringify(toolCallId)}: the result has no caller.`);
      const name = call?.name ?? (typeof record.name === 'string' ? record.name : undefined);
      if (name !== undefined) message.toolName = name;
    } else if (typeof record.name === 'string') {
      metadata.name = record.name;
    }
    if (Object.keys(metadata).length > 0) message.metadata = metadata;

    this.messages.push(message);
    this.ids.set(messageId, messageId);
    if (typeof rawId === 'string' || typeof rawId === 'number') this.ids.set(String(rawId), messageId);
    for (const call of calls) this.toolCalls.set(call.id, { messageId, name: call.name });
    if (predecessorId !== null) this.successors.set(predecessorId, (this.successors.get(predecessorId) ?? 0) + 1);
    this.previous = messageId;
  }

  /** The leaf with the latest created_at; among equal (or missing) times, the one written last. */
  newestLeafId(): string | null {
    let best: ImportedMessage | undefined;
    let bestTime = -Infinity;
    for (const message of this.messages) {
      if (this.successors.has(message.messageId)) continue;
      const time = message.createdAt === null ? -Infinity : Date.parse(message.createdAt);
      if (!best || time >= bestTime) {
        best = message;
        bestTime = time;
      }
    }
    return best?.messageId ?? null;
  }
}

/**
 * `<session id>-<line>`, valid per src/ids.ts; when that would pass 128
 * characters, the session id is cut and a hash of it keeps ids of different
 * sessions apart. `m-<line>` when the session has no id.
 */
export function defaultId(sessionId: string | null, line: number): string {
  const suffix = `-${line}`;
  if (sessionId === null) return `m${suffix}`;
  const plain = `${sessionId}${suffix}`;
  if (plain.length <= 128 && isValidId(plain)) return plain;
  const hash = createHash('sha256').update(sessionId).digest('hex').slice(0, 12);
  const cut = sessionId.slice(0, 128 - suffix.length - hash.length - 1).replace(/[._-]+$/, '');
  const short = `${cut}-${hash}${suffix}`;
  return isValidId(short) ? short : `m-${hash}${suffix}`;
}

/** The text of `content`: a string, or the text parts of an array joined by newlines (other parts as `[type]`). */
function readContent(content: unknown, metadata: ImportedMetadata): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  const other: string[] = [];
  for (const item of content) {
    if (typeof item === 'string') parts.push(item);
    const part = asObject(item);
    if (!part) continue;
    if (part.type === 'text' && typeof part.text === 'string') parts.push(part.text);
    else {
      const type = typeof part.type === 'string' ? part.type : 'part';
      parts.push(`[${type}]`);
      other.push(type);
    }
  }
  if (other.length > 0) metadata.contentParts = other;
  return parts.join('\n');
}

function readToolCalls(value: unknown, problem: (message: string) => void): ToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problem('"tool_calls" must be an array: ignored.');
    return [];
  }
  const calls: ToolCall[] = [];
  for (const item of value) {
    const call = asObject(item);
    const fn = asObject(call?.function);
    if (!call || typeof call.id !== 'string' || !fn || typeof fn.name !== 'string') {
      problem('A tool call without "id" and "function.name": ignored.');
      continue;
    }
    const args = fn.arguments;
    const parsed = typeof args === 'string' ? tryJson(args) : args;
    calls.push({ id: call.id, name: fn.name, input: parsed === undefined ? args : parsed });
  }
  return calls;
}

/** `created_at` as ISO 8601: a date string, or a number of seconds (or, when large, milliseconds) since 1970. */
function readTime(value: unknown, problem: (message: string) => void): string | null {
  if (value === undefined || value === null) return null;
  let time = Number.NaN;
  if (typeof value === 'string') time = Date.parse(value);
  else if (typeof value === 'number') time = value < 1e11 ? value * 1000 : value;
  const date = new Date(time);
  if (Number.isNaN(date.getTime())) {
    problem(`"created_at" ${JSON.stringify(value)} is not a time: ignored.`);
    return null;
  }
  return date.toISOString();
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The file's base name without `.jsonl` (or `.json`, `.ndjson`). */
function fileStem(path: string): string {
  const normal = path.replaceAll('\\', '/');
  const base = normal.slice(normal.lastIndexOf('/') + 1);
  return base.replace(/\.(jsonl|ndjson|json)$/, '');
}
