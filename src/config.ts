/**
 * Server configuration from flags and environment variables (flags win).
 * Parsing never exits; src/cli.ts turns a ConfigError into a one-line message
 * and exit code 2.
 */
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface Config {
  /** Root of everything on disk: the database (unless `databaseUrl`) and sessions/. */
  dataDir: string;
  /**
   * A PostgreSQL database (`postgresql://…`) instead of the SQLite file in `dataDir`. Several
   * servers may then share it and one `dataDir` (a shared volume): the data dir is not locked
   * for one server, and the mirror takes a lease per session (src/mirror/leases.ts). Default: unset.
   */
  databaseUrl?: string;
  port: number;
  host: string;
  /** Folders a project's working directory must lie inside. */
  allowedRoots: string[];
  /** Largest message content accepted, in bytes of UTF-8. */
  maxContentBytes: number;
  /**
   * The data dir's disk budget in bytes (src/mirror/disk-budget.ts): past it, the oldest sessions
   * idle for 7 days are archived until it fits. Default: unset (no budget).
   */
  maxDiskBytes?: number;
  logLevel: string;
  /**
   * Browser origins (scheme://host[:port], normalised) allowed besides the server's own; the
   * origin of `publicUrl` is added by loadConfig. Default: none.
   */
  allowedOrigins?: string[];
  /**
   * Where users reach the server when that is not its bound address (a reverse proxy with TLS):
   * its origin is allowed and its hostname is accepted in `Host`. Default: unset.
   */
  publicUrl?: string;
  /**
   * Bearer token required on every request but /health when set. Default: unset, and the server
   * generates one into `<dataDir>/token` when it binds anything but loopback or has a
   * `publicUrl` (src/http/token.ts). Prefer ENTITY_MEMORY_TOKEN to `--token`: other local users
   * can read a process's arguments.
   */
  token?: string;
  /** Open WebSocket connections, all addresses together. Default DEFAULT_MAX_WS_CONNECTIONS. */
  maxWsConnections?: number;
  /** Open WebSocket connections from one remote address. Default DEFAULT_MAX_WS_PER_ADDRESS. */
  maxWsPerAddress?: number;
  /** Operations in flight on one graphql-ws connection. Default DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION. */
  maxSubscriptionsPerConnection?: number;
  /**
   * Bytes a WebSocket may have waiting to be sent (its peer reads slower than events come)
   * before it is closed with 1013; see src/http/send-buffer.ts. Default: one largest frame,
   * `wsMaxPayload` (41 MiB with the default content limit). Not a flag: tests set it lower.
   */
  maxWsBufferedBytes?: number;
  /**
   * The built web UI served at `/` (scripts/build-web.mjs builds it). Default: this package's
   * web/dist (src/http/web-ui.ts). Not a flag: tests point it elsewhere.
   */
  webDir?: string;
  /**
   * Redis (redis:// or rediss://) that carries the events between server instances, so a
   * subscriber on any instance receives what every instance publishes (src/redis-pubsub.ts).
   * Default: unset, and events stay in this process. It may hold a password: log it through
   * redactRedisUrl only, and prefer REDIS_URL to `--redis-url` (other local users can read a
   * process's arguments).
   */
  redisUrl?: string;
  /**
   * Starts the name of every Redis channel, so deployments (or test files) sharing one Redis
   * never see each other's events. Default DEFAULT_REDIS_PREFIX.
   */
  redisPrefix?: string;
  /**
   * Whether secrets are taken out of every message before it is stored (src/redaction/):
   * `false` keeps messages verbatim, secrets included. Default true.
   */
  redact?: boolean;
}

export class ConfigError extends Error {}

