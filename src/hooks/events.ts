/**
 * What an agent's hook said, in one shape for the three agents we capture live (Claude Code,
 * Codex CLI, Gemini CLI). Pure: reads the payload each agent sends to its hooks (a JSON object
 * with `session_id`, `cwd`, `hook_event_name`, ...) and returns the event, or why it is not one.
 * Tolerant of what it does not use: unknown keys are ignored, and events we do not map (Claude's
 * Notification, Gemini's BeforeModel, ...) are `ignored`, not errors.
 */
import type { HookAgent } from './agent.js';
import { editedPaths, type ToolPaths } from './tool-paths.js';

export { HOOK_AGENTS, isHookAgent, type HookAgent } from './agent.js';

interface Common {
  agent: HookAgent;
  sessionId: string;
  /** The agent's working directory, absolute; undefined when the payload had none. */
  cwd: string | undefined;
  transcriptPath: string | undefined;
  /** The agent's own id of the turn when it gives one (Claude Code's `prompt_id`, Codex's `turn_id`). */
  promptId: string | undefined;
  model: string | undefined;
  /**
   * Set on the events of a subagent (Claude Code and Codex mark them with `agent_id`; Gemini does
   * not mark them): they come with the parent's session id, and belong to the parent's open turn.
   */
  subagent: string | undefined;
}

export interface ToolCall {
  name: string;
  /** The agent's id of the call; Gemini gives none. */
  id: string | undefined;
  input: unknown;
  /** The paths an editing tool names (absolute or as the agent wrote them), or `shell`: find out by looking. */
  paths: ToolPaths;
}

export type HookEvent = Common &
  (
    | { kind: 'session-start'; source: string | undefined }
    | { kind: 'prompt'; prompt: string }
    | { kind: 'tool-start'; tool: ToolCall }
    /**
     * `failed`: the call failed: Claude Code's PostToolUseFailure (`response` is its error), or a
     * Gemini CLI response that says so (geminiFailure), with its command's `exitCode` when it says one.
     */
    | { kind: 'tool-end'; tool: ToolCall; response: unknown; failed?: boolean; exitCode?: number }
    | { kind: 'stop'; reply: string | undefined; again: boolean }
    | { kind: 'subagent-stop'; agentTranscriptPath: string | undefined }
    | { kind: 'session-end'; reason: string | undefined }
  );

export type HookEventKind = HookEvent['kind'];

export type ReadEvent = { event: HookEvent } | { ignored: string } | { error: string };

/** Each agent's event names, mapped to ours. */
const NAMES: Record<HookAgent, Readonly<Record<string, HookEventKind>>> = {
  'claude-code': {
    SessionStart: 'session-start',
    UserPromptSubmit: 'prompt',
    PreToolUse: 'tool-start',
    PostToolUse: 'tool-end',
    PostToolUseFailure: 'tool-end',
    Stop: 'stop',
    SubagentStop: 'subagent-stop',
    SessionEnd: 'session-end',
  },
  codex: {
    SessionStart: 'session-start',
    UserPromptSubmit: 'prompt',
    PreToolUse: 'tool-start',
    PostToolUse: 'tool-end',
    Stop: 'stop',
    SubagentStop: 'subagent-stop',
  },
  gemini: {
    SessionStart: 'session-start',
    BeforeAgent: 'prompt',
    BeforeTool: 'tool-start',
    AfterTool: 'tool-end',
    AfterAgent: 'stop',
    SessionEnd: 'session-end',
  },
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Reads one hook payload of `agent`. */
export function readHookEvent(agent: HookAgent, payload: unknown): ReadEvent {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { error: 'the payload is not a JSON object' };
  const p = payload as Record<string, unknown>;
  const name = text(p.hook_event_name);
  if (name === undefined) return { error: 'the payload has no hook_event_name' };
  const kind = NAMES[agent][name];
  if (kind === undefined) return { ignored: `${name} is not an event entity-memory records` };
  const sessionId = text(p.session_id);
  if (sessionId === undefined) return { error: `${name} has no session_id` };
  const common: Common = {
    agent,
    sessionId,
    cwd: text(p.cwd),
    transcriptPath: text(p.transcript_path),
    promptId: text(p.prompt_id) ?? text(p.turn_id),
    model: text(p.model),
    subagent: text(p.agent_id),
  };
  const tool = (): ToolCall | { error: string } => {
    const toolName = text(p.tool_name);
    if (toolName === undefined) return { error: `${name} has no tool_name` };
    return { name: toolName, id: text(p.tool_use_id), input: p.tool_input, paths: editedPaths(agent, toolName, p.tool_input) };
  };
  switch (kind) {
    case 'session-start':
      return { event: { ...common, kind, source: text(p.source) } };
    case 'prompt': {
      const prompt = typeof p.prompt === 'string' ? p.prompt : undefined;
      if (prompt === undefined) return { error: `${name} has no prompt` };
      return { event: { ...common, kind, prompt } };
    }
    case 'tool-start':
    case 'tool-end': {
      const call = tool();
      if ('error' in call) return call;
      if (kind === 'tool-start') return { event: { ...common, kind, tool: call } };
      // A failed call (Claude Code) says why in `error` (and whether the user interrupted it), not in tool_response.
      if (name === 'PostToolUseFailure') {
        const error = typeof p.error === 'string' ? p.error : 'the tool failed';
        return { event: { ...common, kind, tool: call, response: p.is_interrupt === true ? `${error}\n[interrupted]` : error, failed: true } };
      }
      const failure = agent === 'gemini' ? geminiFailure(p.tool_response) : null;
      return { event: { ...common, kind, tool: call, response: p.tool_response, ...(failure && { failed: true, ...failure }) } };
    }
    case 'stop':
      return {
        event: { ...common, kind, reply: typeof p.last_assistant_message === 'string' ? p.last_assistant_message : text(p.prompt_response), again: p.stop_hook_active === true },
      };
    case 'subagent-stop':
      return { event: { ...common, kind, agentTranscriptPath: text(p.agent_transcript_path) } };
    case 'session-end':
      return { event: { ...common, kind, reason: text(p.reason) } };
  }
}

/** The sections Gemini CLI's shell tool writes after a command's output, in its order. */
const SHELL_SECTION = /^(Error|Exit Code|Signal|Background PIDs|Process Group PGID): (.*)$/;

/**
 * Whether Gemini CLI's tool response says the call failed, or null: a tool's own `error` (a
 * replace whose text is not in the file), or a shell command's `Exit Code` (written only when not
 * 0, and given), `Signal` or process `Error`, among the sections after its output (read from the
 * end, so a command that printed such a line itself is not taken for one).
 */
export function geminiFailure(response: unknown): { exitCode?: number } | null {
  if (typeof response !== 'object' || response === null) return null;
  const { error, llmContent } = response as Record<string, unknown>;
  if (error !== undefined && error !== null) return {};
  if (typeof llmContent !== 'string') return null;
  const lines = llmContent.replace(/^\s*<untrusted_context>\n?|\n?<\/untrusted_context>\s*$/g, '').split('\n');
  let failure: { exitCode?: number } | null = null;
  for (let i = lines.length - 1; i > 0; i--) {
    const section = SHELL_SECTION.exec(lines[i]!);
    if (!section) break;
    if (section[1] === 'Exit Code' && /^-?\d+$/.test(section[2]!)) failure = { exitCode: Number(section[2]) };
    else if (section[1] === 'Exit Code' || section[1] === 'Error' || section[1] === 'Signal') failure ??= {};
  }
  return failure;
}
