/**
 * scripts/build-server.mjs and bin/entity-memory.js: the stamp follows the sources, the bin runs
 * dist/ when it matches src/ and the TypeScript through tsx (saying so) when it does not, and
 * `--help` loads none of the server's modules (read from the bundle's source maps), and the query
 * compiler ships as a file.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtServerHash, serverBuildIsFresh, serverInputs, serverInputsHash } from '../../scripts/build-server.mjs';
import { tempDir } from '../helpers/temp.js';

const root = join(import.meta.dirname, '..', '..');

function write(base: string, file: string, content: string): void {
  mkdirSync(dirname(join(base, file)), { recursive: true });
  writeFileSync(join(base, file), content);
}

function node(args: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** A package root with the real bin, build script and tsconfigs, and a one-line src/cli.ts. */
function fakePackage(): string {
  const base = tempDir('em-build-server-');
  for (const file of ['bin/entity-memory.js', 'scripts/build-server.mjs', 'scripts/stamped-build.mjs', 'tsconfig.json', 'tsconfig.build.json']) {
    mkdirSync(dirname(join(base, file)), { recursive: true });
    copyFileSync(join(root, file), join(base, file));
  }
  write(base, 'package.json', '{ "type": "module" }');
  write(base, 'package-lock.json', '{ "lockfileVersion": 3 }');
  write(base, 'src/cli.ts', "const said: string = 'first';\nconsole.log(said);\n");
  symlinkSync(join(root, 'node_modules'), join(base, 'node_modules'));
  return base;
}

describe('the server build', () => {
  it('stamps the hash of src/, the tsconfigs and the lock file', () => {
    const base = tempDir('em-build-inputs-');
    write(base, 'tsconfig.json', '{}');
    write(base, 'tsconfig.build.json', '{}');
    write(base, 'package-lock.json', '{}');
    write(base, 'src/cli.ts', 'export {};');
    write(base, 'src/generated/prisma/client.ts', 'export {};');
    write(base, 'src/git/README.md', 'notes');
    expect(serverInputs(base)).toEqual(['package-lock.json', 'src/cli.ts', 'src/generated/prisma/client.ts', 'tsconfig.build.json', 'tsconfig.json']);
    const first = serverInputsHash(base);
    write(base, 'src/git/README.md', 'other notes');
    expect(serverInputsHash(base)).toBe(first);
    const seen = new Set([first]);
    for (const [file, content] of [
      ['src/cli.ts', 'export const a = 1;'],
      ['src/generated/prisma/client.ts', 'export const b = 1;'],
      ['tsconfig.build.json', '{ "x": 1 }'],
      ['package-lock.json', '{ "x": 1 }'],
      ['src/new.ts', 'export {};'],
    ] as const) {
      write(base, file, content);
      const next = serverInputsHash(base);
      expect(seen.has(next), file).toBe(false);
      seen.add(next);
    }
  });

  it('is fresh on the real tree (the global setup built it)', () => {
    expect(builtServerHash()).toBe(serverInputsHash());
    expect(serverBuildIsFresh()).toBe(true);
  });

  it('ships the query compiler as a WebAssembly file, not the base64 module the generated client imports', () => {
    const wasm = readFileSync(join(root, 'dist', 'query-compiler.wasm'));
    expect(wasm.subarray(0, 4).toString('latin1')).toBe('\0asm');
    expect(readdirSync(join(root, 'dist'), { recursive: true }).filter((file) => String(file).includes('wasm-base64'))).toEqual([]);
  });

  it('the bin runs dist/ when it matches src/, else src/ through tsx and says so; a touched but unchanged file is still fresh', async () => {
    const base = fakePackage();
    const bin = join(base, 'bin', 'entity-memory.js');

    const unbuilt = await node([bin], base);
    expect(unbuilt).toMatchObject({ status: 0, stdout: 'first\n' });
    expect(unbuilt.stderr).toMatch(/^entity-memory: dist\/ is not built; running src\/ through tsx .*npm run build/);

    const build = await node([join(base, 'scripts', 'build-server.mjs')], base);
    expect(build.status, build.stderr).toBe(0);
    expect(await node([bin], base)).toEqual({ status: 0, stdout: 'first\n', stderr: '' });

    const later = new Date(Date.now() + 5000);
    utimesSync(join(base, 'src', 'cli.ts'), later, later);
    expect(await node([bin], base)).toEqual({ status: 0, stdout: 'first\n', stderr: '' });

    write(base, 'src/cli.ts', "console.log('second');\n");
    const stale = await node([bin], base);
    expect(stale).toMatchObject({ status: 0, stdout: 'second\n' });
    expect(stale.stderr).toMatch(/^entity-memory: dist\/ does not match src\/; running src\/ through tsx/);

    expect((await node([join(base, 'scripts', 'build-server.mjs')], base)).status).toBe(0);
    expect(await node([bin], base)).toEqual({ status: 0, stdout: 'second\n', stderr: '' });
  });

  it('--help loads the command line only: none of the server’s modules, no GraphQL, no Prisma', async () => {
    const dir = tempDir('em-help-trace-');
    // Module hooks (off the main thread) that write every URL resolved to stderr.
    write(dir, 'hooks.mjs', "import { writeSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n  const result = await next(specifier, context);\n  writeSync(2, `loaded ${result.url}\\n`);\n  return result;\n}\n");
    write(dir, 'register.mjs', `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
    const result = await node(['--import', pathToFileURL(join(dir, 'register.mjs')).href, join(root, 'bin', 'entity-memory.js'), '--help'], root);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('usage: entity-memory');
    const loaded = result.stderr.split('\n').filter((line) => line.startsWith('loaded ')).map((line) => line.slice('loaded '.length));
    const ours = loaded.filter((url) => url.startsWith(pathToFileURL(root).href) && !url.includes('/node_modules/'));
    expect(ours.some((url) => url.endsWith('/dist/cli.js'))).toBe(true);
    expect(ours.filter((url) => url.includes('/src/'))).toEqual([]);
    expect(loaded.filter((url) => /graphql|prisma|simple-git|pino|dist\/(server|logger)\.js/.test(url))).toEqual([]);
    // dist/ is a bundle: what went into each file it loaded is in that file's source map.
    const bundled = ours
      .filter((url) => url.includes('/dist/'))
      .flatMap((url) => (JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')) as { sources: string[] }).sources);
    expect(bundled.some((source) => source.endsWith('src/cli.ts'))).toBe(true);
    expect(bundled.filter((source) => /node_modules\/(graphql|@prisma|@pothos|simple-git|pino)\/|src\/(server|app|db|schema|mirror)[/.]/.test(source))).toEqual([]);
  });
});
