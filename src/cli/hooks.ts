/**
 * `entity-memory hooks install|uninstall|status` (the agents' settings files) and `entity-memory
 * hook <agent>` (what an installed hook runs, the same as bin/entity-memory-hook.cjs).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError } from '../config.js';
import { HOOK_AGENTS, isHookAgent, type HookAgent } from '../hooks/agent.js';
import { hookScript } from '../hooks/install/command.js';
import { CannotRun } from './errors.js';
import { answeredInfo, COMMON_LINES } from './help.js';

const AGENT_NAMES = HOOK_AGENTS.join('|');

export const HOOKS_HELP = `usage: entity-memory hooks install <${AGENT_NAMES}> [--user | --project DIR] [--http] [--no-mcp] [--context] [--dry-run] [--data-dir DIR]
       entity-memory hooks uninstall <${AGENT_NAMES}> [--user | --project DIR] [--dry-run] [--data-dir DIR]
       entity-memory hooks status [--project DIR] [--data-dir DIR]
       entity-memory hook <${AGENT_NAMES}> [--data-dir DIR]

install adds entity-memory's hook to the agent's settings, so the agent sends each event of every
session (prompt, tool calls, reply) to the server of the data dir as it happens. The hook runs
  <node> <this package>/bin/entity-memory-hook.cjs <agent> --data-dir <DIR>
by absolute paths, so it does not depend on the agent's PATH or HOME. With no server running the
events wait in <DIR>/hooks/spool.jsonl until one starts. Installing again replaces our hook (for
another data dir, say) and leaves every other hook and setting as it was, byte for byte; when
nothing would change nothing is written. Before a file is rewritten it is copied to
<file>.entity-memory.bak.

  claude-code   ~/.claude/settings.json, or DIR/.claude/settings.json
  codex         $CODEX_HOME/hooks.json (default ~/.codex), or DIR/.codex/hooks.json; and
                [features] hooks = true in $CODEX_HOME/config.toml, which Codex needs to run hooks
  gemini        ~/.gemini/settings.json, or DIR/.gemini/settings.json; and hooksConfig.enabled = true

install also registers entity-memory's MCP server (entity-memory mcp --data-dir DIR), so the agent
can search and read back its own sessions and restore files as a turn left them:
  claude-code   "mcpServers" in ~/.claude.json, or DIR/.mcp.json
  codex         [mcp_servers.entity-memory] in $CODEX_HOME/config.toml, or DIR/.codex/config.toml
  gemini        "mcpServers" in the same settings.json as its hooks

uninstall removes our hook entries only (and an event left with none), and our MCP server
entry. It leaves Codex's feature flag and Gemini's hooksConfig.enabled on: other hooks may need
them.

status prints, per agent, whether our hooks are installed for the user and for the project (DIR,
or the current folder when it has the agent's settings file), for which data dir and node; Codex's
feature flag; whether the data dir's server answers; the last event it received; events waiting
in the spool.

hook reads one event on stdin and sends it on, as the installed command does (exits 0, prints nothing).

  --user               the agent's settings in your home folder: every project (the default)
  --project DIR        DIR's own settings (e.g. .claude/settings.json, which a team may commit)
  --http               claude-code only: Claude Code posts each event (but SessionStart) to the
                       data dir's running server itself, no process per event: about half the
                       time a turn waits on hooks. An event posted while that server is down is
                       lost (the command hooks keep it in the spool); a server reachable beyond
                       loopback needs its token in $ENTITY_MEMORY_TOKEN where Claude Code runs
  --no-mcp             install the hooks only, not the MCP server
  --context            at each session start, give the agent the project's last sessions (title,
                       when, the last prompt, the files touched; at most 1,500 characters, nothing
                       for a project without history) and a line about the MCP tools
  --dry-run            print the change as a unified diff and write nothing
  --data-dir DIR       the data dir whose server records the events; default $OPENPROGRAM_HOME,
                       else ~/.openprogram
${COMMON_LINES}

Exit status: 0 done (also when already installed, or nothing to remove); 2 when it could not run
(a bad flag, a settings file that does not parse: path:line:col: reason, the file untouched).`;

function absolutePath(raw: string, flag: string): string {
  if (raw.trim() === '') throw new ConfigError(`${flag} must not be empty`);
  return isAbsolute(raw) ? resolve(raw) : resolve(process.cwd(), raw);
}

/** The data dir: the flag, else $OPENPROGRAM_HOME, else ~/.openprogram; absolute. */
export function hooksDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return absolutePath(flag ?? (env.OPENPROGRAM_HOME || join(homedir(), '.openprogram')), '--data-dir');
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { 'data-dir': { type: 'string' }, project: { type: 'string' }, user: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, http: { type: 'boolean' }, 'no-mcp': { type: 'boolean' }, context: { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
}

function agentArgument(raw: string | undefined, verb: string): HookAgent {
  if (raw === undefined) throw new ConfigError(`hooks ${verb} which agent? ${HOOK_AGENTS.join(', ')}`);
  if (!isHookAgent(raw)) throw new ConfigError(`unknown agent ${JSON.stringify(raw)}: ${HOOK_AGENTS.join(', ')}`);
  return raw;
}

/** `hooks install|uninstall|status`. */
export async function hooksCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => HOOKS_HELP)) return 0;
  const { values, positionals } = parse(argv);
  const [verb, agentRaw, ...extra] = positionals;
  if (extra.length > 0) throw new ConfigError(`unexpected argument ${JSON.stringify(extra[0])}`);
  const dataDir = hooksDataDir(values['data-dir']);
  const project = values.project === undefined ? undefined : absolutePath(values.project, '--project');
  if (verb === 'status') {
    if (agentRaw !== undefined) throw new ConfigError(`hooks status takes no agent (it shows them all), got ${JSON.stringify(agentRaw)}`);
    if (values.user || values['dry-run'] || values.http || values['no-mcp'] || values.context) throw new ConfigError(`hooks status takes --project and --data-dir only`);
    const { hooksStatus } = await import('./hooks-status.js');
    await hooksStatus({ dataDir, project });
    return 0;
  }
  if (verb !== 'install' && verb !== 'uninstall') {
    throw new ConfigError(verb === undefined ? 'hooks what? install, uninstall or status' : `unknown hooks command ${JSON.stringify(verb)}: install, uninstall or status`);
  }
  const agent = agentArgument(agentRaw, verb);
  if (values.user && project !== undefined) throw new ConfigError('--user and --project are one or the other');
  if (project !== undefined && !existsSync(project)) throw new CannotRun(`--project ${project}: no such folder`);
  const { changeHooks } = await import('./hooks-change.js');
  if (values.http && verb !== 'install') throw new ConfigError('--http is for hooks install');
  if (values['no-mcp'] && verb !== 'install') throw new ConfigError('--no-mcp is for hooks install (uninstall removes the MCP server entry too)');
  if (values.context && verb !== 'install') throw new ConfigError('--context is for hooks install');
  changeHooks({
    verb,
    agent,
    dataDir,
    scope: project === undefined ? { kind: 'user' } : { kind: 'project', dir: project },
    dryRun: values['dry-run'] === true,
    http: values.http === true,
    mcp: values['no-mcp'] !== true,
    context: values.context === true,
  });
  return 0;
}

/**
 * `hook <agent>`: runs bin/entity-memory-hook.cjs in this process (a second node would double the
 * start-up the agent waits for). The script reads process.argv and exits 0 when it is done.
 */
export async function hookCommand(argv: string[]): Promise<number | undefined> {
  if (answeredInfo(argv, () => HOOKS_HELP)) return 0;
  const { values, positionals } = parse(argv);
  const dataDir = hooksDataDir(values['data-dir']);
  const script = hookScript();
  process.argv = [process.argv[0]!, script, positionals[0] ?? '', '--data-dir', dataDir];
  await import(pathToFileURL(script).href);
  return undefined;
}
