/**
 * Issue 13: a pure, incremental parser of Claude Code transcripts into our
 * message model (src/importers/model.ts). No database, no git, no file access:
 * the caller reads the file (all of it, or what was appended since the last
 * read) and feeds the complete lines (src/importers/jsonl.ts).
 *
 * The format: ~/.claude/projects/<project>/<session-id>.jsonl, one JSON record
 * a line; a sub-agent's transcript sits at <session-id>/subagents/agent-*.jsonl.
 * Records have `uuid` and `parentUuid`, forming a tree whose paths also run
 * through records that are no message (progress, system, file-history-snapshot,
 * queue-operation, …). How records become messages:
 * - `user` with text → a USER message that opens a turn, or a SYSTEM message
 *   for what the client said rather than the person (see classifyUserText);
 * - `user` with tool_result blocks → one TOOL message per block (ids: the
 *   record's uuid, then `<uuid>-2`, `<uuid>-3`, …), its caller the ASSISTANT
 *   message holding the tool_use of that id;
 * - `assistant` records sharing `message.id` (one API response, written one
 *   content block per record) → ONE ASSISTANT message, id the first record's
 *   uuid; every record uuid of the response maps to it;
 * - `summary` → the session title; everything else → no message (counted in
 *   `skipped` by type), but still a node of the uuid tree.
 * A message's predecessor is its nearest ancestor that became a message. A
 * message waits (is not emitted) while an ancestor or its caller is not known
 * yet, so that every predecessor and caller is emitted before the messages
 * that name it; flush() emits what still waits once no more input will come.
 */
import { isValidId } from '../../ids.js';
import type { JsonlLine } from '../jsonl.js';
import { splitLines } from '../jsonl.js';
import type {
  ImportBatch,
  ImportedMessage,
  ImportedMetadata,
  ImportedSession,
  ImportedUpdate,
  ImportProblem,
  ImportResult,
} from '../model.js';
import {
  asObject,
  asString,
  classifyUserText,
  readAssistantContent,
  readUserContent,
  titleFrom,
  type ToolCall,
} from './blocks.js';

/** The agentId of every session read from Claude Code. */
export const CLAUDE_CODE_AGENT_ID = 'claude-code';

/** The model name Claude Code writes on replies it made up itself (e.g. after an interruption). */
const SYNTHETIC_MODEL = '<synthetic>';

export interface TranscriptOptions {
  /** The transcript's path, if it came from a file: a path under `/subagents/` marks a sub-agent, and its base name is the fallback session id. */
  path?: string;
}

/** One node of the uuid tree: its parent and the message it became (null: none). */
interface TreeNode {
  parentUuid: string | null;
  messageId: string | null;
}

/** The parts of one API response (assistant records sharing message.id), merged. */
interface Response {
  responseId: string;
  texts: string[];
  thinking: string[];
  toolCalls: ToolCall[];
  usage?: unknown;
  stopReason?: string;
  model?: string;
  requestId?: string;
  apiError?: boolean;
}

/** A message as it is being built, emitted or still waiting. */
interface Draft {
  message: ImportedMessage;
  /** Where the walk up the tree for the predecessor starts. */
  parentUuid: string | null;
  /** The predecessor when it is fixed by the record itself (second and later messages of one record). */
  fixedPredecessor?: string;
  /** For a TOOL message: the tool call whose ASSISTANT message is the caller. */
  toolUseId?: string;
  response?: Response;
  emitted: boolean;
  /** The feed() (or flush()) call that emitted it. */
  emittedIn: number;
  successors: number;
  /** Emit order, to break createdAt ties for the newest leaf. */
  order: number;
  /** Arrival order, for flush(). */
  arrival: number;
}

/** How walking up from a parentUuid ended (`outside`: at a record of the parent session). */
type Walk = { kind: 'found'; messageId: string | null; outside?: string } | { kind: 'unknown'; uuid: string };

/** When a waiting message may be emitted anyway: never, when what it waits for is missing, or always. */
type Mode = 'wait' | 'force' | 'break';

