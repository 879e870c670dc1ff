/**
 * The package's root folder (package.json, prisma/, web/, scripts/), for the files the server
 * reads beside its code. Found by walking up from this module to the first folder holding a
 * package.json, so it holds wherever the module runs from: src/ (tsx, the tests) or dist/,
 * whose bundle puts this code in a chunk at another depth than src/ had it.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    // The file system's root: not inside a package (cannot happen for a checkout or an install).
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** Absolute path of the package's root folder. */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
