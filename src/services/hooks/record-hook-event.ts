/**
 * An agent's hook event, recorded: the live capture of a Claude Code, Codex CLI or Gemini CLI
 * session through its own hooks (src/hooks/events.ts reads the payloads). The events drive the
 * same writes as the API, so a hooked session is a live session like one made through the API:
 * its turns commit in its project at their end, with all of the project rules (the user's
 * uncommitted work never touched, a snapshot and a warning instead).
 *
 * | event (Claude Code / Codex / Gemini)                 | what is written                                     |
 * |------------------------------------------------------|-----------------------------------------------------|
 * | SessionStart                                         | the session (id = the agent's), in the project that holds `cwd` |
 * | UserPromptSubmit / BeforeAgent                        | the USER message: a turn opens (dirty-at-start taken now) |
 * | PreToolUse / BeforeTool of a shell tool               | the project's dirty paths noted (in memory)         |
 * | PostToolUse / AfterTool                               | the tool call (ASSISTANT) and its result (TOOL); the paths it edited |
 * | Stop / AfterAgent                                     | the reply (`last_assistant_message` / `prompt_response`); the turn closes with its paths |
 * | SessionEnd                                            | an open turn closes (its reply the transcript's last response, if any) |
 *
 * Claude Code's transcript adds what its hooks do not carry (./transcript-tail.ts): the text and
 * thinking of the response that made each tool call, and the final reply's thinking when the
 * transcript holds it at Stop.
 *
 * Idempotent: a message's id comes from the event's identity (the agent's prompt id, the tool
 * call's id, the turn's id for the reply), so an event delivered twice writes nothing the second
 * time; Gemini gives no ids, so its tool calls are named by a hash of what they were.
 */
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Project } from '../../generated/prisma/client.js';
import { ConflictError } from '../../errors.js';
import { isValidId } from '../../ids.js';
import type { HookEvent, ToolCall } from '../../hooks/events.js';
import { changedBetween, dirtyFingerprint, type DirtyFingerprint } from '../../projects/working-tree.js';
import { now, type Deps } from '../deps.js';
import { appendMessage, appendMessages, type AppendMessageInput } from '../sessions/append-message.js';
import { closeTurnWith } from '../sessions/close-turn.js';
import { createSession } from '../sessions/create-session.js';
import { messageDraft } from '../sessions/message-draft.js';
import { redactDrafts } from '../sessions/redact-drafts.js';
import { importClaudeCode } from '../imports/import-claude-code.js';
import { titleFrom } from '../../importers/claude-code/blocks.js';
import { readTurn, responseOf, type TranscriptResponse, type TranscriptTurn } from './transcript-tail.js';
import { withoutBinaryData } from './binary-data.js';

export type HookOutcome = 'recorded' | 'duplicate' | { skipped: string };

/**
 * What was noted before a shell call: the dirty paths' fingerprint, taken as the agent waited on
 * its PreToolUse; or, for a PreToolUse replayed from the spool (the tree has moved on since), only
 * when its hook received it.
 */
type ShellWatch = DirtyFingerprint | { since: number };

/** Per database: what was noted before each running shell call, by session and call. */
const shellWatches = new WeakMap<Deps['db'], Map<string, ShellWatch>>();

/** File times are coarser than the clock (a few ms), and the hook's clock is read a moment apart from the tool's writes. */
const TIME_SLACK_MS = 50;

function watches(deps: Pick<Deps, 'db'>): Map<string, ShellWatch> {
  let map = shellWatches.get(deps.db);
  if (!map) shellWatches.set(deps.db, (map = new Map()));
  return map;
}

/** A stable id from parts: for messages whose event carries no id of its own. */
function hashId(prefix: string, ...parts: string[]): string {
  return `${prefix}-${createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 32)}`;
}

/** `prefix-value` when that is a valid id, else a hash of it. */
function idFrom(prefix: string, value: string): string {
  const id = `${prefix}-${value}`;
  return isValidId(id) ? id : hashId(prefix, value);
}

