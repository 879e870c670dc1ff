/** The command line (bin/entity-memory.js) as a process, run without blocking this one (a test server may be the one it talks to). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { onCleanup } from './leftovers.js';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `entity-memory ARGS…` with logs off and no token from the environment unless `env` sets one; killed at the test's end. */
export function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  onCleanup(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}