export const DEFAULT_MAX_CONTENT_BYTES = 10 * 1024 * 1024;
/** Each open socket costs a file descriptor and a keep-alive timer; 1,000 is far from ulimit -n. */
export const DEFAULT_MAX_WS_CONNECTIONS = 1000;
/** One runaway client (or tab) cannot take every slot; behind a reverse proxy all clients share its address. */
export const DEFAULT_MAX_WS_PER_ADDRESS = 200;
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;
export const DEFAULT_REDIS_PREFIX = 'entity-memory:';
/** Printable ASCII without spaces, so a channel name reads the same in every log and redis-cli. */
export const REDIS_PREFIX_PATTERN = /^[\x21-\x7e]{1,64}$/;

export const serveOptions = {
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allowed-root': { type: 'string', multiple: true },
  'max-content-bytes': { type: 'string' },
  'log-level': { type: 'string' },
  'allowed-origin': { type: 'string', multiple: true },
  'public-url': { type: 'string' },
  token: { type: 'string' },
  'max-ws-connections': { type: 'string' },
  'max-ws-per-address': { type: 'string' },
  'max-subscriptions-per-connection': { type: 'string' },
  'redis-url': { type: 'string' },
  'redis-prefix': { type: 'string' },
  redact: { type: 'string' },
  'max-disk': { type: 'string' },
} as const;

/** What `serve --help` and the README's Configuration table say about a flag. */
export interface FlagHelp {
  /** The value's placeholder, e.g. `N`; absent for a switch. */
  value?: string;
  /** The environment variable read when the flag is absent. */
  variable?: string;
  /** The default, as a person reads it. */
  default: string;
  meaning: string;
  repeatable?: boolean;
}

/** One entry per serve flag (the type makes a new flag without help a compile error). */
export const serveFlagHelp: Record<keyof typeof serveOptions, FlagHelp> = {
  'data-dir': { value: 'DIR', variable: 'OPENPROGRAM_HOME', default: '~/.openprogram', meaning: 'database (entity-memory.db) and sessions/; one server per data dir (several with --database-url)' },
  'database-url': {
    value: 'URL',
    variable: 'DATABASE_URL',
    default: 'SQLite in <data-dir>',
    meaning: 'a PostgreSQL database (postgresql://user@host:5432/db) instead; several servers may share it and one data dir',
  },
  port: { value: 'N', variable: 'PORT', default: '4000', meaning: 'HTTP and WebSocket port, 0 to 65535 (0 picks a free one, printed at start)' },
  host: { value: 'HOST', variable: 'HOST', default: '127.0.0.1', meaning: 'address to listen on' },
  'allowed-root': {
    value: 'PATH',
    variable: 'ENTITY_MEMORY_ALLOWED_ROOTS',
    default: 'your home directory',
    meaning: "folders a project's working directory must lie inside (the variable: path-delimiter separated)",
    repeatable: true,
  },
  'max-content-bytes': { value: 'N', default: String(DEFAULT_MAX_CONTENT_BYTES), meaning: 'largest message content accepted, in bytes' },
  'log-level': { value: 'LEVEL', variable: 'LOG_LEVEL', default: 'info', meaning: 'fatal, error, warn, info, debug, trace or silent; JSON lines on stdout' },
  token: {
    value: 'TOKEN',
    variable: 'ENTITY_MEMORY_TOKEN',
    default: 'none on loopback; generated into <data-dir>/token otherwise',
    meaning: 'bearer token (16+ characters) required on HTTP and WebSocket; prefer the variable',
  },
  'allowed-origin': {
    value: 'URL',
    variable: 'ENTITY_MEMORY_ALLOWED_ORIGINS',
    default: 'none',
    meaning: 'extra browser origin allowed to call the API (the variable: comma separated)',
    repeatable: true,
  },
  'public-url': {
    value: 'URL',
    variable: 'ENTITY_MEMORY_PUBLIC_URL',
    default: 'none',
    meaning: 'the address people reach the server by (behind a proxy); turns the token on',
  },
  'max-ws-connections': {
    value: 'N',
    variable: 'ENTITY_MEMORY_MAX_WS_CONNECTIONS',
    default: String(DEFAULT_MAX_WS_CONNECTIONS),
    meaning: 'open WebSockets in all (over it: close 4429)',
  },
  'max-ws-per-address': {
    value: 'N',
    variable: 'ENTITY_MEMORY_MAX_WS_PER_ADDRESS',
    default: String(DEFAULT_MAX_WS_PER_ADDRESS),
    meaning: 'open WebSockets per remote address',
  },
  'max-subscriptions-per-connection': {
    value: 'N',
    variable: 'ENTITY_MEMORY_MAX_SUBSCRIPTIONS_PER_CONNECTION',
    default: String(DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION),
    meaning: 'live subscriptions on one WebSocket',
  },
  'redis-url': {
    value: 'URL',
    variable: 'REDIS_URL',
    default: 'none (events stay in this process)',
    meaning: 'redis:// or rediss:// URL: events go through Redis to every server instance; prefer the variable when it holds a password',
  },
  'redis-prefix': {
    value: 'PREFIX',
    variable: 'ENTITY_MEMORY_REDIS_PREFIX',
    default: DEFAULT_REDIS_PREFIX,
    meaning: 'start of every Redis channel name (1 to 64 printable characters, no spaces); one per deployment sharing a Redis',
  },
  redact: {
    value: 'WHEN',
    variable: 'ENTITY_MEMORY_REDACT',
    default: 'on',
    meaning: 'on or off: take secrets (keys, tokens, passwords) out of messages before storing them; off keeps them verbatim',
  },
  'max-disk': {
    value: 'SIZE',
    variable: 'ENTITY_MEMORY_MAX_DISK',
    default: 'none',
    meaning: 'disk budget of the data dir (500M, 20G): past it, the oldest sessions idle for 7 days are archived until it fits; /health and the UI show the usage, a warning at 90%',
  },
};