export class ClaudeCodeTranscript {
  private readonly path: string | undefined;
  private readonly nodes = new Map<string, TreeNode>();
  /**
   * In a sub-agent's transcript, the parent session's records its records continue: a parentUuid
   * not seen in the file when its record is read (a file is written in order). A compaction
   * agent's (agent-acompact-*) first records name the parent's last message this way.
   */
  private readonly outside = new Set<string>();
  private readonly drafts = new Map<string, Draft>();
  private readonly responses = new Map<string, Draft>();
  private readonly toolUses = new Map<string, { messageId: string; name: string }>();
  /** The latest TOOL message answering each ASSISTANT message's calls. */
  private readonly lastTool = new Map<string, string>();
  /** Drafts to try at the next emitReady(): new ones, and waiting ones whose blocker went away. */
  private queue: Draft[] = [];
  /**
   * Drafts that wait, by what they wait for (`m:<messageId>` a message not
   * emitted yet, `u:<uuid>` a record not seen yet, `t:<toolUseId>` a tool call
   * not seen yet), so each is tried again only when that arrives: a long
   * transcript whose root is missing does not make every feed re-try them all.
   */
  private readonly waiting = new Map<string, Draft[]>();
  private arrivals = 0;
  private recordCount = 0;
  private readonly skippedCounts: Record<string, number> = {};
  private calls = 0;
  private emittedCount = 0;
  /** Messages emitted by an earlier call that changed in this one, with the line that changed them. */
  private changed = new Map<string, number>();

  private subagent: boolean | undefined;
  private sessionId: string | undefined;
  private agentId: string | undefined;
  /** Summary records in file order; see session() for which one titles the session. */
  private readonly summaries: { title: string; leafUuid: string | undefined }[] = [];
  private promptTitle: string | undefined;
  private model: string | undefined;
  private readonly sessionFields: ImportedMetadata = {};

  constructor(options: TranscriptOptions = {}) {
    this.path = options.path?.replaceAll('\\', '/');
    if (this.path?.includes('/subagents/')) this.subagent = true;
  }

  /** Reads complete lines; returns the messages that became ready, updates to messages emitted by earlier calls, and problems. */
  feed(lines: Iterable<JsonlLine>): ImportBatch {
    this.calls += 1;
    this.changed = new Map();
    const problems: ImportProblem[] = [];
    for (const { line, text } of lines) this.readLine(line, text, problems);
    const emitted = this.emitReady(problems);
    return this.batch(emitted, problems);
  }

  /**
   * Emits the messages still waiting, as if no more input will come: an
   * ancestor never seen leaves the message a root (predecessor null), a tool
   * call never seen leaves it without caller; each is reported as a problem.
   * A follower calls this only when it gives up on the file.
   */
  flush(): ImportBatch {
    this.calls += 1;
    this.changed = new Map();
    const problems: ImportProblem[] = [];
    const emitted = this.emitReady(problems);
    for (;;) {
      const waiting = [...this.waiting.values()]
        .flat()
        .filter((draft) => !draft.emitted)
        .sort((a, b) => a.arrival - b.arrival);
      const forced =
        waiting.find((draft) => this.tryEmit(draft, 'force', problems) === true) ??
        waiting.find((draft) => this.tryEmit(draft, 'break', problems) === true);
      if (!forced) break;
      emitted.push(forced);
      emitted.push(...this.emitReady(problems));
    }
    this.waiting.clear();
    return this.batch(emitted, problems);
  }

  /** The session header as known so far. */
  session(): ImportedSession {
    const stem = this.path ? fileStem(this.path) : undefined;
    const fallback = stem !== undefined && isValidId(stem) ? stem : null;
    const metadata: ImportedMetadata = { ...this.sessionFields };
    const session: ImportedSession = {
      id: null,
      title: this.summaryTitle() ?? this.promptTitle ?? null,
      agentId: CLAUDE_CODE_AGENT_ID,
      model: this.model ?? null,
      metadata,
    };
    if (this.subagent) {
      const own = this.sessionId && this.agentId ? `${this.sessionId}-${this.agentId}` : undefined;
      session.id = own !== undefined && isValidId(own) ? own : fallback;
      if (this.sessionId !== undefined && isValidId(this.sessionId)) session.parentSessionId = this.sessionId;
      if (this.agentId !== undefined) metadata.agentId = this.agentId;
    } else {
      session.id = this.sessionId !== undefined && isValidId(this.sessionId) ? this.sessionId : fallback;
    }
    return session;
  }

