/**
 * Every command the README shows works as written. The README's `sh` blocks are read from the
 * file itself (so a new block is covered the day it is written) and each one is either
 *  - run, whole and verbatim, by bash in a HOME of its own, in the order a reader meets them
 *    (`npm start` serving the data dir of that HOME, the GraphQL block pasted in, `cd` into the
 *    session repo, the hooks installed into that HOME's agent settings), or
 *  - a synopsis (`[--flag]`, `SESSION…`, `A | B`): its command answers `--help`, and names every
 *    flag the synopsis shows, or
 *  - one of the few lines another test or CI runs as written (named below, and checked to be
 *    there), or a team server's settings (another machine's addresses: their flags and
 *    variables must be the server's own).
 * The commands quoted inline (`npm run …`, `npm start -- …`, `entity-memory …`) must name a
 * script, a bench or a command that exists.
 *
 * Two substitutions, both said here: the server `npm start` starts listens on the free port it
 * picks (PORT=0, the README's own variable), and the curl block is sent to that port instead of
 * 4000, so the suite never needs port 4000 free; `systemctl` and `launchctl` are stand-ins that
 * answer like a working systemd or launchd, so `service install` starts nothing on this machine.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveFlagHelp } from '../../src/config.js';
import { asWritten, killGroup, runProcess, servedUrl } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

interface Block {
  /** The line of the README the block starts on. */
  line: number;
  /** The block's text as bash reads it. */
  script: string;
  /** Its commands: continuation lines joined, comments and indentation taken off. */
  commands: string[];
}

/** The README's fenced blocks of one language. */
function blocks(language: string): Block[] {
  const found: Block[] = [];
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line.trim() === '```');
    if (open[2] === language) {
      const body = lines.slice(i + 1, end).map((line) => line.slice(open[1]!.length));
      const script = body.join('\n');
      const commands = script
        .replace(/\\\n\s*/g, '')
        .split('\n')
        .map((line) => line.replace(/(^|\s+)#\s.*$/, '').trim())
        .filter(Boolean);
      found.push({ line: i + 1, script, commands });
    }
    i = end;
  }
  return found;
}

/** A usage line rather than a command: optional parts, alternatives, placeholders. */
function isSynopsis(command: string): boolean {
  return /[[\]|…]|\.\.\.|<\w+>|\b[A-Z]{2,}\b/.test(command) && !/^export [A-Z_]+=/.test(command);
}

/** `entity-memory import claude-code [PATH…]` → `import claude-code`: the words before the first flag or placeholder. */
function commandWords(command: string): string[] {
  const words = command.replace(/^(entity-memory|npm start --|node bin\/entity-memory\.js)\s*/, '').split(/\s+/);
  const end = words.findIndex((word) => !/^[a-z][a-z-]*$/.test(word));
  return end === -1 ? words : words.slice(0, end);
}

/** Lines another test or CI runs exactly as written, and where. */
const ranElsewhere: Record<string, { file: string; why: string }> = {
  'npm start': { file: 'test/server/readme-commands.test.ts', why: 'the story below serves with it' },
  'npm install': { file: '.ci/run', why: 'CI installs a fresh clone with it before the tests' },
  'npm install -g ./entity-memory-0.1.0.tgz': { file: 'test/server/package.test.ts', why: 'the package test installs the packed tarball with it' },
  'entity-memory': { file: 'test/server/package.test.ts', why: 'the package test serves with the installed command' },
};

/** A team server's settings: another machine's addresses, so only their flags and variables are checked. */
const teamSettings = new Set(['entity-memory serve --data-dir /mnt/entity-memory --host 0.0.0.0 --port 4000']);

const shell = blocks('sh');
const runnable = shell.filter((block) => block.commands.every((command) => !isSynopsis(command) && !(command in ranElsewhere) && !teamSettings.has(command) && !command.startsWith('export ')));

