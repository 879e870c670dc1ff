/**
 * A pure, incremental parser of Codex CLI rollouts into our message model (src/importers/model.ts),
 * like claude-code/transcript.ts: no database, no git, no file access; the caller feeds complete
 * lines (src/importers/jsonl.ts).
 *
 * The format: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, one
 * `{timestamp, type, payload}` record a line, appended to as the session goes on (a resumed
 * session too). How records become messages:
 * - `session_meta` → the session: its id (the thread id, which the hooks use too), cwd, git
 *   branch, CLI version; a sub-agent's names its parent thread;
 * - `response_item` `message` of role `user` → a USER message that opens a turn when the person
 *   wrote it; what the harness puts there (`<environment_context>`, AGENTS.md, permissions) is
 *   skipped as `context`, a notice (`<subagent_notification>`, `<turn_aborted>`) inside a turn is a
 *   SYSTEM message; `developer` messages are skipped;
 * - `reasoning`, `message` of role `assistant`, and the calls (`function_call`,
 *   `custom_tool_call`, `local_shell_call`, `web_search_call`, `tool_search_call`) of one response
 *   → ONE ASSISTANT message: its text, `metadata.thinking` (the reasoning summaries) and
 *   `metadata.toolCalls`; a response ends at a tool output, a prompt or the end of the turn;
 * - `*_output` items → a TOOL message each, its caller the ASSISTANT message holding that call_id;
 * - `event_msg` `thread_rolled_back` → the next prompt grows from before the turns it dropped (a
 *   fork); `task_complete` and `turn_aborted` end the turn; the other events repeat what the
 *   response items say and are skipped, like `turn_context` (read for the model), `world_state`,
 *   `token_usage_record` (read for the usage) and `compacted`.
 * Records come in conversation order, so every message is emitted at once (its predecessor the
 * message before it on the current path); a later item of the same response changes it (an
 * update when it was emitted by an earlier feed).
 */
import { isValidId } from '../../ids.js';
import { asObject, asString, titleFrom } from '../claude-code/blocks.js';
import type { JsonlLine } from '../jsonl.js';
import { splitLines } from '../jsonl.js';
import { MessageLog } from '../message-log.js';
import type { ImportBatch, ImportedMessage, ImportedMetadata, ImportedSession, ImportProblem, ImportResult } from '../model.js';

/** The agentId of every session read from Codex CLI. */
export const CODEX_AGENT_ID = 'codex';

export interface RolloutOptions {
  /** The rollout's path, if it came from a file: the thread id at the end of its name is the fallback session id. */
  path?: string;
}

/** One tool call of a response, as kept in `metadata.toolCalls`. */
interface CodexToolCall {
  id: string;
  name: string;
  input: unknown;
  type: string;
  namespace?: string;
}

/** The ASSISTANT message being built from one response's items. */
interface Response {
  messageId: string;
  texts: string[];
  thinking: string[];
  toolCalls: CodexToolCall[];
}

/** A turn on the current path: its prompt and the message before it (where a rollback returns to). */
interface PathTurn {
  userMessageId: string;
  before: string | null;
}

/** Items of a response that call a tool, and where their call id is. */
const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'tool_search_call']);
const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output', 'tool_search_output']);

