/**
 * `entity-memory import` as a process, on the Claude Code fixtures copied to a temp folder:
 * without a server (the data dir opened in-process, the repos in sync before it exits) and with
 * one running on the data dir (sent through it); summary lines, exit statuses, and a second
 * import adding nothing.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serverFilePath } from '../../src/http/server-file.js';
import { BIN, cli } from '../helpers/cli.js';
import { eventually, git } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import { EMBEDDED } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const fixtures = join(import.meta.dirname, '..', 'importers', 'fixtures');
const PLAIN = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e01';
const RETRY_FORK = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e04';
const SUBAGENT = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e02-a7f3c2';


function copyFixtures(): string {
  const folder = join(tempDir(), 'projects');
  cpSync(join(fixtures, 'claude-code'), folder, { recursive: true });
  return folder;
}

/** The summary's `name\tvalue` line. */
function field(stdout: string, name: string): string | undefined {
  return new RegExp(`^${name}\\t(.*)$`, 'm').exec(stdout)?.[1];
}

describe('entity-memory import claude-code', () => {
  it('without a server: imports every transcript in-process, the repos in sync when it exits; errors as file:line, exit status the files with errors; again adds nothing', async () => {
    const folder = copyFixtures();
    const dataDir = tempDir();
    const first = await cli(['import', 'claude-code', folder, '--data-dir', dataDir]);
    // malformed.jsonl has two bad lines: one file with errors.
    expect(first.status, first.stderr).toBe(1);
    expect(first.stderr).toBe('');
    expect(field(first.stdout, 'files')).toBe('7');
    expect(field(first.stdout, 'sessions')).toBe('7');
    expect(Number(field(first.stdout, 'turns'))).toBeGreaterThanOrEqual(12);
    expect(field(first.stdout, 'skipped')).toContain('progress 2');
    expect(Number(field(first.stdout, 'messages'))).toBe(39);
    expect(field(first.stdout, 'branches')).toBe('2');
    expect(field(first.stdout, 'skipped')).toMatch(/file-history-snapshot \d+/);
    expect(first.stdout).toMatch(new RegExp(`${join(folder, 'malformed.jsonl')}:2: not valid JSON`));
    expect(first.stdout).toMatch(/malformed\.jsonl:3: user record without uuid/);
    expect(first.stdout).toContain('7 files imported, 1 with errors');

    // The mirror committed every turn before the command exited; the data dir's lock was released.
    const verified = await cli(['verify', '--data-dir', dataDir]);
    expect(verified.status, verified.stdout).toBe(0);
    expect(verified.stdout).toContain('7 sessions, 0 mismatched');
    expect(git(join(dataDir, 'sessions', PLAIN), 'log', '-1', '--format=%s', 'main')).toMatch(/^turn \d+: Why are prices shown like this\?/);
    expect(git(join(dataDir, 'sessions', RETRY_FORK), 'branch', '--format=%(refname:short)').trim().split('\n').length).toBe(3);
    expect(existsSync(join(dataDir, 'sessions', SUBAGENT))).toBe(true);

    const again = await cli(['import', 'claude-code', folder, '--data-dir', dataDir]);
    expect(again.status).toBe(1);
    expect(field(again.stdout, 'messages')).toBe('0');
    expect(field(again.stdout, 'turns')).toBe('0');
    expect(field(again.stdout, 'branches')).toBe('0');
    expect(field(again.stdout, 'sessions')).toBe('7');
  });

  it("imports a healthy ~/.claude/projects folder with exit 0: a compaction agent's transcript continuing its parent is a note, not an error", async () => {
    const folder = join(tempDir(), 'projects');
    cpSync(join(fixtures, 'claude-projects'), folder, { recursive: true });
    const dataDir = tempDir();
    const result = await cli(['import', 'claude-code', folder, '--data-dir', dataDir]);
    expect(result.status, result.stdout).toBe(0);
    expect(field(result.stdout, 'sessions')).toBe('3');
    expect(result.stdout).toMatch(/agent-acompact-7e21c4\.jsonl:1: note: record \S+ continues record \S+ of the parent session/);
    expect(result.stdout).toContain('3 files imported, 0 with errors');
    const compaction = join(dataDir, 'sessions', '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e09-acompact-7e21c4');
    expect(git(compaction, 'log', '--format=%s', 'main')).toMatch(/^turn 1: Your task is to create a detailed summary/);
  });

  it('with a server on the data dir: sends through it (server.json), and again adds nothing', async () => {
    const folder = copyFixtures();
    const dataDir = tempDir();
    const api = await startTestServer({ dataDir, ...EMBEDDED });
    expect(existsSync(serverFilePath(dataDir))).toBe(true);
    const clean = [join(folder, 'plain.jsonl'), join(folder, 'retry-fork.jsonl')];
    const first = await cli(['import', 'claude-code', ...clean, '--data-dir', dataDir]);
    expect(first.status, first.stderr).toBe(0);
    expect(field(first.stdout, 'files')).toBe('2');
    expect(field(first.stdout, 'sessions')).toBe('2');
    expect(field(first.stdout, 'branches')).toBe('2');
    expect(first.stdout).toContain('2 files imported, 0 with errors');
    const listed = await api.raw('{ sessions(first: 10) { totalCount } }');
    expect(listed.data).toEqual({ sessions: { totalCount: 2 } });

    const again = await cli(['import', 'claude-code', ...clean, '--data-dir', dataDir]);
    expect(again.status, again.stderr).toBe(0);
    expect(field(again.stdout, 'messages')).toBe('0');
    expect(field(again.stdout, 'turns')).toBe('0');

    await api.server.stop();
    expect(existsSync(serverFilePath(dataDir))).toBe(false);
  });

  it('with a server that wants a token: exits 2 without it, takes it from ENTITY_MEMORY_TOKEN or <data-dir>/token', async () => {
    const file = join(copyFixtures(), 'plain.jsonl');
    const configured = tempDir();
    const token = 'import-test-token-0123456789';
    const withConfig = await startTestServer({ dataDir: configured, token, ...EMBEDDED });
    // The server keeps a configured token in <data-dir>/token too; without that file, none is sent.
    rmSync(join(configured, 'token'));
    const refused = await cli(['import', 'claude-code', file, '--data-dir', configured]);
    expect(refused.status).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/wants its token \(none was sent\); set ENTITY_MEMORY_TOKEN/);
    const accepted = await cli(['import', 'claude-code', file, '--data-dir', configured], { ENTITY_MEMORY_TOKEN: token });
    expect(accepted.status, accepted.stderr).toBe(0);
    await withConfig.server.stop();

    // Behind a public URL the server keeps its token in <data-dir>/token.
    const fromFile = tempDir();
    const behindProxy = await startTestServer({ dataDir: fromFile, publicUrl: 'https://memory.example.test', ...EMBEDDED });
    expect(behindProxy.server.auth.source).toBe('generated');
    const result = await cli(['import', 'claude-code', file, '--data-dir', fromFile]);
    expect(result.status, result.stderr).toBe(0);
    expect(field(result.stdout, 'sessions')).toBe('1');
    await behindProxy.server.stop();
  });

  it('--follow without a server: imports lines as they are written until SIGINT, then a summary, exit 0, the repo in sync', async () => {
    const folder = join(tempDir(), 'projects', '-home-dev-shop');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${PLAIN}.jsonl`);
    const lines = readFileSync(join(fixtures, 'claude-code', 'plain.jsonl'), 'utf8').split(/(?<=\n)/);
    writeFileSync(file, lines.slice(0, 7).join(''));
    const dataDir = tempDir();
    const child = spawn(process.execPath, [BIN, 'import', 'claude-code', '--follow', join(folder, '..'), '--data-dir', dataDir], {
      env: { ...process.env, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onCleanup(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
    const batchLines = () => stdout.split('\n').filter((line) => line.startsWith(`${file}\t${PLAIN}\t`));
    await eventually(async () => batchLines().length >= 1);
    expect(stderr).toContain('following');
    appendFileSync(file, lines.slice(7).join(''));
    await eventually(async () => batchLines().length >= 2);
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(0);
    expect(stdout).toMatch(/^1 files followed, 1 sessions, \d+ turns, 7 messages, 0 branches, 0 files with errors$/m);
    // Stopped only once the mirror had the turns; the lock is free again.
    expect(git(join(dataDir, 'sessions', PLAIN), 'log', '-1', '--format=%s', 'main')).toMatch(/Why are prices shown like this\?/);
    const verified = await cli(['verify', '--data-dir', dataDir]);
    expect(verified.status, verified.stdout).toBe(0);
  });

  it('imports chat logs', async () => {
    const dataDir = tempDir();
    const result = await cli(['import', 'chat', join(fixtures, 'chat', 'linear.jsonl'), '--data-dir', dataDir]);
    expect(result.status, result.stderr).toBe(0);
    expect(field(result.stdout, 'files')).toBe('1');
    expect(field(result.stdout, 'sessions')).toBe('1');
    expect(Number(field(result.stdout, 'turns'))).toBeGreaterThan(0);
  });

  it.each([
    [['import'], /import what\? claude-code or chat or codex or gemini/],
    [['import', 'cursor'], /unknown import "cursor"/],
    [['import', 'chat'], /import chat needs at least one FILE/],
    [['import', 'claude-code', '--bogus'], /Unknown option '--bogus'/],
  ])('exits 2 with one line for %j', async (args, text) => {
    const result = await cli([...args, '--data-dir', tempDir()]);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(text);
  });

  it('exits 2 for a --data-dir that does not exist (a typo), creating nothing; the default data dir is made on first use', async () => {
    const typo = join(tempDir(), 'no-such-data-dir');
    const refused = await cli(['import', 'chat', join(fixtures, 'chat', 'linear.jsonl'), '--data-dir', typo]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain(`no data dir at ${typo}; check --data-dir`);
    expect(existsSync(typo)).toBe(false);

    const fresh = join(tempDir(), 'openprogram');
    const made = await cli(['import', 'chat', join(fixtures, 'chat', 'linear.jsonl')], { OPENPROGRAM_HOME: fresh });
    expect(made.status, made.stderr).toBe(0);
    expect(field(made.stdout, 'sessions')).toBe('1');
    expect(existsSync(join(fresh, 'sessions'))).toBe(true);
  });

  it('exits 2 when no PATH is given and ~/.claude/projects does not exist', async () => {
    const home = tempDir();
    const result = await cli(['import', 'claude-code', '--data-dir', tempDir()], { HOME: home });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`no Claude Code transcripts at ${join(home, '.claude', 'projects')}`);
  });

  it('exits 2 when a server holds the data dir but does not answer where it said', async () => {
    const dataDir = tempDir();
    const api = await startTestServer({ dataDir, ...EMBEDDED });
    writeFileSync(serverFilePath(dataDir), `${JSON.stringify({ url: 'http://127.0.0.1:9', pid: process.pid })}\n`);
    const result = await cli(['import', 'claude-code', copyFixtures(), '--data-dir', dataDir]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/does not answer at http:\/\/127\.0\.0\.1:9/);
    await api.server.stop();
  });
});
