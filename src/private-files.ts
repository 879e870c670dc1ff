/**
 * The data dir is private to the user who runs the server: every conversation, tool output and
 * file content an agent ever read is in it. The folder is 0700 (so nothing in it can be reached
 * by another account, whatever its own mode), and what the server creates there is 0600 / 0700
 * as well: the database, the session repos' folders, the hooks' spool. A data dir made before
 * this (0755 folders, a 0644 database) is tightened at start, with one log line.
 */
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** The files and folders of a data dir that hold what the user's agents said and read. */
const FILES = ['entity-memory.db', 'entity-memory.db-wal', 'entity-memory.db-shm', 'entity-memory.db-journal', 'token', 'server.json'];
const FOLDERS = ['sessions', 'hooks', 'moved-aside'];

/** Whether another account may read or enter `path` (group or other bits set); false when it is missing. */
export function readableByOthers(path: string): boolean {
  try {
    return (lstatSync(path).mode & 0o077) !== 0;
  } catch {
    return false;
  }
}

/**
 * Creates the data dir 0700 when missing; takes group and other access away from it and from
 * what the server keeps in it (never following a symbolic link).
 * @returns the paths whose mode it changed, for a log line.
 */
export function privateDataDir(dataDir: string): string[] {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tightened: string[] = [];
  const tighten = (path: string, mode: number, kind: 'file' | 'folder') => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return;
    }
    if (stat.isSymbolicLink() || (kind === 'file' ? !stat.isFile() : !stat.isDirectory())) return;
    if ((stat.mode & 0o077) === 0) return;
    chmodSync(path, mode);
    tightened.push(path);
  };
  tighten(dataDir, 0o700, 'folder');
  for (const name of FOLDERS) tighten(join(dataDir, name), 0o700, 'folder');
  for (const name of FILES) tighten(join(dataDir, name), 0o600, 'file');
  return tightened;
}
