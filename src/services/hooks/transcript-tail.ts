/**
 * What a hooked Claude Code or Codex CLI session's transcript adds to its hook events, read from
 * `transcript_path` as it grows. Codex's (its rollout) adds what the model wrote before each call
 * (the call's message takes it, as Claude Code's does below), and its calls that failed: an
 * apply_patch whose patch did not apply fires no hook (recorded from here, as Claude Code's
 * refused calls are, below), and a command's PostToolUse carries its output but not its exit
 * code (the rollout's CommandExecution, written before that hook, has it). Claude Code's adds the
 * text the agent wrote around its tool calls, its thinking, the model.
 * The hooks carry the tool calls, their results and the final reply; the transcript carries the
 * rest, and Claude Code writes a response's records before it runs the tools the response calls
 * (a PostToolUse always finds its call's response there), but often writes the turn's last
 * response only after it ran the Stop hooks (FINDINGS: 6 of 10 Stop events). So:
 *
 * - a tool call's message takes the text and thinking of the response that made it (the first
 *   call of a response, when it made several);
 * - the reply takes the thinking of the turn's last response when the transcript already holds
 *   it at Stop, and is the payload's `last_assistant_message` either way; a last response
 *   written after the Stop is never recorded a second time (its text is the reply's);
 * - a call Claude Code answered itself, refusing it before it ran (an Edit whose text is not in
 *   the file, a tool it does not have, one its permissions deny), fires no hook: the transcript's
 *   call and its error result (`errors`) are what record it.
 *
 * Reading is incremental and bounded: per session, the byte offset read so far is kept in
 * memory (a server that restarts, or another instance, starts again from the file's last
 * `WINDOW` bytes); at most `WINDOW` bytes are read per event, and a line longer than that is
 * skipped. A transcript is read only when it is a regular `.jsonl` file under the allowed
 * roots (realpath), so a hook payload cannot make the server read anything else; every read
 * opens that real path again and checks it still names the same file through no link
 * (src/fs/inside.ts), so a folder swapped for a symlink later does not lead the reads out.
 */
import { realpath, type FileHandle } from 'node:fs/promises';
import { relative, isAbsolute } from 'node:path';
import { asObject, asString, readAssistantContent, readUserContent } from '../../importers/claude-code/blocks.js';
import { splitLines } from '../../importers/jsonl.js';
import type { Deps } from '../deps.js';
import { openRealFile } from '../../fs/inside.js';

/** The most bytes read from a transcript per event, and the tail read when nothing was read before. */
const WINDOW = 4 * 1024 * 1024;
/** Transcripts whose read position is remembered (the oldest forgotten first). */
const SESSIONS = 256;

/** One model response of the turn: Claude Code writes one record per content block, sharing `message.id`. */
export interface TranscriptResponse {
  /** Claude Code's `message.id`; none for Codex, whose rollout has a record per call. */
  responseId: string | undefined;
  texts: string[];
  thinking: string[];
  /** Its tool calls, as the model made them. */
  calls: TranscriptCall[];
  model: string | undefined;
}

export interface TranscriptCall {
  id: string;
  name: string;
  input: unknown;
}

/** The current turn as the transcript has it so far. */
export interface TranscriptTurn {
  /** Its responses, in the order they were written. */
  responses: TranscriptResponse[];
  /** The text of each tool result marked an error (Codex: a patch that did not apply), by its call's id. */
  errors: Map<string, string>;
  /** Codex: the exit code of each command that did not exit 0, by its call's id. */
  exitCodes: Map<string, number>;
  /** Calls the recorder found recorded already (so it asks the database once for each). */
  settled: Set<string>;
  /** Codex: what the model wrote since its last call, for its next call. */
  said: string[];
}

function emptyTurn(): TranscriptTurn {
  return { responses: [], errors: new Map(), exitCodes: new Map(), settled: new Set(), said: [] };
}

/** The agents whose transcript is read live. */
export type TranscriptAgent = 'claude-code' | 'codex';

