/**
 * Claude Code: `hooks` in .claude/settings.json of the project, or ~/.claude/settings.json. A
 * handler's timeout is in seconds; the tool events take a matcher ("*": every tool; PreToolUse
 * only Bash's). The shape
 * is the one Claude Code 2.1.197 accepted in our recorded runs (test/agents).
 */
import { join } from 'node:path';
import { installHookGroups, settingValue, uninstallHookGroups, type HookGroupsFormat } from './hook-groups.js';
import type { AgentInstaller, Scope, AgentHomes } from './installer.js';
import { parseSettings, readText } from './settings-file.js';

/** Seconds the agent waits for the hook: the hook gives itself one second, this is only a backstop. */
export const HOOK_TIMEOUT_SECONDS = 10;

const FORMAT: HookGroupsFormat = {
  events: [
    { name: 'SessionStart' },
    { name: 'UserPromptSubmit' },
    // Only a shell command needs its start noted (the paths it changes are found by looking before and after):
    // the agent waits on every hook process, so no other tool is made to wait on one.
    { name: 'PreToolUse', matcher: 'Bash' },
    { name: 'PostToolUse', matcher: '*' },
    { name: 'Stop' },
    { name: 'SubagentStop' },
    { name: 'PreCompact' },
    { name: 'SessionEnd' },
  ],
  handler: (command) => ({ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }),
};

function hooksFile(scope: Scope, homes: AgentHomes): string {
  return join(scope.kind === 'user' ? homes.home : scope.dir, '.claude', 'settings.json');
}

export const claudeCodeInstaller: AgentInstaller = {
  agent: 'claude-code',
  hooksFile,
  events: FORMAT.events.map((event) => event.name),
  install(scope, homes, command) {
    const path = hooksFile(scope, homes);
    const before = readText(path);
    return { changes: [{ path, before, after: installHookGroups(path, before, FORMAT, command) }], notes: [] };
  },
  uninstall(scope, homes) {
    const path = hooksFile(scope, homes);
    const before = readText(path);
    const after = uninstallHookGroups(path, before);
    return { changes: after === undefined ? [] : [{ path, before, after }], notes: [] };
  },
  statusNotes(scope, homes) {
    const path = hooksFile(scope, homes);
    const text = readText(path);
    if (text === undefined) return [];
    const parsed = parseSettings(path, text);
    return settingValue(parsed.text, ['disableAllHooks']) === true ? [`${path} sets "disableAllHooks": true: Claude Code runs no hook`] : [];
  },
};
