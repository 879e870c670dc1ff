/**
 * The package as a user installs it: `npm pack` of this checkout, then `npm install -g` of the
 * tarball into a fresh prefix with npm's defaults (its install scripts run; none of ours: the
 * build is "prepare", which runs before the pack, not at the install). The installed
 * `entity-memory` prints its version and serves a fresh data dir (the web UI at `/`, GraphiQL),
 * `entity-memory/client` imports from a plain .mjs file, and no build tool (TypeScript, Vite,
 * React, esbuild, tsx) is in the installed tree.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli.js';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';

const root = join(import.meta.dirname, '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Every package folder under node_modules (scoped ones as @scope/name), at any depth. */
function installedPackages(modules: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      if (name.startsWith('.')) continue;
      if (name.startsWith('@')) {
        for (const inner of readdirSync(join(dir, name))) {
          found.push(`${name}/${inner}`);
          walk(join(dir, name, inner, 'node_modules'));
        }
      } else {
        found.push(name);
        walk(join(dir, name, 'node_modules'));
      }
    }
  };
  walk(modules);
  return found;
}

describe('the npm package', () => {
  it('packs, installs globally into a fresh prefix, serves, and exports the typed client', { timeout: 900_000 }, async () => {
    const work = tempDir('em-package-');
    const env = { ...process.env, npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? work, '.npm'), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
    const packed = await runProcess(npm, ['pack', '--pack-destination', work, '--silent'], env, '', root);
    expect(packed.status, packed.stderr).toBe(0);
    const tarball = join(work, packed.stdout.trim().split('\n').at(-1)!);
    expect(existsSync(tarball)).toBe(true);

    const prefix = join(work, 'prefix');
    // Packages come from the cache this machine's npm ci filled, the registry for anything else.
    const installed = await runProcess(npm, ['install', '-g', '--prefix', prefix, '--prefer-offline', tarball], env, '', work);
    expect(installed.status, installed.stderr).toBe(0);
    const bin = join(prefix, 'bin', 'entity-memory');
    const modules = join(prefix, 'lib', 'node_modules');
    const pkg = join(modules, 'entity-memory');

    const version = await runProcess(bin, ['--version'], { ...env, LOG_LEVEL: 'silent' }, '', work);
    expect([version.status, version.stdout]).toEqual([0, 'entity-memory 0.1.0\n']);
    // What ships: the built server and UI, the migrations; no sources, no build tools.
    expect(['dist/cli.js', 'dist/client/index.js', 'dist/types/client/index.d.ts', 'web/dist/index.html', 'prisma/migrations', 'prisma/postgresql/migrations'].filter((f) => !existsSync(join(pkg, f)))).toEqual([]);
    expect(existsSync(join(pkg, 'src'))).toBe(false);
    const tools = installedPackages(modules).filter((name) => ['typescript', 'vite', 'react', 'react-dom', 'esbuild', 'tsx', '@vitejs/plugin-react', 'rolldown'].includes(name));
    expect(tools).toEqual([]);

    // Serves a fresh data dir: the UI at /, GraphiQL at /graphql.
    const dataDir = join(work, 'data');
    const server = spawn(bin, ['serve', '--port', '0', '--data-dir', dataDir], { env: { ...env, LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    onCleanup(() => {
      if (server.exitCode === null) server.kill('SIGKILL');
    });
    const url = await new Promise<string>((resolve, reject) => {
      let said = '';
      const look = (chunk: Buffer) => {
        said += chunk.toString();
        const found = /web UI at (http:\/\/127\.0\.0\.1:\d+)\//.exec(said);
        if (found) resolve(found[1]!);
      };
      server.stdout.on('data', look);
      server.stderr.on('data', look);
      server.on('close', (status) => reject(new Error(`serve exited ${status}: ${said}`)));
    });
    const page = await fetch(`${url}/`);
    expect([page.status, (await page.text()).includes('<div id="root">')]).toEqual([200, true]);
    const graphiql = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
    expect([graphiql.status, (await graphiql.text()).toLowerCase().includes('graphiql')]).toEqual([200, true]);
    const stopped = new Promise((resolve) => server.on('close', resolve));
    server.kill('SIGTERM');
    await stopped;

    // The typed client, from plain Node ESM beside the installed package.
    const script = join(prefix, 'lib', 'client-check.mjs');
    writeFileSync(script, "import { createClient, EntityMemoryError } from 'entity-memory/client';\nconsole.log(typeof createClient, typeof EntityMemoryError);\n");
    const imported = await runProcess(process.execPath, [script], env, '', work);
    expect([imported.status, imported.stdout, imported.stderr]).toEqual([0, 'function function\n', '']);
  });
});
