import { createHash } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitError } from '../../src/git/errors.js';
import { gitLauncherPid } from '../../src/git/launcher.js';
import { runGit, startGit } from '../../src/git/run.js';
import { git, tempDir } from './helpers.js';

const savedBinary = process.env.ENTITY_MEMORY_GIT_BINARY;
afterEach(() => {
  if (savedBinary === undefined) delete process.env.ENTITY_MEMORY_GIT_BINARY;
  else process.env.ENTITY_MEMORY_GIT_BINARY = savedBinary;
});

/** A stand-in for git: a shell script with `body`, named by ENTITY_MEMORY_GIT_BINARY. */
function fakeGit(body: string): string {
  const dir = tempDir();
  const file = join(dir, 'git');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  process.env.ENTITY_MEMORY_GIT_BINARY = file;
  return dir;
}

describe('the git launcher', () => {
  it('starts git from its own process, not from the server’s', async () => {
    const dir = fakeGit('echo $PPID');
    const { stdout } = await runGit(['--version'], { cwd: dir });
    expect(Number(stdout.trim())).toBe(gitLauncherPid());
    expect(Number(stdout.trim())).not.toBe(process.pid);
  });

  it('relays a large stdin and stdout byte for byte', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    const input = Buffer.alloc(3 * 1024 * 1024, 'abc\0\n');
    const proc = startGit(['hash-object', '-w', '--stdin'], { cwd: dir });
    for (let at = 0; at < input.length; at += 65_536) {
      if (!proc.stdin.write(input.subarray(at, at + 65_536))) await new Promise((r) => proc.stdin.once('drain', r));
    }
    proc.stdin.end();
    const oid = (await proc.done).stdout.trim();
    expect(oid).toBe(createHash('sha1').update(`blob ${input.length}\0`).update(input).digest('hex'));
    expect(git(dir, 'cat-file', '-s', oid)).toBe(String(input.length));
  });

  it('fails the runs in flight when it dies, and the next run starts a new one', async () => {
    const dir = fakeGit('sleep 30');
    const hung = runGit(['status'], { cwd: dir }).catch((e: unknown) => e);
    // The spawn has reached the launcher once its pid is known and the run is in flight.
    const first = gitLauncherPid();
    expect(first).toBeDefined();
    process.kill(first!, 'SIGKILL');
    const error = await hung;
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(/killed by SIGKILL/);
    fakeGit('echo again');
    expect((await runGit(['--version'], { cwd: dir })).stdout).toBe('again\n');
    expect(gitLauncherPid()).not.toBe(first);
  });
});
