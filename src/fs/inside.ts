/**
 * Files under a folder (a user's working tree, a transcript root), read and written without
 * following a link another process could put in the way, at any moment (issue 26 item 5): no
 * check-then-use on paths.
 *
 * A relative path is walked one folder at a time from the top, each folder opened with
 * O_DIRECTORY | O_NOFOLLOW: a component that is a symlink (or a file) stops the walk with
 * BeyondLinkError. Whatever is done in the last folder (open, lstat, readlink, mkdir, symlink,
 * rename, unlink) is done relative to the folder that was opened:
 * - on Linux through `/proc/self/fd/<fd>/<name>`: the kernel resolves that to the open folder
 *   whatever its path names by then, which is openat(2)'s guarantee, so a folder swapped for a
 *   symlink after it was opened changes nothing;
 * - elsewhere (macOS has no /proc) through the folder's path, checked after each step to still
 *   name the folder that was opened (device and inode), and a file opened there checked to be the
 *   one its path names: a swap is caught, and what was read through it thrown away. A write's
 *   final rename is checked after the fact only, so there a swap timed to that one call can still
 *   place a file outside (said in the README's threat model).
 * Files are written to a temporary name in their final folder and renamed over the old one, so
 * a reader never sees half a file and a symlink at the name is replaced, never followed.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, createWriteStream, existsSync, fstatSync, lstatSync, openSync, readlinkSync, realpathSync } from 'node:fs';
import { lstat, mkdir, open, readlink, realpath, rename, symlink, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL } = constants;
// Not defined on Windows, where this module does not protect anything.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Whether folders are reached through /proc/self/fd (tests turn it off to run the checked-path way). */
export const insideMode = { procFd: existsSync('/proc/self/fd') };

/** A path that goes through a symlink (or a file) where a folder should be, or a folder swapped during the walk. */
export class BeyondLinkError extends Error {
  readonly code = 'BEYOND_LINK';
  constructor(
    readonly path: string,
    readonly at: string,
  ) {
    super(`${path} is beyond a symbolic link or a file (${at === '' ? 'the top' : at}), or it was swapped for one while we used it; nothing was read or written there`);
  }
}

/** What a path is, taken through the walk: `lstat`'s answer without following any link. */
export type Entry =
  | { kind: 'missing' }
  | { kind: 'file'; size: number; mode: number }
  | { kind: 'symlink'; target: string }
  | { kind: 'folder' }
  | { kind: 'other' };

interface Folder {
  handle: FileHandle;
  /** Its path relative to the top when it was opened ('' for the top; for messages). */
  path: string;
  /** Its absolute path then (the checked-path way reaches what is in it through this). */
  absolute: string;
  dev: number;
  ino: number;
}

/**
 * The parts of a relative path, checked: no empty, `.` or `..` part, no NUL, not absolute.
 * @throws Error for anything else (callers validated their paths already; this is the last guard).
 */
export function pathParts(path: string): string[] {
  const parts = path.split('/');
  if (path.includes('\0') || parts.some((p) => p === '' || p === '.' || p === '..')) throw new Error(`not a relative path inside the folder: ${JSON.stringify(path)}`);
  return parts;
}

function at(folder: Folder, name: string): string {
  return insideMode.procFd ? `/proc/self/fd/${folder.handle.fd}/${name}` : join(folder.absolute, name);
}

async function openFolder(path: string, absolute: string, shown: string, rel: string): Promise<Folder | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw new BeyondLinkError(rel, shown);
    throw error;
  }
  const info = await handle.stat();
  return { handle, path: shown, absolute, dev: info.dev, ino: info.ino };
}

/** The checked-path way: the folder's path still names the folder that was opened. */
async function stillThere(folder: Folder, rel: string): Promise<void> {
  if (insideMode.procFd) return;
  const now = await lstat(folder.absolute).catch(() => null);
  if (!now?.isDirectory() || !sameFile(now, folder)) throw new BeyondLinkError(rel, folder.path);
}

/**
 * Opens the folder holding `rel` (its parent), walking from `top` (a real path) one folder at a
 * time; with `create`, makes the folders that are missing on the way.
 * @returns null when a folder on the way is missing (and not `create`).
 */
