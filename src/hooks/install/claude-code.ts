/**
 * Claude Code: `hooks` in .claude/settings.json of the project, or ~/.claude/settings.json. A
 * handler's timeout is in seconds; the tool events take a matcher ("*": every tool; PreToolUse
 * only Bash's). The shape
 * is the one Claude Code 2.1.197 accepted in our recorded runs (test/agents).
 */
import { join } from 'node:path';
import { installHookGroups, settingValue, uninstallHookGroups, type HookEventSpec, type HookGroupsFormat } from './hook-groups.js';
import type { AgentInstaller, AgentHomes, HttpHooks, Scope } from './installer.js';
import { parseSettings, readText } from './settings-file.js';

/** Seconds the agent waits for the hook: the hook gives itself one second, this is only a backstop. */
export const HOOK_TIMEOUT_SECONDS = 10;

/**
 * The variable an http hook's Authorization header is read from (Claude Code interpolates only
 * the variables a handler names in allowedEnvVars): needed for a server reachable beyond
 * loopback, whose API takes a token; a loopback server ignores the header.
 */
export const HTTP_TOKEN_VARIABLE = 'ENTITY_MEMORY_TOKEN';

const EVENTS: HookEventSpec[] = [
    { name: 'SessionStart' },
    { name: 'UserPromptSubmit' },
    // Only a shell command needs its start noted (the paths it changes are found by looking before and after):
    // the agent waits on every hook process, so no other tool is made to wait on one.
    { name: 'PreToolUse', matcher: 'Bash' },
    { name: 'PostToolUse', matcher: '*' },
    // A call that failed (an Edit whose text is not there, a command that exits non-zero) ends here instead.
    { name: 'PostToolUseFailure', matcher: '*' },
    { name: 'Stop' },
    { name: 'SubagentStop' },
    { name: 'PreCompact' },
    { name: 'SessionEnd' },
];

const FORMAT: HookGroupsFormat = {
  events: EVENTS,
  handler: (command) => ({ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }),
};

/**
 * Claude Code's http hooks: it posts each event to /hooks/claude-code itself, so no process
 * starts per event (half the time a turn spends in our hooks, bench/claude-run --http). Not for
 * SessionStart, which Claude Code never sends to an http hook: that one stays a command. An
 * event posted while the server is down is lost (Claude Code reports a hook error and goes on),
 * where a command hook keeps it in the spool.
 */
function httpFormat(http: HttpHooks): HookGroupsFormat {
  const url = new URL('/hooks/claude-code', http.serverUrl).href;
  return {
    events: EVENTS,
    handler: (command, event) =>
      event.name === 'SessionStart'
        ? { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }
        : {
            type: 'http',
            url,
            timeout: HOOK_TIMEOUT_SECONDS,
            headers: { Authorization: `Bearer $${HTTP_TOKEN_VARIABLE}` },
            allowedEnvVars: [HTTP_TOKEN_VARIABLE],
          },
  };
}

function hooksFile(scope: Scope, homes: AgentHomes): string {
  return join(scope.kind === 'user' ? homes.home : scope.dir, '.claude', 'settings.json');
}

export const claudeCodeInstaller: AgentInstaller = {
  agent: 'claude-code',
  hooksFile,
  events: FORMAT.events.map((event) => event.name),
  httpHooks: true,
  install(scope, homes, command, http) {
    const path = hooksFile(scope, homes);
    const before = readText(path);
    const notes = http
      ? [
          `http hooks: Claude Code posts each event to ${new URL('/hooks/claude-code', http.serverUrl).href} (SessionStart stays a command); ` +
            'an event posted while that server is down is lost, where the command hooks keep it (install again without --http for those)',
        ]
      : [];
    return { changes: [{ path, before, after: installHookGroups(path, before, http ? httpFormat(http) : FORMAT, command) }], notes };
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
