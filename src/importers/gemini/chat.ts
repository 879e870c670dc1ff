/**
 * A pure, incremental parser of Gemini CLI chat files into our message model
 * (src/importers/model.ts), like claude-code/transcript.ts: no database, no git, no file access.
 *
 * The format (Gemini CLI 0.61): `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`, one
 * JSON record a line, of three shapes:
 * - a header `{sessionId, projectHash, startTime, lastUpdated, kind}` (`kind` `main` or
 *   `subagent`; a sub-agent's file sits at `chats/<parent session id>/<its session id>.jsonl`);
 * - a message `{id, timestamp, type, content, thoughts, tokens, model, toolCalls}`, `type` one of
 *   `user`, `gemini`, `info`, `warning`, `error`; a message is written again under the same id as
 *   it grows (a `gemini` message first without, then with its `toolCalls`, each with its result);
 * - an update `{"$set": {…}}`: `lastUpdated`, `summary`, or `messages`, the whole history as it
 *   stands (written at the start and again by `--resume`, which also appends a new header).
 * How they become messages:
 * - `user` text → a USER message that opens a turn (the `<session_context>` Gemini CLI sends first
 *   is skipped as `context`); a `user` message of functionResponse parts answers tool calls: a
 *   TOOL message for a call not answered yet, else skipped as `tool-response`;
 * - `gemini` → an ASSISTANT message: its text, `metadata.thinking` (its thoughts),
 *   `metadata.toolCalls`; each tool call's result → a TOOL message (id `<message id>-tool-<n>`)
 *   whose caller is that ASSISTANT message; written again, the message is updated and the new
 *   results are added;
 * - `info`, `warning`, `error` → SYSTEM messages (`metadata.kind` says which);
 * - `$set.messages` → the current path: messages already read keep what they are (the history
 *   is written again in another shape, with new timestamps), new ones are read as above, and the
 *   next message follows the history's last one: a history cut short (a rewind) makes the next
 *   prompt a fork.
 */
import { isValidId } from '../../ids.js';
import { asObject, asString, titleFrom } from '../claude-code/blocks.js';
import type { JsonlLine } from '../jsonl.js';
import { splitLines } from '../jsonl.js';
import { MessageLog } from '../message-log.js';
import type { ImportBatch, ImportedMessage, ImportedMetadata, ImportedSession, ImportProblem, ImportResult } from '../model.js';

/** The agentId of every session read from Gemini CLI. */
export const GEMINI_AGENT_ID = 'gemini';

export interface GeminiChatOptions {
  /** The chat file's path, if it came from one: a sub-agent's names its parent in its folder, and its base name is the fallback session id. */
  path?: string;
}

/** One tool call of a `gemini` message, as kept in `metadata.toolCalls`. */
interface GeminiToolCall {
  id: string;
  name: string;
  input: unknown;
  status?: string;
}

const CONTEXT_TAG = /^<session_context>/;
const SYSTEM_TYPES = new Set(['info', 'warning', 'error']);

export class GeminiChat {
  private readonly path: string | undefined;
  private readonly log = new MessageLog();
  private readonly skippedCounts: Record<string, number> = {};
  /** Each Gemini message id read: the last message it became, or null when it became none. */
  private readonly read = new Map<string, string | null>();
  /** Each `gemini` message id read: the ASSISTANT message it became. */
  private readonly replies = new Map<string, string>();
  private readonly usedIds = new Set<string>();
  private readonly callers = new Map<string, { messageId: string; name: string }>();
  private readonly answered = new Set<string>();
  private recordCount = 0;

  private sessionId: string | undefined;
  private kind: string | undefined;
  private readonly sessionFields: ImportedMetadata = {};
  private summary: string | undefined;
  private promptTitle: string | undefined;
  private model: string | undefined;
  private tip: string | null = null;

  constructor(options: GeminiChatOptions = {}) {
    this.path = options.path?.replaceAll('\\', '/');
  }

