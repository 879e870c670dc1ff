/** `hooks install|uninstall <agent>`: plans the change of the agent's files, then prints it (--dry-run) or writes it. */
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { HookAgent } from '../hooks/agent.js';
import { hookCommandLine, hookScript } from '../hooks/install/command.js';
import type { HookCommandFor } from '../hooks/install/hook-groups.js';
import { agentHomes, type HttpHooks, type InstallPlan, type Scope } from '../hooks/install/installer.js';
import { mcpServerCommand, mcpServersFile, registerMcpServer, unregisterMcpServer } from '../hooks/install/mcp-servers.js';
import { readServerFile } from '../http/server-file.js';
import { INSTALLERS } from '../hooks/install/installers.js';
import { readText, SettingsFileError, unifiedDiff, writeChange } from '../hooks/install/settings-file.js';
import { CannotRun } from './errors.js';

export interface HooksChange {
  verb: 'install' | 'uninstall';
  agent: HookAgent;
  dataDir: string;
  scope: Scope;
  dryRun: boolean;
  /** Claude Code's http hooks, posting to the data dir's running server. */
  http?: boolean;
  /** Register `entity-memory mcp` as an MCP server too (install; default true). Uninstall always removes it. */
  mcp?: boolean;
  /** SessionStart's hook answers with the project's recent sessions (src/services/hooks/session-context.ts). */
  context?: boolean;
}

/** What the agent must do before it starts a registered MCP server, per agent and scope. */
function mcpNote(agent: HookAgent, scope: Scope, file: string): string {
  if (agent === 'claude-code' && scope.kind === 'project') {
    return `MCP server entity-memory registered in ${file}; Claude Code asks once whether to use a project's .mcp.json servers (or list it in enabledMcpjsonServers)`;
  }
  if (agent === 'codex' && scope.kind === 'project') return `MCP server entity-memory registered in ${file}; Codex reads a project's .codex/config.toml once you trust the project`;
  return `MCP server entity-memory registered in ${file} (entity-memory mcp --data-dir …: it needs the data dir's server running)`;
}

/** `plan` with one more edit of `path`: on top of the plan's own change of that file, if it has one. */
function alsoEdit(plan: InstallPlan, path: string, edit: (text: string | undefined) => string | undefined): InstallPlan {
  const existing = plan.changes.find((change) => change.path === path);
  if (existing) {
    const after = edit(existing.after) ?? existing.after;
    return { ...plan, changes: plan.changes.map((change) => (change === existing ? { ...change, after } : change)) };
  }
  const before = readText(path);
  const after = edit(before);
  return after === undefined ? plan : { ...plan, changes: [...plan.changes, { path, before, after }] };
}

function scopeName(scope: Scope): string {
  return scope.kind === 'user' ? 'for the user' : `for the project ${scope.dir}`;
}

/**
 * Prints and (unless a dry run) writes the change, one line per file.
 * @throws CannotRun when a file does not parse (`path:line:col: reason`); nothing is written then
 */
export function changeHooks({ verb, agent, dataDir, scope, dryRun, http = false, mcp = true, context = false }: HooksChange): void {
  const installer = INSTALLERS[agent];
  const homes = agentHomes();
  const base = { node: process.execPath, script: hookScript(), agent, dataDir };
  const plain = hookCommandLine(base);
  const withContext = hookCommandLine({ ...base, context: true });
  const command: HookCommandFor = context ? (event) => (event === 'SessionStart' ? withContext : plain) : plain;
  let httpHooks: HttpHooks | undefined;
  if (http) {
    if (!installer.httpHooks) throw new CannotRun(`--http is for claude-code (Claude Code's http hooks); ${agent} runs command hooks only`);
    // The settings hold the server's address: the one running on the data dir now.
    const server = readServerFile(dataDir);
    if (!server) throw new CannotRun(`--http writes the server's address into the settings, and no server runs on ${dataDir}: start \`entity-memory serve\` first`);
    httpHooks = { serverUrl: server.url };
  }
  let plan: InstallPlan;
  try {
    plan = verb === 'install' ? installer.install(scope, homes, command, httpHooks) : installer.uninstall(scope, homes);
    const mcpFile = mcpServersFile(agent, scope, homes);
    if (verb === 'uninstall') plan = alsoEdit(plan, mcpFile, (text) => unregisterMcpServer(agent, mcpFile, text));
    else if (mcp) {
      const before = plan.changes.find((change) => change.path === mcpFile)?.after ?? readText(mcpFile);
      plan = alsoEdit(plan, mcpFile, (text) => registerMcpServer(agent, mcpFile, text, mcpServerCommand(dataDir)));
      const after = plan.changes.find((change) => change.path === mcpFile)?.after;
      if (after !== before) plan = { ...plan, notes: [...plan.notes, mcpNote(agent, scope, mcpFile)] };
    }
  } catch (error) {
    if (error instanceof SettingsFileError) throw new CannotRun(error.message);
    throw error;
  }
  const hooksFile = installer.hooksFile(scope, homes);
  const changed = plan.changes.filter((change) => change.before !== change.after);
  if (changed.length === 0) {
    if (verb === 'install') console.log(`${agent}: already installed in ${hooksFile} (${scopeName(scope)}, data dir ${dataDir}); nothing written`);
    else console.log(`${agent}: no entity-memory hooks in ${hooksFile}${plan.changes.length === 0 ? ' (no such file)' : ''}; nothing written`);
    return;
  }
  if (dryRun) {
    for (const change of changed) process.stdout.write(unifiedDiff(change.path, change.before, change.after));
    for (const note of plan.notes) console.log(`note: ${note}`);
    console.log(`dry run: nothing written (${changed.length} file${changed.length === 1 ? '' : 's'} would change)`);
    return;
  }
  for (const change of changed) {
    const backup = writeChange(change);
    console.log(`${change.before === undefined ? 'created' : 'updated'} ${change.path}${backup ? ` (previous file kept as ${backup})` : ''}`);
  }
  for (const note of plan.notes) console.log(`note: ${note}`);
  if (verb === 'install') {
    console.log(`${agent}: installed ${scopeName(scope)} (events ${installer.events.join(', ')}); data dir ${dataDir}`);
    if (context) console.log(`note: at each session start the agent is given the project's last sessions (at most 1,500 characters; nothing for a project without history)`);
    if (!existsSync(dataDir)) console.log(`note: the data dir ${dataDir} does not exist yet; events wait in its hooks/spool.jsonl until a server runs on it`);
    if (scope.kind === 'project') {
      // An uncommitted settings file is the user's uncommitted work to the project rules: every turn would be skipped.
      const files = changed.map((change) => relative(scope.dir, change.path)).filter((path) => !path.startsWith('..'));
      const named = files.length > 0 ? files.join(' and ') : relative(scope.dir, hooksFile);
      console.log(`note: commit ${named} (or install with --user): while ${files.length > 1 ? 'they are' : 'it is'} uncommitted ${files.length > 1 ? 'they are' : 'it is'} your uncommitted change, and the agent's turns in this project are skipped, not committed`);
    }
  } else {
    console.log(`${agent}: uninstalled ${scopeName(scope)}`);
  }
}