interface Tail {
  agent: TranscriptAgent;
  /** Its real path, inside the allowed roots when it was first read: what is opened. */
  real: string;
  offset: number;
  turn: TranscriptTurn;
}

/** Per database (one per server), like the other in-memory state of hook capture. */
const tails = new WeakMap<Deps['db'], Map<string, Tail>>();

function tailsOf(deps: Pick<Deps, 'db'>): Map<string, Tail> {
  let map = tails.get(deps.db);
  if (!map) tails.set(deps.db, (map = new Map()));
  return map;
}

/** The transcript's real path when the server may read it, else null. */
async function readablePath(deps: Pick<Deps, 'config'>, path: string): Promise<string | null> {
  if (!isAbsolute(path) || !path.endsWith('.jsonl')) return null;
  const real = await realpath(path).catch(() => null);
  if (real === null) return null;
  const inside = deps.config.allowedRoots.some((root) => {
    const rel = relative(root, real);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  });
  return inside ? real : null;
}

/** Adds one transcript record to the turn; a user prompt (Codex: a task's start) starts a new turn. */
function addRecord(tail: Tail, text: string): void {
  let record: Record<string, unknown> | null;
  try {
    record = asObject(JSON.parse(text));
  } catch {
    return;
  }
  if (!record) return;
  if (tail.agent === 'codex') addCodexRecord(tail, record);
  else addClaudeRecord(tail, record);
}

function addClaudeRecord(tail: Tail, record: Record<string, unknown>): void {
  const message = asObject(record.message);
  if (record.type === 'user' && typeof message?.content === 'string' && record.isMeta !== true) {
    tail.turn = emptyTurn();
    return;
  }
  if (record.type === 'user' && Array.isArray(message?.content)) {
    for (const result of readUserContent(message.content).toolResults) {
      if (result.isError && result.toolUseId !== undefined) tail.turn.errors.set(result.toolUseId, result.text);
    }
    return;
  }
  if (record.type !== 'assistant' || !message) return;
  const responseId = asString(message.id) ?? asString(record.uuid);
  if (responseId === undefined) return;
  const blocks = readAssistantContent(message.content);
  let response = tail.turn.responses.find((r) => r.responseId === responseId);
  if (!response) {
    response = { responseId, texts: [], thinking: [], calls: [], model: asString(message.model) };
    tail.turn.responses.push(response);
  }
  response.texts.push(...blocks.texts);
  response.thinking.push(...blocks.thinking);
  response.calls.push(...blocks.toolCalls);
}

/** Codex's apply_patch answers `Exit code: 0` when its patch applied. */
const PATCH_APPLIED = /^Exit code: 0\n/;

function addCodexRecord(tail: Tail, record: Record<string, unknown>): void {
  const payload = asObject(record.payload);
  if (!payload) return;
  const { turn } = tail;
  if (record.type === 'event_msg' && payload.type === 'task_started') {
    tail.turn = emptyTurn();
    return;
  }
  if (record.type === 'event_msg' && payload.type === 'item_completed') {
    const item = asObject(payload.item);
    const id = asString(item?.id);
    if (item?.type === 'CommandExecution' && id !== undefined && typeof item.exit_code === 'number' && item.exit_code !== 0) {
      turn.exitCodes.set(id, item.exit_code);
    }
    return;
  }
  if (record.type !== 'response_item') return;
  if (payload.type === 'message' && payload.role === 'assistant') {
    // Its words before a call ("I'll add the test first."), which Codex shows above the call.
    const texts = (Array.isArray(payload.content) ? payload.content : []).map((part) => asObject(part)).filter((part) => part?.type === 'output_text');
    turn.said.push(...texts.map((part) => asString(part!.text) ?? '').filter((text) => text.trim() !== ''));
    return;
  }
  const id = asString(payload.call_id);
  const name = asString(payload.name);
  if (id === undefined) return;
  if ((payload.type === 'custom_tool_call' || payload.type === 'function_call') && name !== undefined) {
    // As its hooks give it: apply_patch's patch as `command`, a function's arguments parsed.
    let input: unknown = payload.type === 'custom_tool_call' ? { command: asString(payload.input) ?? '' } : payload.arguments;
    if (typeof input === 'string') {
      try {
        input = JSON.parse(input);
      } catch {
        // Kept as the text it is.
      }
    }
    turn.responses.push({ responseId: undefined, texts: turn.said, thinking: [], calls: [{ id, name, input }], model: undefined });
    turn.said = [];
  } else if (payload.type === 'custom_tool_call_output') {
    const output = asString(payload.output);
    const call = responseOf(turn.responses, id)?.calls[0];
    if (call?.name === 'apply_patch' && output !== undefined && !PATCH_APPLIED.test(output)) turn.errors.set(id, output);
  }
}