  /** Reads complete lines; returns the messages they made, updates to messages of earlier calls, and problems. */
  feed(lines: Iterable<JsonlLine>): ImportBatch {
    this.log.begin();
    const problems: ImportProblem[] = [];
    for (const { line, text } of lines) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        problems.push({ line, message: `not valid JSON (${(error as Error).message}); line skipped` });
        continue;
      }
      const record = asObject(parsed);
      if (record) this.readRecord(record, line, problems);
      else problems.push({ line, message: 'not a JSON object; line skipped' });
    }
    return this.log.batch(problems);
  }

  /** Nothing waits in a chat file (records come in order): an empty batch, for symmetry with the other parsers. */
  flush(): ImportBatch {
    this.log.begin();
    return this.log.batch([]);
  }

  /** Reads a whole JSON chat file of older Gemini CLIs (`session-*.json`: the header with its `messages`) as line 1. */
  feedDocument(document: Record<string, unknown>): ImportBatch {
    this.log.begin();
    const problems: ImportProblem[] = [];
    const { messages, ...header } = document;
    this.readRecord(header, 1, problems);
    if (Array.isArray(messages)) this.readRecord({ $set: { messages } }, 1, problems);
    return this.log.batch(problems);
  }

  /** The session header as known so far. */
  session(): ImportedSession {
    const parts = this.path?.split('/') ?? [];
    const stem = parts.at(-1)?.replace(/\.jsonl?$/, '');
    const fallback = stem !== undefined && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(stem) ? stem : undefined;
    const own = this.sessionId !== undefined && isValidId(this.sessionId) ? this.sessionId : fallback;
    const session: ImportedSession = {
      id: own ?? null,
      title: this.summary ?? this.promptTitle ?? null,
      agentId: GEMINI_AGENT_ID,
      model: this.model ?? null,
      metadata: { ...this.sessionFields },
    };
    // A sub-agent's chat sits in a folder named after its parent's session id.
    const parent = parts.at(-2);
    if (this.kind === 'subagent' && parent !== undefined && parent !== own && isValidId(parent)) session.parentSessionId = parent;
    return session;
  }

  /** Records that became no message, by kind (`$set` for updates, message types for the rest). */
  get skipped(): Record<string, number> {
    return { ...this.skippedCounts };
  }

  /** Lines that were records (JSON objects), used or not: none in a file that is no chat at all. */
  get records(): number {
    return this.recordCount;
  }

  /** Branch hint: the last message of the current path. */
  newestLeafId(): string | null {
    return this.tip;
  }

  // --- reading records ---

  private readRecord(record: Record<string, unknown>, line: number, problems: ImportProblem[]): void {
    this.recordCount += 1;
    const set = asObject(record.$set);
    if (set) {
      this.readSet(set, line, problems);
      return;
    }
    if (record.id === undefined && asString(record.sessionId) !== undefined) {
      this.readHeader(record);
      return;
    }
    const id = asString(record.id);
    if (id === undefined || id === '') {
      problems.push({ line, message: `${asString(record.type) ?? 'record'} without id; line skipped` });
      return;
    }
    this.readMessage(record, id, line, false, problems);
  }

  private readHeader(record: Record<string, unknown>): void {
    // --resume appends a header again: the first one names the session.
    if (this.sessionId !== undefined) return;
    this.sessionId = asString(record.sessionId);
    this.kind = asString(record.kind);
    for (const field of ['projectHash', 'kind'] as const) {
      const value = asString(record[field]);
      if (value) this.sessionFields[field] = value;
    }
    if (Array.isArray(record.directories)) {
      const directories = record.directories.filter((d): d is string => typeof d === 'string');
      if (directories[0] !== undefined) this.sessionFields.cwd = directories[0];
    }
  }

  private readSet(set: Record<string, unknown>, line: number, problems: ImportProblem[]): void {
    const summary = asString(set.summary);
    if (summary !== undefined && this.kind !== 'subagent') this.summary = titleFrom(summary) ?? this.summary;
    if (!Array.isArray(set.messages)) {
      this.skip('$set');
      return;
    }
    // The history as Gemini CLI holds it now: the path it names becomes the current one.
    this.tip = null;
    for (const entry of set.messages) {
      const message = asObject(entry);
      const id = asString(message?.id);
      if (!message || id === undefined || id === '') continue;
      const known = this.read.get(id);
      if (known !== undefined) {
        if (known !== null) this.tip = known;
        continue;
      }
      this.readMessage(message, id, line, true, problems);
    }
  }

  private readMessage(record: Record<string, unknown>, id: string, line: number, inHistory: boolean, problems: ImportProblem[]): void {
    const type = asString(record.type) ?? '(no type)';
    const at = asString(record.timestamp) ?? null;
    const known = this.read.get(id);
    if (known !== undefined) {
      // The same message written again as it grew: only a reply changes (its tool calls, their results).
      const reply = this.replies.get(id);
      if (type === 'gemini' && reply !== undefined) {
        const last = this.readReply(record, id, line, at, reply);
        if (last !== reply) this.read.set(id, last);
      } else {
        this.skip(`${type}-again`);
      }
      return;
    }
    if (type === 'user') {
      this.read.set(id, this.readUser(record, id, line, at, problems));
      return;
    }
    if (type === 'gemini') {
      this.read.set(id, this.readReply(record, id, line, at, undefined));
      return;
    }
    if (SYSTEM_TYPES.has(type)) {
      const text = partsText(record.content).text;
      const message = this.append({ role: 'SYSTEM', content: text, metadata: { kind: type } }, id, line, at);
      this.read.set(id, message.messageId);
      return;
    }
    this.read.set(id, null);
    this.skip(inHistory ? `history-${type}` : type);
  }

  /** @returns the last message the user record became, or null. */
  private readUser(record: Record<string, unknown>, id: string, line: number, at: string | null, problems: ImportProblem[]): string | null {
    const { text, responses } = partsText(record.content);
    let last: string | null = null;
    let index = 0;
    const nextId = (): string => (index++ === 0 ? id : `${id}-${index}`);
    for (const response of responses) {
      if (this.answered.has(response.callId)) {
        this.skip('tool-response');
        continue;
      }
      last = this.addResult(response, nextId(), line, at, problems);
    }
    if (text.trim() === '') return last;
    if (CONTEXT_TAG.test(text.trimStart())) {
      this.skip('context');
      return last;
    }
    const message = this.append({ role: 'USER', content: text, metadata: {}, opensTurn: true }, nextId(), line, at);
    if (this.promptTitle === undefined) this.promptTitle = titleFrom(text) ?? undefined;
    return message.messageId;
  }

  /** A reply read (`existing` undefined) or read again: its content, thinking and tool calls; new results after it. */
  private readReply(record: Record<string, unknown>, id: string, line: number, at: string | null, existing: string | undefined): string {
    const { text, calls: partCalls, thoughts: partThoughts } = partsText(record.content);
    const calls = Array.isArray(record.toolCalls) ? record.toolCalls.map(asObject).filter((c): c is Record<string, unknown> => c !== null) : [];
    const toolCalls: GeminiToolCall[] = calls.map((call) => {
      const toolCall: GeminiToolCall = { id: asString(call.id) ?? '', name: asString(call.name) ?? '', input: call.args ?? null };
      const status = asString(call.status);
      if (status) toolCall.status = status;
      return toolCall;
    });
    for (const call of partCalls) if (!toolCalls.some((known) => known.id === call.id)) toolCalls.push(call);
    const metadata: ImportedMetadata = { toolCalls, thinking: [...thoughtsOf(record.thoughts), ...partThoughts] };
    if (record.tokens !== undefined) metadata.usage = record.tokens;
    const model = asString(record.model);
    if (model) {
      metadata.model = model;
      this.model = model;
    }

    let messageId: string;
    if (existing === undefined) {
      messageId = this.append({ role: 'ASSISTANT', content: text, metadata }, id, line, at).messageId;
      this.replies.set(id, messageId);
    } else {
      messageId = existing;
      const before = this.log.get(existing)!;
      if (before.content !== text || JSON.stringify(before.metadata) !== JSON.stringify(metadata)) {
        this.log.change(existing, line, (m) => {
          m.content = text;
          m.metadata = metadata;
        });
      }
    }
    for (const call of toolCalls) if (call.id !== '') this.callers.set(call.id, { messageId, name: call.name });
    let last = messageId;
    for (const [i, call] of calls.entries()) {
      const callId = asString(call.id);
      if (callId === undefined || this.answered.has(callId) || !Array.isArray(call.result)) continue;
      const response = partsText(call.result).responses.find((r) => r.callId === callId) ?? partsText(call.result).responses[0];
      const output = response ?? { callId, name: asString(call.name) ?? '', text: '' };
      const status = asString(call.status);
      last = this.addResult({ ...output, callId, isError: status === 'error' || output.isError }, `${messageId}-tool-${i + 1}`, line, asString(call.timestamp) ?? at, []);
    }
    return last;
  }

  private addResult(response: FunctionResponse, messageId: string, line: number, at: string | null, problems: ImportProblem[]): string {
    this.answered.add(response.callId);
    const caller = this.callers.get(response.callId);
    const metadata: ImportedMetadata = {};
    if (response.isError !== undefined) metadata.isError = response.isError;
    const message = this.append({ role: 'TOOL', content: response.text, metadata }, messageId, line, at);
    message.toolCallId = response.callId;
    if (caller) {
      message.callerId = caller.messageId;
      if (caller.name !== '') message.toolName = caller.name;
    } else {
      problems.push({ line, message: `message ${message.messageId}: no tool call ${response.callId} found; TOOL message without caller` });
      if (response.name !== '') message.toolName = response.name;
    }
    return message.messageId;
  }

  // --- emitting ---

  /** Emits a message after the tip of the current path; its id the record's when usable, else one made of its line. */
  private append(
    fields: { role: ImportedMessage['role']; content: string; metadata: ImportedMetadata; opensTurn?: boolean },
    id: string,
    line: number,
    at: string | null,
  ): ImportedMessage {
    let messageId = isValidId(id) && !this.usedIds.has(id) ? id : `line-${line}`;
    for (let k = 2; this.usedIds.has(messageId); k += 1) messageId = `line-${line}-${k}`;
    this.usedIds.add(messageId);
    const message: ImportedMessage = {
      messageId,
      role: fields.role,
      content: fields.content,
      predecessorId: this.tip,
      createdAt: at,
      opensTurn: fields.opensTurn ?? false,
      line,
    };
    if (Object.keys(fields.metadata).length > 0) message.metadata = fields.metadata;
    this.log.add(message);
    this.tip = messageId;
    return message;
  }

  private skip(type: string): void {
    this.skippedCounts[type] = (this.skippedCounts[type] ?? 0) + 1;
  }
}

