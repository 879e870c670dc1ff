/**
 * Making what was written survive a crash: a file's data, and a rename (the folder holding it).
 * Some file systems and platforms refuse to fsync a folder (Windows cannot open one; some network
 * and FUSE file systems answer EINVAL): there a rename is as durable as the file system makes it,
 * and the write goes on rather than failing.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { open } from 'node:fs/promises';

/** Errors of a folder that cannot be opened or fsynced where the platform or file system does not allow it. */
const FOLDER_SYNC_REFUSED = new Set(['EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'ENOTSUP', 'EBADF']);

/** Waits until what was written to the file `path` is on the disk. */
export function syncFileSync(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** `syncFileSync`, without blocking the event loop. */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the renames in `folder` durable, where the file system allows it (see above). */
export function syncFolderSync(folder: string): void {
  try {
    syncFileSync(folder);
  } catch (error) {
    if (!FOLDER_SYNC_REFUSED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}

/** `syncFolderSync`, without blocking the event loop. */
export async function syncFolder(folder: string): Promise<void> {
  try {
    await syncFile(folder);
  } catch (error) {
    if (!FOLDER_SYNC_REFUSED.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}
