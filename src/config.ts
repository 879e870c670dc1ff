/**
 * Server configuration from flags and environment variables (flags win).
 * Parsing never exits; src/cli.ts turns a ConfigError into a one-line message
 * and exit code 2.
 */
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export interface Config {
  /** Root of everything on disk: the database and sessions/. */
  dataDir: string;
  port: number;
  host: string;
  /** Folders a project's working directory must lie inside. */
  allowedRoots: string[];
  /** Largest message content accepted, in bytes of UTF-8. */
  maxContentBytes: number;
  logLevel: string;
}

export class ConfigError extends Error {}

export const DEFAULT_MAX_CONTENT_BYTES = 10 * 1024 * 1024;

export const serveOptions = {
  'data-dir': { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  'allowed-root': { type: 'string', multiple: true },
  'max-content-bytes': { type: 'string' },
  'log-level': { type: 'string' },
} as const;

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
  const portRaw = values.port ?? env.PORT ?? '4000';
  const port = portRaw === '0' ? 0 : positiveInt(portRaw, '--port', 65535);
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
  return { dataDir, port, host, allowedRoots, maxContentBytes, logLevel };
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: serveOptions, strict: true, allowPositionals: false });
}