function callKey(event: HookEvent & { tool: ToolCall }): string {
  return `${event.sessionId}\0${event.tool.id ?? `${event.tool.name}\0${JSON.stringify(event.tool.input)}`}`;
}

/** Text within the content limit (what a tool returned can be large); `cut` says whether it was cut. */
function bounded(value: unknown, limit: number): { text: string; cut: boolean } {
  const text = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  if (Buffer.byteLength(text, 'utf8') <= limit) return { text, cut: false };
  const note = '\n[cut by entity-memory: the rest was over the content limit]';
  const kept = Buffer.from(text, 'utf8').subarray(0, Math.max(0, limit - Buffer.byteLength(note) - 4)).toString('utf8').replace(/\uFFFD+$/, '');
  return { text: kept + note, cut: true };
}

/** The active project whose working directory holds `cwd` (the deepest one), after symlinks; null when none. */
export async function projectOfCwd(deps: Pick<Deps, 'db'>, cwd: string | undefined): Promise<Project | null> {
  if (cwd === undefined || !isAbsolute(cwd)) return null;
  const real = await realpath(cwd).catch(() => resolve(cwd));
  const projects = await deps.db.project.findMany({ where: { status: 'ACTIVE' } });
  const holding = projects.filter((p) => real === p.workdir || real.startsWith(p.workdir.endsWith(sep) ? p.workdir : p.workdir + sep));
  return holding.sort((a, b) => b.workdir.length - a.workdir.length)[0] ?? null;
}

/**
 * A path an agent's tool named, relative to the project's working directory, or null when it is
 * outside it (recorded in the message, never committed) or in its .git.
 */
async function projectPath(project: Project, cwd: string | undefined, path: string): Promise<string | null> {
  const absolute = isAbsolute(path) ? path : resolve(cwd ?? project.workdir, path);
  // The file may be gone (deleted by the tool): its folder's real path decides.
  let real = await realpath(absolute).catch(() => null);
  if (real === null) {
    const folder = await realpath(resolve(absolute, '..')).catch(() => null);
    if (folder === null) return null;
    real = resolve(folder, absolute.split(/[\\/]/).pop() ?? '');
  }
  const inside = relative(project.workdir, real);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return null;
  const segments = inside.split(sep);
  if (segments[0] === '.git') return null;
  return segments.join('/');
}

interface SessionRow {
  sessionId: string;
  title: string | null;
  source: string | null;
  openTurnId: string | null;
  metadata: string | null;
  project: Project | null;
}

async function readSession(deps: Deps, sessionId: string): Promise<SessionRow | null> {
  return deps.db.session.findUnique({ where: { sessionId }, select: { sessionId: true, title: true, source: true, openTurnId: true, metadata: true, project: true } });
}

