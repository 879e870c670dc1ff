/**
 * scripts/build-web.mjs: the hash of the UI's inputs follows the sources but not their tests,
 * the stamp's stat fingerprint stands in for it on an untouched tree, and on the real tree
 * (built by the global setup) ensureWebBuild is a quick no-op.
 */
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtHash, ensureWebBuild, webBuildIsFresh, webInputs, webInputsHash, webInputsStat } from '../../scripts/build-web.mjs';
import { tempDir } from '../helpers/temp.js';

function write(root: string, file: string, content: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), content);
}

/** A package root holding just the UI's inputs, and one test file. */
function fakeRoot(): string {
  const root = tempDir('em-build-web-');
  write(root, 'web/index.html', '<div id="root"></div>');
  write(root, 'web/vite.config.ts', 'export default {};');
  write(root, 'web/tsconfig.json', '{}');
  write(root, 'web/src/main.tsx', 'export const a = 1;');
  write(root, 'web/src/app/App.tsx', 'export const b = 2;');
  write(root, 'web/src/app/App.test.tsx', 'it("x", () => {});');
  write(root, 'package-lock.json', '{"lockfileVersion":3}');
  return root;
}

describe('the web build stamp', () => {
  it('changes with a source, the page, the config or the lock file, and not with a test file', () => {
    const root = fakeRoot();
    const first = webInputsHash(root);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(webInputsHash(root)).toBe(first);

    write(root, 'web/src/app/App.test.tsx', 'it("y", () => {});');
    write(root, 'web/src/app/Other.test.ts', 'it("z", () => {});');
    expect(webInputsHash(root)).toBe(first);

    const changes: [string, string][] = [
      ['web/src/app/App.tsx', 'export const b = 3;'],
      ['web/src/features/New.tsx', 'export const c = 1;'],
      ['web/index.html', '<div id="app"></div>'],
      ['web/vite.config.ts', 'export default { base: "/" };'],
      ['web/tsconfig.json', '{ "compilerOptions": {} }'],
      ['package-lock.json', '{"lockfileVersion":3,"x":1}'],
    ];
    const seen = new Set([first]);
    for (const [file, content] of changes) {
      write(root, file, content);
      const next = webInputsHash(root);
      expect(seen.has(next), file).toBe(false);
      seen.add(next);
    }
    // A file moved to another name is another input, even with the same content.
    write(root, 'web/src/features/Renamed.tsx', 'export const c = 1;');
    expect(seen.has(webInputsHash(root))).toBe(false);
  });

  it('is fresh by the stamp’s stat fingerprint, and by the hash when a file was touched but not changed', () => {
    const root = fakeRoot();
    const stamp = (text: string) => write(root, 'web/dist/.build-stamp', text);
    stamp(`${webInputsHash(root)}\n`);
    expect(webBuildIsFresh(root)).toBe(true);
    stamp(`${webInputsHash(root)}\n${webInputsStat(root)}\n`);
    expect(webBuildIsFresh(root)).toBe(true);

    const later = new Date(Date.now() + 5000);
    utimesSync(join(root, 'web/src/main.tsx'), later, later);
    expect(webInputsStat(root)).not.toBe(readFileSync(join(root, 'web/dist/.build-stamp'), 'utf8').split('\n')[1]);
    expect(webBuildIsFresh(root)).toBe(true);

    write(root, 'web/src/main.tsx', 'export const a = 2;');
    expect(webBuildIsFresh(root)).toBe(false);
  });

  it('lists the real tree’s sources without their tests', () => {
    const inputs = webInputs();
    expect(inputs).toContain('web/src/main.tsx');
    expect(inputs).toContain('web/index.html');
    expect(inputs).toContain('package-lock.json');
    expect(inputs.filter((file) => /\.test\./.test(file))).toEqual([]);
    expect(inputs.filter((file) => file.startsWith('web/dist/'))).toEqual([]);
  });

  it('does nothing, quickly and silently, when web/dist is fresh (the global setup built it)', async () => {
    expect(builtHash()).toBe(webInputsHash());
    const said: string[] = [];
    const started = performance.now();
    const result = await ensureWebBuild({ log: (message) => said.push(message) });
    expect(result).toEqual({ built: false, hash: webInputsHash() });
    expect(said).toEqual([]);
    // Milliseconds in practice; a build takes seconds.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