export function databaseFile(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'entity-memory.db');
}

export function sessionsDir(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'sessions');
}

function positiveInt(raw: string, what: string, max: number): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new ConfigError(`${what} must be a whole number from 1 to ${max}, got ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

function absolute(raw: string, what: string): string {
  if (raw.trim() === '') throw new ConfigError(`${what} must not be empty`);
  return isAbsolute(raw) ? resolve(raw) : resolve(process.cwd(), raw);
}

/**
 * A browser origin from the command line: http or https, a host, an optional port, nothing else
 * (a path would never match an `Origin` header, so it is a mistake worth telling).
 */
function origin(raw: string, what: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${what} must be a URL such as http://localhost:5173, got ${JSON.stringify(raw)}`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    throw new ConfigError(`${what} must be an http:// or https:// URL without credentials, got ${JSON.stringify(raw)}`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new ConfigError(`${what} must be scheme://host[:port] with no path, got ${JSON.stringify(raw)}`);
  }
  return url.origin;
}

/** RFC 6750's b64token, at least 16 characters: it goes into headers and URL fragments unescaped. */
export const TOKEN_PATTERN = /^[A-Za-z0-9._~+/-]{16,}=*$/;

function token(raw: string, what: string): string {
  if (!TOKEN_PATTERN.test(raw)) {
    throw new ConfigError(`${what} must be at least 16 characters of A-Z a-z 0-9 - . _ ~ + /`);
  }
  return raw;
}

/**
 * A Redis URL as it may be logged or shown: scheme, host, port and database, never the user
 * name or password.
 */
export function redactRedisUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/**
 * redis:// or rediss://, a host, an optional port and database number (ioredis' options after
 * `?` pass through). The messages never repeat the URL whole: it may hold a password.
 */
