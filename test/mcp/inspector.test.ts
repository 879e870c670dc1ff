/**
 * Issue 29: an MCP client that is not ours, @modelcontextprotocol/inspector-cli (the Inspector's
 * command line), lists and calls the tools over both transports: `entity-memory mcp` on stdio and
 * the server's /mcp over Streamable HTTP with the token.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runProcess } from '../helpers/cli.js';
import { EMBEDDED } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const TOKEN = 'tok_inspector_0123456789abcdefABCDEF';
// Its build folder: the CLI (1.0.3) finds its own package.json relative to the working directory.
const INSPECTOR_BUILD = dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/index.js'));

function inspector(args: string[]) {
  return runProcess(process.execPath, [join(INSPECTOR_BUILD, 'index.js'), ...args], { ...process.env, LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '' }, '', INSPECTOR_BUILD);
}

describe('the MCP Inspector CLI', () => {
  it('lists and calls the tools over stdio and over Streamable HTTP', async () => {
    const dataDir = tempDir();
    const api = await startTestServer({ dataDir, token: TOKEN, ...EMBEDDED });
    await api.raw('mutation { createSession(input: { sessionId: "inspected" }) { sessionId } }');
    const recorded = await api.raw('mutation { recordTurn(input: { sessionId: "inspected", user: { content: "rename the billing module" }, assistant: { content: "Renamed it." } }) { number } }');
    expect(recorded.errors).toBeUndefined();

    const listed = await inspector([process.execPath, BIN, 'mcp', '--data-dir', dataDir, '--method', 'tools/list']);
    expect(listed.status, listed.stderr).toBe(0);
    const tools = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools).toEqual(['search', 'list_sessions', 'get_turn', 'get_turn_diff', 'read_file_at_turn', 'project_history', 'restore_files', 'fork_session']);

    const called = await inspector([
      `${api.url}/mcp`,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${TOKEN}`,
      '--method',
      'tools/call',
      '--tool-name',
      'search',
      '--tool-arg',
      'query=billing',
    ]);
    expect(called.status, called.stderr).toBe(0);
    const result = JSON.parse(called.stdout) as { structuredContent: { hits: { session: string; turn: number }[] }; content: { text: string }[] };
    expect(result.structuredContent.hits[0]).toMatchObject({ session: 'inspected', turn: 1 });
    expect(result.content[0]!.text).toMatch(/match "billing"/);

    const refused = await inspector([`${api.url}/mcp`, '--transport', 'http', '--method', 'tools/list']);
    expect(refused.status).not.toBe(0);
  });
});
