/**
 * One server instance as a real process (`bin/entity-memory.js serve`), as several would run
 * behind a load balancer: started on given settings, ready once its /health answers 200, killed
 * with a signal, started again on the same settings. No vitest here, so bench/ uses it too;
 * test/helpers/instances.ts adds the test's database, Redis channels, data dir and cleanup.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');

/** What every instance of a group is started with. */
export interface InstanceSettings {
  /** `--data-dir`: shared by every instance of the group (a shared volume). */
  dataDir: string;
  /** `--database-url`: one PostgreSQL database for the group; absent, each runs SQLite in its data dir. */
  databaseUrl?: string;
  /** `--redis-url` and `--redis-prefix`: the group's event channels; absent, events stay in each process. */
  redisUrl?: string;
  redisPrefix?: string;
  /** `--allowed-root`, repeated. Default: the data dir only. */
  allowedRoots?: string[];
  /** `--log-level`. Default `silent` (the output is kept for failure messages either way). */
  logLevel?: string;
  /** How long an instance may take to print its URL and answer /health 200. Default 60 s (a loaded 2-core machine). */
  readyMs?: number;
}

/** One running server process. */
export interface InstanceProcess {
  /** `http://127.0.0.1:PORT`, as the instance printed it (a new port after each start). */
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (null after a signal) once the process is gone. */
  readonly exited: Promise<number | null>;
  /** The last 64 KiB of its stdout and stderr together, for failure messages. */
  output(): string;
  /** Sends `signal` and waits until the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The argv of `serve` for `settings` (a free port, printed at start). */
export function serveArgs(settings: InstanceSettings): string[] {
  return [
    BIN,
    'serve',
    '--data-dir',
    settings.dataDir,
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--log-level',
    settings.logLevel ?? 'silent',
    ...(settings.allowedRoots ?? [settings.dataDir]).flatMap((root) => ['--allowed-root', root]),
    ...(settings.databaseUrl ? ['--database-url', settings.databaseUrl] : []),
    ...(settings.redisUrl ? ['--redis-url', settings.redisUrl] : []),
    ...(settings.redisPrefix ? ['--redis-prefix', settings.redisPrefix] : []),
  ];
}

/**
 * The environment a spawned instance gets: the caller's, without the variables that would choose
 * another database, Redis or token than its flags say (flags win anyway; this keeps a stray
 * variable from mattering at all).
 */
function instanceEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'ENTITY_MEMORY_REDIS_PREFIX', 'ENTITY_MEMORY_TOKEN', 'PORT', 'HOST', 'LOG_LEVEL']) delete env[name];
  return env;
}

const OUTPUT_KEPT = 64 * 1024;

/**
 * Starts one instance and resolves once it has printed its URL and its /health answered 200
 * (its database, sessions folder and Redis reachable).
 * @throws when it exits first, or is not ready within `settings.readyMs`; its output is in the message.
 *   It is killed then.
 */
export async function startInstance(settings: InstanceSettings): Promise<InstanceProcess> {
  const child = spawn(process.execPath, serveArgs(settings), { env: instanceEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_KEPT);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (!gone()) child.kill(signal);
    return exited;
  };

  const readyMs = settings.readyMs ?? 60_000;
  const deadline = Date.now() + readyMs;
  const fail = async (why: string): Promise<never> => {
    await kill('SIGKILL');
    throw new Error(`instance ${why}; its output:\n${output}`);
  };
  let url: string | undefined;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  // Its URL, then its /health: polled, as a load balancer's readiness probe would (no event says "ready").
  for (;;) {
    if (exitCode !== undefined) return fail(`exited with ${exitCode} before it was ready`);
    if (Date.now() > deadline) return fail(`not ready within ${readyMs} ms`);
    url ??= /GraphiQL at (http:\/\/\S+)\/graphql/.exec(output)?.[1];
    if (url !== undefined) {
      const status = await fetch(`${url}/health`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const ready = url;
  return { url: ready, child, exited, output: () => output, kill };
}

/**
 * Stops an instance as an operator would: SIGTERM, then SIGKILL after `graceMs`.
 * @returns its exit code; throws (after the SIGKILL) when it did not exit on SIGTERM in time.
 */
export async function stopInstance(instance: InstanceProcess, graceMs = 30_000): Promise<number | null> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return instance.exited;
  instance.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
  const outcome = await Promise.race([instance.exited, late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    await instance.kill('SIGKILL');
    throw new Error(`instance ${instance.url} did not exit within ${graceMs} ms of SIGTERM; its output:\n${instance.output()}`);
  }
  return outcome;
}

/** A GraphQL answer over HTTP: its status and its body (data and errors as the server sent them). */
export interface HttpAnswer<T> {
  status: number;
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; [key: string]: unknown } }[];
}

/**
 * POSTs one operation to `url`/graphql. Rejects only when no answer came back (refused, reset, or
 * nothing within `timeoutMs`, default 120 s): then the request may or may not have been carried out.
 */
export async function postGraphQL<T>(url: string, query: string, variables: Record<string, unknown> = {}, timeoutMs = 120_000): Promise<HttpAnswer<T>> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json()) as Omit<HttpAnswer<T>, 'status'>;
  return { status: response.status, ...body };
}
