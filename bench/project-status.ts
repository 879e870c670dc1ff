/**
 * What simple-git costs per process against the runner, for the completion
 * setting of src/git/project-porcelain.ts: a status of a small repo (20
 * tracked files, 2 dirty) through the runner, through simple-git with each
 * completion setting, and through `ProjectRepo.status()` as the product runs
 * it; then `git init -q` (prints nothing) against `git init` through
 * simple-git. All variants run interleaved, RUNS rounds.
 * Usage: npx tsx bench/project-status.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleGit } from 'simple-git';
import { ProjectRepo } from '../src/git/project-repo.js';
import { runGit } from '../src/git/run.js';

const RUNS = 60;
const root = realpathSync(mkdtempSync(join(tmpdir(), 'em-bench-status-')));
const dir = join(root, 'repo');
const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
git('init', '-q', '-b', 'main', dir);
for (let i = 0; i < 20; i++) writeFileSync(join(dir, `f${i}.txt`), `${i}\n`);
git('-C', dir, '-c', 'user.name=b', '-c', 'user.email=b@example.com', 'add', '-A');
git('-C', dir, '-c', 'user.name=b', '-c', 'user.email=b@example.com', 'commit', '-q', '-m', 'x');
writeFileSync(join(dir, 'f1.txt'), 'changed\n');
writeFileSync(join(dir, 'new.txt'), 'new\n');

const STATUS = ['status', '--porcelain', '-b', '-u', '--null', '--no-renames'];
const variants: Record<string, () => Promise<unknown>> = {
  'status: runner': () => runGit(STATUS, { cwd: dir }),
  'status: simple-git default (onExit 50)': ((g) => () => g.status(['--no-renames']))(simpleGit({ baseDir: dir })),
  'status: simple-git onExit false': ((g) => () => g.status(['--no-renames']))(simpleGit({ baseDir: dir, completion: { onExit: false } })),
  'status: simple-git onExit 0': ((g) => () => g.status(['--no-renames']))(simpleGit({ baseDir: dir, completion: { onExit: 0 } })),
  'status: ProjectRepo.status()': () => new ProjectRepo(dir).status(),
  'init -q: simple-git': ((g) => () => g.raw(['init', '-q']))(simpleGit({ baseDir: dir })),
  'init: simple-git': ((g) => () => g.raw(['init']))(simpleGit({ baseDir: dir })),
};

const samples = new Map<string, number[]>();
try {
  for (let round = 0; round < RUNS; round++) {
    for (const [name, run] of Object.entries(variants)) {
      const t0 = performance.now();
      await run();
      const ms = performance.now() - t0;
      if (round > 2) samples.set(name, [...(samples.get(name) ?? []), ms]);
    }
  }
  console.log(`simple-git per-process cost, ${RUNS - 3} interleaved rounds after 3 warm-up (ms)`);
  for (const [name, xs] of samples) {
    xs.sort((a, b) => a - b);
    const at = (q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!.toFixed(2);
    console.log(`  ${name.padEnd(42)} p50 ${at(0.5).padStart(6)}   p90 ${at(0.9).padStart(6)}`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
