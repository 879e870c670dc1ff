/**
 * `entity-memory mcp`: the MCP server on stdio, for agents that start MCP servers as processes.
 * It relays each JSON-RPC message between stdio and the running server's /mcp (Streamable HTTP,
 * the token from ENTITY_MEMORY_TOKEN or the data dir), so there is one server holding the data
 * dir and one implementation of the tools. The SDK's transports carry the messages both ways.
 *
 * When the server restarts under a running agent, the session it had is gone (404): the relay
 * opens a new one with the agent's own initialize and sends the request again.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { DataDirBusyError, lockDataDir } from '../data-dir-lock.js';
import { CannotRun } from './errors.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';
import { runningServer, type RunningServer } from './running-server.js';

const MCP_HELP = `usage: entity-memory mcp [--data-dir DIR]

Serves entity-memory's MCP tools (search, list_sessions, get_turn, get_turn_diff,
read_file_at_turn, project_history, restore_files, fork_session) and resources on stdin/stdout,
for an agent that starts MCP servers as processes. It goes through the server running on the
data dir (entity-memory serve, or npm start), which must be up; agents that speak Streamable
HTTP can use that server's /mcp directly.

${DATA_DIR_LINE}
${COMMON_LINES}

Exit status: 0 when the agent closes stdin; 2 when no server runs on the data dir or it does not
answer, with one line on stderr.`;

/** Where the server listens, or CannotRun when none holds the data dir. */
async function serverOf(dataDirArgs: string[]): Promise<RunningServer> {
  const config = loadConfig(dataDirArgs, process.env);
  let lock;
  try {
    lock = await lockDataDir(config.dataDir, { command: 'mcp' });
  } catch (error) {
    if (error instanceof DataDirBusyError && error.holder?.command === 'serve') return runningServer(config, error.holder.pid);
    throw error;
  }
  await lock.release();
  throw new CannotRun(`no entity-memory server is running on the data dir ${config.dataDir}: start one (entity-memory serve, or npm start in its folder) and the agent's MCP server again`);
}

export async function mcpCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => MCP_HELP)) return 0;
  let values: { 'data-dir'?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const server = await serverOf(values['data-dir'] !== undefined ? ['--data-dir', values['data-dir']] : []);
  const [{ relay }] = await Promise.all([import('../mcp/relay.js')]);
  await relay(server);
  return 0;
}