/** What the harness writes as a user message before the person's prompt (context, not a prompt). */
const CONTEXT_TAGS = /^(<environment_context>|<user_instructions>|<permissions instructions>|<INSTRUCTIONS>|<collaboration_mode>|<skills_instructions>|# AGENTS\.md instructions)/;
/** Notices the harness writes as a user message inside a turn. */
const NOTICE_TAG = /^<(subagent_notification|turn_aborted|user_shell_command)>/;

export class CodexRollout {
  private readonly path: string | undefined;
  private readonly log = new MessageLog();
  private readonly skippedCounts: Record<string, number> = {};
  private readonly usedIds = new Set<string>();
  private readonly calls = new Map<string, { messageId: string; name: string }>();
  private recordCount = 0;

  private sessionId: string | undefined;
  private parentSessionId: string | undefined;
  private readonly sessionFields: ImportedMetadata = {};
  private model: string | undefined;
  private threadName: string | undefined;
  private promptTitle: string | undefined;

  /** The last message on the current path: the next message's predecessor. */
  private tip: string | null = null;
  private readonly turns: PathTurn[] = [];
  /** Whether a prompt was read since the last end of turn (a notice outside a turn is skipped). */
  private inTurn = false;
  /** Whether the last turn ended (task_complete, turn_aborted) with nothing after it. */
  private turnEnded = false;
  private turnEvents = false;
  private response: Response | undefined;
  /** The latest ASSISTANT message, for the usage records that follow it. */
  private lastAssistant: string | undefined;

  constructor(options: RolloutOptions = {}) {
    this.path = options.path?.replaceAll('\\', '/');
  }

  /** Reads complete lines; returns the messages they made, updates to messages of earlier calls, and problems. */
  feed(lines: Iterable<JsonlLine>): ImportBatch {
    this.log.begin();
    const problems: ImportProblem[] = [];
    for (const { line, text } of lines) this.readLine(line, text, problems);
    return this.log.batch(problems);
  }

  /** Nothing waits in a rollout (records come in order): an empty batch, for symmetry with the other parsers. */
  flush(): ImportBatch {
    this.log.begin();
    return this.log.batch([]);
  }

  /** The session header as known so far. */
  session(): ImportedSession {
    const fallback = this.path ? threadIdOfPath(this.path) : undefined;
    const id = this.sessionId !== undefined && isValidId(this.sessionId) ? this.sessionId : (fallback ?? null);
    const session: ImportedSession = {
      id,
      title: this.threadName ?? this.promptTitle ?? null,
      agentId: CODEX_AGENT_ID,
      model: this.model ?? null,
      metadata: { ...this.sessionFields },
    };
    if (this.parentSessionId !== undefined && isValidId(this.parentSessionId) && this.parentSessionId !== id) {
      session.parentSessionId = this.parentSessionId;
    }
    return session;
  }

  /** Records that became no message, by type (`event_msg` records by their payload's type). */
  get skipped(): Record<string, number> {
    return { ...this.skippedCounts };
  }

  /** Branch hint: the last message of the current path (after a rollback with no prompt since, the end of the turn kept). */
  newestLeafId(): string | null {
    return this.tip;
  }

  /** Lines that were records (JSON objects), used or not: none in a file that is no rollout at all. */
  get records(): number {
    return this.recordCount;
  }

  /** Whether the last turn is over: Codex said the task completed or was aborted, and nothing came after. */
  lastTurnEnded(): boolean {
    return this.turnEnded;
  }

  /** Whether this rollout says where its turns end at all (older ones have no task events). */
  marksTurnEnds(): boolean {
    return this.turnEvents;
  }

  // --- reading records ---

  private readLine(line: number, text: string, problems: ImportProblem[]): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      problems.push({ line, message: `not valid JSON (${(error as Error).message}); line skipped` });
      return;
    }
    const record = asObject(parsed);
    if (!record) {
      problems.push({ line, message: 'not a JSON object; line skipped' });
      return;
    }
    this.recordCount += 1;
    const type = asString(record.type) ?? '(no type)';
    const payload = asObject(record.payload) ?? {};
    const at = asString(record.timestamp) ?? null;
    switch (type) {
      case 'session_meta':
        this.readSessionMeta(payload);
        return;
      case 'turn_context': {
        const model = asString(payload.model);
        if (model) this.model = model;
        this.skip(type);
        return;
      }
      case 'response_item':
        this.readItem(payload, line, at, problems);
        return;
      case 'event_msg':
        this.readEvent(payload, line, at);
        return;
      case 'token_usage_record':
        this.noteUsage(payload.usage, asString(payload.response_id), line, true);
        this.skip(type);
        return;
      default:
        this.skip(type);
    }
  }

  private readSessionMeta(payload: Record<string, unknown>): void {
    // A resumed or forked rollout may carry more than one: the first names the session.
    if (this.sessionId !== undefined) return;
    const id = asString(payload.id) ?? asString(payload.session_id);
    if (id) this.sessionId = id;
    const spawn = asObject(asObject(asObject(payload.source)?.subagent)?.thread_spawn);
    const parent = asString(payload.parent_thread_id) ?? asString(spawn?.parent_thread_id);
    if (parent) this.parentSessionId = parent;
    const fields: [string, unknown][] = [
      ['cwd', payload.cwd],
      ['gitBranch', asObject(payload.git)?.branch],
      ['version', payload.cli_version],
      ['originator', payload.originator],
      ['agentNickname', payload.agent_nickname],
    ];
    for (const [name, value] of fields) {
      const text = asString(value);
      if (text) this.sessionFields[name] = text;
    }
  }

  private readItem(item: Record<string, unknown>, line: number, at: string | null, problems: ImportProblem[]): void {
    const type = asString(item.type) ?? '(no type)';
    if (type === 'message') {
      const role = asString(item.role);
      if (role === 'user') this.readUserMessage(item, line, at);
      else if (role === 'assistant') this.readAssistantText(item, line, at);
      else this.skip(role === 'developer' || role === 'system' ? 'developer' : 'message');
      return;
    }
    if (type === 'reasoning') {
      const thinking = reasoningText(item);
      // Reasoning opens a new response; with none to show, it is no message of its own.
      if (thinking.length === 0) {
        this.skip('reasoning');
        return;
      }
      const response = this.responseFor(item, line, at, (r) => r.texts.length > 0 || r.toolCalls.length > 0);
      this.log.change(response.messageId, line, (m) => {
        response.thinking.push(...thinking);
        m.metadata = responseMetadata(response, m.metadata);
      });
      return;
    }
    if (CALL_TYPES.has(type)) {
      const call = readCall(item, type);
      if (!call) {
        problems.push({ line, message: `${type} without call_id; line skipped` });
        return;
      }
      const response = this.responseFor(item, line, at, () => false);
      this.log.change(response.messageId, line, (m) => {
        response.toolCalls.push(call);
        m.metadata = responseMetadata(response, m.metadata);
      });
      this.calls.set(call.id, { messageId: response.messageId, name: call.name });
      return;
    }
    if (OUTPUT_TYPES.has(type)) {
      this.readOutput(item, line, at, problems);
      return;
    }
    this.skip(type);
  }

  private readUserMessage(item: Record<string, unknown>, line: number, at: string | null): void {
    const text = contentText(item.content);
    const kind = userKind(item, text);
    if (kind === 'context' || text.trim() === '') {
      this.skip('context');
      return;
    }
    if (kind !== 'prompt' && !this.inTurn) {
      // A notice after the turn ended (or before any) belongs to no turn: it would open one of its own.
      this.skip('context');
      return;
    }
    this.response = undefined;
    this.turnEnded = false;
    if (kind !== 'prompt') {
      this.append({ role: 'SYSTEM', content: text, metadata: { kind } }, item, line, at);
      return;
    }
    const before = this.tip;
    const metadata: ImportedMetadata = {};
    const turnId = asString(asObject(item.internal_chat_message_metadata_passthrough)?.turn_id);
    if (turnId) metadata.turnId = turnId;
    const message = this.append({ role: 'USER', content: text, metadata, opensTurn: true }, item, line, at);
    this.turns.push({ userMessageId: message.messageId, before });
    this.inTurn = true;
    if (this.promptTitle === undefined) this.promptTitle = titleFrom(text) ?? undefined;
  }

  private readAssistantText(item: Record<string, unknown>, line: number, at: string | null): void {
    const text = contentText(item.content);
    const response = this.responseFor(item, line, at, (r) => r.texts.length > 0 || r.toolCalls.length > 0);
    if (text === '') return;
    this.log.change(response.messageId, line, (m) => {
      response.texts.push(text);
      m.content = response.texts.join('\n\n');
      m.metadata = responseMetadata(response, m.metadata);
    });
  }

  private readOutput(item: Record<string, unknown>, line: number, at: string | null, problems: ImportProblem[]): void {
    this.response = undefined;
    this.turnEnded = false;
    const callId = asString(item.call_id);
    const caller = callId !== undefined ? this.calls.get(callId) : undefined;
    const { text, isError } = outputText(item.output ?? item.tools);
    const metadata: ImportedMetadata = {};
    if (isError !== undefined) metadata.isError = isError;
    const message = this.append({ role: 'TOOL', content: text, metadata }, item, line, at);
    if (callId !== undefined) message.toolCallId = callId;
    if (caller) {
      message.callerId = caller.messageId;
      if (caller.name !== '') message.toolName = caller.name;
    } else {
      problems.push({ line, message: `message ${message.messageId}: no call ${callId ?? '(no call_id)'} found; TOOL message without caller` });
    }
  }

  private readEvent(payload: Record<string, unknown>, line: number, at: string | null): void {
    const type = asString(payload.type) ?? '(no type)';
    if (type === 'task_started' || type === 'task_complete' || type === 'turn_aborted') this.turnEvents = true;
    switch (type) {
      case 'task_complete':
        this.endTurn();
        break;
      case 'turn_aborted': {
        if (this.inTurn) {
          const reason = asString(payload.reason) ?? 'aborted';
          this.append({ role: 'SYSTEM', content: `Turn aborted: ${reason}`, metadata: { kind: 'turn-aborted', reason } }, payload, line, at);
          this.endTurn();
          return;
        }
        this.endTurn();
        break;
      }
      case 'thread_rolled_back': {
        const count = typeof payload.num_turns === 'number' && Number.isSafeInteger(payload.num_turns) ? payload.num_turns : 0;
        const dropped = count > 0 ? this.turns.splice(Math.max(0, this.turns.length - count)) : [];
        if (dropped[0]) this.tip = dropped[0].before;
        this.endTurn();
        break;
      }
      case 'thread_name_updated': {
        const name = titleFrom(asString(payload.thread_name) ?? '');
        if (name !== null) this.threadName = name;
        break;
      }
      case 'token_count':
        this.noteUsage(asObject(payload.info)?.last_token_usage, undefined, line, false);
        break;
      default:
        break;
    }
    this.skip(type);
  }

  private endTurn(): void {
    this.response = undefined;
    this.inTurn = false;
    this.turnEnded = true;
  }

  /** The usage of the latest response goes on its ASSISTANT message (a record per response; token_count only when none came). */
  private noteUsage(usage: unknown, responseId: string | undefined, line: number, authoritative: boolean): void {
    if (this.lastAssistant === undefined || asObject(usage) === null) return;
    const message = this.log.get(this.lastAssistant);
    if (!message || (!authoritative && message.metadata?.usage !== undefined)) return;
    this.log.change(this.lastAssistant, line, (m) => {
      m.metadata = { ...m.metadata, usage };
      if (responseId) m.metadata.responseId = responseId;
    });
  }

  // --- emitting ---

  /** The open response, or a new ASSISTANT message when there is none or `full` says this one is done. */
  private responseFor(item: Record<string, unknown>, line: number, at: string | null, full: (response: Response) => boolean): Response {
    if (this.response && !full(this.response)) return this.response;
    this.turnEnded = false;
    const message = this.append({ role: 'ASSISTANT', content: '', metadata: {} }, item, line, at);
    const response: Response = { messageId: message.messageId, texts: [], thinking: [], toolCalls: [] };
    message.metadata = responseMetadata(response, undefined);
    this.response = response;
    this.lastAssistant = message.messageId;
    return response;
  }

  /** Emits a message after the tip of the current path; its id the item's own when usable, else one made of its line. */
  private append(
    fields: { role: ImportedMessage['role']; content: string; metadata: ImportedMetadata; opensTurn?: boolean },
    item: Record<string, unknown>,
    line: number,
    at: string | null,
  ): ImportedMessage {
    const own = asString(item.id);
    const messageId = own !== undefined && isValidId(own) && !this.usedIds.has(own) ? own : lineId(line, this.usedIds);
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

/** `line-<n>`, or `line-<n>-<k>` when a record already took it. */
function lineId(line: number, used: Set<string>): string {
  let id = `line-${line}`;
  for (let k = 2; used.has(id); k += 1) id = `line-${line}-${k}`;
  return id;
}

/** The thread id a rollout's file name ends with (`rollout-<time>-<uuid>.jsonl`). */
function threadIdOfPath(path: string): string | undefined {
  const match = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(path);
  return match?.[1];
}

/** The text of a message's content items (input_text, output_text; images as "[image]"). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const entry of content) {
    const block = asObject(entry);
    if (!block) continue;
    const text = asString(block.text);
    if (text !== undefined) parts.push(text);
    else if (block.type === 'input_image' || block.type === 'image') parts.push('[image]');
  }
  return parts.join('\n');
}

/**
 * Who wrote a user message: the person (`prompt`), the harness as `context`, or the harness as a
 * notice within a turn (any other answer: the notice's kind, e.g. `subagent-notification`). Codex 0.171 says so in the item's provenance; older rollouts
 * are told apart by the tag their text starts with.
 */
function userKind(item: Record<string, unknown>, text: string): string {
  const passthrough = asObject(item.internal_chat_message_metadata_passthrough);
  const provenance = Array.isArray(passthrough?.content_item_metadata)
    ? asString(asObject(asObject(passthrough.content_item_metadata[0])?.provenance)?.type)
    : undefined;
  const start = text.trimStart();
  const notice = NOTICE_TAG.exec(start)?.[1];
  if (provenance === 'user') return 'prompt';
  if (notice !== undefined) return notice.replaceAll('_', '-');
  if (provenance === 'harness' || CONTEXT_TAGS.test(start)) return 'context';
  if (provenance !== undefined) return `${provenance}-message`;
  return 'prompt';
}

/** The reasoning summaries and, when Codex kept it, the reasoning text (encrypted content is left out). */
function reasoningText(item: Record<string, unknown>): string[] {
  const texts: string[] = [];
  for (const list of [item.summary, item.content]) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      const text = asString(asObject(entry)?.text);
      if (text !== undefined && text.trim() !== '') texts.push(text);
    }
  }
  return texts;
}