/** A HOME of its own, with `entity-memory` on PATH (this checkout's) and stand-ins for the service managers. */
function sandbox(): { home: string; env: NodeJS.ProcessEnv } {
  const home = tempDir('em-readme-home-');
  const bin = join(home, '.bin');
  mkdirSync(bin);
  const write = (name: string, text: string) => {
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  };
  write('entity-memory', `#!/bin/sh\nexec '${process.execPath}' '${join(root, 'bin', 'entity-memory.js')}' "$@"\n`);
  write('systemctl', '#!/bin/sh\ncase "$*" in *is-active*) echo active ;; esac\nexit 0\n');
  write('launchctl', '#!/bin/sh\nexit 0\n');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, PATH: `${bin}:${process.env.PATH}`, LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '', PORT: '0' };
  for (const name of ['OPENPROGRAM_HOME', 'CODEX_HOME', 'XDG_CONFIG_HOME', 'DATABASE_URL', 'REDIS_URL', 'HOST']) delete env[name];
  return { home, env };
}

async function bash(script: string, env: NodeJS.ProcessEnv) {
  return runProcess('bash', ['-euo', 'pipefail', '-c', script], env, '', root);
}

describe("the README's commands", () => {
  it('every sh block is run here, a synopsis, run elsewhere, or a team setting', () => {
    expect(shell.length).toBeGreaterThan(5);
    const kinds = shell.flatMap((block) =>
      block.commands.map((command) => {
        if (runnable.includes(block)) return 'run';
        if (isSynopsis(command)) return 'synopsis';
        if (command in ranElsewhere || teamSettings.has(command) || command.startsWith('export ')) return 'elsewhere';
        return `line ${block.line}: "${command}" is neither run nor a synopsis (a block runs whole or not at all)`;
      }),
    );
    expect(kinds.filter((kind) => kind.startsWith('line '))).toEqual([]);
    // What the story below runs whole: the service, curl, the session repo, the hooks.
    expect(runnable.map((block) => block.commands[0])).toEqual([
      'npm start -- service install',
      "curl -s http://127.0.0.1:4000/graphql -H 'content-type: application/json' -d '{\"query\":\"{ sessions(first: 5) { totalCount edges { node { sessionId title } } } }\"}'",
      'cd ~/.openprogram/sessions/demo',
      'entity-memory hooks install claude-code',
    ]);
  });

  it('the lines run elsewhere are run there, as written', () => {
    for (const [command, { file }] of Object.entries(ranElsewhere)) {
      const text = readFileSync(join(root, file), 'utf8');
      const quoted = file.endsWith('.ts') ? text.includes(`asWritten('${command}',`) : text.split('\n').some((line) => line.trim() === command);
      expect(quoted, `${file} runs "${command}"`).toBe(true);
    }
  });

  it('a team server: its flags and variables are the server\'s own', () => {
    const flags = new Set(Object.keys(serveFlagHelp).map((name) => `--${name}`));
    const variables = new Set(Object.values(serveFlagHelp).map((help) => help.variable));
    const team = shell.find((block) => block.commands.some((command) => teamSettings.has(command)));
    expect(team).toBeDefined();
    for (const command of team!.commands) {
      const exported = /^export ([A-Z_]+)=/.exec(command);
      if (exported) expect(variables.has(exported[1]), command).toBe(true);
      else for (const flag of command.match(/--[a-z-]+/g) ?? []) expect(flags.has(flag), `${command}: ${flag}`).toBe(true);
    }
  });

  it('each synopsis: the command answers --help and names every flag shown', { timeout: 120_000 }, async () => {
    const synopses = [...new Set(shell.flatMap((block) => block.commands).filter(isSynopsis))];
    expect(synopses.length).toBeGreaterThan(10);
    const { env } = sandbox();
    const results = await Promise.all(
      synopses.map(async (synopsis) => ({ synopsis, run: await runProcess(process.execPath, [join(root, 'bin', 'entity-memory.js'), ...commandWords(synopsis), '--help'], env, '', root) })),
    );
    for (const { synopsis, run } of results) {
      expect(run.status, `${synopsis}: ${run.stderr}`).toBe(0);
      for (const flag of synopsis.match(/--[a-z-]+/g) ?? []) expect(run.stdout, `${synopsis}: ${flag}`).toContain(flag);
    }
  });

  it('the inline commands name scripts, benches and commands that exist', { timeout: 120_000 }, async () => {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const inline = [...new Set([...readme.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!))];
    const npmRuns = inline.filter((text) => text.startsWith('npm run '));
    expect(npmRuns.length).toBeGreaterThan(5);
    for (const text of npmRuns) {
      const [, script, rest] = /^npm run ([\w:-]+)(?: -- (.*))?$/.exec(text) ?? [];
      expect(scripts[script ?? ''], text).toBeDefined();
      const bench = script === 'bench' ? /^([a-z][\w-]*)/.exec(rest ?? '')?.[1] : undefined;
      if (bench && bench !== 'all') expect(existsSync(join(root, 'bench', `${bench}.ts`)), text).toBe(true);
    }
    const ours = inline.filter((text) => /^(entity-memory [a-z]|npm start -- [a-z])/.test(text));
    expect(ours.length).toBeGreaterThan(5);
    const { env } = sandbox();
    for (const text of ours) {
      const run = await runProcess(process.execPath, [join(root, 'bin', 'entity-memory.js'), ...commandWords(text), '--help'], env, '', root);
      expect(run.status, `${text}: ${run.stderr}`).toBe(0);
      for (const flag of text.match(/--[a-z-]+/g) ?? []) expect(run.stdout, `${text}: ${flag}`).toContain(flag);
    }
  });

  it('the runnable blocks, run verbatim in a HOME of their own, do what the README says', { timeout: 300_000 }, async () => {
    const { home, env } = sandbox();
    const [service, curl, repo, hooks] = runnable;

    // The second of the two commands, as written: npm start serves the data dir of this HOME.
    const server = asWritten('npm start', env, root);
    const stop = () => killGroup(server, 'SIGTERM');
    const url = await servedUrl(server);
    expect(existsSync(join(home, '.openprogram', 'entity-memory.db'))).toBe(true);

    // Always on: install, status (it finds the server npm start runs), uninstall.
    const always = await bash(service!.script, env);
    expect(always.status, always.stderr).toBe(0);
    expect(always.stdout).toContain(`data dir ${join(home, '.openprogram')}`);
    expect(always.stdout).toMatch(/removed \S+entity-memory\.service/);

    // The GraphQL block, pasted into GraphiQL: each operation in turn.
    const graphql = blocks('graphql')[0]!.script;
    for (const name of [...graphql.matchAll(/^(?:mutation|query) (\w+)/gm)].map((match) => match[1]!)) {
      const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: graphql, operationName: name }) });
      const body = (await response.json()) as { errors?: unknown };
      expect(body.errors, name).toBeUndefined();
    }
    const inSync = async () => {
      const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ session(sessionId: "demo") { mirror { inSync } } }' }) });
      return ((await response.json()) as { data: { session: { mirror: { inSync: boolean } } } }).data.session.mirror.inSync;
    };
    for (const deadline = Date.now() + 60_000; !(await inSync()); ) {
      if (Date.now() > deadline) throw new Error('the demo turn was not committed within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    // curl, sent to the port npm start picked.
    const curled = await bash(curl!.script.replace('127.0.0.1:4000', url.replace('http://', '')), env);
    expect(curled.status, curled.stderr).toBe(0);
    expect(JSON.parse(curled.stdout)).toEqual({ data: { sessions: { totalCount: 1, edges: [{ node: { sessionId: 'demo', title: 'First session' } }] } } });

    // The session repo, read with plain git.
    const read = await bash(repo!.script, env);
    expect(read.status, read.stderr).toBe(0);
    const [log, ...files] = read.stdout.trim().split('\n');
    expect(log).toMatch(/^[0-9a-f]{7,} turn 1: List the files$/);
    expect(files).toEqual([expect.stringMatching(/^000001-u-\S+\.json$/), expect.stringMatching(/^000002-a-\S+\.json$/), expect.stringMatching(/^000003-t-\S+\.json$/)]);

    // The hooks, into this HOME's agent settings.
    const installed = await bash(hooks!.script, env);
    expect(installed.status, installed.stderr).toBe(0);
    expect(existsSync(join(home, '.codex', 'hooks.json'))).toBe(true);
    expect(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8')).toContain('entity-memory');
    expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).not.toContain('entity-memory');

    // With the server stopped, the README's verify from a checkout finds the demo in sync.
    const stopped = new Promise((resolve) => server.on('close', resolve));
    stop();
    await stopped;
    const verified = await bash('node bin/entity-memory.js verify', env);
    expect(verified.status, verified.stdout + verified.stderr).toBe(0);
    expect(readdirSync(join(home, '.openprogram', 'sessions'))).toContain('demo');
  });
});
