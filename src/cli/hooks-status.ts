/**
 * `hooks status`: for each agent and scope, whether our hooks are installed and for which data
 * dir; what else the agent needs (Codex's feature flag, Gemini's hooksConfig); then for each data
 * dir named, whether its server answers, the last event it recorded, and the events waiting in
 * its spool; then whether the server is installed as a service of the login (`entity-memory
 * service`) and answers. Reads only; a file it cannot read is said, not fatal.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOOK_AGENTS, type HookAgent } from '../hooks/agent.js';
import { isOurHttpUrl, OLDER_HOOK_SCRIPT_NAME, parseHookCommandLine } from '../hooks/install/command.js';
import { installedCommands } from '../hooks/install/hook-groups.js';
import { agentHomes, type AgentHomes, type AgentInstaller, type Scope } from '../hooks/install/installer.js';
import { INSTALLERS } from '../hooks/install/installers.js';
import { mcpServersFile, registeredMcpServer } from '../hooks/install/mcp-servers.js';
import { readText, SettingsFileError } from '../hooks/install/settings-file.js';
import { serverLine } from './running-server.js';
import { serviceStatusLines } from './service.js';


/** One line about our hooks in one agent's file; the data dirs its commands name. */
function installedLine(installer: AgentInstaller, scope: Scope, homes: AgentHomes): { line: string; dataDirs: string[] } {
  const path = installer.hooksFile(scope, homes);
  const label = `${installer.agent} ${scope.kind} ${path}:`;
  let byEvent: Map<string, string[]>;
  try {
    const text = readText(path);
    if (text === undefined) return { line: `${label} not installed (no such file)`, dataDirs: [] };
    byEvent = installedCommands(path, text);
  } catch (error) {
    if (error instanceof SettingsFileError) return { line: `${label} cannot be read: ${error.message}`, dataDirs: [] };
    return { line: `${label} cannot be read: ${(error as Error).message}`, dataDirs: [] };
  }
  if (byEvent.size === 0) return { line: `${label} not installed`, dataDirs: [] };
  const hooked = installer.events.filter((event) => byEvent.has(event));
  const missing = installer.events.filter((event) => !byEvent.has(event));
  const handlers = [...byEvent.values()].flat();
  // Claude Code's http hooks name a URL (install --http); the rest are commands.
  const urls = [...new Set(handlers.filter(isOurHttpUrl))];
  const commands = handlers.filter((handler) => !isOurHttpUrl(handler));
  const parsed = commands.map(parseHookCommandLine);
  const dataDirs = [...new Set(parsed.flatMap((command) => (command ? [command.dataDir] : [])))];
  const nodes = [...new Set(parsed.flatMap((command) => (command ? [command.node] : [])))];
  const scripts = [...new Set(parsed.flatMap((command) => (command ? [command.script] : [])))];
  const parts = [
    missing.length === 0 ? `installed (${hooked.length} events)` : `partly installed (${hooked.length} of ${installer.events.length} events; missing ${missing.join(', ')})`,
    `data dir ${dataDirs.join(', ') || '(unreadable command)'}`,
    `node ${nodes.join(', ') || '(unreadable command)'}`,
  ];
  if (urls.length > 0) parts.push(`http hooks posting to ${urls.join(', ')} (events sent while it is down are lost)`);
  for (const file of [...nodes, ...scripts]) if (!existsSync(file)) parts.push(`MISSING ${file} (install again)`);
  if (parsed.includes(undefined)) parts.push('a command not in the form install writes (install again)');
  if (scripts.some((script) => script.endsWith(OLDER_HOOK_SCRIPT_NAME))) parts.push(`an older command, ${OLDER_HOOK_SCRIPT_NAME} (install again: it starts faster)`);
  const others = [...byEvent.keys()].filter((event) => !installer.events.includes(event));
  if (others.length > 0) parts.push(`also in ${others.join(', ')} (install again to tidy)`);
  if (handlers.length > byEvent.size) parts.push('more than one entity-memory hook in an event (install again to tidy)');
  return { line: `${label} ${parts.join(', ')}`, dataDirs };
}

