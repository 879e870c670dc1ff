/** The command line (bin/entity-memory.js), or any program, as a process run without blocking this one (a test server may be the one it talks to). */
import { spawn, type ChildProcess } from 'node:child_process';
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
  const run = finished(child);
  child.stdin.end(stdin);
  return run;
}

/** What a started process printed, and its status, once it has closed. */
export function finished(child: ChildProcess): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

/** Runs `entity-memory ARGS…` with logs off and no token from the environment unless `env` sets one. */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runProcess(process.execPath, [BIN, ...args], { ...process.env, LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '', ...env });
}

/** A command line as a README shows it, run by bash in its own process group (killed whole at the test's end). */
export function asWritten(command: string, env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  const child = spawn('bash', ['-c', command], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  onCleanup(() => killGroup(child, 'SIGKILL'));
  return child;
}

/** Signals the process group `asWritten` started, unless it has exited (the group can be gone before Node reports the exit: ESRCH means nothing is left). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** The base URL a starting server prints ("web UI at http://127.0.0.1:PORT/"); rejects if it exits first. */
export function servedUrl(server: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let said = '';
    const look = (chunk: Buffer) => {
      said += chunk.toString();
      const found = /web UI at (http:\/\/127\.0\.0\.1:\d+)\//.exec(said);
      if (found) resolve(found[1]!);
    };
    server.stdout!.on('data', look);
    server.stderr!.on('data', look);
    server.on('close', (status) => reject(new Error(`the server exited ${status} before serving: ${said}`)));
  });
}
