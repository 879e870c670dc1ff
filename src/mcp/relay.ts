/**
 * The stdio side of `entity-memory mcp` (src/cli/mcp.ts): every JSON-RPC message from the agent
 * goes to the running server's /mcp and every answer comes back, through the SDK's stdio and
 * Streamable HTTP transports. A request the server cannot take (it stopped) is answered with an
 * error for that request, never dropped; a session the server no longer knows (it restarted) is
 * opened again with the agent's own initialize.
 */
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RunningServer } from '../cli/running-server.js';

type Message = JSONRPCMessage & { id?: string | number; method?: string };

export async function relay(server: RunningServer): Promise<void> {
  const stdio = new StdioServerTransport();
  const headers: Record<string, string> = server.token ? { authorization: `Bearer ${server.token}` } : {};
  let initialize: Message | undefined;
  let initialized: Message | undefined;
  let http: StreamableHTTPClientTransport;
  let reopening: Promise<void> | undefined;

  const open = async () => {
    http = new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers } });
    http.onmessage = (message) => {
      // The answer to the initialize this relay sent again after a restart is the relay's, not the agent's.
      if (reopening && 'id' in message && message.id === REOPEN_ID) return;
      void stdio.send(message);
    };
    http.onerror = () => {};
    await http.start();
  };

  /** A new session on the server: the agent's initialize again, then its `initialized`. */
  const reopen = async () => {
    await http.close().catch(() => {});
    await open();
    if (!initialize) return;
    await http.send({ ...initialize, id: REOPEN_ID } as JSONRPCMessage);
    if (initialized) await http.send(initialized as JSONRPCMessage);
  };

  const failed = (message: Message, error: unknown) => {
    if (message.id === undefined) return;
    const why = error instanceof Error ? error.message : String(error);
    void stdio.send({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: -32000, message: `The entity-memory server at ${server.url} did not answer (${why}); is it still running?` },
    } as JSONRPCMessage);
  };

  const forward = async (message: Message) => {
    if (message.method === 'initialize') initialize = message;
    if (message.method === 'notifications/initialized') initialized = message;
    try {
      await reopening;
      await http.send(message as JSONRPCMessage);
    } catch (error) {
      if (!(error instanceof StreamableHTTPError && error.code === 404) || !initialize || message.method === 'initialize') return failed(message, error);
      try {
        reopening ??= reopen().finally(() => (reopening = undefined));
        await reopening;
        await http.send(message as JSONRPCMessage);
      } catch (again) {
        failed(message, again);
      }
    }
  };

  await open();
  const done = new Promise<void>((resolve) => {
    stdio.onclose = resolve;
    process.stdin.on('end', resolve);
  });
  stdio.onmessage = (message) => void forward(message as Message);
  await stdio.start();
  await done;
  await http!.terminateSession().catch(() => {});
  await http!.close().catch(() => {});
}

const REOPEN_ID = 'entity-memory-relay-initialize';