function readCall(item: Record<string, unknown>, type: string): CodexToolCall | undefined {
  const id = asString(item.call_id) ?? (type === 'web_search_call' ? asString(item.id) : undefined);
  if (id === undefined || id === '') return undefined;
  let input: unknown = item.input ?? item.action ?? null;
  const args = asString(item.arguments);
  if (args !== undefined) {
    try {
      input = JSON.parse(args);
    } catch {
      input = args;
    }
  }
  const name = asString(item.name) ?? (type === 'local_shell_call' ? 'local_shell' : type === 'web_search_call' ? 'web_search' : '');
  const call: CodexToolCall = { id, name, input, type };
  const namespace = asString(item.namespace);
  if (namespace) call.namespace = namespace;
  return call;
}

/** A tool output's text: a string as it is, `{content, success}` its content, anything else as JSON. */
function outputText(output: unknown): { text: string; isError?: boolean } {
  if (typeof output === 'string') {
    // Older rollouts wrap a shell's output as JSON text: {"output": "...", "metadata": {"exit_code": 0}}.
    if (output.startsWith('{"output"')) {
      try {
        const wrapped = asObject(JSON.parse(output));
        const text = asString(wrapped?.output);
        const exitCode = asObject(wrapped?.metadata)?.exit_code;
        if (text !== undefined) return typeof exitCode === 'number' ? { text, isError: exitCode !== 0 } : { text };
      } catch {
        // Not the wrapper after all: the text as it is.
      }
    }
    return { text: output };
  }
  const object = asObject(output);
  if (object) {
    const content = asString(object.content) ?? (Array.isArray(object.content) ? contentText(object.content) : undefined);
    const result: { text: string; isError?: boolean } = { text: content ?? JSON.stringify(output) };
    if (typeof object.success === 'boolean') result.isError = !object.success;
    return result;
  }
  return { text: output === undefined || output === null ? '' : JSON.stringify(output) };
}

/** A response's metadata (fresh arrays each time), keeping what else was set on the message (usage). */
function responseMetadata(response: Response, previous: ImportedMetadata | undefined): ImportedMetadata {
  return {
    ...previous,
    toolCalls: response.toolCalls.map((call) => ({ ...call })),
    thinking: [...response.thinking],
  };
}

/** Reads a whole rollout; a partial last line (no newline yet) is left unread. */
export function parseRollout(text: string | Buffer, options: RolloutOptions = {}): ImportResult & { lastTurnEnded: boolean; records: number } {
  const split = splitLines(text, 1);
  const rollout = new CodexRollout(options);
  const fed = rollout.feed(split.lines);
  return {
    session: rollout.session(),
    messages: fed.messages,
    updates: fed.updates,
    problems: fed.problems,
    skipped: rollout.skipped,
    newestLeafId: rollout.newestLeafId(),
    consumedBytes: split.consumedBytes,
    nextLine: split.nextLine,
    lastTurnEnded: rollout.lastTurnEnded(),
    records: rollout.records,
  };
}
