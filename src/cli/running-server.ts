/**
 * The server that holds a data dir, for the commands that go through it (`import`, `rewind`):
 * where it listens (its server.json) and the token to send; and, for the status commands,
 * whether it runs and answers (`serverLine`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { readServerFile } from '../http/server-file.js';
import type { Config } from '../config.js';
import { isAlive } from '../data-dir-lock.js';
import { CannotRun } from './errors.js';

/** How long a command waits for a starting server to say where it listens. */
const SERVER_FILE_WAIT_MS = 15_000;

export interface RunningServer {
  /** Its base URL, e.g. http://127.0.0.1:4000. */
  url: string;
  token: string | undefined;
  /** Where the token came from, named when the server refuses it. */
  tokenHint?: string;
}

/**
 * The server `pid` (which holds the data dir): its URL once it says where it listens and answers
 * /health, and the token from ENTITY_MEMORY_TOKEN, else the data dir's token file.
 * @throws CannotRun when it does not say where it listens in time, or does not answer.
 */
export async function runningServer(config: Config, pid: number): Promise<RunningServer> {
  const { tokenFile } = await import('../http/token.js');
  // A server that has just started may not have written where it listens yet.
  const deadline = Date.now() + SERVER_FILE_WAIT_MS;
  let info = readServerFile(config.dataDir);
  while (info?.pid !== pid) {
    if (Date.now() > deadline) throw new CannotRun(`a server (pid ${pid}) holds the data dir ${config.dataDir} but has not said where it listens (no server.json); try again once it is up`);
    await new Promise((done) => setTimeout(done, 100));
    info = readServerFile(config.dataDir);
  }
  try {
    const health = await fetch(`${info.url}/health`);
    if (!health.ok) throw new Error(`/health answered ${health.status}`);
  } catch (error) {
    throw new CannotRun(`a server (pid ${pid}) holds the data dir ${config.dataDir} but does not answer at ${info.url} (${(error as Error).message})`);
  }
  let token = config.token;
  let tokenHint = token !== undefined ? 'ENTITY_MEMORY_TOKEN' : undefined;
  if (token === undefined && existsSync(tokenFile(config))) {
    token = readFileSync(tokenFile(config), 'utf8').trim() || undefined;
    tokenHint = tokenFile(config);
  }
  return { url: info.url, token, ...(tokenHint !== undefined ? { tokenHint } : {}) };
}

/** How long `serverLine` waits for a server's /health. */
const HEALTH_TIMEOUT_MS = 1000;

/**
 * Whether the data dir's server runs and answers /health, in a few words (`hooks status`,
 * `service status`).
 */
export async function serverLine(dataDir: string): Promise<string> {
  const server = readServerFile(dataDir);
  if (!server) return 'no server running (no server.json)';
  if (!isAlive(server.pid)) return `no server running (server.json names pid ${server.pid}, which is gone)`;
  try {
    const response = await fetch(new URL('/health', server.url), { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    const body = (await response.json().catch(() => ({}))) as { status?: unknown };
    const status = typeof body.status === 'string' ? body.status : `HTTP ${response.status}`;
    return response.ok ? `server ${server.url} reachable (${status})` : `server ${server.url} answers but is not ready (${status})`;
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${HEALTH_TIMEOUT_MS} ms` : ((error as { cause?: Error }).cause?.message ?? (error as Error).message);
    return `server ${server.url} not reachable (${reason})`;
  }
}
