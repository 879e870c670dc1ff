/**
 * `entity-memory mcp`: the MCP server on stdio, for agents that start MCP servers as processes.
 * It runs bin/entity-memory-mcp.cjs, which relays each JSON-RPC message between stdio and the
 * running server's /mcp (the token from ENTITY_MEMORY_TOKEN or the data dir), so there is one
 * server holding the data dir and one implementation of the tools.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { MCP_SCRIPT_NAME, mcpScript } from '../hooks/install/command.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';

const MCP_HELP = `usage: entity-memory mcp [--data-dir DIR]

Serves entity-memory's MCP tools (search, list_sessions, get_turn, get_turn_diff,
read_file_at_turn, project_history, restore_files, fork_session) and resources on stdin/stdout,
for an agent that starts MCP servers as processes. It relays each message to the server running
on the data dir (entity-memory serve, or npm start), which must be up; agents that speak
Streamable HTTP can use that server's /mcp directly. hooks install registers the same relay as
  <node> <this package>/bin/${MCP_SCRIPT_NAME} --data-dir <DIR>

${DATA_DIR_LINE}
${COMMON_LINES}

The token is $ENTITY_MEMORY_TOKEN, else the data dir's token file.

Exit status: 0 when the agent closes stdin; 2 when no server runs on the data dir or it does not
answer, with one line on stderr.`;

/**
 * `mcp`: runs bin/entity-memory-mcp.cjs in this process (as `hook` runs the hook script), for the
 * data dir of the flags and the environment.
 */
export async function mcpCommand(argv: string[]): Promise<number | undefined> {
  if (answeredInfo(argv, () => MCP_HELP)) return 0;
  let values: { 'data-dir'?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const { dataDir } = loadConfig(values['data-dir'] !== undefined ? ['--data-dir', values['data-dir']] : [], process.env);
  const script = mcpScript();
  process.argv = [process.argv[0]!, script, '--data-dir', dataDir];
  await import(pathToFileURL(script).href);
  // The script exits when the agent closes stdin.
  return undefined;
}
