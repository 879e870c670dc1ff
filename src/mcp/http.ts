/**
 * `/mcp`: the MCP server over Streamable HTTP (the SDK's transport), behind the same gate as
 * /graphql (src/http/gate.ts: Host, Origin, token, JSON body). An `initialize` without a session
 * opens one (its id in `Mcp-Session-Id`); every later request names it; DELETE ends it.
 *
 * Sessions live in this process: with several instances behind one address, route a client to
 * one instance. At most MAX_SESSIONS are kept; past that, or idle for IDLE_MS, the least recently
 * used is closed (its client gets 404 and initializes again, as the spec has it).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { readBody } from '../http/read-body.js';
import type { Deps } from '../services/deps.js';
import { createMcpServer } from './server.js';

export { isMcpPath, MCP_PATH } from './path.js';
/** Largest JSON-RPC request read: tool arguments are small. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;
export const MAX_SESSIONS = 100;
export const IDLE_MS = 30 * 60 * 1000;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastUsed: number;
}

export interface McpHttp {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** How many sessions are open (for tests and /health). */
  sessions(): number;
  close(): Promise<void>;
}

/** A JSON-RPC error with no id, as the transport itself answers one. */
function refuse(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The body parsed as JSON; undefined after answering a refusal (too large, not JSON). */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<{ body: unknown } | undefined> {
  const text = await readBody(req, MAX_MCP_BODY_BYTES);
  if (text === null) {
    refuse(res, 413, -32600, `An MCP request is at most ${MAX_MCP_BODY_BYTES} bytes.`);
    req.destroy();
    return undefined;
  }
  try {
    return { body: JSON.parse(text) as unknown };
  } catch {
    refuse(res, 400, -32700, 'The body is not JSON: send one JSON-RPC message (or a batch) as application/json.');
    return undefined;
  }
}

export function createMcpHttp(deps: Deps): McpHttp {
  const open = new Map<string, Session>();

  const closeSession = async (id: string) => {
    const session = open.get(id);
    if (!session) return;
    open.delete(id);
    await session.transport.close().catch(() => {});
    await session.server.close().catch(() => {});
  };

  /** Idle sessions closed; then, while at the cap, the least recently used. */
  const makeRoom = async () => {
    const now = Date.now();
    for (const [id, session] of open) if (now - session.lastUsed > IDLE_MS) await closeSession(id);
    while (open.size >= MAX_SESSIONS) {
      const oldest = [...open.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (!oldest) break;
      await closeSession(oldest[0]);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id !== undefined) {
      const session = open.get(id);
      if (!session) return refuse(res, 404, -32001, 'No such MCP session (it ended or the server restarted): initialize a new one.');
      session.lastUsed = Date.now();
      if (req.method === 'POST') {
        const read = await readJson(req, res);
        if (!read) return;
        return session.transport.handleRequest(req, res, read.body);
      }
      await session.transport.handleRequest(req, res);
      if (req.method === 'DELETE') await closeSession(id);
      return;
    }
    if (req.method !== 'POST') return refuse(res, 400, -32000, 'No Mcp-Session-Id header: send initialize (POST) first.');
    const read = await readJson(req, res);
    if (!read) return;
    const messages = Array.isArray(read.body) ? read.body : [read.body];
    if (!messages.some((message) => isInitializeRequest(message))) {
      return refuse(res, 400, -32000, 'No Mcp-Session-Id header: the first request of a session is initialize.');
    }
    await makeRoom();
    const server = createMcpServer(deps);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sessionId) => {
        open.set(sessionId, { transport, server, lastUsed: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) open.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, read.body);
  };

  return {
    handle: async (req, res) => {
      try {
        await handle(req, res);
      } catch (error) {
        deps.logger.error({ err: error }, 'an MCP request failed');
        if (!res.headersSent) refuse(res, 500, -32603, 'Unexpected server error; it was logged by the entity-memory server.');
        else res.end();
      }
    },
    sessions: () => open.size,
    close: async () => {
      await Promise.all([...open.keys()].map(closeSession));
    },
  };
}