function redisUrl(raw: string, what: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${what} must be a URL such as redis://127.0.0.1:6379 (or rediss:// for TLS)`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError(`${what} must start with redis:// or rediss://, not ${JSON.stringify(url.protocol)}`);
  }
  if (url.hostname === '') throw new ConfigError(`${what} must name a host, e.g. redis://127.0.0.1:6379`);
  if (!/^\/?\d*$/.test(url.pathname) || url.hash) {
    throw new ConfigError(`${what} may end with a database number (redis://host:6379/0) and nothing else, got ${JSON.stringify(redactRedisUrl(url.href))}`);
  }
  // As given: ioredis decodes the user name and password itself.
  return raw.trim();
}

function redisPrefix(raw: string, what: string): string {
  if (!REDIS_PREFIX_PATTERN.test(raw)) {
    throw new ConfigError(`${what} must be 1 to 64 printable ASCII characters without spaces, got ${JSON.stringify(raw)}`);
  }
  return raw;
}

/**
 * @param argv the arguments after the command name (`serve`).
 * @throws ConfigError on an unknown flag, a stray argument or a bad value.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const dataDir = absolute(values['data-dir'] ?? env.OPENPROGRAM_HOME ?? join(homedir(), '.openprogram'), '--data-dir');
  const databaseUrlRaw = values['database-url'] ?? (env.DATABASE_URL || undefined);
  const databaseUrl = databaseUrlRaw === undefined ? undefined : postgresUrl(databaseUrlRaw);
  const portRaw = values.port ?? env.PORT ?? '4000';
  if (!/^\d+$/.test(portRaw) || Number(portRaw) > 65535) {
    throw new ConfigError(`--port must be a whole number from 0 to 65535 (0 picks a free port), got ${JSON.stringify(portRaw)}`);
  }
  const port = Number(portRaw);
  const host = values.host ?? env.HOST ?? '127.0.0.1';
  if (host.trim() === '') throw new ConfigError('--host must not be empty');
  const rootsRaw =
    values['allowed-root'] ??
    (env.ENTITY_MEMORY_ALLOWED_ROOTS ? env.ENTITY_MEMORY_ALLOWED_ROOTS.split(delimiter).filter(Boolean) : [homedir()]);
  const allowedRoots = rootsRaw.map((root) => absolute(root, '--allowed-root'));
  const maxContentBytes = values['max-content-bytes']
    ? positiveInt(values['max-content-bytes'], '--max-content-bytes', 1024 * 1024 * 1024)
    : DEFAULT_MAX_CONTENT_BYTES;
  const logLevel = values['log-level'] ?? env.LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`--log-level must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  const publicUrlRaw = values['public-url'] ?? (env.ENTITY_MEMORY_PUBLIC_URL || undefined);
  const publicUrl = publicUrlRaw === undefined ? undefined : origin(publicUrlRaw, '--public-url');
  const originsRaw =
    values['allowed-origin'] ?? (env.ENTITY_MEMORY_ALLOWED_ORIGINS ? env.ENTITY_MEMORY_ALLOWED_ORIGINS.split(',').filter((o) => o.trim()) : []);
  const allowedOrigins = [...new Set([...originsRaw.map((o) => origin(o, '--allowed-origin')), ...(publicUrl ? [publicUrl] : [])])];
  // An empty variable is how shells unset things; an empty flag is a mistake.
  const tokenRaw = values.token ?? (env.ENTITY_MEMORY_TOKEN || undefined);
  const limit = (flag: string, variable: string, fallback: number) => {
    const raw = (values as Record<string, string | undefined>)[flag] ?? (env[variable] || undefined);
    return raw === undefined ? fallback : positiveInt(raw, `--${flag}`, 1_000_000);
  };
  // An empty variable is unset, as for the token; an empty flag is a mistake the checks refuse.
  const redisUrlRaw = values['redis-url'] ?? (env.REDIS_URL || undefined);
  const redisPrefixRaw = values['redis-prefix'] ?? (env.ENTITY_MEMORY_REDIS_PREFIX || undefined);
  const redactRaw = values.redact ?? (env.ENTITY_MEMORY_REDACT || 'on');
  if (redactRaw !== 'on' && redactRaw !== 'off') throw new ConfigError(`--redact must be on or off, got ${JSON.stringify(redactRaw)}`);
  const maxDiskRaw = values['max-disk'] ?? (env.ENTITY_MEMORY_MAX_DISK || undefined);
  const maxDiskBytes = maxDiskRaw === undefined ? undefined : diskSize(maxDiskRaw, '--max-disk');
  if (maxDiskBytes !== undefined && databaseUrl) {
    throw new ConfigError('--max-disk is for one server on its own data dir (the embedded database); servers sharing a database and data dir archive with entity-memory archive --older-than DAYS, run from one place');
  }
  return {
    ...(maxDiskBytes !== undefined ? { maxDiskBytes } : {}),
    dataDir,
    ...(databaseUrl ? { databaseUrl } : {}),
    port,
    host,
    allowedRoots,
    maxContentBytes,
    logLevel,
    allowedOrigins,
    publicUrl,
    token: tokenRaw === undefined ? undefined : token(tokenRaw, '--token'),
    maxWsConnections: limit('max-ws-connections', 'ENTITY_MEMORY_MAX_WS_CONNECTIONS', DEFAULT_MAX_WS_CONNECTIONS),
    maxWsPerAddress: limit('max-ws-per-address', 'ENTITY_MEMORY_MAX_WS_PER_ADDRESS', DEFAULT_MAX_WS_PER_ADDRESS),
    maxSubscriptionsPerConnection: limit(
      'max-subscriptions-per-connection',
      'ENTITY_MEMORY_MAX_SUBSCRIPTIONS_PER_CONNECTION',
      DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION,
    ),
    redisUrl: redisUrlRaw === undefined ? undefined : redisUrl(redisUrlRaw, '--redis-url'),
    redisPrefix: redisPrefixRaw === undefined ? DEFAULT_REDIS_PREFIX : redisPrefix(redisPrefixRaw, '--redis-prefix'),
    redact: redactRaw === 'on',
  };
}

/** A PostgreSQL URL as pg reads it; the message never repeats the password. */
function postgresUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('--database-url (or DATABASE_URL) must be a PostgreSQL URL such as postgresql://user@127.0.0.1:5432/entity_memory');
  }
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
    throw new ConfigError(
      `--database-url (or DATABASE_URL) must be a postgresql:// URL, got a ${url.protocol}// one; without it the data dir's SQLite file is used (unset DATABASE_URL if it is meant for another program)`,
    );
  }
  if (url.hostname === '' && !url.searchParams.has('host')) throw new ConfigError('--database-url must name a host, e.g. postgresql://user@127.0.0.1:5432/entity_memory');
  if (url.pathname.replace(/^\//, '') === '') throw new ConfigError('--database-url must name a database, e.g. postgresql://user@127.0.0.1:5432/entity_memory');
  return raw;
}

/** Where the database is: the PostgreSQL URL when configured, else the data dir's SQLite file. */
export function databaseTarget(config: Pick<Config, 'dataDir' | 'databaseUrl'>): { url: string } | { file: string } {
  return config.databaseUrl ? { url: config.databaseUrl } : { file: databaseFile(config) };
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: serveOptions, strict: true, allowPositionals: false });
}

/** A size as people write it: 500M, 20G, 1.5GB, 800MiB, 1048576 (bytes); powers of 1,024. */
export function diskSize(raw: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(?:([KMGT])(?:i?B)?|B)?$/i.exec(raw.trim());
  const units: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };
  const bytes = match ? Math.floor(Number(match[1]) * (match[2] ? units[match[2].toUpperCase()]! : 1)) : NaN;
  if (!(bytes >= 1024 * 1024)) throw new ConfigError(`${flag} must be a size of at least 1M, such as 500M or 20G; got ${JSON.stringify(raw)}`);
  return bytes;
}
