/** The agents sessions come from, by the names people know them by (the sessions list and the session page). */
export const AGENT_NAMES: Record<string, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  chat: 'Chat log',
};

/** The agent a session came from, by name ("Claude Code", "Codex", "Gemini CLI"), or its own id when unknown; null when it says none. */
export function agentName(session: { agentId?: string | null; source?: string | null }): string | null {
  const id = session.agentId || session.source;
  if (!id) return null;
  return AGENT_NAMES[id] ?? id;
}
