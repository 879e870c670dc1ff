/**
 * A real server on a free port over a fresh data folder, and a typed client
 * for it. Stopped and removed after the test.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type ExecutionResult } from 'graphql';
import type { Config } from '../../src/config.js';
import { DEFAULT_MAX_CONTENT_BYTES } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';
import type { AppOptions } from '../../src/app.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { request } from 'node:http';
import { onCleanup } from './leftovers.js';
import { tempDir } from './temp.js';
import { freshDatabase, onPostgres, testRedisUrl } from './database.js';

export interface GraphQLErrorShape {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; [key: string]: unknown };
}

export interface Result<T> extends Omit<ExecutionResult<T>, 'errors'> {
  errors?: GraphQLErrorShape[];
}

export interface TestServer {
  url: string;
  dataDir: string;
  server: RunningServer;
  /** The token the client sends (the server's own unless the test chose another), if any. */
  token: string | undefined;
  /** Sends one operation over HTTP POST. */
  request<T, V>(document: TypedDocumentNode<T, V>, variables?: V): Promise<Result<T>>;
  /** Like request, but fails the test on any error and returns data. */
  ok<T, V>(document: TypedDocumentNode<T, V>, variables?: V): Promise<T>;
  /** Sends raw query text (for inputs the typed documents cannot express). */
  raw(query: string, variables?: Record<string, unknown>): Promise<Result<Record<string, unknown>>>;
  /**
   * Resolves once the session's repo lock is free: a mirror pass in progress has ended, and with
   * it the checkout, which follows a commit after its event (Session.mirror says in sync as soon
   * as the commit is recorded; `git status` is clean once this resolves).
   */
  repoSettled(sessionId: string): Promise<void>;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  const dataDir = overrides.dataDir ?? tempDir('em-data-');
  return {
    dataDir,
    port: 0,
    host: '127.0.0.1',
    allowedRoots: [dataDir],
    maxContentBytes: DEFAULT_MAX_CONTENT_BYTES,
    logLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...overrides,
  };
}

/** How the test client talks to the server (all optional). */
export interface TestClientOptions {
  /** Sent as `Authorization: Bearer`; default the server's token when it requires one. `null` sends none. */
  token?: string | null;
  /** Extra request headers, e.g. an `origin`. */
  headers?: Record<string, string>;
  /** The logger the server writes to; default a pino logger at `config.logLevel`. */
  logger?: Logger;
}

/** The PostgreSQL pass: each data dir's database (test/helpers/database.ts), for servers started on it again. */
const databaseOfDataDir = new Map<string, { name: string; url: string }>();

export async function startTestServer(
  overrides: Partial<Config> = {},
  options: AppOptions = {},
  clientOptions: TestClientOptions = {},
): Promise<TestServer> {
  const config = testConfig(overrides);
  // The PostgreSQL pass (test/helpers/database.ts): a database of its own, unless the test shares one.
  // A server started again on a data dir (a restart) gets the database it had. A test that gives
  // `databaseUrl: undefined` runs on the data dir's SQLite file in every pass (the embedded default's
  // own behaviour: one server per data dir, the file beside the repos).
  if (onPostgres && config.databaseUrl === undefined && !('databaseUrl' in overrides)) {
    let database = databaseOfDataDir.get(config.dataDir);
    if (!database) {
      const dataDir = config.dataDir;
      databaseOfDataDir.set(dataDir, (database = await freshDatabase()));
      onCleanup(() => databaseOfDataDir.delete(dataDir));
    }
    config.databaseUrl = database.url;
    // And events through Redis, on channels of its own.
    if (config.redisUrl === undefined) Object.assign(config, { redisUrl: testRedisUrl, redisPrefix: `em-test:${database.name}:` });
  }
  const server = await startServer(config, clientOptions.logger ?? createLogger(config.logLevel), {
    ...options,
    mirror: { retryBaseMs: 50, retryMaxMs: 400, ...options.mirror },
  });
  onCleanup(() => server.stop());
  const endpoint = `${server.url}/graphql`;
  const token = clientOptions.token === null ? undefined : (clientOptions.token ?? server.auth.token);

  async function post(query: string, variables: unknown): Promise<Result<never>> {
    const text = await postOnItsOwnConnection(endpoint, {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...clientOptions.headers,
    }, JSON.stringify({ query, variables }));
    return JSON.parse(text) as Result<never>;
  }

  const client: TestServer = {
    url: server.url,
    dataDir: config.dataDir,
    server,
    token,
    request: (document, variables) => post(print(document), variables),
    ok: async (document, variables) => {
      const result = await client.request(document, variables);
      if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
      return result.data!;
    },
    raw: (query, variables) => post(query, variables),
    repoSettled: (sessionId) => server.app.deps.repoLocks.run(sessionId, async () => {}),
  };
  return client;
}

/** The single error of a failed result (fails when there is not exactly one). */
export function onlyError(result: Result<unknown>): GraphQLErrorShape {
  if (result.errors?.length !== 1) throw new Error(`expected one error, got ${JSON.stringify(result.errors ?? result.data)}`);
  return result.errors[0]!;
}

/**
 * One POST on a connection of its own, closed after the answer (no keep-alive). A connection
 * kept idle between requests is closed by the server's keep-alive timer (5 s): when this process
 * held its event loop past that (a spawnSync of the command line, a loaded machine), the next
 * request went out on it just as the timer fired, and fetch failed with ECONNRESET.
 * @returns the body, whatever the status (GraphQL errors come with one).
 */
export function postOnItsOwnConnection(url: string, headers: Record<string, string>, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
