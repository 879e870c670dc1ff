/**
 * Registering entity-memory's MCP server (bin/entity-memory-mcp.cjs, what `entity-memory mcp` runs) in an agent's settings, beside its hooks
 * (`hooks install`, unless --no-mcp), so the agent can search and read back its own history:
 *
 * | agent | for the user | for a project |
 * | --- | --- | --- |
 * | claude-code | `mcpServers` in ~/.claude.json (what `claude mcp add --scope user` writes) | `mcpServers` in DIR/.mcp.json |
 * | codex | `[mcp_servers.entity-memory]` in $CODEX_HOME/config.toml | the same in DIR/.codex/config.toml |
 * | gemini | `mcpServers` in ~/.gemini/settings.json | the same in DIR/.gemini/settings.json |
 *
 * Only the `entity-memory` entry is written or removed; every other server and setting stays as
 * it was, byte for byte.
 */
import { join } from 'node:path';
import type { HookAgent } from '../agent.js';
import { mcpScript } from './command.js';
import { setSetting, settingValue } from './hook-groups.js';
import type { AgentHomes, Scope } from './installer.js';
import { applyTextEdits, property, removeChild } from './json-edits.js';
import { parseSettings } from './settings-file.js';

export const MCP_SERVER_NAME = 'entity-memory';

/** The process an agent starts: this package's MCP relay (bin/entity-memory-mcp.cjs, what `entity-memory mcp` runs), for the data dir. */
export interface McpServerCommand {
  command: string;
  args: string[];
}

export function mcpServerCommand(dataDir: string, node = process.execPath): McpServerCommand {
  return { command: node, args: [mcpScript(), '--data-dir', dataDir] };
}

/** The file the agent reads its MCP servers from, for `scope`. */
export function mcpServersFile(agent: HookAgent, scope: Scope, homes: AgentHomes): string {
  switch (agent) {
    case 'claude-code':
      return scope.kind === 'user' ? join(homes.home, '.claude.json') : join(scope.dir, '.mcp.json');
    case 'codex':
      return scope.kind === 'user' ? join(homes.codexHome, 'config.toml') : join(scope.dir, '.codex', 'config.toml');
    case 'gemini':
      return join(scope.kind === 'user' ? homes.home : scope.dir, '.gemini', 'settings.json');
  }
}

/** The file's text with our entry added or brought up to date (unchanged when it already is). */
export function registerMcpServer(agent: HookAgent, path: string, text: string | undefined, server: McpServerCommand): string {
  if (agent === 'codex') return setTomlServer(text ?? '', server);
  const parsed = parseSettings(path, text);
  const entry = agent === 'claude-code' ? { type: 'stdio', command: server.command, args: server.args, env: {} } : { command: server.command, args: server.args };
  return setSetting(path, parsed.text, ['mcpServers', MCP_SERVER_NAME], entry);
}

/** The file's text without our entry; undefined when there is no file. */
export function unregisterMcpServer(agent: HookAgent, path: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (agent === 'codex') return removeTomlServer(text);
  const parsed = parseSettings(path, text);
  const servers = property(parsed.root, 'mcpServers')?.children?.[1];
  const ours = servers?.type === 'object' ? property(servers, MCP_SERVER_NAME) : undefined;
  if (!servers || !ours) return text;
  return applyTextEdits(text, removeChild(text, servers, ours));
}

/** Our entry as the file has it (command and args), if any. */
export function registeredMcpServer(agent: HookAgent, path: string, text: string | undefined): McpServerCommand | undefined {
  if (text === undefined) return undefined;
  if (agent === 'codex') {
    const { lines } = splitLines(text);
    const table = tomlTable(lines);
    if (!table) return undefined;
    const body = lines.slice(table.start + 1, table.end).join('\n');
    const command = /^\s*command\s*=\s*(".*")\s*$/m.exec(body)?.[1];
    const args = /^\s*args\s*=\s*(\[.*\])\s*$/m.exec(body)?.[1];
    try {
      return command && args ? { command: JSON.parse(command) as string, args: JSON.parse(args) as string[] } : undefined;
    } catch {
      return undefined;
    }
  }
  let parsed;
  try {
    parsed = parseSettings(path, text);
  } catch {
    return undefined;
  }
  const entry = settingValue(parsed.text, ['mcpServers', MCP_SERVER_NAME]) as { command?: unknown; args?: unknown } | undefined;
  return entry && typeof entry.command === 'string' && Array.isArray(entry.args) ? { command: entry.command, args: entry.args.map(String) } : undefined;
}

// ---------------------------------------------------------------- config.toml (Codex)

const HEADER = /^\s*\[\s*mcp_servers\s*\.\s*(?:"entity-memory"|'entity-memory'|entity-memory)\s*\]\s*(#.*)?\r?$/;
const ANY_HEADER = /^\s*\[/;

/** Our table's header line and the line after its last (the next header, or the end). */
function tomlTable(lines: string[]): { start: number; end: number } | undefined {
  const start = lines.findIndex((line) => HEADER.test(line));
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < lines.length && !ANY_HEADER.test(lines[end]!)) end += 1;
  // Blank lines before the next table stay with it.
  while (end > start + 1 && lines[end - 1]!.trim() === '') end -= 1;
  return { start, end };
}

function tomlBlock(server: McpServerCommand): string[] {
  // A TOML basic string takes JSON's escapes.
  return [`[mcp_servers.${MCP_SERVER_NAME}]`, `command = ${JSON.stringify(server.command)}`, `args = [${server.args.map((arg) => JSON.stringify(arg)).join(', ')}]`];
}

/** The file as lines without their line breaks, and the break it uses. */
function splitLines(text: string): { lines: string[]; eol: string } {
  return { lines: text.split(/\r?\n/), eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function setTomlServer(text: string, server: McpServerCommand): string {
  const { lines, eol } = splitLines(text);
  const table = tomlTable(lines);
  const block = tomlBlock(server);
  if (!table) {
    const prefix = text === '' ? '' : text.endsWith('\n') ? eol : `${eol}${eol}`;
    return `${text}${prefix}${block.join(eol)}${eol}`;
  }
  if (lines.slice(table.start, table.end).join('\n') === block.join('\n')) return text;
  return [...lines.slice(0, table.start), ...block, ...lines.slice(table.end)].join(eol);
}

function removeTomlServer(text: string): string {
  const { lines, eol } = splitLines(text);
  const table = tomlTable(lines);
  if (!table) return text;
  let { start, end } = table;
  const last = lines.slice(end).every((line) => line.trim() === '');
  // The blank lines that separated it go too: those after it, or, when it ends the file, those before it.
  if (last) while (start > 0 && lines[start - 1]!.trim() === '') start -= 1;
  else while (end < lines.length - 1 && lines[end]!.trim() === '') end += 1;
  return [...lines.slice(0, start), ...lines.slice(end)].join(eol);
}
