/**
 * Which files an agent's tool call says it edits, read from the call's input. Pure.
 * - Claude Code: Write, Edit, MultiEdit (`file_path`), NotebookEdit (`notebook_path`).
 * - Codex CLI: apply_patch, whose paths are only inside the patch text (`*** Add File: p`,
 *   `*** Update File: p`, `*** Delete File: p`, `*** Move to: p`).
 * - Gemini CLI: write_file, replace (`file_path`).
 * Shell tools (Bash, shell, exec_command, run_shell_command) name no files: `shell`, and the
 * caller finds what changed by looking at the working tree before and after the call.
 */
import type { HookAgent } from './agent.js';

export type ToolPaths = { files: string[] } | { shell: true } | { none: true };

const SHELL_TOOLS = new Set(['Bash', 'shell', 'exec_command', 'local_shell', 'run_shell_command']);

const FILE_FIELD: Record<HookAgent, Readonly<Record<string, string>>> = {
  'claude-code': { Write: 'file_path', Edit: 'file_path', MultiEdit: 'file_path', NotebookEdit: 'notebook_path' },
  codex: {},
  gemini: { write_file: 'file_path', replace: 'file_path' },
};

const PATCH_LINE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/;

/** The paths an apply_patch text names, in order, each once. */
export function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const line of patch.split('\n')) {
    const match = PATCH_LINE.exec(line.replace(/\r$/, ''));
    const path = match?.[1]?.trim();
    if (path && !paths.includes(path)) paths.push(path);
  }
  return paths;
}

function field(input: unknown, name: string): unknown {
  return typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[name] : undefined;
}

export function editedPaths(agent: HookAgent, toolName: string, input: unknown): ToolPaths {
  if (SHELL_TOOLS.has(toolName)) return { shell: true };
  if (agent === 'codex' && toolName === 'apply_patch') {
    const patch = typeof input === 'string' ? input : field(input, 'command') ?? field(input, 'input') ?? field(input, 'patch');
    return typeof patch === 'string' ? { files: patchPaths(patch) } : { none: true };
  }
  const name = FILE_FIELD[agent][toolName];
  if (name === undefined) return { none: true };
  const path = field(input, name);
  return typeof path === 'string' && path !== '' ? { files: [path] } : { none: true };
}
