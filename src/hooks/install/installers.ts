/** Each agent's installer, by the agent's name. */
import type { HookAgent } from '../agent.js';
import { claudeCodeInstaller } from './claude-code.js';
import { codexInstaller } from './codex.js';
import { geminiInstaller } from './gemini.js';
import type { AgentInstaller } from './installer.js';

export const INSTALLERS: Record<HookAgent, AgentInstaller> = {
  'claude-code': claudeCodeInstaller,
  codex: codexInstaller,
  gemini: geminiInstaller,
};
