/** The MCP SDK's own Client against a test server: over Streamable HTTP at /mcp, or over `entity-memory mcp` on stdio. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN } from '../helpers/cli.js';
import { onCleanup } from '../helpers/leftovers.js';
import type { TestServer } from '../helpers/server.js';

export async function httpClient(api: TestServer, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'entity-memory-test', version: '1.0.0' });
  const auth: Record<string, string> = api.token ? { authorization: `Bearer ${api.token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), { requestInit: { headers: { ...auth, ...headers } } }));
  onCleanup(() => client.close());
  return client;
}

/** `entity-memory mcp --data-dir DIR` as a process, the client on its stdio. */
export async function stdioClient(dataDir: string, env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'entity-memory-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--data-dir', dataDir],
    env: { ...(process.env as Record<string, string>), LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '', ...env },
    stderr: 'pipe',
  });
  await client.connect(transport);
  onCleanup(() => client.close());
  return client;
}

export interface ToolAnswer {
  text: string;
  data: Record<string, unknown>;
  isError: boolean;
  /** The whole result's size as a model would be given it. */
  size: number;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
  const data = (result.structuredContent ?? {}) as Record<string, unknown>;
  return { text, data, isError: result.isError === true, size: text.length + JSON.stringify(data).length };
}

/** The answer of a tool that must succeed. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const answer = await callTool(client, name, args);
  if (answer.isError) throw new Error(`${name} failed: ${answer.text}`);
  return answer;
}