/** Whether our MCP server is registered beside the hooks (hooks install, src/hooks/install/mcp-servers.ts), for which data dir. */
function mcpLine(agent: HookAgent, scope: Scope, homes: AgentHomes): string | undefined {
  const path = mcpServersFile(agent, scope, homes);
  const text = readText(path);
  if (text === undefined) return undefined;
  const server = registeredMcpServer(agent, path, text);
  if (!server) return undefined;
  const dataDir = server.args[server.args.indexOf('--data-dir') + 1];
  const missing = [server.command, server.args[0] ?? ''].filter((file) => !existsSync(file));
  return `MCP server entity-memory registered in ${path}, data dir ${dataDir ?? '(unreadable)'}${missing.length > 0 ? `, MISSING ${missing.join(', ')} (install again)` : ''}`;
}

/** How long ago `at` was, in a few words. */
export function ago(at: Date, now = new Date()): string {
  const seconds = Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000));
  if (seconds < 120) return `${seconds} s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

function lastEventLine(dataDir: string): string {
  const text = readText(join(dataDir, 'hooks', 'last-event.json'));
  if (text === undefined) return 'last event: none received yet';
  try {
    const stamp = JSON.parse(text) as { agent?: unknown; event?: unknown; sessionId?: unknown; at?: unknown };
    const at = typeof stamp.at === 'string' ? new Date(stamp.at) : undefined;
    return `last event: ${String(stamp.agent)} ${String(stamp.event)}, session ${String(stamp.sessionId)}, ${at && !Number.isNaN(at.getTime()) ? `${ago(at)} (${at.toISOString()})` : 'at an unknown time'}`;
  } catch {
    return 'last event: hooks/last-event.json is not readable';
  }
}

function spoolLine(dataDir: string): string | undefined {
  try {
    const lines = readFileSync(join(dataDir, 'hooks', 'spool.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    return lines === 0 ? undefined : `${lines} event${lines === 1 ? '' : 's'} waiting in hooks/spool.jsonl (recorded when a server runs on the data dir)`;
  } catch {
    return undefined;
  }
}

/** Prints the status on stdout. */
export async function hooksStatus({ dataDir, project }: { dataDir: string; project: string | undefined }): Promise<void> {
  const homes = agentHomes();
  const dataDirs = [dataDir];
  const projectScope: Scope = { kind: 'project', dir: project ?? process.cwd() };
  for (const agent of HOOK_AGENTS) {
    const installer = INSTALLERS[agent];
    const scopes: Scope[] = [{ kind: 'user' }];
    if (project !== undefined || existsSync(installer.hooksFile(projectScope, homes))) scopes.push(projectScope);
    for (const scope of scopes) {
      const { line, dataDirs: named } = installedLine(installer, scope, homes);
      console.log(line);
      for (const dir of named) if (!dataDirs.includes(dir)) dataDirs.push(dir);
      const mcp = mcpLine(agent, scope, homes);
      if (mcp) console.log(`  ${mcp}`);
    }
    // A file that does not parse was said above.
    const notes = scopes.flatMap((scope) => {
      try {
        return installer.statusNotes(scope, homes);
      } catch {
        return [];
      }
    });
    for (const note of [...new Set(notes)]) console.log(`  ${note}`);
  }
  const servers = await Promise.all(dataDirs.map(serverLine));
  dataDirs.forEach((dir, index) => {
    console.log(`data dir ${dir}: ${servers[index]}`);
    console.log(`data dir ${dir}: ${lastEventLine(dir)}`);
    const spool = spoolLine(dir);
    if (spool) console.log(`data dir ${dir}: ${spool}`);
  });
  // Whether the server is kept running for them (entity-memory service).
  for (const line of await serviceStatusLines()) console.log(line);
}