interface FunctionResponse {
  callId: string;
  name: string;
  text: string;
  isError?: boolean;
}

/**
 * The parts of a message's content (a string, or Gemini API parts): text (thought parts apart),
 * functionCall parts (the history's form of tool calls), functionResponse parts.
 */
function partsText(content: unknown): { text: string; thoughts: string[]; calls: GeminiToolCall[]; responses: FunctionResponse[] } {
  const result = { text: '', thoughts: [] as string[], calls: [] as GeminiToolCall[], responses: [] as FunctionResponse[] };
  if (typeof content === 'string') return { ...result, text: content };
  const list = Array.isArray(content) ? content : asObject(content) ? [content] : [];
  const texts: string[] = [];
  for (const entry of list) {
    const part = asObject(entry);
    if (!part) continue;
    const text = asString(part.text);
    if (text !== undefined) {
      if (part.thought === true) result.thoughts.push(text);
      else texts.push(text);
    }
    const call = asObject(part.functionCall);
    const callId = asString(call?.id);
    if (call && callId) result.calls.push({ id: callId, name: asString(call.name) ?? '', input: call.args ?? null });
    const response = asObject(part.functionResponse);
    const responseId = asString(response?.id);
    if (response && responseId) {
      const body = asObject(response.response);
      const output = asString(body?.output) ?? asString(body?.error);
      const item: FunctionResponse = { callId: responseId, name: asString(response.name) ?? '', text: output ?? JSON.stringify(body ?? null) };
      if (body && asString(body.error) !== undefined) item.isError = true;
      result.responses.push(item);
    }
  }
  result.text = texts.join('\n');
  return result;
}

