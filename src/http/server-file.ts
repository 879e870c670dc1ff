/**
 * `<dataDir>/server.json`: where the server holding the data dir listens, so another process on
 * this machine (the command line's `import`) can send to it instead of writing the data dir
 * itself, which only the lock holder may. Written once listening, removed at stop; a stale file
 * (a killed server) is harmless: readers trust it only while the data dir's lock is held, and
 * check the pid.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServerFile {
  /** A URL this machine reaches the server at, e.g. http://127.0.0.1:4000 (a wildcard bind as loopback). */
  url: string;
  pid: number;
}

export function serverFilePath(dataDir: string): string {
  return join(dataDir, 'server.json');
}

/** The URL a local client should use for a server bound to `host`:`port`. */
export function localUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** Written whole or not at all (a temporary file renamed into place). */
export function writeServerFile(dataDir: string, info: ServerFile): void {
  const temporary = `${serverFilePath(dataDir)}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(info)}\n`, { mode: 0o600 });
  renameSync(temporary, serverFilePath(dataDir));
}

/** Removes the file if it is still this one's (same pid and url). */
export function removeServerFile(dataDir: string, info: ServerFile): void {
  const current = readServerFile(dataDir);
  if (current?.pid === info.pid && current.url === info.url) rmSync(serverFilePath(dataDir), { force: true });
}

export function readServerFile(dataDir: string): ServerFile | undefined {
  try {
    const parsed = JSON.parse(readFileSync(serverFilePath(dataDir), 'utf8')) as Partial<ServerFile>;
    if (typeof parsed.url !== 'string' || typeof parsed.pid !== 'number') return undefined;
    return { url: parsed.url, pid: parsed.pid };
  } catch {
    return undefined;
  }
}