async function parentOf(top: string, rel: string, create: boolean): Promise<{ folder: Folder; name: string; close(): Promise<void> } | null> {
  const parts = pathParts(rel);
  const name = parts.pop()!;
  let folder = await openFolder(top, top, '', rel);
  if (!folder) return null;
  try {
    for (const part of parts) {
      const path = folder.path === '' ? part : `${folder.path}/${part}`;
      const absolute = join(top, path);
      const through = insideMode.procFd ? at(folder, part) : absolute;
      let child = await openFolder(through, absolute, path, rel);
      if (!child && create) {
        await stillThere(folder, rel);
        await mkdir(at(folder, part)).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
        child = await openFolder(through, absolute, path, rel);
      }
      if (!child) {
        await folder.handle.close();
        return null;
      }
      await folder.handle.close();
      folder = child;
      await stillThere(folder, rel);
    }
  } catch (error) {
    await folder.handle.close().catch(() => {});
    throw error;
  }
  const held = folder;
  return { folder: held, name, close: () => held.handle.close() };
}

/** What `rel` is under `top`, as `lstat` would say, reached without following a link on the way. */
export async function entryInside(top: string, rel: string): Promise<Entry> {
  const parent = await parentOf(top, rel, false);
  if (!parent) return { kind: 'missing' };
  try {
    return await entryIn(rel, parent.folder, parent.name);
  } finally {
    await parent.close();
  }
}

async function entryIn(rel: string, folder: Folder, name: string): Promise<Entry> {
  const info = await lstat(at(folder, name)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  });
  await stillThere(folder, rel);
  if (!info) return { kind: 'missing' };
  if (info.isSymbolicLink()) {
    const target = await readlink(at(folder, name));
    await stillThere(folder, rel);
    return { kind: 'symlink', target };
  }
  if (info.isFile()) return { kind: 'file', size: info.size, mode: info.mode };
  return info.isDirectory() ? { kind: 'folder' } : { kind: 'other' };
}

/**
 * Copies the file at `rel` under `top` to `destination` (a new file in a private folder of
 * ours), reading through a handle opened without following links; a symlink's target is
 * returned instead, anything else only named.
 * @returns the entry as it was read (`mode` from the open file itself).
 */
