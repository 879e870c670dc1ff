#!/usr/bin/env node
// Keeps dist/ (the compiled server that `npm start` and bin/entity-memory.js run with plain
// node) built from the current sources.
//
// The inputs (src/, the Prisma client generated into src/generated included, tsconfig.json,
// tsconfig.build.json, package-lock.json) are hashed; dist/.build-stamp holds the hash they
// were built from (and their sizes and mtimes, a quicker check for an untouched tree). When the two differ, tsc emits into a fresh folder beside dist/, the stamp
// is written into it last, and the folder is swapped into place, so a build that fails or is
// interrupted never leaves a half-built dist/ that looks fresh.
//
// tsc runs with --noCheck: the build only emits (6 s here instead of 14 s); types are checked
// by `npm run typecheck` and before the tests, not at install or start.
//
// `node scripts/build-server.mjs [--force]` (npm run build, postinstall, prestart); the bin
// and the test suite's global setup import serverBuildIsFresh / ensureServerBuild.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildAndSwap, filesUnder, hashFiles, STAMP_FILE } from './stamped-build.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export { STAMP_FILE };

/** The server's inputs, relative to the package root, sorted: what tsc reads and what changes its output. */
export function serverInputs(root = ROOT) {
  const fixed = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].filter((file) => existsSync(join(root, file)));
  const sources = existsSync(join(root, 'src')) ? filesUnder(join(root, 'src'), root).filter((file) => /\.(ts|mts|cts|json)$/.test(file)) : [];
  return [...fixed, ...sources].sort();
}

/** sha256 over each input's path and content: what dist/.build-stamp must hold to be fresh. */
export function serverInputsHash(root = ROOT) {
  return hashFiles(root, serverInputs(root));
}

/**
 * A cheap stand-in for the hash: sha256 over each input's path, size and mtime. The stamp keeps
 * it beside the hash, so an unchanged tree is recognised from a stat per file (the bin checks at
 * every start); any difference falls back to hashing the contents (a touched but unchanged file is fresh).
 */
export function serverInputsStat(root = ROOT) {
  const hash = createHash('sha256');
  for (const file of serverInputs(root)) {
    const stat = statSync(join(root, file));
    hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\0`);
  }
  return hash.digest('hex');
}

/** The stamp's lines: the inputs' hash, then their stat fingerprint (absent in a stamp written without one). */
function readStamp(root) {
  try {
    const [hash, stat] = readFileSync(join(root, 'dist', STAMP_FILE), 'utf8').split('\n');
    return { hash: hash?.trim() || undefined, stat: stat?.trim() || undefined };
  } catch {
    return { hash: undefined, stat: undefined };
  }
}

/** The hash dist/ was built from, or undefined when it (or its stamp) is missing. */
export function builtServerHash(root = ROOT) {
  return readStamp(root).hash;
}

/** Whether dist/ exists and was built from the current inputs (a few ms when nothing was touched). */
export function serverBuildIsFresh(root = ROOT) {
  const stamp = readStamp(root);
  if (stamp.hash === undefined) return false;
  if (stamp.stat !== undefined && stamp.stat === serverInputsStat(root)) return true;
  return stamp.hash === serverInputsHash(root);
}

/** Rewrites the stamp of a fresh dist/ with the current stat fingerprint (renamed into place; best effort). */
function refreshStamp(hash, stat) {
  const file = join(ROOT, 'dist', STAMP_FILE);
  const temporary = `${file}.${process.pid}`;
  try {
    writeFileSync(temporary, `${hash}\n${stat}\n`);
    renameSync(temporary, file);
  } catch {
    rmSync(temporary, { force: true });
  }
}

/** Runs tsc (emit only) into `outDir`; rejects with its output when it fails. */
function runTsc(outDir) {
  let tsc;
  try {
    tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return Promise.reject(new Error('typescript is not installed (npm install)'));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck', '--outDir', outDir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`tsc ${signal ? `killed by ${signal}` : `exited ${code}`}${output.trim() ? `:\n${output.trim()}` : ''}`));
    });
  });
}

/**
 * Builds dist/ when its stamp is missing or stale (or `force`), else returns at once.
 * @param {{ force?: boolean, log?: (message: string) => void }} [options] `log` hears about a
 *   build (nothing is said when up to date); default console.log.
 * @returns {Promise<{ built: boolean, hash: string, ms?: number }>}
 * @throws tsc's error when the build fails; dist/ is then left as it was.
 */
export async function ensureServerBuild({ force = false, log = console.log } = {}) {
  const stat = serverInputsStat();
  const hash = serverInputsHash();
  const stamp = readStamp(ROOT);
  const previous = stamp.hash;
  if (!force && previous === hash) {
    // Touched but unchanged (a checkout): note the new mtimes so that the bin's check stays a stat.
    if (stamp.stat !== stat) refreshStamp(hash, stat);
    return { built: false, hash };
  }

  const started = Date.now();
  log(`entity-memory: compiling the server into dist/ (${previous === undefined ? 'no build yet' : force ? 'forced' : 'sources changed'})`);
  await buildAndSwap({ parent: ROOT, stamp: `${hash}\n${stat}\n`, build: runTsc, builtAsFresh: () => builtServerHash() === hash });
  const ms = Date.now() - started;
  log(`entity-memory: server compiled into dist/ in ${ms} ms`);
  return { built: true, hash, ms };
}

// Run directly: `node scripts/build-server.mjs [--force]`.
if (process.argv[1] && existsSync(process.argv[1]) && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  ensureServerBuild({ force: process.argv.includes('--force') }).catch((error) => {
    console.error(`entity-memory: the server build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
