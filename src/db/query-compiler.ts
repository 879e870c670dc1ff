/**
 * Prisma's query compiler (WebAssembly, 3.3 MB) for the bundled server in dist/.
 *
 * The generated client (src/generated/prisma/internal/class.ts) imports it as a 4.4 MB JavaScript
 * module holding the WebAssembly in base64, decodes it and compiles it on the main thread when
 * the first query runs. The server build (scripts/build-server.mjs) writes the WebAssembly out as
 * a file in dist/ and points the bundled client here instead: the file is read and compiled off
 * the main thread, from the moment the client's module is loaded, so the work overlaps the rest
 * of start-up (loading the server's modules, building the GraphQL schema) instead of following
 * it. Under tsx and in the tests the generated client loads it its own way, and this module is
 * not used. PostgreSQL's client (src/db/postgresql.ts) loads its own the same way, when it is
 * the one configured: its compilation begins at its first query.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';

/** Where scripts/build-server.mjs writes each client's query compiler. */
export const QUERY_COMPILER_WASM = {
  sqlite: join(PACKAGE_ROOT, 'dist', 'query-compiler.wasm'),
  postgresql: join(PACKAGE_ROOT, 'dist', 'query-compiler-postgresql.wasm'),
};

/** The slice of the WebAssembly global we use (Node has it; @types/node does not declare it). */
const wasmRuntime = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } }).WebAssembly;

const compiled = new Map<keyof typeof QUERY_COMPILER_WASM, Promise<object>>();

/**
 * The compiled query compiler (a WebAssembly.Module); the first call starts reading and
 * compiling it, later calls share that work.
 * @throws (rejects) when the file cannot be read or is not WebAssembly; Prisma's first query
 *   then fails with that error.
 */
export function queryCompilerModule(provider: keyof typeof QUERY_COMPILER_WASM): Promise<object> {
  let module = compiled.get(provider);
  if (!module) compiled.set(provider, (module = readFile(QUERY_COMPILER_WASM[provider]).then((bytes) => wasmRuntime.compile(bytes))));
  return module;
}
