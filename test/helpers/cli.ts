/** The command line (bin/entity-memory.js), or any program, as a process run without blocking this one (a test server may be the one it talks to). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { onCleanup } from './leftovers.js';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `file ARGS…` with exactly `env` (in `cwd`, default this one's), `stdin` written then closed; killed at the test's end if still running. */
export function runProcess(file: string, args: string[], env: NodeJS.ProcessEnv, stdin = '', cwd?: string): Promise<CliRun> {
  const child = spawn(file, args, { env, stdio: ['pipe', 'pipe', 'pipe'], ...(cwd !== undefined ? { cwd } : {}) });
  onCleanup(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

/** Runs `entity-memory ARGS…` with logs off and no token from the environment unless `env` sets one. */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runProcess(process.execPath, [BIN, ...args], { ...process.env, LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '', ...env });
}