  /**
   * The title from summary records: the latest whose leafUuid is a record of
   * this transcript (a resumed session's file may also carry summaries of
   * other conversations), else the latest.
   */
  private summaryTitle(): string | undefined {
    const own = this.summaries.findLast((summary) => summary.leafUuid !== undefined && this.nodes.has(summary.leafUuid));
    return (own ?? this.summaries.at(-1))?.title;
  }

  /** Lines read that were records (JSON objects), used or not. */
  get records(): number {
    return this.recordCount;
  }

  /** Records that became no message, by record type (`sidechain` for sub-agent records inside a main transcript). */
  get skipped(): Record<string, number> {
    return { ...this.skippedCounts };
  }

  /** Branch hint: the emitted message with the latest createdAt that has no successor (ties: the later emitted), or null. */
  newestLeafId(): string | null {
    let best: Draft | undefined;
    let bestTime = -Infinity;
    for (const draft of this.drafts.values()) {
      if (!draft.emitted || draft.successors > 0) continue;
      const time = draft.message.createdAt === null ? -Infinity : Date.parse(draft.message.createdAt);
      const t = Number.isNaN(time) ? -Infinity : time;
      if (!best || t > bestTime || (t === bestTime && draft.order > best.order)) {
        best = draft;
        bestTime = t;
      }
    }
    return best?.message.messageId ?? null;
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
    this.noteSessionFields(record, type);
    const uuid = asString(record.uuid);
    // A compaction boundary starts a new chain (parentUuid null) and names the
    // record it continues in logicalParentUuid: follow that, so the rest of the
    // conversation stays linked to what came before instead of becoming a second root.
    const parentUuid = asString(record.parentUuid) ?? asString(record.logicalParentUuid) ?? null;
    if (this.subagent === true && parentUuid !== null && uuid !== undefined && !this.nodes.has(parentUuid) && !this.outside.has(parentUuid)) {
      this.outside.add(parentUuid);
      problems.push({
        line,
        severity: 'info',
        message: `record ${uuid} continues record ${parentUuid} of the parent session${this.sessionId ? ` ${this.sessionId}` : ''}; what follows it starts this sub-agent's session`,
      });
    }

    if (type === 'summary') {
      const title = titleFrom(asString(record.summary) ?? '');
      if (title !== null) this.summaries.push({ title, leafUuid: asString(record.leafUuid) });
      return;
    }
    if (type !== 'user' && type !== 'assistant') {
      if (uuid !== undefined && !this.nodes.has(uuid)) this.addNode(uuid, { parentUuid, messageId: null });
      this.skip(type);
      return;
    }
    if (uuid === undefined || uuid === '') {
      problems.push({ line, message: `${type} record without uuid; line skipped` });
      return;
    }
    if (this.nodes.has(uuid)) {
      problems.push({ line, message: `${type} record repeats uuid ${uuid}; line skipped` });
      return;
    }
    // A sub-agent's records inside a main transcript (older Claude Code) belong to no session we can name: kept in the tree only.
    if (record.isSidechain === true && this.subagent === false) {
      this.addNode(uuid, { parentUuid, messageId: null });
      this.skip('sidechain');
      return;
    }
    if (!isValidId(uuid)) {
      problems.push({ line, message: `uuid ${JSON.stringify(uuid.slice(0, 40))} is not a valid message id; record kept in the tree only` });
      this.addNode(uuid, { parentUuid, messageId: null });
      this.skip(type);
      return;
    }
    const messageId =
      type === 'user'
        ? this.readUser(record, uuid, parentUuid, line, problems)
        : this.readAssistant(record, uuid, parentUuid, line);
    this.addNode(uuid, { parentUuid, messageId });
    if (messageId === null) this.skip(type);
  }

