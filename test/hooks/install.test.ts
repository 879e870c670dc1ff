/**
 * `entity-memory hooks install|uninstall|status` and `hook`, as a process, on settings files in
 * temp HOME, CODEX_HOME and project folders: files made or edited in place (everything but our
 * entries byte for byte), refused when they do not parse, left alone by a dry run or a second
 * install; Codex's config.toml changed in its [features] table only; and the command written in
 * a settings file run as an agent runs it (sh -c, an event on stdin, even with no environment at
 * all), its event recorded by a real server that status then reports.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/git.js';
import { BIN as bin, runProcess as run } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { claudeEvents, HOOK_BIN } from './hook-events.js';

/** A home folder and a CODEX_HOME of its own, and the command line run with them. */
function machine() {
  const home = tempDir('em-home-');
  const codexHome = join(home, 'codex-home');
  const dataDir = join(tempDir('em-data-'), 'data dir');
  const env = { ...process.env, HOME: home, CODEX_HOME: codexHome, LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '', OPENPROGRAM_HOME: '' };
  const cli = (...args: string[]) => run(process.execPath, [bin, ...args], env);
  return { home, codexHome, dataDir, cli };
}

function json(path: string): { hooks: Record<string, { matcher?: string; hooks: { type: string; command: string; timeout: number; name?: string }[] }[]>; [key: string]: unknown } {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** What install writes as the hook's command for `agent` and `dataDir`, said independently of the code: sh quoting by hand. */
function expectedCommand(agent: string, dataDir: string): string {
  const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  return [process.execPath, HOOK_BIN, agent, '--data-dir', dataDir].map(quote).join(' ');
}

const CLAUDE_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SubagentStop', 'PreCompact', 'SessionEnd'];

/** A user's own settings: comments, other hooks, four-space indentation, a one-line array, odd spacing. */
const HAND_WRITTEN = `{
    // personal settings: keep this comment
    "model":"opus",   "hooks" : {
        "Stop": [ { "hooks": [ {"type":"command","command":"say done"} ] } ],  // mine
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]}
        ]
    },
    "permissions": {"allow": ["Bash(npm test)"]}   /* trailing */
}
`;

describe('entity-memory hooks install / uninstall', () => {
  it('claude-code into a missing file: creates it with our hook in each event (matcher * on PostToolUse and PostToolUseFailure, Bash on PreToolUse), no backup; the command names node, the script and the data dir', async () => {
    const { home, dataDir, cli } = machine();
    const result = await cli('hooks', 'install', 'claude-code', '--data-dir', dataDir);
    expect(result.status, result.stderr).toBe(0);
    const file = join(home, '.claude', 'settings.json');
    expect(result.stdout).toContain(`created ${file}`);
    const settings = json(file);
    expect(Object.keys(settings.hooks)).toEqual(CLAUDE_EVENTS);
    for (const event of CLAUDE_EVENTS) {
      const matcher = event === 'PreToolUse' ? { matcher: 'Bash' } : event === 'PostToolUse' || event === 'PostToolUseFailure' ? { matcher: '*' } : {};
      expect(settings.hooks[event]).toEqual([{ ...matcher, hooks: [{ type: 'command', command: expectedCommand('claude-code', dataDir), timeout: 10 }] }]);
    }
    expect(existsSync(`${file}.entity-memory.bak`)).toBe(false);
  });

  it("into a hand-written file: adds our entries and changes no other byte; a second install changes nothing and makes no second backup; uninstall gives the user's file back exactly", async () => {
    const { home, dataDir, cli } = machine();
    const file = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'));
    writeFileSync(file, HAND_WRITTEN, { mode: 0o640 });

    const first = await cli('hooks', 'install', 'claude-code', '--user', '--data-dir', dataDir);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain(`updated ${file} (previous file kept as ${file}.entity-memory.bak)`);
    // What the file must be, written out: the one-line array gets ours on its line, compact; the
    // rest goes on lines of its own at the file's four-space indentation.
    const command = expectedCommand('claude-code', dataDir);
    const group = (event: string) => ({ ...(event === 'PreToolUse' ? { matcher: 'Bash' } : event === 'PostToolUse' || event === 'PostToolUseFailure' ? { matcher: '*' } : {}), hooks: [{ type: 'command', command, timeout: 10 }] });
    const block = (value: unknown, indent: string) => JSON.stringify(value, null, 4).replace(/\n/g, `\n${indent}`);
    const added = ['SessionStart', 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'SubagentStop', 'PreCompact', 'SessionEnd'];
    const expected = `{
    // personal settings: keep this comment
    "model":"opus",   "hooks" : {
        "Stop": [ { "hooks": [ {"type":"command","command":"say done"} ] }, ${JSON.stringify(group('Stop'))} ],  // mine
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]},
            ${block(group('PreToolUse'), '            ')}
        ],
${added.map((event) => `        ${JSON.stringify(event)}: ${block([group(event)], '        ')}`).join(',\n')}
    },
    "permissions": {"allow": ["Bash(npm test)"]}   /* trailing */
}
`;
    const installed = readFileSync(file, 'utf8');
    expect(installed).toBe(expected);
    expect(readFileSync(`${file}.entity-memory.bak`, 'utf8')).toBe(HAND_WRITTEN);
    expect(statSync(file).mode & 0o777).toBe(0o640);

    const before = statSync(file);
    const second = await cli('hooks', 'install', 'claude-code', '--data-dir', dataDir);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain(`claude-code: already installed in ${file}`);
    expect(statSync(file).ino).toBe(before.ino);
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
    expect(readFileSync(`${file}.entity-memory.bak`, 'utf8')).toBe(HAND_WRITTEN);

    const removed = await cli('hooks', 'uninstall', 'claude-code', '--data-dir', dataDir);
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(HAND_WRITTEN);
    expect(readFileSync(`${file}.entity-memory.bak`, 'utf8')).toBe(installed);
    const again = await cli('hooks', 'uninstall', 'claude-code');
    expect(again.stdout).toContain(`claude-code: no entity-memory hooks in ${file}; nothing written`);
  });

  it('replaces our entry installed for another data dir, in place, and leaves the others', async () => {
    const { home, dataDir, cli } = machine();
    const project = tempDir('em-project-');
    expect((await cli('hooks', 'install', 'claude-code', '--project', project, '--data-dir', join(home, 'old'))).status).toBe(0);
    const file = join(project, '.claude', 'settings.json');
    const withOld = json(file);
    withOld.hooks.Stop!.unshift({ hooks: [{ type: 'command', command: 'say done', timeout: 1 }] });
    writeFileSync(file, JSON.stringify(withOld, null, 2));
    const result = await cli('hooks', 'install', 'claude-code', '--project', project, '--data-dir', dataDir);
    expect(result.status, result.stderr).toBe(0);
    // Left uncommitted, the settings file would be the user's change and skip every turn: the install says so.
    expect(result.stdout).toContain('note: commit .claude/settings.json and .mcp.json (or install with --user): while they are uncommitted');
    const settings = json(file);
    expect(settings.hooks.Stop).toEqual([
      { hooks: [{ type: 'command', command: 'say done', timeout: 1 }] },
      { hooks: [{ type: 'command', command: expectedCommand('claude-code', dataDir), timeout: 10 }] },
    ]);
    expect(JSON.stringify(settings)).not.toContain(join(home, 'old'));
    // The user's settings were not touched.
    expect(existsSync(join(home, '.claude'))).toBe(false);
  });

  it('refuses a file that does not parse with path:line:col and exit 2, and leaves it as it was', async () => {
    const { home, cli } = machine();
    const file = join(home, '.gemini', 'settings.json');
    mkdirSync(join(home, '.gemini'));
    const broken = '{\n  "theme": "dark",\n  "hooks": { "BeforeTool": [ }\n}\n';
    writeFileSync(file, broken);
    const result = await cli('hooks', 'install', 'gemini');
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`^entity-memory: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:30: a value was expected\\n$`));
    expect(readFileSync(file, 'utf8')).toBe(broken);
    expect(existsSync(`${file}.entity-memory.bak`)).toBe(false);
  });

  it('--dry-run prints a unified diff and writes nothing, for a missing file and for an existing one', async () => {
    const { home, dataDir, cli } = machine();
    const missing = join(home, '.claude', 'settings.json');
    const dry = await cli('hooks', 'install', 'claude-code', '--dry-run', '--data-dir', dataDir);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`--- /dev/null\n+++ ${missing}\n@@ -0,0 +1,`);
    expect(dry.stdout).toContain('+    "SessionStart": [');
    expect(dry.stdout).toContain('dry run: nothing written');
    expect(existsSync(join(home, '.claude'))).toBe(false);

    mkdirSync(join(home, '.claude'));
    writeFileSync(missing, HAND_WRITTEN);
    const diff = await cli('hooks', 'install', 'claude-code', '--dry-run', '--data-dir', dataDir);
    expect(diff.stdout).toContain(`--- ${missing}\n+++ ${missing}\n@@ -1,`);
    expect(diff.stdout).toContain(`-        "Stop": [ { "hooks": [ {"type":"command","command":"say done"} ] } ],  // mine\n+        "Stop": [ { "hooks": [ {"type":"command","command":"say done"} ] }, {"hooks"`);
    expect(readFileSync(missing, 'utf8')).toBe(HAND_WRITTEN);
    expect(existsSync(`${missing}.entity-memory.bak`)).toBe(false);
  });

  it("codex: hooks.json in CODEX_HOME, and [features] hooks = true in its config.toml, with the file's comments and other tables as they were; uninstall leaves the flag and says so", async () => {
    const { codexHome, dataDir, cli } = machine();
    mkdirSync(codexHome, { recursive: true });
    const config = join(codexHome, 'config.toml');
    const toml = `# my codex config
model = "gpt-5.5"   # the default

[features]
# experiments I run
web_search = true
hooks = false   # off while I debug

[projects."/home/dev/shop"]
trust_level = "trusted"
hooks = false
`;
    writeFileSync(config, toml);
    // The MCP server's table in the same file is test/hooks/install-mcp.test.ts's.
    const result = await cli('hooks', 'install', 'codex', '--no-mcp', '--data-dir', dataDir);
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe(toml.replace('hooks = false   # off while I debug', 'hooks = true   # off while I debug'));
    expect(result.stdout).toContain(`${config}: [features] hooks was off; turned on`);
    const hooks = json(join(codexHome, 'hooks.json'));
    expect(Object.keys(hooks.hooks)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'SubagentStart', 'SubagentStop', 'Stop']);
    expect(hooks.hooks.PreToolUse).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: expectedCommand('codex', dataDir), timeout: 10 }] }]);

    const removed = await cli('hooks', 'uninstall', 'codex');
    expect(removed.status, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`${config}: [features] hooks is left as it is (other hooks may need it)`);
    expect(json(join(codexHome, 'hooks.json'))).toEqual({});
    expect(readFileSync(config, 'utf8')).toContain('hooks = true   # off while I debug');
  });

  it('codex: a config.toml without [features] gets the table at its end; one with the table but no flag gets the line under its header', async () => {
    const { codexHome, dataDir, cli } = machine();
    mkdirSync(codexHome, { recursive: true });
    const config = join(codexHome, 'config.toml');
    writeFileSync(config, 'model = "o4"\n\n[analytics]\nenabled = false\n');
    expect((await cli('hooks', 'install', 'codex', '--no-mcp', '--data-dir', dataDir)).status).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe('model = "o4"\n\n[analytics]\nenabled = false\n\n[features]\nhooks = true\n');
    writeFileSync(config, '[features] # flags\nweb_search = true\n');
    expect((await cli('hooks', 'install', 'codex', '--no-mcp', '--data-dir', dataDir)).status).toBe(0);
    expect(readFileSync(config, 'utf8')).toBe('[features] # flags\nhooks = true\nweb_search = true\n');
  });

  it('gemini: our hook named, its timeout in milliseconds, matcher .* on tool events, and hooksConfig.enabled set', async () => {
    const { home, dataDir, cli } = machine();
    const project = tempDir('em-project-');
    mkdirSync(join(project, '.gemini'));
    const file = join(project, '.gemini', 'settings.json');
    writeFileSync(file, '{\n  "hooksConfig": { "enabled": false },\n  "theme": "dark"\n}\n');
    const result = await cli('hooks', 'install', 'gemini', '--project', project, '--data-dir', dataDir);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('hooksConfig.enabled was false; set to true');
    const settings = json(file);
    expect(settings.hooksConfig).toEqual({ enabled: true });
    expect(settings.theme).toBe('dark');
    expect(Object.keys(settings.hooks)).toEqual(['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'SessionEnd']);
    expect(settings.hooks.AfterTool).toEqual([{ matcher: '.*', hooks: [{ type: 'command', name: 'entity-memory', command: expectedCommand('gemini', dataDir), timeout: 10000 }] }]);
    expect(existsSync(join(home, '.gemini'))).toBe(false);
  });

  it('refuses an unknown agent, a missing one, and --user with --project, with exit 2', async () => {
    const { cli } = machine();
    for (const args of [['hooks', 'install', 'cursor'], ['hooks', 'install'], ['hooks', 'install', 'codex', '--user', '--project', '.'], ['hooks', 'frobnicate']]) {
      const result = await cli(...args);
      expect(result.status, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^entity-memory: .+ \(see --help\)\n$/);
    }
  });
});