export async function copyOutOf(top: string, rel: string, destination: string): Promise<Entry> {
  const parent = await parentOf(top, rel, false);
  if (!parent) return { kind: 'missing' };
  try {
    const { folder, name } = parent;
    let file: FileHandle;
    try {
      // O_NONBLOCK: a FIFO put there does not hang the open (it is refused below, as not a file).
      file = await open(at(folder, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'EISDIR' || code === 'ENXIO' || code === 'EMLINK') return await entryIn(rel, folder, name);
      if (code === 'ENOENT') return { kind: 'missing' };
      throw error;
    }
    try {
      const info = await file.stat();
      if (!info.isFile()) return info.isDirectory() ? { kind: 'folder' } : { kind: 'other' };
      if (!insideMode.procFd) {
        await stillThere(folder, rel);
        const named = await lstat(join(top, rel)).catch(() => null);
        if (!named || !sameFile(named, info)) throw new BeyondLinkError(rel, folder.path);
      }
      await pipeline(file.createReadStream({ autoClose: false, start: 0 }), createWriteStream(destination, { flags: 'wx', mode: 0o600 }));
      return { kind: 'file', size: info.size, mode: info.mode };
    } finally {
      await file.close();
    }
  } finally {
    await parent.close();
  }
}

/** A name for a file being written in a folder, short enough whatever the final name's length. */
function temporaryName(): string {
  return `.entity-memory-${randomBytes(6).toString('hex')}.tmp`;
}

/**
 * Writes `content` at `rel` under `top` with `mode` (0o644 or 0o755), making the missing folders
 * on the way: into a temporary file in the final folder, renamed over what was there (a file or
 * a symlink, replaced; a folder refuses).
 * @throws BeyondLinkError when the way goes through a link or a file; Error when `rel` is a folder.
 */
export async function writeInside(top: string, rel: string, content: Buffer, mode: number): Promise<void> {
  await replaceIn(top, rel, async (folder, temporary) => {
    const file = await open(at(folder, temporary), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
    try {
      await file.writeFile(content);
      // The umask may have taken bits off: the mode is the recorded one.
      await file.chmod(mode);
      return (await file.stat()).ino;
    } finally {
      await file.close();
    }
  });
}

/** Makes `rel` under `top` a symlink to `target`, as writeInside writes a file. */
export async function symlinkInside(top: string, rel: string, target: string): Promise<void> {
  await replaceIn(top, rel, async (folder, temporary) => {
    await symlink(target, at(folder, temporary));
    return (await lstat(at(folder, temporary))).ino;
  });
}

async function replaceIn(top: string, rel: string, make: (folder: Folder, temporary: string) => Promise<number>): Promise<void> {
  const parent = await parentOf(top, rel, true);
  if (!parent) throw Object.assign(new Error(`${rel}: its folder was removed while it was made`), { code: 'ENOENT' });
  const { folder, name } = parent;
  const temporary = temporaryName();
  try {
    const existing = await lstat(at(folder, name)).catch(() => null);
    if (existing?.isDirectory()) throw new Error(`${rel} is a folder now; it was a file`);
    const ino = await make(folder, temporary);
    try {
      await stillThere(folder, rel);
      await rename(at(folder, temporary), at(folder, name));
    } catch (error) {
      await unlink(at(folder, temporary)).catch(() => {});
      throw error;
    }
    if (!insideMode.procFd) {
      const named = await lstat(join(top, rel)).catch(() => null);
      if (named?.ino !== ino) throw new BeyondLinkError(rel, folder.path);
    }
  } finally {
    await parent.close();
  }
}

/**
 * Removes the file or symlink at `rel` under `top` (nothing when it is missing).
 * @throws Error when it is a folder; BeyondLinkError as writeInside.
 */
export async function removeInside(top: string, rel: string): Promise<void> {
  const parent = await parentOf(top, rel, false);
  if (!parent) return;
  try {
    const { folder, name } = parent;
    const existing = await lstat(at(folder, name)).catch(() => null);
    if (!existing) return;
    if (existing.isDirectory()) throw new Error(`${rel} is a folder now; it was a file`);
    await stillThere(folder, rel);
    await unlink(at(folder, name));
  } finally {
    await parent.close();
  }
}

/**
 * Opens the regular file at `real` (a real path: no symlink in it, checked by the caller) for
 * reading, and checks that what was opened is that path: on Linux the kernel says which file
 * the descriptor is (`/proc/self/fd/<fd>`), exactly; elsewhere the path is resolved again and
 * must name the same file (a swap there and back between the calls can escape this check).
 * @returns null when it is missing, not a regular file, or not what was opened.
 */
export async function openRealFile(real: string): Promise<FileHandle | null> {
  let file: FileHandle;
  try {
    file = await open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const info = await file.stat();
    if (info.isFile() && (await isAt(file.fd, real, info))) return file;
  } catch {
    // closed below
  }
  await file.close();
  return null;
}

async function isAt(fd: number, real: string, info: { dev: number; ino: number }): Promise<boolean> {
  if (insideMode.procFd) return (await readlink(`/proc/self/fd/${fd}`)) === real;
  const named = (await realpath(real)) === real ? await lstat(real) : null;
  return named !== null && sameFile(named, info);
}

/** openRealFile, synchronous (for the static files of the web UI): a descriptor, or null. */
export function openRealFileSync(real: string): number | null {
  let fd: number;
  try {
    fd = openSync(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const info = fstatSync(fd);
    if (info.isFile()) {
      if (insideMode.procFd ? readlinkSync(`/proc/self/fd/${fd}`) === real : realpathSync(real) === real && sameFile(lstatSync(real), info)) return fd;
    }
  } catch {
    // closed below
  }
  closeSync(fd);
  return null;
}

function sameFile(a: { dev: number; ino: number }, b: { dev: number; ino: number }): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