/**
 * Reads what the transcript gained since the last read, and returns the current turn so far;
 * an empty one when the transcript may not or cannot be read. Never throws.
 */
export async function readTurn(
  deps: Pick<Deps, 'db' | 'config' | 'logger'>,
  agent: TranscriptAgent,
  sessionId: string,
  transcriptPath: string | undefined,
): Promise<TranscriptTurn> {
  if (transcriptPath === undefined) return emptyTurn();
  const map = tailsOf(deps);
  // By file as well: a Codex subagent's events name its own rollout, under its parent's session.
  const key = `${agent}\0${sessionId}\0${transcriptPath}`;
  let tail = map.get(key);
  try {
    if (!tail) {
      const real = await readablePath(deps, transcriptPath);
      if (real === null) {
        deps.logger.debug({ sessionId }, 'the transcript is not a file under the allowed roots; it is not read');
        return emptyTurn();
      }
      tail = { agent, real, offset: -1, turn: emptyTurn() };
    }
    map.delete(key);
    map.set(key, tail);
    if (map.size > SESSIONS) map.delete(map.keys().next().value!);
    await readMore(tail);
    return tail.turn;
  } catch (error) {
    deps.logger.debug({ sessionId, err: error }, 'the transcript could not be read');
    return tail?.turn ?? emptyTurn();
  }
}

/** The response among `responses` that made the call `callId`. */
export function responseOf(responses: readonly TranscriptResponse[], callId: string): TranscriptResponse | undefined {
  return responses.find((r) => r.calls.some((call) => call.id === callId));
}

async function readMore(tail: Tail): Promise<void> {
  const file = await openRealFile(tail.real);
  if (!file) throw new Error('the transcript is no longer a regular file at its real path');
  try {
    const { size } = await file.stat();
    if (tail.offset < 0 || size < tail.offset) tail.offset = Math.max(0, size - WINDOW);
    let start = tail.offset;
    let skipFirst = start > 0 && tail.turn.responses.length === 0 && !(await startsLine(file, start));
    if (size - start > WINDOW) {
      // More was written than one read takes: its last WINDOW bytes, from a line's start.
      start = size - WINDOW;
      skipFirst = true;
      tail.turn = emptyTurn();
    }
    const length = size - start;
    if (length <= 0) return;
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, start);
    let chunk = buffer.subarray(0, bytesRead);
    let skipped = 0;
    if (skipFirst) {
      const newline = chunk.indexOf(0x0a);
      if (newline < 0) return;
      skipped = newline + 1;
      chunk = chunk.subarray(skipped);
    }
    const { lines, consumedBytes } = splitLines(chunk, 1);
    for (const line of lines) addRecord(tail, line.text);
    tail.offset = start + skipped + consumedBytes;
  } finally {
    await file.close();
  }
}

/** Whether `offset` is the start of a line (the byte before it is a newline). */
async function startsLine(file: FileHandle, offset: number): Promise<boolean> {
  const byte = Buffer.alloc(1);
  await file.read(byte, 0, 1, offset - 1);
  return byte[0] === 0x0a;
}
