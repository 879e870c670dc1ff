/**
 * Gemini CLI: `hooks` in .gemini/settings.json of the project, or ~/.gemini/settings.json, and
 * `hooksConfig.enabled: true`, without which it runs none. A handler has a name and its timeout
 * is in milliseconds; the tool events take a regular expression as matcher. The shape is the one
 * Gemini CLI 0.61.0 accepted in our recorded runs.
 */
import { join } from 'node:path';
import { HOOK_TIMEOUT_SECONDS } from './claude-code.js';
import { installHookGroups, setSetting, settingValue, uninstallHookGroups, type HookGroupsFormat } from './hook-groups.js';
import type { AgentHomes, AgentInstaller, Scope } from './installer.js';
import { parseSettings, readText } from './settings-file.js';

const FORMAT: HookGroupsFormat = {
  events: [
    { name: 'SessionStart' },
    { name: 'BeforeAgent' },
    // As for Claude Code: only a shell command's start is noted.
    { name: 'BeforeTool', matcher: 'run_shell_command' },
    { name: 'AfterTool', matcher: '.*' },
    { name: 'AfterAgent' },
    { name: 'SessionEnd' },
  ],
  handler: (command) => ({ type: 'command', name: 'entity-memory', command, timeout: HOOK_TIMEOUT_SECONDS * 1000 }),
};

const ENABLED = ['hooksConfig', 'enabled'];

function hooksFile(scope: Scope, homes: AgentHomes): string {
  return join(scope.kind === 'user' ? homes.home : scope.dir, '.gemini', 'settings.json');
}

export const geminiInstaller: AgentInstaller = {
  agent: 'gemini',
  hooksFile,
  events: FORMAT.events.map((event) => event.name),
  install(scope, homes, command) {
    const path = hooksFile(scope, homes);
    const before = readText(path);
    const hooked = installHookGroups(path, before, FORMAT, command);
    const wasEnabled = settingValue(hooked, ENABLED);
    const after = setSetting(path, hooked, ENABLED, true);
    const notes = wasEnabled === false ? [`${path}: hooksConfig.enabled was false; set to true (Gemini CLI runs no hook without it)`] : [];
    return { changes: [{ path, before, after }], notes };
  },
  uninstall(scope, homes) {
    const path = hooksFile(scope, homes);
    const before = readText(path);
    const after = uninstallHookGroups(path, before);
    if (after === undefined) return { changes: [], notes: [] };
    return { changes: [{ path, before, after }], notes: after === before ? [] : [`${path}: hooksConfig.enabled is left as it is (other hooks may need it)`] };
  },
  statusNotes(scope, homes) {
    const path = hooksFile(scope, homes);
    const text = readText(path);
    if (text === undefined) return [];
    const enabled = settingValue(parseSettings(path, text).text, ENABLED);
    return [`gemini hooksConfig.enabled in ${path}: ${enabled === undefined ? 'unset (hooks do not run)' : String(enabled)}`];
  },
};
