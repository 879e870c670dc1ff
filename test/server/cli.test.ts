import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveFlagHelp, serveOptions } from '../../src/config.js';
import { onCleanup } from '../helpers/leftovers.js';
import { closedPort } from '../helpers/redis.js';
import { tempDir } from '../helpers/temp.js';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'entity-memory.js');
const packageVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

function run(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onCleanup(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return child;
}

function output(child: ChildProcess): { stdout: () => string; stderr: () => string; exit: Promise<number | null> } {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { stdout: () => stdout, stderr: () => stderr, exit };
}

async function waitFor<T>(probe: () => T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('command line', () => {
  it('serves on the given port and data dir, answers /health, and exits 0 on SIGTERM', async () => {
    const dataDir = join(tempDir(), 'nested', 'data');
    const child = run(['serve', '--data-dir', dataDir, '--port', '0', '--host', '127.0.0.1'], { LOG_LEVEL: 'silent' });
    const out = output(child);
    const url = await waitFor(() => /GraphiQL at (http:\/\/\S+)\/graphql/.exec(out.stdout())?.[1]);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', database: 'ok', sessionsFolder: 'ok', git: 'ok', leases: 0 });
    expect(existsSync(join(dataDir, 'entity-memory.db'))).toBe(true);

    const graphiql = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
    expect(graphiql.status).toBe(200);
    expect(await graphiql.text()).toContain('GraphiQL');

    child.kill('SIGTERM');
    expect(await out.exit).toBe(0);
  });

  it('takes its data dir from OPENPROGRAM_HOME when no flag is given, and the flag wins', async () => {
    const fromEnv = tempDir();
    const fromFlag = tempDir();
    const child = run(['serve', '--port', '0', '--data-dir', fromFlag], { OPENPROGRAM_HOME: fromEnv, LOG_LEVEL: 'silent' });
    const out = output(child);
    await waitFor(() => (out.stdout().includes('GraphiQL at') ? true : undefined));
    expect(existsSync(join(fromFlag, 'entity-memory.db'))).toBe(true);
    expect(existsSync(join(fromEnv, 'entity-memory.db'))).toBe(false);
    child.kill('SIGINT');
    expect(await out.exit).toBe(0);

    const second = run(['serve', '--port', '0'], { OPENPROGRAM_HOME: fromEnv, LOG_LEVEL: 'silent' });
    const out2 = output(second);
    await waitFor(() => (out2.stdout().includes('GraphiQL at') ? true : undefined));
    expect(existsSync(join(fromEnv, 'entity-memory.db'))).toBe(true);
    second.kill('SIGTERM');
    expect(await out2.exit).toBe(0);
  });

  it('warns when bound beyond loopback and says where the generated token is, never printing it into a pipe', async () => {
    const dataDir = tempDir();
    const child = run(['serve', '--data-dir', dataDir, '--port', '0', '--host', '0.0.0.0'], { LOG_LEVEL: 'warn', ENTITY_MEMORY_TOKEN: '' });
    const out = output(child);
    const tokenFile = join(dataDir, 'token');
    const link = await waitFor(() => /open (http:\/\/localhost:\d+)\/graphql#token=<the token in (\S+)>/.exec(out.stdout()) ?? undefined);
    const [, base, named] = link;
    expect(named).toBe(tokenFile);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(16);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const logLines = out.stdout().split('\n').filter((line) => line.startsWith('{'));
    const warning = logLines.map((line) => JSON.parse(line) as { level: number; msg: string }).find((line) => line.level === 40);
    expect(warning?.msg).toContain('beyond loopback');
    // Stdout is a pipe here, as under a service manager: the token is in neither stream.
    expect(out.stdout()).not.toContain(token);
    expect(out.stderr()).not.toContain(token);

    const query = JSON.stringify({ query: '{ sessions(first: 1) { totalCount } }' });
    const headers = { 'content-type': 'application/json' };
    expect((await fetch(`${base}/graphql`, { method: 'POST', headers, body: query })).status).toBe(401);
    const ok = await fetch(`${base}/graphql`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}` }, body: query });
    expect(await ok.json()).toEqual({ data: { sessions: { totalCount: 0 } } });
    child.kill('SIGTERM');
    expect(await out.exit).toBe(0);
  });

  it.each([
    [['serve', '--bogus'], /Unknown option '--bogus'/],
    [['serve', '--token', 'short'], /--token must be at least 16 characters/],
    [['serve', '--allowed-origin', 'localhost:5173'], /--allowed-origin must be/],
    [['serve', '--max-ws-per-address', '0'], /--max-ws-per-address must be a whole number/],
    [['serve', '--port', 'eighty'], /--port must be a whole number/],
    [['serve', '--port', '70000'], /--port must be a whole number/],
    [['serve', '--max-content-bytes', '-3'], /max-content-bytes/],
    [['serve', '--log-level', 'loud'], /--log-level/],
    [['launch'], /unknown command "launch"/],
  ])('exits 2 with one line for %j', async (args, text) => {
    const out = output(run(args, { OPENPROGRAM_HOME: tempDir() }));
    expect(await out.exit).toBe(2);
    expect(out.stderr().trim().split('\n')).toHaveLength(1);
    expect(out.stderr()).toMatch(text);
  });

  it.each([
    [['serve', '--help'], ['--data-dir DIR', '--port N', 'default 4000; env PORT', '0 picks a free one', '--max-subscriptions-per-connection N', 'default 100']],
    [['serve', '-h'], ['usage: entity-memory serve [flags]', '--allowed-root PATH (repeatable)', 'default 127.0.0.1; env HOST']],
    [['--port', '0', '--help'], ['usage: entity-memory serve [flags]']],
    [['backfill', '--help'], ['usage: entity-memory backfill', '--session ID', '--rebuild', 'default $OPENPROGRAM_HOME, else ~/.openprogram', '1 to 125']],
    [['backfill', '-h'], ['usage: entity-memory backfill']],
    [['verify', '--help'], ['usage: entity-memory verify', '--data-dir DIR', 'read-only', '1 to 125']],
    [['verify', '-h', '--data-dir', '/nowhere'], ['usage: entity-memory verify']],
    [['--help'], ['entity-memory backfill [flags]', 'entity-memory <command> --help']],
    [['-h'], ['entity-memory verify [flags]']],
  ])('%j prints the help with flags and defaults on stdout and exits 0', async (args, texts) => {
    const out = output(run(args, { OPENPROGRAM_HOME: join(tempDir(), 'untouched') }));
    expect(await out.exit).toBe(0);
    expect(out.stderr()).toBe('');
    for (const text of texts) expect(out.stdout()).toContain(text);
  });

  it("npm start runs the command line as the README shows it: serve by default, `npm start -- <command>` any command", async () => {
    const npm = (args: string[]) => {
      const child = spawn('npm', ['start', '--silent', '--', ...args], { cwd: root, env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
      onCleanup(() => {
        if (child.exitCode === null) child.kill('SIGKILL');
      });
      return output(child);
    };
    const version = npm(['--version']);
    expect(await version.exit, version.stderr()).toBe(0);
    expect(version.stdout()).toMatch(/^entity-memory \d+\.\d+\.\d+\n$/);
    const hooks = npm(['hooks', '--help']);
    expect(await hooks.exit, hooks.stderr()).toBe(0);
    expect(hooks.stdout()).toMatch(/^usage: entity-memory hooks install /);
    const serveHelp = npm(['serve', '--help']);
    expect(await serveHelp.exit).toBe(0);
    expect(serveHelp.stdout()).toMatch(/^usage: entity-memory serve \[flags\]/);
  });

  it('serve --help lists every serve flag', async () => {
    const out = output(run(['serve', '--help']));
    expect(await out.exit).toBe(0);
    for (const flag of Object.keys(serveOptions)) expect(out.stdout()).toContain(`--${flag}`);
  });

  it.each([[['--version']], [['serve', '--version']], [['verify', '--version']], [['backfill', '--version']]])(
    '%j prints the version from package.json and exits 0',
    async (args) => {
      const out = output(run(args));
      expect(await out.exit).toBe(0);
      expect(out.stdout()).toBe(`entity-memory ${packageVersion}\n`);
    },
  );

  it('a port in use is one line and exit 2, and leaves the data dir free', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    onCleanup(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as { port: number }).port;
    const dataDir = tempDir();
    const out = output(run(['serve', '--data-dir', dataDir, '--port', String(port), '--host', '127.0.0.1'], { LOG_LEVEL: 'silent' }));
    expect(await out.exit).toBe(2);
    expect(out.stdout()).toBe('');
    expect(out.stderr()).toBe(`entity-memory: port ${port} is in use; pass --port (0 picks a free one)\n`);
    expect(existsSync(join(dataDir, 'entity-memory.lock'))).toBe(false);
  });

  it('a data dir that is a file is one line and exit 2', async () => {
    const file = join(tempDir(), 'data');
    writeFileSync(file, '');
    const out = output(run(['serve', '--data-dir', file, '--port', '0'], { LOG_LEVEL: 'silent' }));
    expect(await out.exit).toBe(2);
    expect(out.stderr()).toBe(`entity-memory: EEXIST: file already exists, mkdir '${file}'\n`);
  });

  it('exits 2 with one line when Redis does not answer within 5 s, the password left out', async () => {
    const port = await closedPort();
    const out = output(run(['serve', '--data-dir', tempDir(), '--port', '0'], { LOG_LEVEL: 'silent', REDIS_URL: `redis://:pw-secret@127.0.0.1:${port}` }));
    expect(await out.exit).toBe(2);
    expect(out.stdout()).toBe('');
    expect(out.stderr()).toMatch(
      new RegExp(`^entity-memory: no connection to Redis at redis://127\\.0\\.0\\.1:${port} within 5 s \\(connect ECONNREFUSED [^)]*\\); start Redis or fix --redis-url\n$`),
    );
  });

  it('--port 0 picks a free port and prints it', async () => {
    const out = output(run(['serve', '--data-dir', tempDir(), '--port', '0'], { LOG_LEVEL: 'silent' }));
    const [, url, port] = await waitFor(() => /GraphiQL at (http:\/\/127\.0\.0\.1:(\d+))\/graphql/.exec(out.stdout()) ?? undefined);
    expect(Number(port)).toBeGreaterThan(0);
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  it("the README's Configuration table and serve --help name the same flags, variables and defaults", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('| `--'))
      .map((line) => line.split('|').map((cell) => cell.trim().replaceAll('`', '')));
    const documented = new Map(rows.map(([, flag = '', variable = '', fallback = '', meaning = '']) => [flag.split(' ')[0]!.slice(2), { variable, fallback, meaning }]));
    expect([...documented.keys()].sort()).toEqual(Object.keys(serveOptions).sort());
    for (const [name, help] of Object.entries(serveFlagHelp)) {
      const row = documented.get(name)!;
      if (help.variable) expect(row.variable, name).toContain(help.variable);
      else expect(row.variable, name).toBe('');
      expect(row.fallback.startsWith(help.default), `${name}: README says ${row.fallback}, --help says ${help.default}`).toBe(true);
    }
    expect(documented.get('port')?.meaning).toContain('0 picks a free one');
    expect(serveFlagHelp.port.meaning).toContain('0 picks a free one');
  });
});