  private noteSessionFields(record: Record<string, unknown>, type: string): void {
    const sessionId = asString(record.sessionId);
    if (this.sessionId === undefined && sessionId) this.sessionId = sessionId;
    for (const field of ['cwd', 'gitBranch', 'version'] as const) {
      const value = asString(record[field]);
      if (this.sessionFields[field] === undefined && value) this.sessionFields[field] = value;
    }
    const agentId = asString(record.agentId);
    if (this.agentId === undefined && agentId) this.agentId = agentId;
    // Without a path to tell, the first message record says whether this is a sub-agent's transcript.
    if (this.subagent === undefined && (type === 'user' || type === 'assistant')) {
      this.subagent = record.isSidechain === true && agentId !== undefined;
    }
  }

  /** @returns the id of the last message the record became (its tree node's message), or null. */
  private readUser(
    record: Record<string, unknown>,
    uuid: string,
    parentUuid: string | null,
    line: number,
    problems: ImportProblem[],
  ): string | null {
    const content = readUserContent(asObject(record.message)?.content);
    const createdAt = asString(record.timestamp) ?? null;
    let previous: string | undefined;
    let index = 0;
    const nextId = (): string => (index++ === 0 ? uuid : `${uuid}-${index}`);

    for (const result of content.toolResults) {
      const metadata: ImportedMetadata = { isError: result.isError };
      if (result.images.length > 0) metadata.images = result.images;
      const message: ImportedMessage = {
        messageId: nextId(),
        role: 'TOOL',
        content: result.text,
        predecessorId: null,
        metadata,
        createdAt,
        opensTurn: false,
        line,
      };
      if (result.toolUseId !== undefined) message.toolCallId = result.toolUseId;
      else problems.push({ line, message: 'tool_result without tool_use_id: its TOOL message has no caller' });
      this.addDraft(message, parentUuid, previous, result.toolUseId);
      previous = message.messageId;
    }

    if (content.text.trim() !== '') {
      const kind = classifyUserText(content.text, record);
      const metadata: ImportedMetadata = {};
      if (kind !== 'prompt') metadata.kind = kind;
      if (content.images.length > 0) metadata.images = content.images;
      const message: ImportedMessage = {
        messageId: nextId(),
        role: kind === 'prompt' ? 'USER' : 'SYSTEM',
        content: content.text,
        predecessorId: null,
        createdAt,
        opensTurn: kind === 'prompt',
        line,
      };
      if (Object.keys(metadata).length > 0) message.metadata = metadata;
      if (kind === 'prompt' && this.promptTitle === undefined) this.promptTitle = titleFrom(content.text) ?? undefined;
      this.addDraft(message, parentUuid, previous, undefined);
      previous = message.messageId;
    }
    return previous ?? null;
  }

  private readAssistant(record: Record<string, unknown>, uuid: string, parentUuid: string | null, line: number): string {
    const apiMessage = asObject(record.message) ?? {};
    const responseId = asString(apiMessage.id);
    const blocks = readAssistantContent(apiMessage.content);
    const model = asString(apiMessage.model);
    if (model && model !== SYNTHETIC_MODEL) this.model = model;

    const existing = responseId !== undefined ? this.responses.get(responseId) : undefined;
    const draft =
      existing ??
      this.addDraft(
        { messageId: uuid, role: 'ASSISTANT', content: '', predecessorId: null, createdAt: asString(record.timestamp) ?? null, opensTurn: false, line },
        parentUuid,
        undefined,
        undefined,
      );
    const response: Response = draft.response ?? { responseId: responseId ?? uuid, texts: [], thinking: [], toolCalls: [] };
    draft.response = response;
    if (responseId !== undefined && !existing) this.responses.set(responseId, draft);

    response.texts.push(...blocks.texts);
    response.thinking.push(...blocks.thinking);
    for (const call of blocks.toolCalls) {
      const at = response.toolCalls.findIndex((known) => known.id === call.id);
      if (at >= 0) response.toolCalls[at] = call;
      else response.toolCalls.push(call);
      this.toolUses.set(call.id, { messageId: draft.message.messageId, name: call.name });
      this.wake(`t:${call.id}`);
    }
    if (apiMessage.usage !== undefined) response.usage = apiMessage.usage;
    const stopReason = asString(apiMessage.stop_reason);
    if (stopReason) response.stopReason = stopReason;
    if (model) response.model = model;
    const requestId = asString(record.requestId);
    if (requestId) response.requestId = requestId;
    if (record.isApiErrorMessage === true) response.apiError = true;

    draft.message.content = response.texts.join('\n\n');
    draft.message.metadata = responseMetadata(response);
    if (existing && draft.emitted && draft.emittedIn < this.calls) this.changed.set(draft.message.messageId, line);
    return draft.message.messageId;
  }

