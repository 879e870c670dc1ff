import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');

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
    expect(await health.json()).toEqual({ status: 'ok' });
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

  it('warns when bound beyond loopback and prints, once, a URL carrying the generated token', async () => {
    const dataDir = tempDir();
    const child = run(['serve', '--data-dir', dataDir, '--port', '0', '--host', '0.0.0.0'], { LOG_LEVEL: 'warn', ENTITY_MEMORY_TOKEN: '' });
    const out = output(child);
    const link = await waitFor(() => /open (http:\/\/localhost:\d+)\/graphql#token=(\S+)/.exec(out.stdout()) ?? undefined);
    const [, base, token] = link;
    expect(readFileSync(join(dataDir, 'token'), 'utf8').trim()).toBe(token);
    expect(statSync(join(dataDir, 'token')).mode & 0o777).toBe(0o600);
    const logLines = out.stdout().split('\n').filter((line) => line.startsWith('{'));
    const warning = logLines.map((line) => JSON.parse(line) as { level: number; msg: string }).find((line) => line.level === 40);
    expect(warning?.msg).toContain('beyond loopback');
    expect(logLines.join('\n')).not.toContain(token!);
    expect(out.stdout().split(token!).length - 1).toBe(1);

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
});
