/**
 * Which folders may become a project's working directory. A path from a user
 * is checked here before anything reads or writes there.
 */
import { realpathSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, parse, sep } from 'node:path';
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

/**
 * @returns the real path of `input`.
 * @throws BadUserInputError when it is not an absolute path to an existing
 * directory; ForbiddenError when it is the filesystem root, outside every
 * allowed root, or is, contains or lies inside the server's data directory.
 */
export async function checkWorkdir(input: string, config: Pick<Config, 'allowedRoots' | 'dataDir'>, field = 'workdir'): Promise<string> {
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
  const data = realOrSelf(config.dataDir);
  if (inside(real, data) || inside(data, real)) {
    throw new ForbiddenError(`${field} ${real} is, contains or lies inside the server's data directory ${data}; choose another directory.`, { field });
  }
  const roots = config.allowedRoots.map(realOrSelf);
  if (!roots.some((root) => inside(real, root))) {
    throw new ForbiddenError(
      `${field} ${real} is outside the server's allowed roots (${roots.join(', ')}); start the server with --allowed-root to allow it.`,
      { field },
    );
  }
  return real;
}
