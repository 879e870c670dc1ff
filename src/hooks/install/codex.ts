/**
 * Codex CLI: hooks.json in the project's .codex/ or in $CODEX_HOME (default ~/.codex), and
 * `[features] hooks = true` in $CODEX_HOME/config.toml, without which it runs none. Timeouts are
 * in seconds; the tool events take a matcher. Codex 0.171 has no SessionEnd; a subagent's start
 * and stop are events of their own. Uninstalling leaves the feature flag on: other hooks may
 * need it.
 */
import { join } from 'node:path';
import { HOOK_TIMEOUT_SECONDS } from './claude-code.js';
import { enableHooksFeature, hooksFeature } from './codex-features.js';
import { installHookGroups, uninstallHookGroups, type HookGroupsFormat } from './hook-groups.js';
import type { AgentHomes, AgentInstaller, Scope } from './installer.js';
import { readText } from './settings-file.js';

const FORMAT: HookGroupsFormat = {
  events: [
    { name: 'SessionStart' },
    { name: 'UserPromptSubmit' },
    { name: 'PreToolUse', matcher: '*' },
    { name: 'PostToolUse', matcher: '*' },
    { name: 'SubagentStart' },
    { name: 'SubagentStop' },
    { name: 'Stop' },
  ],
  handler: (command) => ({ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }),
};

function hooksFile(scope: Scope, homes: AgentHomes): string {
  return scope.kind === 'user' ? join(homes.codexHome, 'hooks.json') : join(scope.dir, '.codex', 'hooks.json');
}

export function codexConfigFile(homes: AgentHomes): string {
  return join(homes.codexHome, 'config.toml');
}

export const codexInstaller: AgentInstaller = {
  agent: 'codex',
  hooksFile,
  events: FORMAT.events.map((event) => event.name),
  install(scope, homes, command) {
    const path = hooksFile(scope, homes);
    const before = readText(path);
    const after = installHookGroups(path, before, FORMAT, command);
    const config = codexConfigFile(homes);
    const configBefore = readText(config);
    const flag = enableHooksFeature(config, configBefore);
    const notes: string[] = [];
    if (flag.was === 'off') notes.push(`${config}: [features] hooks was off; turned on (Codex runs no hook without it)`);
    if (flag.was === 'unset') notes.push(`${config}: [features] hooks = true added (Codex runs no hook without it)`);
    if (scope.kind === 'project') notes.push(`Codex runs a project's hooks once you trust the project's hooks in Codex`);
    return { changes: [{ path, before, after }, { path: config, before: configBefore, after: flag.text }], notes };
  },
  uninstall(scope, homes) {
    const path = hooksFile(scope, homes);
    const before = readText(path);
    const after = uninstallHookGroups(path, before);
    if (after === undefined) return { changes: [], notes: [] };
    return { changes: [{ path, before, after }], notes: after === before ? [] : [`${codexConfigFile(homes)}: [features] hooks is left as it is (other hooks may need it)`] };
  },
  statusNotes(_scope, homes) {
    const config = codexConfigFile(homes);
    const state = hooksFeature(readText(config));
    return [`codex [features] hooks in ${config}: ${state === 'on' ? 'on' : state === 'off' ? 'off (Codex runs no hook)' : 'unset (Codex runs no hook)'}`];
  },
};