  private addDraft(message: ImportedMessage, parentUuid: string | null, fixedPredecessor: string | undefined, toolUseId: string | undefined): Draft {
    const draft: Draft = { message, parentUuid, emitted: false, emittedIn: 0, successors: 0, order: 0, arrival: ++this.arrivals };
    if (fixedPredecessor !== undefined) draft.fixedPredecessor = fixedPredecessor;
    if (toolUseId !== undefined) draft.toolUseId = toolUseId;
    this.drafts.set(message.messageId, draft);
    this.queue.push(draft);
    return draft;
  }

  private addNode(uuid: string, node: TreeNode): void {
    this.nodes.set(uuid, node);
    this.wake(`u:${uuid}`);
  }

  /** Queues the drafts that waited for `key`. */
  private wake(key: string): void {
    const drafts = this.waiting.get(key);
    if (drafts === undefined) return;
    this.waiting.delete(key);
    this.queue.push(...drafts);
  }

  private skip(type: string): void {
    this.skippedCounts[type] = (this.skippedCounts[type] ?? 0) + 1;
  }

  // --- emitting ---

  /**
   * Emits every queued message whose predecessor and caller are emitted (an
   * emitted one queues what waited for it); the others wait, by blocker.
   */
  private emitReady(problems: ImportProblem[]): Draft[] {
    const emitted: Draft[] = [];
    // The queue grows while it is walked: woken drafts go to its end.
    for (let i = 0; i < this.queue.length; i += 1) {
      const draft = this.queue[i]!;
      if (draft.emitted) continue;
      const result = this.tryEmit(draft, 'wait', problems);
      if (result === true) {
        emitted.push(draft);
        continue;
      }
      const list = this.waiting.get(result);
      if (list) list.push(draft);
      else this.waiting.set(result, [draft]);
    }
    this.queue = [];
    return emitted;
  }

  /** Nearest ancestor (from `uuid` up) that became a message; `unknown` when the walk reaches a uuid not seen (or loops). */
  private walk(uuid: string | null): Walk {
    const seen = new Set<string>();
    let current = uuid;
    while (current !== null) {
      const node = this.nodes.get(current);
      if (!node && this.outside.has(current)) return { kind: 'found', messageId: null, outside: current };
      if (!node || seen.has(current)) return { kind: 'unknown', uuid: current };
      if (node.messageId !== null) return { kind: 'found', messageId: node.messageId };
      seen.add(current);
      current = node.parentUuid;
    }
    return { kind: 'found', messageId: null };
  }

  private isEmitted(messageId: string): boolean {
    return this.drafts.get(messageId)?.emitted === true;
  }

