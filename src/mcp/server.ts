/**
 * entity-memory as an MCP server (the official SDK's `Server`): the tools of src/mcp/tools.ts and
 * the resources of src/mcp/resources.ts over one transport. src/mcp/http.ts gives each
 * Streamable HTTP session one of these; `entity-memory mcp` (src/cli/mcp.ts) relays stdio to it.
 *
 * The tools are listed and called here rather than through the SDK's McpServer so that a bad
 * argument is answered as one sentence naming the field (McpServer answers zod's issue list as
 * JSON), and so that every answer passes through the same size bound.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { PACKAGE_ROOT } from '../package-root.js';
import type { Deps } from '../services/deps.js';
import { createRun, ToolError, type Run } from './execute.js';
import { listResources, readResource, RESOURCE_TEMPLATES } from './resources.js';
import { TOOLS, type Tool } from './tools.js';

/** The MCP error code for a resource that is not there (the spec's -32002). */
const RESOURCE_NOT_FOUND = -32002;

const INSTRUCTIONS =
  "entity-memory remembers every session of the coding agents on this machine: each turn's messages and tool calls, and the project commit it ended with. " +
  'search finds what was said or done; list_sessions, get_turn, get_turn_diff and read_file_at_turn read a session back; project_history tells the agent\'s commits from the user\'s; ' +
  'restore_files puts files back as a turn left them (plan first, then confirm: true), and never over the user\'s changes.';

const packageVersion = (() => {
  try {
    return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

/** Each tool as tools/list gives it: its JSON schema, derived once from its zod input. */
const LISTED = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: toJsonSchema(tool.input),
  annotations: { title: tool.title, ...tool.annotations },
}));

function toJsonSchema(schema: z.ZodType): { type: 'object'; [key: string]: unknown } {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return { ...rest, type: 'object' };
}

/** A zod failure as one sentence naming the argument, e.g. "turn: Too small: expected number to be >=1". */
function inputError(tool: Tool, error: z.ZodError, args: unknown): string {
  const issue = error.issues[0];
  if (!issue) return `The arguments of ${tool.name} are not valid.`;
  const field = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    return `${tool.name} has no argument ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}; it takes ${Object.keys((tool.input as z.ZodObject).shape).join(', ')}.`;
  }
  const given = args !== null && typeof args === 'object' && issue.path.length === 1 && (args as Record<string, unknown>)[String(issue.path[0])] !== undefined;
  if (issue.code === 'invalid_type' && issue.path.length === 1 && !given) return `${tool.name} needs the argument ${field}.`;
  return `Invalid argument ${field || '(the arguments)'} of ${tool.name}: ${issue.message}.`;
}

function toolResult(text: string, data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: data };
}

function toolFailure(error: ToolError): CallToolResult {
  return { content: [{ type: 'text', text: error.message }], structuredContent: { error: { code: error.code, message: error.message } }, isError: true };
}

export async function callTool(run: Run, name: string, args: unknown): Promise<CallToolResult> {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool ${JSON.stringify(name.slice(0, 100))}: the tools are ${TOOLS.map((t) => t.name).join(', ')}.`);
  const parsed = tool.input.safeParse(args ?? {});
  if (!parsed.success) return toolFailure(new ToolError(inputError(tool, parsed.error, args), 'BAD_USER_INPUT'));
  try {
    const answer = await tool.call(parsed.data, run);
    return toolResult(answer.text, answer.data);
  } catch (error) {
    if (error instanceof ToolError) return toolFailure(error);
    throw error;
  }
}

/** A new MCP server over `deps` (one per transport). */
export function createMcpServer(deps: Deps): Server {
  const run = createRun(deps);
  const server = new Server(
    { name: 'entity-memory', title: 'entity-memory', version: packageVersion },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: LISTED }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      return await callTool(run, request.params.name, request.params.arguments);
    } catch (error) {
      if (error instanceof McpError) throw error;
      // Already logged with its request id by the error masking; the model gets one sentence.
      deps.logger.error({ err: error, tool: request.params.name }, 'an MCP tool failed');
      return toolFailure(new ToolError('Unexpected server error; it was logged by the entity-memory server.', 'INTERNAL_SERVER_ERROR'));
    }
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES.map((t) => ({ ...t })) }));
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    try {
      return await listResources(run, request.params?.cursor);
    } catch (error) {
      throw asMcpError(error, deps);
    }
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      const text = await readResource(run, request.params.uri);
      return { contents: [{ uri: request.params.uri, mimeType: 'text/markdown', text }] };
    } catch (error) {
      throw asMcpError(error, deps);
    }
  });
  return server;
}

/** A resource request's failure as the protocol's error: not found (-32002), bad input, or ours (logged). */
function asMcpError(error: unknown, deps: Deps): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof ToolError) return new McpError(error.code === 'NOT_FOUND' ? RESOURCE_NOT_FOUND : ErrorCode.InvalidParams, error.message, { code: error.code });
  deps.logger.error({ err: error }, 'an MCP resource request failed');
  return new McpError(ErrorCode.InternalError, 'Unexpected server error; it was logged by the entity-memory server.');
}
