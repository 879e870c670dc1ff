// What scripts/build-web.mjs and scripts/build-server.mjs share: their inputs hashed into the
// stamp a build is known by, and the staged build itself: the output is built into a fresh
// folder beside its place, the stamp written into it last, and the folder swapped into place,
// so a build that fails or is interrupted never leaves a half-built output that looks fresh.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** The file in a build's folder naming the inputs' hash it was built from. */
export const STAMP_FILE = '.build-stamp';

/** Leftover build and swap folders (from a killed build) older than this are removed. */
const LEFTOVER_AGE_MS = 60 * 60 * 1000;

/** Every file under `dir`, recursively, as paths relative to `base` with `/` separators. */
export function filesUnder(dir, base) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, base));
    else if (entry.isFile()) out.push(relative(base, path).split(sep).join('/'));
  }
  return out;
}

/**
 * A cheap stand-in for the hash: sha256 over each file's path, size and mtime. A stamp keeps it
 * beside the hash, so an untouched tree is recognised from a stat per file (the bin checks dist/
 * at every start, serve checks web/dist); any difference falls back to hashing the contents (a
 * touched but unchanged file is fresh).
 */
export function statFiles(root, files) {
  const hash = createHash('sha256');
  for (const file of files) {
    const stat = statSync(join(root, file));
    hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\0`);
  }
  return hash.digest('hex');
}

/** A stamp's lines: the inputs' hash, then their stat fingerprint (absent in a stamp written without one). */
export function readStamp(dir) {
  try {
    const [hash, stat] = readFileSync(join(dir, STAMP_FILE), 'utf8').split('\n');
    return { hash: hash?.trim() || undefined, stat: stat?.trim() || undefined };
  } catch {
    return { hash: undefined, stat: undefined };
  }
}

/** The text of a stamp. */
export function stampText(hash, stat) {
  return `${hash}\n${stat}\n`;
}

/** Rewrites the stamp in `dir`, a build found fresh by its hash, with the current stat fingerprint (renamed into place; best effort). */
export function refreshStamp(dir, hash, stat) {
  const file = join(dir, STAMP_FILE);
  const temporary = `${file}.${process.pid}`;
  try {
    writeFileSync(temporary, stampText(hash, stat));
    renameSync(temporary, file);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/** sha256 over each file's path (relative to `root`) and content: what a fresh stamp holds. */
export function hashFiles(root, files) {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Removes the build and swap folders in `parent` that a killed build left behind (recent ones may be another build's). */
function removeLeftovers(parent) {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith('.dist-')) continue;
    const path = join(parent, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > LEFTOVER_AGE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already (another build cleaned it).
    }
  }
}

/**
 * Builds into a fresh folder in `parent` with `build(outDir)`, writes `stamp` (the text of
 * STAMP_FILE) into it, and swaps it in as `parent/dist`; the old build goes only once the new
 * one is in place.
 * @param {{ parent: string, stamp: string, build: (outDir: string) => Promise<void>, builtAsFresh: () => boolean }} options
 *   `builtAsFresh` says whether what is at dist now was built from the same inputs (another build
 *   swapped its folder in between our two renames: theirs is kept then).
 * @throws the build's error; dist is then left as it was.
 */
export async function buildAndSwap({ parent, stamp, build, builtAsFresh }) {
  const dist = join(parent, 'dist');
  removeLeftovers(parent);
  const fresh = mkdtempSync(join(parent, '.dist-build-'));
  try {
    chmodSync(fresh, 0o755); // mkdtemp's 0700 would hide the build from another user running it
    await build(fresh);
    writeFileSync(join(fresh, STAMP_FILE), stamp);
    const old = existsSync(dist) ? join(parent, `.dist-old-${process.pid}-${Date.now()}`) : undefined;
    if (old) renameSync(dist, old);
    try {
      renameSync(fresh, dist);
    } catch (error) {
      if (builtAsFresh()) rmSync(fresh, { recursive: true, force: true });
      else {
        if (old && !existsSync(dist)) renameSync(old, dist);
        throw error;
      }
    }
    if (old) rmSync(old, { recursive: true, force: true });
  } catch (error) {
    rmSync(fresh, { recursive: true, force: true });
    throw error;
  }
}
