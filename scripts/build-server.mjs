#!/usr/bin/env node
// Keeps dist/ (the compiled server that `npm start` and bin/entity-memory.js run with plain
// node) built from the current sources.
//
// The inputs (src/, the Prisma client generated into src/generated included, tsconfig.json,
// tsconfig.build.json, package-lock.json) are hashed; dist/.build-stamp holds the hash they
// were built from (and their sizes and mtimes, a quicker check for an untouched tree). When the
// two differ, esbuild bundles into a fresh folder beside dist/, the stamp is written into it
// last, and the folder is swapped into place, so a build that fails or is interrupted never
// leaves a half-built dist/ that looks fresh.
//
// A bundle, not one file per module: start-up to the first /health 200 was mostly Node
// resolving, reading and compiling about 1,000 files (150 of them ours, the rest node_modules');
// bundled, `serve` loads about 50. Code only some commands load (the server for serve, the
// importers for import) stays in chunks of its own, so `--help` still loads the command line
// only. The build only emits (1-3 s here); types are checked by `npm run typecheck` and before
// the tests, not at install or start.
//
// `node scripts/build-server.mjs [--force]` (npm run build, prepack, prestart); the bin
// and the test suite's global setup import serverBuildIsFresh / ensureServerBuild.
import { existsSync, realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildAndSwap, filesUnder, hashFiles, readStamp, refreshStamp, STAMP_FILE, stampText, statFiles } from './stamped-build.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export { STAMP_FILE };

/**
 * The server's inputs, relative to the package root, sorted: what the bundle is built from.
 * node_modules is in it through package-lock.json (the versions installed).
 */
export function serverInputs(root = ROOT) {
  const fixed = ['tsconfig.json', 'tsconfig.build.json', 'tsconfig.client.json', 'package-lock.json'].filter((file) => existsSync(join(root, file)));
  const sources = existsSync(join(root, 'src')) ? filesUnder(join(root, 'src'), root).filter((file) => /\.(ts|mts|cts|json)$/.test(file)) : [];
  return [...fixed, ...sources].sort();
}

/** sha256 over each input's path and content: what dist/.build-stamp must hold to be fresh. */
export function serverInputsHash(root = ROOT) {
  return hashFiles(root, serverInputs(root));
}

/** The inputs' stat fingerprint (stamped-build.mjs, statFiles): a stat per file, no reading. */
export function serverInputsStat(root = ROOT) {
  return statFiles(root, serverInputs(root));
}

/** The hash dist/ was built from, or undefined when it (or its stamp) is missing. */
export function builtServerHash(root = ROOT) {
  return readStamp(join(root, 'dist')).hash;
}

/** Whether dist/ exists and was built from the current inputs (a few ms when nothing was touched). */
export function serverBuildIsFresh(root = ROOT) {
  const stamp = readStamp(join(root, 'dist'));
  if (stamp.hash === undefined) return false;
  if (stamp.stat !== undefined && stamp.stat === serverInputsStat(root)) return true;
  return stamp.hash === serverInputsHash(root);
}

/**
 * The modules built as named files in dist/: cli.js, which the bin runs, and the modules it loads
 * for `serve` (what bench/startup.ts loads one by one to see what holds the memory). Everything
 * else lands in dist/chunks/, loaded by these.
 */
const ENTRY_POINTS = ['cli', 'config', 'data-dir-lock', 'logger', 'server', 'client/index'];

/**
 * Packages left out of the bundle and loaded from node_modules at run time (the package's only
 * dependencies): better-sqlite3 is a native addon; Prisma's WebAssembly schema engine is loaded
 * by its path (src/db/schema-engine.ts). GraphiQL's page (9 MB of inlined script) is bundled
 * into a chunk of its own, loaded at the first GraphiQL request: left out, the package would
 * depend on it and so on its peer graphql-yoga, which npm installs with ~40 packages of its own.
 */
const EXTERNAL = ['better-sqlite3', '@prisma/schema-engine-wasm'];

/**
 * Packages bundled from another of their builds than the one Node loads: jsonc-parser's `main` is
 * a UMD module whose require() calls esbuild cannot follow (the bundle then fails at run time,
 * "Cannot find module './impl/format'"); its ES module build bundles.
 */
const ALIASES = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };

/**
 * CommonJS packages in an ES module bundle still call require() for Node's built-in modules
 * (fs, events, …); each chunk gets one made for its own URL.
 */
const REQUIRE_BANNER = "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);";

