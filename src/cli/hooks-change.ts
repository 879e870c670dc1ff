/** `hooks install|uninstall <agent>`: plans the change of the agent's files, then prints it (--dry-run) or writes it. */
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import type { HookAgent } from '../hooks/agent.js';
import { hookCommandLine, hookScript } from '../hooks/install/command.js';
import { agentHomes, type HttpHooks, type InstallPlan, type Scope } from '../hooks/install/installer.js';
import { readServerFile } from '../http/server-file.js';
import { INSTALLERS } from '../hooks/install/installers.js';
import { SettingsFileError, unifiedDiff, writeChange } from '../hooks/install/settings-file.js';
import { CannotRun } from './errors.js';

export interface HooksChange {
  verb: 'install' | 'uninstall';
  agent: HookAgent;
  dataDir: string;
  scope: Scope;
  dryRun: boolean;
  /** Claude Code's http hooks, posting to the data dir's running server. */
  http?: boolean;
}

function scopeName(scope: Scope): string {
  return scope.kind === 'user' ? 'for the user' : `for the project ${scope.dir}`;
}

/**
 * Prints and (unless a dry run) writes the change, one line per file.
 * @throws CannotRun when a file does not parse (`path:line:col: reason`); nothing is written then
 */
export function changeHooks({ verb, agent, dataDir, scope, dryRun, http = false }: HooksChange): void {
  const installer = INSTALLERS[agent];
  const homes = agentHomes();
  const command = hookCommandLine({ node: process.execPath, script: hookScript(), agent, dataDir });
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
    if (!existsSync(dataDir)) console.log(`note: the data dir ${dataDir} does not exist yet; events wait in its hooks/spool.jsonl until a server runs on it`);
    if (scope.kind === 'project') {
      // An uncommitted settings file is the user's uncommitted work to the project rules: every turn would be skipped.
      console.log(`note: commit ${relative(scope.dir, hooksFile)} (or install with --user): while it is uncommitted it is your uncommitted change, and the agent's turns in this project are skipped, not committed`);
    }
  } else {
    console.log(`${agent}: uninstalled ${scopeName(scope)}`);
  }
}
