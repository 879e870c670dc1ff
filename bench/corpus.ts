/**
 * Realistic message text for the benchmarks: this repository's own sources and README (code,
 * paths, prose), as an agent's prompts, replies and file reads are.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/** Every word of the repository's TypeScript sources and README, in order, and its source files. */
export function corpus(): { words: string[]; files: string[] } {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'generated' && name !== 'gql') walk(path);
      } else if (/\.(ts|tsx)$/.test(name)) files.push(path);
    }
  };
  walk(join(ROOT, 'src'));
  walk(join(ROOT, 'web', 'src'));
  const text = [...files.map((f) => readFileSync(f, 'utf8')), readFileSync(join(ROOT, 'README.md'), 'utf8')].join('\n');
  return { words: text.split(/\s+/).filter(Boolean), files: files.map((f) => relative(ROOT, f)) };
}

/** A deterministic random: the same corpus each run. */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}
