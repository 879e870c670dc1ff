/**
 * Finding an agent's transcripts on disk, the same way for every importer: each path given is a
 * file taken as it is (whatever its name), or a folder searched recursively (symbolic links not
 * followed) for the files the importer takes; a path that cannot be read is an error of the
 * summary (line 0), not a failure of the import.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { ImportFileError } from './import-files.js';

export interface FoundFiles {
  /** Absolute paths, each once, in no particular order: the importer sorts them. */
  files: string[];
  errors: ImportFileError[];
}

/** @param takes whether a file found in a folder is one of the importer's (its absolute path). */
export async function walkFiles(paths: readonly string[], takes: (path: string) => boolean): Promise<FoundFiles> {
  const found = new Set<string>();
  const errors: ImportFileError[] = [];
  const collect = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = dir.endsWith(sep) ? dir + entry.name : join(dir, entry.name);
      if (entry.isDirectory()) await collect(path);
      else if (entry.isFile() && takes(path)) found.add(path);
    }
  };
  for (const given of paths) {
    const path = resolve(given);
    try {
      const info = await stat(path);
      if (info.isDirectory()) await collect(path);
      else if (info.isFile()) found.add(path);
      else errors.push({ file: given, line: 0, message: 'not a file or a folder' });
    } catch (error) {
      errors.push({ file: given, line: 0, message: describeFileError(error) });
    }
  }
  return { files: [...found], errors };
}

/** A failure to read a file or a folder, in one line. */
export function describeFileError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file or folder' : error.message;
  }
  return String(error);
}