/** Where the generated Prisma client loads its query compiler: the base64 module it imports, decoded and compiled. */
const QUERY_COMPILER_LOADER =
  /getQueryCompilerWasmModule: async \(\) => \{\s*const \{ wasm \} = await import\(("[^"]+\.wasm-base64\.mjs")\)\s*return await decodeBase64AsWasm\(wasm\)\s*\},/;

/**
 * Each generated client's query compiler as a file (dist/query-compiler.wasm for SQLite's,
 * dist/query-compiler-postgresql.wasm for PostgreSQL's), loaded by src/db/query-compiler.ts: read
 * and compiled off the main thread, begun as the client's module loads, instead of a 4.4 MB
 * base64 module parsed, decoded and compiled on the main thread at the first query (see that
 * file). The clients are the ones Prisma generated, with their loader swapped; a generated client
 * whose loader reads otherwise fails the build, saying so.
 */
function queryCompilerFile(outDir) {
  return {
    name: 'query-compiler-file',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]generated[\\/]prisma(-postgresql)?[\\/]internal[\\/]class\.ts$/ }, async (args) => {
        const provider = /prisma-postgresql[\\/]internal/.test(args.path) ? 'postgresql' : 'sqlite';
        const source = await readFile(args.path, 'utf8');
        const loader = source.match(QUERY_COMPILER_LOADER);
        if (!loader) {
          throw new Error(`${args.path}: the generated Prisma client no longer loads its query compiler as scripts/build-server.mjs expects (QUERY_COMPILER_LOADER); update it`);
        }
        const base64Module = createRequire(join(ROOT, 'package.json')).resolve(JSON.parse(loader[1]));
        const { wasm } = await import(pathToFileURL(base64Module).href);
        await writeFile(join(outDir, provider === 'sqlite' ? 'query-compiler.wasm' : `query-compiler-${provider}.wasm`), Buffer.from(wasm, 'base64'));
        const contents =
          source.replace(loader[0], `getQueryCompilerWasmModule: () => queryCompilerModule('${provider}'),`) +
          "\nimport { queryCompilerModule } from '../../../db/query-compiler.js';\n" +
          (provider === 'sqlite'
            ? '// Begun now, awaited at the first query; a failure is reported there.\nqueryCompilerModule(\'sqlite\').catch(() => {});\n'
            : '');
        return { contents, loader: 'ts', resolveDir: dirname(args.path) };
      });
    },
  };
}

/**
 * The typed client's declarations (the package's entity-memory/client types) into
 * `outDir`/types, by tsc (tsconfig.client.json); its JavaScript is the bundle's dist/client/index.js.
 * Skipped where TypeScript is not installed (it is a development dependency), or there is no client.
 */
async function emitClientTypes(outDir) {
  if (!existsSync(join(ROOT, 'tsconfig.client.json')) || !existsSync(join(ROOT, 'src', 'client', 'index.ts'))) return;
  let tsc;
  try {
    tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return;
  }
  const { execFile } = await import('node:child_process');
  await new Promise((resolve, reject) =>
    execFile(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.client.json'), '--outDir', join(outDir, 'types')], { cwd: ROOT }, (error, stdout) =>
      error ? reject(new Error(`the client's declarations: ${stdout || error.message}`)) : resolve(undefined),
    ),
  );
}

/** Bundles src/ into `outDir` with esbuild; rejects with its errors when it fails. */
async function runEsbuild(outDir) {
  let esbuild;
  try {
    esbuild = await import(pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('esbuild')).href);
  } catch {
    throw new Error('esbuild is not installed (npm install)');
  }
  const entryPoints = ENTRY_POINTS.map((name) => join(ROOT, 'src', `${name}.ts`)).filter((file) => existsSync(file));
  try {
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints,
      outdir: outDir,
      outbase: join(ROOT, 'src'),
      chunkNames: 'chunks/[name]-[hash]',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      tsconfig: join(ROOT, 'tsconfig.build.json'),
      external: EXTERNAL,
      alias: ALIASES,
      banner: { js: REQUIRE_BANNER },
      // Errors keep their class names (src/git/errors.ts names each error after its class), even
      // where two modules' classes share a name and the bundle renames one.
      keepNames: true,
      sourcemap: 'linked',
      // The maps point at src/ and node_modules; copying their text in would triple dist/.
      sourcesContent: false,
      logLevel: 'silent',
      plugins: [queryCompilerFile(outDir)],
    });
  } catch (error) {
    const messages = (error.errors ?? []).map((e) => `${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}`);
    throw new Error(messages.length > 0 ? messages.join('\n') : error.message);
  }
}

/**
 * Builds dist/ when its stamp is missing or stale (or `force`), else returns at once.
 * @param {{ force?: boolean, log?: (message: string) => void }} [options] `log` hears about a
 *   build (nothing is said when up to date); default console.log.
 * @returns {Promise<{ built: boolean, hash: string, ms?: number }>}
 * @throws esbuild's errors when the build fails; dist/ is then left as it was.
 */
export async function ensureServerBuild({ force = false, log = console.log } = {}) {
  const stat = serverInputsStat();
  const stamp = readStamp(join(ROOT, 'dist'));
  if (!force && stamp.hash !== undefined && stamp.stat === stat) return { built: false, hash: stamp.hash };
  const hash = serverInputsHash();
  const previous = stamp.hash;
  if (!force && previous === hash) {
    // Touched but unchanged (a checkout): note the new mtimes so that the bin's check stays a stat.
    refreshStamp(join(ROOT, 'dist'), hash, stat);
    return { built: false, hash };
  }

  const started = Date.now();
  log(`entity-memory: bundling the server into dist/ (${previous === undefined ? 'no build yet' : force ? 'forced' : 'sources changed'})`);
  await buildAndSwap({
    parent: ROOT,
    stamp: stampText(hash, stat),
    build: async (outDir) => {
      await runEsbuild(outDir);
      await emitClientTypes(outDir);
    },
    builtAsFresh: () => builtServerHash() === hash,
  });
  const ms = Date.now() - started;
  log(`entity-memory: server bundled into dist/ in ${ms} ms`);
  return { built: true, hash, ms };
}

// Run directly: `node scripts/build-server.mjs [--force]`.
if (process.argv[1] && existsSync(process.argv[1]) && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  ensureServerBuild({ force: process.argv.includes('--force') }).catch((error) => {
    console.error(`entity-memory: the server build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
