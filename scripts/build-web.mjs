#!/usr/bin/env node
// Keeps web/dist (the UI the server serves at `/`) built from the current sources.
//
// The UI's inputs (web/index.html, web/vite.config.ts, web/tsconfig.json, web/src minus
// tests, package-lock.json) are hashed; web/dist/.build-stamp holds the hash they were built
// from (and their sizes and mtimes, so that serve's check at every start is a stat per file).
// When the two differ, Vite builds into a fresh folder beside web/dist, the stamp is
// written into it last, and the folder is swapped into place, so a build that fails or is
// interrupted never leaves a half-built web/dist that looks fresh.
//
// `node scripts/build-web.mjs [--force]` (npm run build:web, prepack, prestart); the
// server's command line and the test suite's global setup import ensureWebBuild.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildAndSwap, filesUnder, hashFiles, readStamp, refreshStamp, STAMP_FILE, stampText, statFiles } from './stamped-build.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export { STAMP_FILE };

/** The UI's inputs, relative to the package root, sorted. Test files do not change the build. */
export function webInputs(root = ROOT) {
  const fixed = ['web/index.html', 'web/vite.config.ts', 'web/tsconfig.json', 'package-lock.json'].filter((file) => existsSync(join(root, file)));
  const sources = existsSync(join(root, 'web/src')) ? filesUnder(join(root, 'web/src'), root).filter((file) => !/\.test\.[^/]*$/.test(file)) : [];
  return [...fixed, ...sources].sort();
}

/** sha256 over each input's path and content: what web/dist/.build-stamp must hold to be fresh. */
export function webInputsHash(root = ROOT) {
  return hashFiles(root, webInputs(root));
}

/** The inputs' stat fingerprint (stamped-build.mjs, statFiles): a stat per file, no reading. */
export function webInputsStat(root = ROOT) {
  return statFiles(root, webInputs(root));
}

/** The hash web/dist was built from, or undefined when it (or its stamp) is missing. */
export function builtHash(root = ROOT) {
  return readStamp(join(root, 'web/dist')).hash;
}

/** Whether web/dist exists and was built from the current inputs. */
export function webBuildIsFresh(root = ROOT) {
  const stamp = readStamp(join(root, 'web/dist'));
  if (stamp.hash === undefined) return false;
  if (stamp.stat !== undefined && stamp.stat === webInputsStat(root)) return true;
  return stamp.hash === webInputsHash(root);
}

/**
 * Builds web/dist when its stamp is missing or stale (or `force`), else returns at once.
 * @param {{ force?: boolean, log?: (message: string) => void }} [options] `log` hears about a
 *   build (nothing is said when up to date); default console.log.
 * @returns {Promise<{ built: boolean, hash: string, ms?: number }>}
 * @throws Vite's error when the build fails; web/dist is then left as it was.
 */
export async function ensureWebBuild({ force = false, log = console.log } = {}) {
  const stat = webInputsStat();
  const stamp = readStamp(join(ROOT, 'web/dist'));
  if (!force && stamp.hash !== undefined && stamp.stat === stat) return { built: false, hash: stamp.hash };
  const hash = webInputsHash();
  const previous = stamp.hash;
  if (!force && previous === hash) {
    // Touched but unchanged (a checkout), or stamped before stamps held the fingerprint: note it.
    refreshStamp(join(ROOT, 'web/dist'), hash, stat);
    return { built: false, hash };
  }

  const started = Date.now();
  const webDir = join(ROOT, 'web');
  log(`entity-memory: building the web UI (${previous === undefined ? 'no build yet' : force ? 'forced' : 'sources changed'})`);
  await buildAndSwap({
    parent: webDir,
    stamp: stampText(hash, stat),
    // Vite is loaded here so that the up-to-date check stays a few milliseconds.
    build: async (outDir) => {
      const { build } = await import('vite');
      // Always React's production build: Vite keeps a NODE_ENV that is already set, and the test
      // runner sets it to "test", which built React's development bundle (1.5x the script, slower).
      const nodeEnv = process.env.NODE_ENV;
      process.env.NODE_ENV = 'production';
      try {
        await build({ configFile: join(webDir, 'vite.config.ts'), mode: 'production', build: { outDir, emptyOutDir: true } });
      } finally {
        if (nodeEnv === undefined) delete process.env.NODE_ENV;
        else process.env.NODE_ENV = nodeEnv;
      }
    },
    builtAsFresh: () => builtHash() === hash,
  });
  const ms = Date.now() - started;
  log(`entity-memory: web UI built into web/dist in ${ms} ms`);
  return { built: true, hash, ms };
}

// Run directly: `node scripts/build-web.mjs [--force]`.
if (process.argv[1] && existsSync(process.argv[1]) && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  ensureWebBuild({ force: process.argv.includes('--force') }).catch((error) => {
    console.error(`entity-memory: the web UI build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
