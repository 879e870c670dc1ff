/**
 * The bearer token: where it comes from, and how a request's copy is compared with it.
 *
 * Loopback is not a boundary between the users of one machine, and anything else is the LAN
 * (or, behind a proxy at --public-url, the internet), so there a token is always required: the
 * configured one, else the one kept in `<dataDir>/token` (mode 0600, created on first use). On
 * plain loopback it is required only when configured, so `npm start` works as it always has.
 * Whichever is in force is in `<dataDir>/token` for the data dir's own clients (hooks, the CLI).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, writeFileSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { TOKEN_PATTERN, type Config } from '../config.js';
import { isLoopbackHost } from './origin.js';

/** Where the token in force came from; `none` means no token is required. */
export type TokenSource = 'config' | 'file' | 'generated' | 'none';

export interface Auth {
  /** The token every request but /health must carry; undefined when none is required. */
  token: string | undefined;
  source: TokenSource;
  /** `<dataDir>/token` when the token lives there. */
  file: string | undefined;
}

export function tokenFile(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'token');
}

/**
 * Whether the server is meant to be reached from beyond this machine's loopback: it binds
 * another address, or it sits behind a reverse proxy at `publicUrl` (the proxy connects over
 * loopback, but the people it forwards are anywhere).
 */
export function exposedBeyondLoopback(config: Pick<Config, 'host' | 'publicUrl'>): boolean {
  return !isLoopbackHost(config.host) || config.publicUrl !== undefined;
}

/**
 * Decides the token for a server about to listen: the configured one; none on loopback without
 * a public URL; otherwise the one in the token file. Reads `<dataDir>/token` when it holds a
 * usable token (tightening its mode to 0600 if it was looser), else writes a new one: 32
 * random bytes, base64url. A configured token is written there too, so the data dir's own
 * clients find it: the hook command runs under the agent's bare environment, where
 * ENTITY_MEMORY_TOKEN is not set, and without it every event would wait in the spool. Creates
 * the data dir (0700) when needed.
 * @throws when the token file is not a regular file (a symlink is refused: another user could
 *   point it anywhere) or cannot be written.
 */
export function resolveAuth(config: Pick<Config, 'dataDir' | 'host' | 'publicUrl' | 'token'>): Auth {
  if (config.token === undefined && !exposedBeyondLoopback(config)) return { token: undefined, source: 'none', file: undefined };
  const file = tokenFile(config);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  let stat: Stats | undefined;
  try {
    stat = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (stat && !stat.isFile()) throw new Error(`${file} is not a regular file; remove it so a token can be written there`);
  if (config.token !== undefined) {
    if (!stat || readFileSync(file, 'utf8').trim() !== config.token) writeToken(file, config.token);
    else if ((stat.mode & 0o077) !== 0) chmodSync(file, 0o600);
    return { token: config.token, source: 'config', file };
  }
  if (stat) {
    if ((stat.mode & 0o077) !== 0) chmodSync(file, 0o600);
    const existing = readFileSync(file, 'utf8').trim();
    if (TOKEN_PATTERN.test(existing)) return { token: existing, source: 'file', file };
  }
  const token = randomBytes(32).toString('base64url');
  writeToken(file, token);
  return { token, source: 'generated', file };
}

function writeToken(file: string, token: string): void {
  // 'w' with mode applies only on creation; chmod covers a file that existed with junk in it.
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Compares a presented token with the expected one in constant time: both are hashed first, so
 * neither the length nor the first differing byte shows in the timing.
 */
export function tokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digest(expected), digest(presented));
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

/**
 * The token a graphql-ws client put in `connectionParams`: `{ token }`, or
 * `{ authorization: 'Bearer …' }` / `{ Authorization: … }` as HTTP clients tend to send.
 */
export function connectionParamsToken(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!params) return undefined;
  if (typeof params.token === 'string') return params.token;
  const header = params.authorization ?? params.Authorization;
  return typeof header === 'string' ? bearerToken(header) : undefined;
}
