/** What each agent's installer offers the `hooks` command, and where the agents keep their settings. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { HookAgent } from '../agent.js';
import type { HookCommandFor } from './hook-groups.js';
import type { FileChange } from './settings-file.js';

/** Where hooks are installed: for the user (every project), or in one project's folder. */
export type Scope = { kind: 'user' } | { kind: 'project'; dir: string };

/** The folders the agents' user settings live in. */
export interface AgentHomes {
  /** $HOME (os.homedir()). */
  home: string;
  /** $CODEX_HOME, default ~/.codex. */
  codexHome: string;
}

export function agentHomes(env: NodeJS.ProcessEnv = process.env): AgentHomes {
  const home = homedir();
  return { home, codexHome: env.CODEX_HOME || join(home, '.codex') };
}

/** Where http hooks post: the server's base URL (its /hooks/<agent> is appended). */
export interface HttpHooks {
  serverUrl: string;
}

/** What an install or uninstall would write: every file it looked at (unchanged ones too), and what to tell the user. */
export interface InstallPlan {
  changes: FileChange[];
  notes: string[];
}

export interface AgentInstaller {
  agent: HookAgent;
  /** The file holding the agent's hooks for `scope`. */
  hooksFile(scope: Scope, homes: AgentHomes): string;
  /** The events we hook, in the agent's words. */
  events: readonly string[];
  /**
   * `http`: the agent posts each event but SessionStart to the server at this URL itself (Claude
   * Code's http hooks), no process per event; undefined for agents without them.
   * @throws SettingsFileError when a file does not parse or has the wrong shape; nothing is written
   */
  install(scope: Scope, homes: AgentHomes, command: HookCommandFor, http?: HttpHooks): InstallPlan;
  /** Whether the agent can post events itself (Claude Code's http hooks). */
  httpHooks?: boolean;
  /** @throws SettingsFileError as install */
  uninstall(scope: Scope, homes: AgentHomes): InstallPlan;
  /** Lines about what else the agent needs to run the hooks (Codex's feature flag, Gemini's hooksConfig). */
  statusNotes(scope: Scope, homes: AgentHomes): string[];
}
