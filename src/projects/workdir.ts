/**
 * Which folders may become a project's working directory. A path from a user
 * is checked here before anything reads or writes there.
 */
import { realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, parse, sep } from 'node:path';
import type { Config } from '../config.js';
import { BadUserInputError, ForbiddenError } from '../errors.js';

function inside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function homeDir(): string {
  // Read at each call: tests (and a server run with another HOME) see theirs.
  return realOrSelf(homedir());
}

/** The real paths of the allowed roots. */
export function realRoots(config: Pick<Config, 'allowedRoots'>): string[] {
  return config.allowedRoots.map(realOrSelf);
}

/** True when the real path `path` is inside (or is) one of the allowed roots and not inside the data directory. */
export function insideRoots(path: string, config: Pick<Config, 'allowedRoots' | 'dataDir'>): boolean {
  return realRoots(config).some((root) => inside(path, root)) && !inside(path, realOrSelf(config.dataDir));
}

/**
 * @returns the real path of `input`.
 * @throws BadUserInputError when it is not an absolute path to an existing
 * directory; ForbiddenError when it is the filesystem root, an allowed root
 * itself, the user's home directory, a folder that contains an allowed root
 * or the data directory, outside every allowed root, or inside the data
 * directory. A project's repo would otherwise hold every folder under it.
 */
export async function checkWorkdir(input: string, config: Pick<Config, 'allowedRoots' | 'dataDir'>, field = 'workdir'): Promise<string> {
  const real = await realDirectory(input, field);
  const data = realOrSelf(config.dataDir);
  const roots = realRoots(config);
  const home = homeDir();
  const root = roots.find((r) => r === real);
  if (root !== undefined) {
    throw new ForbiddenError(`${field} ${real} is an allowed root itself; pick a folder inside it, like ${join(real, 'my-project')}.`, { field });
  }
  if (real === home) {
    throw new ForbiddenError(`${field} ${real} is your home directory; pick a folder inside it, like ${join(real, 'code', 'my-project')}.`, { field });
  }
  const contained = roots.find((r) => inside(r, real));
  if (contained !== undefined) {
    throw new ForbiddenError(`${field} ${real} contains the allowed root ${contained}; pick a folder inside ${contained}.`, { field });
  }
  if (inside(real, data)) {
    throw new ForbiddenError(`${field} ${real} is or lies inside the server's data directory ${data}; choose another directory.`, { field });
  }
  if (inside(data, real)) {
    throw new ForbiddenError(
      `${field} ${real} contains the server's data directory ${data}; pick a folder inside ${real} that does not contain it.`,
      { field },
    );
  }
  if (!roots.some((r) => inside(real, r))) {
    throw new ForbiddenError(
      `${field} ${real} is outside the server's allowed roots (${roots.join(', ')}); start the server with --allowed-root to allow it.`,
      { field },
    );
  }
  return real;
}

/**
 * A folder to scan for existing repos (`importProjects`): an allowed root
 * itself is fine here, since scanning writes nothing; each repo found must
 * still pass `checkWorkdir`.
 * @returns the real path.
 * @throws BadUserInputError or ForbiddenError as `checkWorkdir`, but only for
 * a folder outside every allowed root.
 */
export async function checkScanRoot(input: string, config: Pick<Config, 'allowedRoots'>, field = 'root'): Promise<string> {
  const real = await realDirectory(input, field);
  const roots = realRoots(config);
  if (!roots.some((r) => inside(real, r))) {
    throw new ForbiddenError(
      `${field} ${real} is outside the server's allowed roots (${roots.join(', ')}); start the server with --allowed-root to allow it.`,
      { field },
    );
  }
  return real;
}

async function realDirectory(input: string, field: string): Promise<string> {
  if (input.includes('\0') || input.length > 4096) throw new BadUserInputError(`${field} is not a usable path.`, { field });
  if (!isAbsolute(input)) {
    throw new BadUserInputError(`${field} must be an absolute path, like /home/you/code/project; got ${JSON.stringify(input.slice(0, 200))}.`, { field });
  }
  let real: string;
  try {
    real = await realpath(input);
    if (!(await stat(real)).isDirectory()) throw new BadUserInputError(`${field} ${input} is not a directory.`, { field });
  } catch (error) {
    if (error instanceof BadUserInputError) throw error;
    throw new BadUserInputError(`${field} ${input} does not exist; create the directory first.`, { field });
  }
  if (real === parse(real).root) throw new ForbiddenError(`${field} cannot be the filesystem root.`, { field });
  return real;
}
