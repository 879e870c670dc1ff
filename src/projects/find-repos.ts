/**
 * The walk `importProjects` makes to find existing repos under a folder.
 * Nothing is run in the folders it finds: each is checked afterwards as a
 * project's folder is (src/projects/project-place.ts).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Folders never walked into: dependencies, build output, caches, and any dot-folder. */
const SKIP_DIRS = new Set(['node_modules', '.git', 'vendor', 'target', 'dist', 'build', '.cache']);

/**
 * The folders under `root` (itself included) holding a `.git`, to `maxDepth`
 * levels below it; none is looked into further once found, symlinks are not
 * followed, and a folder that cannot be read is passed over.
 */
export async function findRepoFolders(root: string, maxDepth: number): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((e) => e.name === '.git')) {
      found.push(dir);
      return;
    }
    if (depth >= maxDepth) return;
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.isSymbolicLink() && !SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) {
        await walk(join(dir, entry.name), depth + 1);
      }
    }
  }
  await walk(root, 0);
  return found;
}