describe('the installed command', () => {
  it("runs as the agent runs it (sh -c, the event on stdin), its event is recorded by the data dir's server, and status reports the hook, the server and that event", async () => {
    const { home, dataDir, cli } = machine();
    mkdirSync(dataDir, { recursive: true });
    const api = await startTestServer({ dataDir });
    expect((await cli('hooks', 'install', 'claude-code', '--data-dir', dataDir)).status).toBe(0);
    const settings = json(join(home, '.claude', 'settings.json'));
    const command = settings.hooks.UserPromptSubmit![0]!.hooks[0]!.command;
    const events = claudeEvents('installed-1', home);
    const hook = await run('/bin/sh', ['-c', command], { PATH: process.env.PATH ?? '' }, JSON.stringify(events.prompt('p1', 'hello from the hook')));
    expect(hook).toEqual({ status: 0, stdout: '', stderr: '' });
    const session = await eventually(async () => {
      const result = await api.raw('query($id: String!) { session(sessionId: $id) { agentId messages(first: 5) { edges { node { role content } } } } }', { id: 'installed-1' });
      const found = (result.data as { session: { agentId: string; messages: { edges: { node: { role: string; content: string } }[] } } | null }).session;
      // The session is made first, its prompt written next (and under load the hook may have spooled it for a replay).
      return found && found.messages.edges.length > 0 ? found : undefined;
    });
    expect(session.agentId).toBe('claude-code');
    expect(session.messages.edges.map((edge) => edge.node)).toEqual([{ role: 'USER', content: 'hello from the hook' }]);

    await eventually(async () => existsSync(join(dataDir, 'hooks', 'last-event.json')));
    const status = await cli('hooks', 'status', '--data-dir', dataDir);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain(`claude-code user ${join(home, '.claude', 'settings.json')}: installed (9 events), data dir ${dataDir}, node ${process.execPath}\n`);
    expect(status.stdout).toContain(`codex user ${join(home, 'codex-home', 'hooks.json')}: not installed (no such file)`);
    expect(status.stdout).toContain('codex [features] hooks in');
    expect(status.stdout).toContain(`data dir ${dataDir}: server ${api.url} reachable (ok)`);
    expect(status.stdout).toMatch(new RegExp(`data dir ${dataDir}: last event: claude-code \\S+, session installed-1, \\d+ s ago`));

    await api.server.stop();
    const stopped = await cli('hooks', 'status', '--data-dir', dataDir);
    expect(stopped.stdout).toContain(`data dir ${dataDir}: no server running (no server.json)`);
  });

  it("claude-code --http: Claude Code posts every event but SessionStart to the data dir's server itself; status names the url; a second install changes nothing, one without --http goes back to commands, uninstall removes both", async () => {
    const { home, dataDir, cli } = machine();
    const file = join(home, '.claude', 'settings.json');
    // No server to point at: refused, nothing written; nor for an agent without http hooks.
    const refused = await cli('hooks', 'install', 'claude-code', '--http', '--data-dir', dataDir);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('no server runs on');
    expect(existsSync(file)).toBe(false);
    mkdirSync(dataDir, { recursive: true });
    const api = await startTestServer({ dataDir });
    expect((await cli('hooks', 'install', 'codex', '--http', '--data-dir', dataDir)).stderr).toContain('--http is for claude-code');

    const installed = await cli('hooks', 'install', 'claude-code', '--http', '--data-dir', dataDir);
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('lost');
    const url = `${api.url}/hooks/claude-code`;
    const settings = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, { hooks: Record<string, unknown>[] }[]> };
    expect(Object.keys(settings.hooks)).toEqual(CLAUDE_EVENTS);
    for (const event of CLAUDE_EVENTS) {
      const [handler] = settings.hooks[event]![0]!.hooks;
      if (event === 'SessionStart') expect(handler).toEqual({ type: 'command', command: expectedCommand('claude-code', dataDir), timeout: 10 });
      else expect(handler).toEqual({ type: 'http', url, timeout: 10, headers: { Authorization: 'Bearer $ENTITY_MEMORY_TOKEN' }, allowedEnvVars: ['ENTITY_MEMORY_TOKEN'] });
    }
    expect((await cli('hooks', 'install', 'claude-code', '--http', '--data-dir', dataDir)).stdout).toContain('already installed');

    // An event posted as Claude Code posts it (its header's variable left as is) is recorded.
    const events = claudeEvents('http-1', home);
    const posted = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer $ENTITY_MEMORY_TOKEN' }, body: JSON.stringify(events.prompt('p1', 'sent by http')) });
    expect(posted.status).toBe(200);
    const recorded = await api.raw('{ session(sessionId: "http-1") { messages(first: 5) { edges { node { content } } } } }');
    expect(JSON.stringify(recorded.data)).toContain('sent by http');
    await eventually(async () => existsSync(join(dataDir, 'hooks', 'last-event.json')));
    const status = await cli('hooks', 'status', '--data-dir', dataDir);
    expect(status.stdout).toContain(`claude-code user ${file}: installed (9 events), data dir ${dataDir}, node ${process.execPath}, http hooks posting to ${url} (events sent while it is down are lost)\n`);

    // Back to command hooks, in place; then none.
    expect((await cli('hooks', 'install', 'claude-code', '--data-dir', dataDir)).status).toBe(0);
    const commands = JSON.parse(readFileSync(file, 'utf8')) as { hooks: Record<string, { hooks: Record<string, unknown>[] }[]> };
    for (const event of CLAUDE_EVENTS) expect(commands.hooks[event]!.map((group) => group.hooks.map((handler) => handler.type))).toEqual([['command']]);
    expect((await cli('hooks', 'install', 'claude-code', '--http', '--data-dir', dataDir)).status).toBe(0);
    expect((await cli('hooks', 'uninstall', 'claude-code', '--data-dir', dataDir)).status).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({});
  });

  it('works with no environment at all (env -i: no HOME, no PATH) and a data dir whose path has spaces and quotes: the event is spooled', async () => {
    const { home, cli } = machine();
    const dataDir = join(tempDir('em-data-'), `it's a "data" dir`);
    expect((await cli('hooks', 'install', 'codex', '--data-dir', dataDir)).status).toBe(0);
    const command = json(join(home, 'codex-home', 'hooks.json')).hooks.Stop![0]!.hooks[0]!.command;
    const event = { session_id: 'codex-envless', hook_event_name: 'Stop', cwd: home, turn_id: 't1', last_assistant_message: 'Done.' };
    const hook = await run('/usr/bin/env', ['-i', '/bin/sh', '-c', command], {}, JSON.stringify(event));
    expect(hook).toEqual({ status: 0, stdout: '', stderr: '' });
    const spooled = readFileSync(join(dataDir, 'hooks', 'spool.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { agent: string; payload: unknown });
    expect(spooled).toEqual([expect.objectContaining({ agent: 'codex', payload: event })]);

    const status = await cli('hooks', 'status', '--data-dir', dataDir);
    expect(status.stdout).toContain(`data dir ${dataDir}: 1 event waiting in hooks/spool.jsonl`);
  });

  it('says which installed hooks name the older hook script, and installing again moves them to the new one', async () => {
    const { home, dataDir, cli } = machine();
    expect((await cli('hooks', 'install', 'codex', '--data-dir', dataDir)).status).toBe(0);
    const file = join(home, 'codex-home', 'hooks.json');
    const installed = readFileSync(file, 'utf8');
    expect(installed).toContain('entity-memory-hook.cjs');
    writeFileSync(file, installed.replaceAll('entity-memory-hook.cjs', 'entity-memory-hook.js'));
    const older = await cli('hooks', 'status', '--data-dir', dataDir);
    expect(older.stdout).toMatch(/codex user .*: installed \(7 events\), .*an older command, entity-memory-hook\.js \(install again: it starts faster\)/);
    expect((await cli('hooks', 'install', 'codex', '--data-dir', dataDir)).status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(installed);
    expect((await cli('hooks', 'status', '--data-dir', dataDir)).stdout).not.toContain('an older command');
  });

  it('entity-memory hook <agent> does what the hook script does', async () => {
    const { dataDir } = machine();
    const env = { PATH: process.env.PATH ?? '', HOME: tempDir('em-home-') };
    const event = { session_id: 'alias-1', hook_event_name: 'SessionStart', cwd: env.HOME, source: 'startup' };
    const result = await run(process.execPath, [bin, 'hook', 'claude-code', '--data-dir', dataDir], env, JSON.stringify(event));
    expect(result).toEqual({ status: 0, stdout: '', stderr: '' });
    const spooled = JSON.parse(readFileSync(join(dataDir, 'hooks', 'spool.jsonl'), 'utf8').trim()) as { agent: string; payload: unknown };
    expect(spooled).toMatchObject({ agent: 'claude-code', payload: event });
  });
});
