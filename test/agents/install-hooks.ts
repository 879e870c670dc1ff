/**
 * entity-memory's hooks installed in a repo as a user does: `entity-memory hooks install <agent>
 * --project <repo> --data-dir <dataDir>`. The one place the agent tests install hooks.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ENTITY_MEMORY_BIN = fileURLToPath(new URL('../../bin/entity-memory.js', import.meta.url));

/** The project settings file each agent's hooks are written to, relative to the repo. */
export const HOOKS_FILE = { 'claude-code': join('.claude', 'settings.json'), gemini: join('.gemini', 'settings.json'), codex: join('.codex', 'hooks.json') } as const;

/**
 * Every file install writes in the repo: the hooks' and the MCP server's (Claude Code's .mcp.json,
 * Codex's .codex/config.toml; Gemini keeps both in one file). A team commits them; uncommitted,
 * they would be the user's uncommitted work, and every turn would be skipped.
 */
export const SHARED_FILES = {
  'claude-code': [HOOKS_FILE['claude-code'], '.mcp.json'],
  gemini: [HOOKS_FILE.gemini],
  codex: [HOOKS_FILE.codex, join('.codex', 'config.toml')],
} as const;

/**
 * Installs the hooks of `agent` in `repo`, sending to the server of `dataDir`. `env` is added to
 * the command's: for Codex, the test's CODEX_HOME (whose config.toml gets `[features] hooks`),
 * never this machine's. `flags` are the command's own (`--http`).
 * @returns the settings file's path.
 * @throws when the command fails (with its output).
 */
export async function installHooks(agent: keyof typeof HOOKS_FILE, repo: string, dataDir: string, env: Record<string, string> = {}, flags: string[] = []): Promise<string> {
  const args = [ENTITY_MEMORY_BIN, 'hooks', 'install', agent, '--project', repo, '--data-dir', dataDir, ...flags];
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
  const file = join(repo, HOOKS_FILE[agent]);
  if (code !== 0 || !existsSync(file)) throw new Error(`entity-memory hooks install ${agent} exited ${code}:\n${output}`);
  return file;
}
