/** Where the MCP server answers (src/mcp/http.ts), apart so that the router and the gate need not load the SDK. */
export const MCP_PATH = '/mcp';

export function isMcpPath(path: string): boolean {
  return path === MCP_PATH || path.startsWith(`${MCP_PATH}/`);
}