function metadataOf(session: Pick<SessionRow, 'metadata'>): Record<string, unknown> {
  try {
    const value: unknown = session.metadata === null ? {} : JSON.parse(session.metadata);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Writes the session's metadata with `ended` set (SessionEnd) or removed (the agent goes on: a resume, a prompt). */
async function markEnded(deps: Deps, session: SessionRow, ended: { at: string; reason: string | null } | null): Promise<void> {
  const metadata = metadataOf(session);
  if (ended === null && metadata.ended === undefined) return;
  if (ended === null) delete metadata.ended;
  else metadata.ended = ended;
  await deps.db.session.update({ where: { sessionId: session.sessionId }, data: { metadata: JSON.stringify(metadata) } });
}

/**
 * The session a `/clear` (SessionStart with source "clear") left: the agent gives the new session
 * no link to it, so it is the latest hooked session of the same agent in the same folder.
 */
async function clearedSession(deps: Deps, event: HookEvent): Promise<string | null> {
  if (event.cwd === undefined) return null;
  const recent = await deps.db.session.findMany({
    where: { agentId: event.agent, source: null, sessionId: { not: event.sessionId } },
    orderBy: { createdAt: 'desc' },
    take: 20,
    select: { sessionId: true, metadata: true },
  });
  return recent.find((s) => metadataOf(s).capture === 'hooks' && metadataOf(s).cwd === event.cwd)?.sessionId ?? null;
}

/** The session the event belongs to, made on its first event. */
async function sessionFor(event: HookEvent, deps: Deps): Promise<SessionRow | { skipped: string }> {
  if (!isValidId(event.sessionId)) return { skipped: `session_id ${JSON.stringify(event.sessionId.slice(0, 40))} is not an id entity-memory can use` };
  const found = await readSession(deps, event.sessionId);
  if (found) {
    // A session belongs to the way it came in: an import's is never written by hooks.
    if (found.source !== null) return { skipped: `session ${event.sessionId} was imported (${found.source}); hooks do not write into it` };
    return found;
  }
  const project = await projectOfCwd(deps, event.cwd);
  const cleared = event.kind === 'session-start' && event.source === 'clear' ? await clearedSession(deps, event) : null;
  try {
    await createSession(
      {
        sessionId: event.sessionId,
        agentId: event.agent,
        model: event.model ?? null,
        projectId: project?.projectId ?? null,
        metadata: {
          capture: 'hooks',
          cwd: event.cwd ?? null,
          transcriptPath: event.transcriptPath ?? null,
          ...(cleared !== null && { clearedFrom: cleared }),
        },
      },
      deps,
    );
  } catch (error) {
    // Made by a parallel event of the same session meanwhile.
    if (!(error instanceof ConflictError)) throw error;
  }
  return (await readSession(deps, event.sessionId))!;
}

/** The open turn's user message (id, content, time), or null. */
async function openTurn(deps: Deps, session: SessionRow) {
  if (!session.openTurnId) return null;
  return deps.db.turn.findUnique({
    where: { id: session.openTurnId },
    select: { id: true, userMessage: { select: { messageId: true, content: true, createdAt: true } } },
  });
}

/** The project paths the open turn's tool calls edited, from their messages. */
async function touchedInTurn(deps: Deps, turnId: string): Promise<string[]> {
  const calls = await deps.db.message.findMany({ where: { turnId, role: 'ASSISTANT', metadata: { not: null } }, select: { metadata: true } });
  const paths = new Set<string>();
  for (const { metadata } of calls) {
    const touched = (JSON.parse(metadata!) as { touchedPaths?: unknown }).touchedPaths;
    if (Array.isArray(touched)) for (const path of touched) if (typeof path === 'string') paths.add(path);
  }
  return [...paths].sort();
}

/** The current turn in the transcript, for the agents whose transcript we read as it grows (Claude Code, Codex). */
async function transcriptTurn(deps: Deps, event: HookEvent): Promise<TranscriptTurn | null> {
  return event.agent === 'gemini' ? null : readTurn(deps, event.agent, event.sessionId, event.transcriptPath);
}

/**
 * A tool call's two messages, their ids from `key`: the call (ASSISTANT: the words of the response
 * that made it when it is that response's first call, the call's input, the paths it edited) and
 * its result (TOOL: `output`, marked when it was cut or the call failed, and with its exit code).
 */
function callAndResult(
  deps: Deps,
  call: {
    key: string;
    id: string | null;
    name: string;
    input: unknown;
    response: TranscriptResponse | undefined;
    first: boolean;
    touchedPaths: string[];
    output: { text: string; cut: boolean };
    failed: boolean;
    exitCode?: number;
    subagent?: string;
  },
): Omit<AppendMessageInput, 'sessionId'>[] {
  const { response, output } = call;
  const callId = idFrom('call', call.key);
  const input = bounded(call.input, deps.config.maxContentBytes);
  const resultMetadata = { ...(output.cut && { cut: true }), ...(call.failed && { isError: true }), ...(call.exitCode !== undefined && { exitCode: call.exitCode }) };
  return [
    {
      role: 'ASSISTANT',
      messageId: callId,
      content: call.first && response ? bounded(response.texts.join('\n\n'), deps.config.maxContentBytes).text : '',
      toolName: call.name,
      toolCallId: call.id,
      metadata: {
        toolCalls: [{ id: call.id, name: call.name, input: input.cut ? input.text : call.input }],
        touchedPaths: call.touchedPaths,
        // The response's thinking and model go with its first call; the others name it.
        ...(response && (call.first ? responseMetadata(response) : response.responseId !== undefined && { responseId: response.responseId })),
        ...(call.subagent !== undefined && { subagent: call.subagent }),
      },
    },
    {
      role: 'TOOL',
      messageId: idFrom('result', call.key),
      content: output.text,
      callerId: callId,
      toolName: call.name,
      toolCallId: call.id,
      ...(Object.keys(resultMetadata).length > 0 && { metadata: resultMetadata }),
    },
  ];
}

/** Claude Code's wrapping of the error of a call it refused to run. */
const REFUSAL = /^<tool_use_error>([\s\S]*)<\/tool_use_error>$/;

/**
 * The calls Claude Code answered itself, refusing them before they ran (an Edit whose text is not
 * in the file, a tool it does not have, one its permissions deny), and Codex's apply_patch whose
 * patch did not apply: no hook fires for them, and the transcript holds the call and its error.
 * Each is recorded, a call and its result marked an error, where it was made: those of the
 * responses before the one that made `beforeCall` (the calls of that response may still be
 * running, their hooks to come), or all of the turn's when it ends. A call its hooks recorded (a
 * command that ran and failed) is not recorded again.
 */
async function recordRefusedCalls(deps: Deps, sessionId: string, turn: TranscriptTurn | null, beforeCall?: string): Promise<void> {
  if (turn === null || turn.errors.size === 0) return;
  const made = beforeCall === undefined ? undefined : responseOf(turn.responses, beforeCall);
  const until = made === undefined ? -1 : turn.responses.indexOf(made);
  const refused = turn.responses
    .slice(0, until < 0 ? turn.responses.length : until)
    .flatMap((response) => response.calls.map((call, i) => ({ call, response, first: i === 0 })))
    .filter(({ call }) => turn.errors.has(call.id) && !turn.settled.has(call.id));
  if (refused.length === 0) return;
  const recorded = await deps.db.message.findMany({
    where: { sessionId, messageId: { in: refused.map(({ call }) => idFrom('call', call.id)) } },
    select: { messageId: true },
  });
  const known = new Set(recorded.map((m) => m.messageId));
  for (const { call, response, first } of refused) {
    turn.settled.add(call.id);
    const callId = idFrom('call', call.id);
    if (known.has(callId)) continue;
    const error = turn.errors.get(call.id)!;
    const output = bounded(REFUSAL.exec(error)?.[1] ?? error, deps.config.maxContentBytes);
    try {
      await appendMessages(
        sessionId,
        callAndResult(deps, { key: call.id, id: call.id, name: call.name, input: call.input, response, first, touchedPaths: [], output, failed: true }),
        deps,
        { loneSurrogates: 'replace' },
      );
    } catch (error) {
      // Recorded by a parallel event meanwhile.
      if (!(error instanceof ConflictError)) throw error;
    }
  }
}

/** What a response adds to the message made from it: its id, thinking and model. */
function responseMetadata(response: TranscriptResponse | undefined): Record<string, unknown> {
  if (!response) return {};
  return {
    ...(response.responseId !== undefined && { responseId: response.responseId }),
    ...(response.thinking.length > 0 && { thinking: response.thinking }),
    ...(response.model !== undefined && { model: response.model }),
  };
}

/**
 * The turn's final response in the transcript, when it is already there: the last response,
 * calling no tool, whose text is the reply (or any text, when the event has no reply).
 */
function finalResponse(responses: TranscriptResponse[], reply: string | undefined): TranscriptResponse | undefined {
  const last = responses.at(-1);
  if (!last || last.calls.length > 0 || last.texts.length === 0) return undefined;
  if (reply !== undefined && last.texts.join('\n\n').trim() !== reply.trim()) return undefined;
  return last;
}

/**
 * Closes the open turn with the paths its tools edited, and the reply when there is one: the
 * event's, else (a SessionEnd after a lost Stop) the transcript's final response.
 */
async function closeOpenTurn(deps: Deps, session: SessionRow, event: HookEvent, eventReply: string | undefined, replayed: boolean): Promise<HookOutcome> {
  const turn = await openTurn(deps, session);
  if (!turn) return 'duplicate';
  const transcript = await transcriptTurn(deps, event);
  // A replayed event reads today's transcript, which may be turns ahead of it.
  if (!replayed) await recordRefusedCalls(deps, session.sessionId, transcript);
  const touchedPaths = session.project ? await touchedInTurn(deps, turn.id) : null;
  const final = finalResponse(transcript?.responses ?? [], eventReply === '' ? undefined : eventReply);
  const reply = eventReply !== undefined && eventReply !== '' ? eventReply : final?.texts.join('\n\n');
  const metadata = responseMetadata(final);
  const draft =
    reply !== undefined && reply !== ''
      ? messageDraft(
          'ASSISTANT',
          {
            messageId: idFrom('reply', turn.id),
            content: bounded(reply, deps.config.maxContentBytes).text,
            ...(Object.keys(metadata).length > 0 && { metadata }),
          },
          deps,
          '',
          { loneSurrogates: 'replace' },
        )
      : null;
  if (draft) await redactDrafts(deps, [draft]);
  try {
    await closeTurnWith(
      deps,
      session.sessionId,
      { touchedPaths, startedAt: turn.userMessage.createdAt },
      async (writer) => {
        if (draft) await writer.append(draft);
      },
      // A live hook's close is paced by the mirror's backlog; a replay's hook was answered long ago.
      { paced: !replayed },
    );
  } catch (error) {
    // Closed by a parallel Stop meanwhile (the reply's id is taken, or no turn is open any more).
    if (error instanceof ConflictError || (await readSession(deps, session.sessionId))?.openTurnId !== turn.id) return 'duplicate';
    throw error;
  }
  return 'recorded';
}

async function recordPrompt(deps: Deps, session: SessionRow, event: HookEvent & { kind: 'prompt' }, replayedFrom: Date | undefined): Promise<HookOutcome> {
  const open = await openTurn(deps, session);
  const messageId = event.promptId ? idFrom('prompt', event.promptId) : undefined;
  if (open && (open.userMessage.messageId === messageId || (messageId === undefined && open.userMessage.content === event.prompt))) return 'duplicate';
  // The turn before never heard its Stop (the agent interrupted): it ends where the next begins.
  if (open) await closeOpenTurn(deps, session, event, undefined, replayedFrom !== undefined);
  try {
    await appendMessage(
      { sessionId: session.sessionId, role: 'USER', messageId: messageId ?? null, content: bounded(event.prompt, deps.config.maxContentBytes).text },
      deps,
      { loneSurrogates: 'replace', ...(replayedFrom && { startedAt: replayedFrom }) },
    );
  } catch (error) {
    if (error instanceof ConflictError && messageId !== undefined) return 'duplicate';
    throw error;
  }
  if (session.title === null) await titleByFirstPrompt(deps, session.sessionId);
  return 'recorded';
}

/**
 * Names an untitled session after its first prompt's first line (80 characters at most), as an
 * import of the same agent's transcript names it and the agents' own resume pickers show it: a
 * list of hooked sessions is otherwise a list of ids. From the stored prompt, so a secret it
 * held is already taken out; never over a title the session has (a user's, or an import's).
 */
async function titleByFirstPrompt(deps: Deps, sessionId: string): Promise<void> {
  const first = await deps.db.message.findFirst({ where: { sessionId, role: 'USER' }, orderBy: { seq: 'asc' }, select: { content: true } });
  const title = first ? titleFrom(first.content) : null;
  if (title !== null) await deps.db.session.updateMany({ where: { sessionId, title: null }, data: { title } });
}

async function noteShellStart(deps: Deps, session: SessionRow, event: HookEvent & { kind: 'tool-start' }, replayedFrom: Date | undefined): Promise<HookOutcome> {
  if (!('shell' in event.tool.paths) || !session.project) return { skipped: 'nothing to note before this tool' };
  watches(deps).set(callKey(event), replayedFrom ? { since: replayedFrom.getTime() } : await dirtyFingerprint(session.project, deps));
  return 'recorded';
}

/** The time a fingerprint's entry says its path last changed (its modification or status change), or null when it is gone. */
function changedAt(print: string): number | null {
  const parts = print.split(':');
  if (parts.length < 4) return null;
  return Math.max(Number(parts[2]), Number(parts[3]));
}

/**
 * The project paths a finished tool call edited: those it names, or for a shell command what
 * changed while it ran. A shell call replayed from the spool is looked at after the fact: then
 * a path counts when it changed between the times its two hooks received their events.
 */
async function editedByCall(deps: Deps, session: SessionRow, event: HookEvent & { kind: 'tool-end' }, replayedFrom: Date | undefined): Promise<string[]> {
  const project = session.project;
  if (!project) return [];
  const { paths } = event.tool;
  if ('files' in paths) {
    // A file tool that failed (Gemini's replace of a text not in the file) wrote nothing: a file it names is not claimed.
    if (event.failed) return [];
    const inside = await Promise.all(paths.files.map((path) => projectPath(project, event.cwd, path)));
    return inside.filter((path): path is string => path !== null);
  }
  if (!('shell' in paths)) return [];
  const key = callKey(event);
  const before = watches(deps).get(key);
  watches(deps).delete(key);
  // No note from before the command (its PreToolUse was lost, or this server restarted meanwhile): nothing is claimed.
  if (!before) return [];
  const after = await dirtyFingerprint(project, deps);
  const until = (replayedFrom ?? now(deps)).getTime() + TIME_SLACK_MS;
  const changedInTime = (path: string, since: number) => {
    const at = changedAt(after.get(path) ?? 'gone');
    return at !== null && at >= since - TIME_SLACK_MS && at <= until;
  };
  if ('since' in before) return [...after.keys()].filter((path) => changedInTime(path, before.since as number)).sort();
  const changed = changedBetween(before, after);
  // Looked at late (replayed): what changed after the command ended is not its doing.
  return replayedFrom ? changed.filter((path) => changedInTime(path, -Infinity)) : changed;
}

async function recordToolCall(deps: Deps, session: SessionRow, event: HookEvent & { kind: 'tool-end' }, replayedFrom: Date | undefined): Promise<HookOutcome> {
  // The session row names its open turn; no more is needed here. The agent waits on this event,
  // so it reads as little as it can: a call sent twice is found by the write (its id is taken).
  const openTurnId = session.openTurnId;
  if (!openTurnId) return { skipped: `${event.tool.name} ran outside a turn (its prompt was not recorded)` };
  const { tool } = event;
  const key = tool.id ?? hashId('g', openTurnId, tool.name, JSON.stringify(tool.input), JSON.stringify(event.response));
  const transcript = await transcriptTurn(deps, event);
  // Calls refused before this one's response (no hook told of them) come before it; a replayed event's transcript may be turns ahead.
  if (tool.id !== undefined && !replayedFrom) await recordRefusedCalls(deps, session.sessionId, transcript, tool.id);
  // Codex's command that exited non-zero: its hook does not say so, its transcript does.
  const exitCode = event.exitCode ?? (tool.id === undefined ? undefined : transcript?.exitCodes.get(tool.id));
  const failed = event.failed === true || exitCode !== undefined;
  const touchedPaths = await editedByCall(deps, session, { ...event, failed }, replayedFrom);
  // The response that made the call: its text and thinking go with its first call.
  const response = tool.id === undefined || !transcript ? undefined : responseOf(transcript.responses, tool.id);
  const first = response !== undefined && response.calls[0]?.id === tool.id;
  // A screenshot or PDF the tool read is not kept: a note of its type and size stands for its base64.
  const output = bounded(withoutBinaryData(event.response), deps.config.maxContentBytes);
  try {
    const messages = callAndResult(deps, { key, id: tool.id ?? null, name: tool.name, input: tool.input, response, first, touchedPaths, output, failed, exitCode, subagent: event.subagent });
    await appendMessages(session.sessionId, messages, deps, { loneSurrogates: 'replace' });
  } catch (error) {
    if (error instanceof ConflictError) return 'duplicate';
    throw error;
  }
  return 'recorded';
}

/**
 * A Claude Code subagent's own transcript (`agent_transcript_path`, complete at SubagentStop),
 * imported as its own session linked to its parent (the importer names it
 * `<parent>-<agent id>`); its tool calls are already in the parent's turn. Again adds nothing.
 */
async function importSubagent(deps: Deps, event: HookEvent & { kind: 'subagent-stop' }): Promise<HookOutcome> {
  if (event.agent !== 'claude-code' || event.agentTranscriptPath === undefined) return { skipped: 'no subagent transcript to read' };
  try {
    const summary = await importClaudeCode({ paths: [event.agentTranscriptPath] }, deps);
    if (summary.errors.length > 0) deps.logger.warn({ sessionId: event.sessionId, errors: summary.errors.slice(0, 5) }, 'a subagent transcript was imported with errors');
    return 'recorded';
  } catch (error) {
    // Outside the allowed roots, gone: the hooks' record of its tool calls stands alone.
    return { skipped: `the subagent transcript was not imported: ${(error as Error).message}` };
  }
}

/**
 * Records one hook event.
 * @param options.replayedFrom for an event replayed from the spool: when its hook received it.
 * @returns what became of it: `duplicate` for an event already recorded (or a Stop with no open
 *   turn), `skipped` with why for one that cannot be placed (logged by the caller).
 * @throws what the database or the services throw (the caller keeps the event to try again).
 */
export async function recordHookEvent(event: HookEvent, deps: Deps, options: { replayedFrom?: Date } = {}): Promise<HookOutcome> {
  // The agent waits on every PreToolUse: one that names no shell command needs nothing noted.
  if (event.kind === 'tool-start' && !('shell' in event.tool.paths)) return { skipped: 'nothing to note before this tool' };
  // A subagent's prompt and stop are its parent's tool call (Codex sends them under the parent's id): its tool calls join the parent's turn.
  if (event.subagent !== undefined && event.kind !== 'tool-start' && event.kind !== 'tool-end' && event.kind !== 'subagent-stop') return { skipped: 'a subagent’s work is recorded in its parent’s turn' };
  const session = await sessionFor(event, deps);
  if ('skipped' in session) return session;
  switch (event.kind) {
    case 'session-start':
      // A resume (or a compaction) goes on in the same session.
      await markEnded(deps, session, null);
      return 'recorded';
    case 'prompt':
      await markEnded(deps, session, null);
      return recordPrompt(deps, session, event, options.replayedFrom);
    case 'tool-start':
      return noteShellStart(deps, session, event, options.replayedFrom);
    case 'tool-end':
      return recordToolCall(deps, session, event, options.replayedFrom);
    case 'stop':
      return closeOpenTurn(deps, session, event, event.reply, options.replayedFrom !== undefined);
    case 'session-end': {
      const closed = await closeOpenTurn(deps, session, event, undefined, options.replayedFrom !== undefined);
      await markEnded(deps, session, { at: now(deps).toISOString(), reason: event.reason ?? null });
      return closed;
    }
    case 'subagent-stop':
      return importSubagent(deps, event);
  }
}

/** When the event was recorded, for `hooks status` (src/services/hooks/last-event.ts). */
export function eventStamp(event: HookEvent, deps: Pick<Deps, 'now'>): { agent: string; event: string; sessionId: string; at: string } {
  return { agent: event.agent, event: event.kind, sessionId: event.sessionId, at: now(deps).toISOString() };
}
