/**
 * Issue 29 item 4: `hooks install <agent>` registers `entity-memory mcp` in the agent's own MCP
 * settings (Claude Code's ~/.claude.json or .mcp.json, Codex's config.toml, Gemini's
 * settings.json), every other server and setting byte for byte; `--no-mcp` leaves them alone;
 * uninstall gives the files back exactly; and the entry written starts a working MCP server.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { BIN, runProcess } from '../helpers/cli.js';
import { EMBEDDED } from '../helpers/database.js';
import { onCleanup } from '../helpers/leftovers.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

function machine() {
  const home = tempDir('em-home-');
  const codexHome = join(home, 'codex-home');
  const dataDir = tempDir('em-data-');
  const env = { ...process.env, HOME: home, CODEX_HOME: codexHome, LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '', OPENPROGRAM_HOME: '' };
  const cli = (...args: string[]) => runProcess(process.execPath, [BIN, ...args], env);
  return { home, codexHome, dataDir, cli };
}

const MCP_BIN = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory-mcp.cjs');
const entry = (dataDir: string) => ({ command: process.execPath, args: [MCP_BIN, '--data-dir', dataDir] });

/** Claude Code's state file as it has one: other keys, another MCP server, two-space JSON. */
const CLAUDE_JSON = `{
  "numStartups": 12,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {}
    }
  },
  "projects": {}
}
`;

describe('hooks install registers the MCP server', () => {
  it("claude-code: mcpServers in ~/.claude.json beside the user's other servers; a second install changes nothing; uninstall gives the file back exactly", async () => {
    const { home, dataDir, cli } = machine();
    const file = join(home, '.claude.json');
    writeFileSync(file, CLAUDE_JSON);
    const installed = await cli('hooks', 'install', 'claude-code', '--data-dir', dataDir);
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`note: MCP server entity-memory registered in ${file}`);
    const written = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: Record<string, unknown>; numStartups: number };
    expect(written.mcpServers).toEqual({
      github: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: {} },
      'entity-memory': { type: 'stdio', ...entry(dataDir), env: {} },
    });
    expect(written.numStartups).toBe(12);
    const status = await cli('hooks', 'status', '--data-dir', dataDir);
    expect(status.stdout).toContain(`  MCP server entity-memory registered in ${file}, data dir ${dataDir}\n`);
    const text = readFileSync(file, 'utf8');
    const again = await cli('hooks', 'install', 'claude-code', '--data-dir', dataDir);
    expect(again.status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
    const removed = await cli('hooks', 'uninstall', 'claude-code');
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(CLAUDE_JSON);
  });

  it('claude-code --project: .mcp.json in the project, with the note about approving it; --no-mcp writes none', async () => {
    const { dataDir, cli } = machine();
    const project = tempDir('em-project-');
    const result = await cli('hooks', 'install', 'claude-code', '--project', project, '--data-dir', dataDir);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8'))).toEqual({ mcpServers: { 'entity-memory': { type: 'stdio', ...entry(dataDir), env: {} } } });
    expect(result.stdout).toMatch(/Claude Code asks once whether to use a project's \.mcp\.json servers/);
    const other = tempDir('em-project-');
    const hooksOnly = await cli('hooks', 'install', 'claude-code', '--project', other, '--no-mcp', '--data-dir', dataDir);
    expect(hooksOnly.status).toBe(0);
    expect(existsSync(join(other, '.mcp.json'))).toBe(false);
    expect(existsSync(join(other, '.claude', 'settings.json'))).toBe(true);
    const refused = await cli('hooks', 'uninstall', 'claude-code', '--no-mcp');
    expect(refused.status).toBe(2);
  });

  it("codex: an [mcp_servers.entity-memory] table in config.toml, the user's comments and tables as they were; uninstall removes exactly it", async () => {
    const { codexHome, dataDir, cli } = machine();
    mkdirSync(codexHome, { recursive: true });
    const config = join(codexHome, 'config.toml');
    const toml = `# my codex config
model = "gpt-5.5"

[features]
hooks = true

[mcp_servers.docs]
command = "docs-server"   # mine
args = ["--port", "9"]
`;
    writeFileSync(config, toml);
    const result = await cli('hooks', 'install', 'codex', '--data-dir', dataDir);
    expect(result.status, result.stderr).toBe(0);
    const { command, args } = entry(dataDir);
    expect(readFileSync(config, 'utf8')).toBe(`${toml}\n[mcp_servers.entity-memory]\ncommand = ${JSON.stringify(command)}\nargs = [${args.map((a) => JSON.stringify(a)).join(', ')}]\n`);
    // For another data dir: the table is replaced in place.
    const elsewhere = tempDir('em-data-');
    expect((await cli('hooks', 'install', 'codex', '--data-dir', elsewhere)).status).toBe(0);
    expect(readFileSync(config, 'utf8')).toContain(`args = [${JSON.stringify(MCP_BIN)}, "--data-dir", ${JSON.stringify(elsewhere)}]\n`);
    expect(readFileSync(config, 'utf8').match(/\[mcp_servers\.entity-memory\]/g)).toHaveLength(1);
    expect((await cli('hooks', 'uninstall', 'codex')).status).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(toml);
  });

  it('gemini: mcpServers in the settings.json that holds its hooks', async () => {
    const { home, dataDir, cli } = machine();
    const result = await cli('hooks', 'install', 'gemini', '--data-dir', dataDir);
    expect(result.status, result.stderr).toBe(0);
    const file = join(home, '.gemini', 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8')) as { mcpServers: unknown; hooks: Record<string, unknown> };
    expect(settings.mcpServers).toEqual({ 'entity-memory': entry(dataDir) });
    expect(Object.keys(settings.hooks)).toContain('AfterTool');
    expect((await cli('hooks', 'uninstall', 'gemini')).status).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('mcpServers.entity-memory');
  });

  it('the entry written starts a working MCP server against the data dir’s server', async () => {
    const { home, dataDir, cli } = machine();
    const api = await startTestServer({ dataDir, ...EMBEDDED });
    await api.raw('mutation { createSession(input: { sessionId: "registered" }) { sessionId } }');
    expect((await cli('hooks', 'install', 'claude-code', '--data-dir', dataDir)).status).toBe(0);
    const server = (JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers['entity-memory']!;
    const client = new Client({ name: 'as-claude-code', version: '1' });
    await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' }, stderr: 'pipe' }));
    onCleanup(() => client.close());
    const listed = await client.callTool({ name: 'list_sessions', arguments: {} });
    expect(listed.structuredContent).toMatchObject({ totalCount: 1, sessions: [{ sessionId: 'registered' }] });
  });
});