/** Gemini's thoughts (`{subject, description}`) as text. */
function thoughtsOf(thoughts: unknown): string[] {
  if (!Array.isArray(thoughts)) return [];
  const texts: string[] = [];
  for (const entry of thoughts) {
    const thought = asObject(entry);
    const subject = asString(thought?.subject)?.trim();
    const description = asString(thought?.description)?.trim();
    const text = subject && description ? `${subject}: ${description}` : (subject ?? description);
    if (text) texts.push(text);
  }
  return texts;
}

/**
 * Reads a whole chat file: JSONL (Gemini CLI 0.61), or one JSON document (older `session-*.json`,
 * when `path` ends in `.json`). A partial last line (no newline yet) is left unread.
 */
export function parseGeminiChat(text: string | Buffer, options: GeminiChatOptions = {}): ImportResult & { records: number } {
  const chat = new GeminiChat(options);
  let batch: ImportBatch;
  let consumedBytes: number;
  let nextLine: number;
  if (options.path?.endsWith('.json')) {
    const bytes = typeof text === 'string' ? Buffer.from(text) : text;
    consumedBytes = bytes.length;
    nextLine = 2;
    let document: Record<string, unknown> | null = null;
    try {
      document = asObject(JSON.parse(bytes.toString('utf8')));
    } catch (error) {
      batch = { messages: [], updates: [], problems: [{ line: 1, message: `not valid JSON (${(error as Error).message})` }] };
    }
    batch ??= document ? chat.feedDocument(document) : { messages: [], updates: [], problems: [{ line: 1, message: 'not a JSON object' }] };
  } else {
    const split = splitLines(text, 1);
    batch = chat.feed(split.lines);
    consumedBytes = split.consumedBytes;
    nextLine = split.nextLine;
  }
  return {
    session: chat.session(),
    messages: batch.messages,
    updates: batch.updates,
    problems: batch.problems,
    skipped: chat.skipped,
    newestLeafId: chat.newestLeafId(),
    records: chat.records,
    consumedBytes,
    nextLine,
  };
}
