/** The agents entity-memory captures live through their hooks, by the names used in `/hooks/<agent>` and the CLI. */
export const HOOK_AGENTS = ['claude-code', 'codex', 'gemini'] as const;
export type HookAgent = (typeof HOOK_AGENTS)[number];

export function isHookAgent(value: string): value is HookAgent {
  return (HOOK_AGENTS as readonly string[]).includes(value);
}
