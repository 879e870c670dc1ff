import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  GitError,
  GitLockedError,
  GitNotFoundError,
  GitObjectNotFoundError,
  GitTimeoutError,
} from '../../src/git/errors.js';
import { gitEnv, hardenEnv, onGitSpawn, PER_CALL_CONFIG, runGit, runGitBuffer, startGit } from '../../src/git/run.js';
import { SessionRepo } from '../../src/git/session-repo.js';
import { ALICE, git, tempDir } from './helpers.js';

const savedBinary = process.env.ENTITY_MEMORY_GIT_BINARY;
afterEach(() => {
  if (savedBinary === undefined) delete process.env.ENTITY_MEMORY_GIT_BINARY;
  else process.env.ENTITY_MEMORY_GIT_BINARY = savedBinary;
});

describe('gitEnv', () => {
  it('drops inherited GIT_* variables, isolates config and keeps PATH and HOME', () => {
    process.env.GIT_DIR_FOR_TEST_ONLY = 'x';
    try {
      const env = gitEnv({ GIT_AUTHOR_NAME: 'A' });
      expect(Object.keys(env).filter((k) => k.startsWith('GIT_')).sort()).toEqual(
        ['GIT_AUTHOR_NAME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM', 'GIT_TERMINAL_PROMPT'].sort(),
      );
      expect(env).toMatchObject({ GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' });
      expect(env.PATH).toBe(process.env.PATH);
      expect(env.HOME).toBe(process.env.HOME);
      expect(env.GIT_OPTIONAL_LOCKS).toBeUndefined();
    } finally {
      delete process.env.GIT_DIR_FOR_TEST_ONLY;
    }
  });
});

describe('runGit', () => {
  it('feeds stdin, returns stdout and honours okExitCodes', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    const hashed = await runGit(['hash-object', '--stdin'], { cwd: dir, input: 'hello\n' });
    expect(hashed).toEqual({ stdout: 'ce013625030ba8dba906f756967f9e9ca394464a\n', stderr: '', exitCode: 0 });
    const missing = await runGit(['rev-parse', '--verify', '--quiet', 'nope'], { cwd: dir, okExitCodes: [0, 1] });
    expect(missing.exitCode).toBe(1);
  });

  it('keeps binary stdout intact with runGitBuffer', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    const bytes = Buffer.from([0, 255, 128, 10, 0]);
    const { stdout: oid } = await runGit(['hash-object', '-w', '--stdin'], { cwd: dir, input: bytes });
    const { stdout } = await runGitBuffer(['cat-file', 'blob', oid.trim()], { cwd: dir });
    expect(stdout).toEqual(bytes);
  });

  it('types failures from stderr', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    const error = await runGit(['rev-parse', '--verify', 'deadbeef^{commit}'], { cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitObjectNotFoundError);
    expect(error).toMatchObject({ exitCode: 128, stderr: expect.stringContaining('Needed a single revision') });
    expect((error as GitError).argv.slice(-3)).toEqual(['rev-parse', '--verify', 'deadbeef^{commit}']);

    writeFileSync(join(dir, '.git', 'index.lock'), '');
    writeFileSync(join(dir, 'a'), 'a');
    await expect(runGit(['update-index', '--add', '--', 'a'], { cwd: dir })).rejects.toBeInstanceOf(GitLockedError);

    const other = await runGit(['no-such-command'], { cwd: dir }).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(GitError);
    expect((other as GitError).message).toContain('no-such-command');
  });

  it('never runs a user repo’s hooks', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    writeFileSync(join(dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\necho hook ran >&2\nexit 1\n');
    chmodSync(join(dir, '.git', 'hooks', 'pre-commit'), 0o755);
    writeFileSync(join(dir, 'a'), 'a');
    git(dir, 'add', 'a');
    await runGit(['-c', 'user.name=T', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'x'], { cwd: dir });
    expect(git(dir, 'log', '--format=%s')).toBe('x');
  });

  it('rejects with GitNotFoundError when ENTITY_MEMORY_GIT_BINARY points at a missing binary', async () => {
    const dir = tempDir();
    const repo = new SessionRepo(dir);
    await repo.init();
    process.env.ENTITY_MEMORY_GIT_BINARY = join(dir, 'no-such-git');
    await expect(runGit(['--version'], { cwd: dir })).rejects.toBeInstanceOf(GitNotFoundError);
    await expect(
      repo.commitTurn({ branch: 'main', parent: null, files: [{ path: 'a.json', content: '{}' }], message: 'x', author: ALICE }),
    ).rejects.toBeInstanceOf(GitNotFoundError);
    await expect(repo.log({ limit: 1 })).rejects.toBeInstanceOf(GitNotFoundError);
    delete process.env.ENTITY_MEMORY_GIT_BINARY;
    expect(await repo.countCommits({ all: true })).toBe(0);
  });

  it('tells a missing working directory apart from a missing binary', async () => {
    const error = await runGit(['--version'], { cwd: join(tempDir(), 'nope') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect(error).not.toBeInstanceOf(GitNotFoundError);
  });

  it('kills a hung git after timeoutMs with GitTimeoutError', async () => {
    const dir = tempDir();
    const fake = join(dir, 'slow-git');
    // The grandchild keeps stdout open for 120 s after the shell is killed: the timeout must not
    // wait for it. Any bound well under 120 s tells the two apart, however loaded the machine.
    const pidFile = join(dir, 'grandchild.pid');
    writeFileSync(fake, `#!/bin/sh\nsleep 120 &\necho $! > '${pidFile}'\nexec sleep 30\n`);
    chmodSync(fake, 0o755);
    process.env.ENTITY_MEMORY_GIT_BINARY = fake;
    const started = Date.now();
    try {
      await expect(runGit(['status'], { cwd: dir, timeoutMs: 200 })).rejects.toBeInstanceOf(GitTimeoutError);
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      if (existsSync(pidFile)) {
        try {
          process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  it('streams stdin with startGit', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    const proc = startGit(['hash-object', '--stdin'], { cwd: dir });
    for (let i = 0; i < 1000; i++) proc.stdin.write('0123456789'.repeat(100));
    proc.stdin.end();
    const { stdout } = await proc.done;
    const content = '0123456789'.repeat(100_000);
    const expected = createHash('sha1').update(`blob ${content.length}\0${content}`).digest('hex');
    expect(stdout.trim()).toBe(expected);
  });
});

describe('per-call config and environment', () => {
  it('override what the repo config and its includes say, for every run', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    writeFileSync(join(dir, '.git', 'hostile.inc'), '[core]\n\tfsmonitor = /bin/false\n\thooksPath = hooks\n[log]\n\tshowSignature = true\n[protocol]\n\tallow = always\n');
    git(dir, 'config', 'include.path', 'hostile.inc');
    git(dir, 'config', 'credential.helper', 'store');
    const effective = async (key: string) => (await runGit(['config', '--get-all', key], { cwd: dir })).stdout.split('\n').slice(0, -1).at(-1);
    expect(await effective('core.fsmonitor')).toBe('false');
    expect(await effective('core.hooksPath')).toBe('/dev/null');
    expect(await effective('log.showSignature')).toBe('false');
    expect(await effective('protocol.allow')).toBe('never');
    expect(await effective('credential.helper')).toBe('');
    expect(await effective('gc.auto')).toBe('0');
    expect(PER_CALL_CONFIG[0]).toBe('--no-pager');
  });

  it('allow no transport, even where the repo allows one by name', async () => {
    const dir = tempDir();
    const other = tempDir();
    git(dir, 'init', '-q');
    git(other, 'init', '-q');
    git(dir, 'config', 'protocol.file.allow', 'always');
    const error = await runGit(['ls-remote', `file://${other}`], { cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).stderr).toContain("transport 'file' not allowed");
  });

  it('drop program-running variables from any environment handed to git, and pass extra settings of any name', async () => {
    const env = hardenEnv(
      { PATH: '/bin', GIT_EXTERNAL_DIFF: 'x', GIT_PAGER: 'x', GIT_SSH_COMMAND: 'x', GIT_ASKPASS: 'x', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: 'x', GIT_DIR: '/d' },
      [['filter.a=b.clean', '']],
    );
    expect(env).toEqual({ PATH: '/bin', GIT_DIR: '/d', GIT_ALLOW_PROTOCOL: '', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'filter.a=b.clean', GIT_CONFIG_VALUE_0: '' });

    const dir = tempDir();
    git(dir, 'init', '-q');
    git(dir, 'config', 'filter.a=b.clean', '/bin/false');
    const events: string[] = [];
    const off = onGitSpawn((e) => events.push(e.env.GIT_ALLOW_PROTOCOL ?? 'unset'));
    try {
      const { stdout } = await runGit(['config', '--get-all', 'filter.a=b.clean'], { cwd: dir, config: [['filter.a=b.clean', '']], env: { ...gitEnv(), GIT_EXTERNAL_DIFF: '/bin/false' } });
      expect(stdout.split('\n').at(-2)).toBe('');
    } finally {
      off();
    }
    expect(events).toEqual(['']);
  });
});
