/**
 * What the hook tests share: the hook command (bin/entity-memory-hook.cjs) run as an agent runs
 * it, one process per event with the event on stdin, and Claude Code–shaped events (the fields
 * Claude Code 2.1 sends; see test/agents for the real CLI).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HOOK_BIN = fileURLToPath(new URL('../../bin/entity-memory-hook.cjs', import.meta.url));
/** What hooks installed before the .cjs name: it runs HOOK_BIN. */
export const OLDER_HOOK_BIN = fileURLToPath(new URL('../../bin/entity-memory-hook.js', import.meta.url));

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the hook command for `agent` with `stdin`, in an environment of its own (as agents run hooks); `flags` after its own (`--context`). */
export function runHook(agent: string, dataDir: string, stdin: string | object, script = HOOK_BIN, flags: string[] = []): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, agent, '--data-dir', dataDir, ...flags], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(typeof stdin === 'string' ? stdin : JSON.stringify(stdin));
  });
}

/** Claude Code's events of one session in `cwd`. */
export function claudeEvents(sessionId: string, cwd: string) {
  const common = { session_id: sessionId, transcript_path: join(cwd, '..', `${sessionId}.jsonl`), cwd };
  return {
    sessionStart: (source = 'startup') => ({ ...common, hook_event_name: 'SessionStart', source }),
    prompt: (promptId: string, prompt: string) => ({ ...common, prompt_id: promptId, hook_event_name: 'UserPromptSubmit', prompt }),
    preTool: (promptId: string, id: string, name: string, input: object) => ({ ...common, prompt_id: promptId, hook_event_name: 'PreToolUse', tool_name: name, tool_input: input, tool_use_id: id }),
    postTool: (promptId: string, id: string, name: string, input: object, response: unknown) => ({
      ...common,
      prompt_id: promptId,
      hook_event_name: 'PostToolUse',
      tool_name: name,
      tool_input: input,
      tool_response: response,
      tool_use_id: id,
    }),
    stop: (promptId: string, reply: string, again = false) => ({ ...common, prompt_id: promptId, hook_event_name: 'Stop', stop_hook_active: again, last_assistant_message: reply }),
    sessionEnd: () => ({ ...common, hook_event_name: 'SessionEnd', reason: 'other' }),
  };
}