  /** @returns true when emitted, else the key of what it waits for (never in mode `break`). */
  private tryEmit(draft: Draft, mode: Mode, problems: ImportProblem[]): true | string {
    const { message } = draft;
    const notes: string[] = [];

    let predecessor: string | null;
    if (draft.fixedPredecessor !== undefined) {
      predecessor = draft.fixedPredecessor;
      if (!this.isEmitted(predecessor)) {
        if (mode !== 'break') return `m:${predecessor}`;
        notes.push(`its predecessor ${predecessor} could not be emitted first; made a root`);
        predecessor = null;
      }
    } else {
      const walk = this.walk(draft.parentUuid);
      if (walk.kind === 'unknown') {
        if (mode === 'wait') return `u:${walk.uuid}`;
        notes.push(`ancestor ${walk.uuid} never appeared; made a root`);
        predecessor = null;
      } else if (walk.messageId !== null && !this.isEmitted(walk.messageId)) {
        if (mode !== 'break') return `m:${walk.messageId}`;
        notes.push(`its predecessor ${walk.messageId} could not be emitted first; made a root`);
        predecessor = null;
      } else {
        predecessor = walk.messageId;
        // A root that continues the parent session says where: its record there.
        if (walk.outside !== undefined) message.metadata = { ...message.metadata, parentSessionRecord: walk.outside };
      }
    }

    let caller: { messageId: string; name: string } | undefined;
    if (draft.toolUseId !== undefined) {
      caller = this.toolUses.get(draft.toolUseId);
      if (!caller) {
        if (mode === 'wait') return `t:${draft.toolUseId}`;
        notes.push(`no assistant tool_use ${draft.toolUseId} found; TOOL message without caller`);
      } else if (!this.isEmitted(caller.messageId)) {
        if (mode !== 'break') return `m:${caller.messageId}`;
        notes.push(`its caller ${caller.messageId} could not be emitted first; TOOL message without caller`);
        caller = undefined;
      }
    }

    if (caller) {
      message.callerId = caller.messageId;
      if (caller.name !== '') message.toolName = caller.name;
      // Results of parallel tool calls form one line, not siblings: a result
      // whose predecessor is its caller, or another result of the same caller,
      // follows the latest result of that caller.
      const last = this.lastTool.get(caller.messageId);
      if (last !== undefined && draft.fixedPredecessor === undefined && predecessor !== null) {
        const before = this.drafts.get(predecessor)?.message;
        if (predecessor === caller.messageId || (before?.role === 'TOOL' && before.callerId === caller.messageId)) predecessor = last;
      }
      this.lastTool.set(caller.messageId, message.messageId);
    }

    message.predecessorId = predecessor;
    if (predecessor !== null) {
      const parent = this.drafts.get(predecessor);
      if (parent) parent.successors += 1;
    }
    draft.emitted = true;
    draft.emittedIn = this.calls;
    draft.order = ++this.emittedCount;
    this.wake(`m:${message.messageId}`);
    for (const note of notes) problems.push({ line: message.line, message: `message ${message.messageId}: ${note}` });
    return true;
  }

  private batch(emitted: Draft[], problems: ImportProblem[]): ImportBatch {
    const updates: ImportedUpdate[] = [];
    for (const [messageId, line] of this.changed) {
      const { message } = this.drafts.get(messageId)!;
      const update: ImportedUpdate = { messageId, content: message.content, line };
      if (message.metadata !== undefined) update.metadata = message.metadata;
      updates.push(update);
    }
    return { messages: emitted.map((draft) => ({ ...draft.message })), updates, problems };
  }
}

/** A merged response's metadata (a new object each time, so copies handed out earlier never change). */
function responseMetadata(response: Response): ImportedMetadata {
  const metadata: ImportedMetadata = {
    responseId: response.responseId,
    toolCalls: response.toolCalls.map((call) => ({ ...call })),
    thinking: [...response.thinking],
  };
  if (response.usage !== undefined) metadata.usage = response.usage;
  if (response.stopReason !== undefined) metadata.stopReason = response.stopReason;
  if (response.model !== undefined) metadata.model = response.model;
  if (response.requestId !== undefined) metadata.requestId = response.requestId;
  if (response.apiError) metadata.apiError = true;
  return metadata;
}

/** The file's base name without `.jsonl`. */
function fileStem(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.endsWith('.jsonl') ? base.slice(0, -'.jsonl'.length) : base;
}

/**
 * Reads a whole transcript: feeds its complete lines, then flushes. A partial
 * last line (no newline yet) is left unread; `consumedBytes` says where it starts.
 */
export function parseTranscript(text: string | Buffer, options: TranscriptOptions = {}): ImportResult {
  const split = splitLines(text, 1);
  const transcript = new ClaudeCodeTranscript(options);
  const fed = transcript.feed(split.lines);
  const flushed = transcript.flush();
  return {
    session: transcript.session(),
    messages: [...fed.messages, ...flushed.messages],
    updates: [...fed.updates, ...flushed.updates],
    problems: [...fed.problems, ...flushed.problems],
    skipped: transcript.skipped,
    newestLeafId: transcript.newestLeafId(),
    consumedBytes: split.consumedBytes,
    nextLine: split.nextLine,
    records: transcript.records,
  };
}
