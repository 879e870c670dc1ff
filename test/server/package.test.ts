/**
 * The package as a user installs it: `npm pack` of this checkout, then `npm install -g` of the
 * tarball into a fresh prefix with npm's defaults (its install scripts run; none of ours: the
 * build is "prepack", which runs before the pack, not at the install, so npm 11 lists only
 * better-sqlite3's script as one to approve). The installed
 * `entity-memory` prints its version and serves a fresh data dir (the web UI at `/`, GraphiQL),
 * `entity-memory/client` imports from a plain .mjs file, and no build tool (TypeScript, Vite,
 * React, esbuild, tsx) is in the installed tree.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asWritten, finished, killGroup, runProcess, servedUrl } from '../helpers/cli.js';
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
    // The README's lines, as written: the tarball's name, `npm install -g` of it (into this
    // test's prefix: npm's own prefix setting, from the environment), then `entity-memory`.
    expect(packed.stdout.trim().split('\n').at(-1)).toBe('entity-memory-0.1.0.tgz');
    const prefix = join(work, 'prefix');
    // Packages come from the cache this machine's npm ci filled, the registry for anything else.
    const npmEnv = { ...env, npm_config_prefix: prefix, npm_config_prefer_offline: 'true' };
    const installed = await finished(asWritten('npm install -g ./entity-memory-0.1.0.tgz', npmEnv, work));
    expect(installed.status, installed.stderr).toBe(0);
    // npm 11.16+ lists the install scripts not yet approved: better-sqlite3's alone, none of ours.
    const unapproved = installed.stderr.split('\n').filter((line) => /^npm warn install-scripts {3}\S/.test(line)).map((line) => line.trim().split(/\s+/)[3]);
    expect(unapproved.every((name) => name?.startsWith('better-sqlite3@')), installed.stderr).toBe(true);
    // Every package installed supports the Node running it (engines: >=20.19; secretlint, pinned to the
    // last release that runs on Node 20, is bundled into dist/ rather than installed).
    expect(installed.stderr, installed.stderr).not.toContain('EBADENGINE');
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

    // `entity-memory` serves the default data dir of a fresh HOME: the UI at /, GraphiQL at
    // /graphql (on the free port it picks: PORT=0, the README's variable for --port).
    const home = join(work, 'home');
    mkdirSync(home);
    const serveEnv: NodeJS.ProcessEnv = { ...env, HOME: home, PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, PORT: '0', LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '' };
    for (const name of ['OPENPROGRAM_HOME', 'DATABASE_URL', 'REDIS_URL', 'HOST']) delete serveEnv[name];
    const server = asWritten('entity-memory', serveEnv, work);
    const url = await servedUrl(server);
    expect(existsSync(join(home, '.openprogram', 'entity-memory.db'))).toBe(true);
    const page = await fetch(`${url}/`);
    expect([page.status, (await page.text()).includes('<div id="root">')]).toEqual([200, true]);
    const graphiql = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
    expect([graphiql.status, (await graphiql.text()).toLowerCase().includes('graphiql')]).toEqual([200, true]);
    const stopped = new Promise((resolve) => server.on('close', resolve));
    killGroup(server, 'SIGTERM');
    await stopped;

    // The typed client, from plain Node ESM beside the installed package.
    const script = join(prefix, 'lib', 'client-check.mjs');
    writeFileSync(script, "import { createClient, EntityMemoryError } from 'entity-memory/client';\nconsole.log(typeof createClient, typeof EntityMemoryError);\n");
    const imported = await runProcess(process.execPath, [script], env, '', work);
    expect([imported.status, imported.stdout, imported.stderr]).toEqual([0, 'function function\n', '']);
  });
});
