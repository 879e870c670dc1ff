/**
 * Hostile git config for tests: marker scripts that write a file when git runs
 * them, a sandbox with its own HOME and TMPDIR (so the user's global config is
 * ours to set and anything written outside the data dir and the allowed roots
 * shows up), and plain git as the user would run it, for control runs that
 * prove each marker does fire.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';

export interface Sandbox {
  /** Everything below lives here. */
  base: string;
  /** HOME (and XDG_CONFIG_HOME below it) of this process while the test runs: the user's global config. */
  home: string;
  /** TMPDIR of this process while the test runs. */
  tmp: string;
  /** The allowed root. */
  root: string;
  /** The server's data directory. */
  data: string;
  /** Where marker scripts write; must stay empty. */
  marks: string;
  /** The marker scripts themselves. */
  bin: string;
}

const ENV_KEYS = ['HOME', 'TMPDIR', 'XDG_CONFIG_HOME'] as const;

/** A sandbox whose HOME and TMPDIR become this process's (and so the server's) until the test ends. */
export function sandbox(): Sandbox {
  const base = tempDir('em-sec-');
  const sb: Sandbox = {
    base,
    home: join(base, 'home'),
    tmp: join(base, 'tmp'),
    root: join(base, 'root'),
    data: join(base, 'data'),
    marks: join(base, 'marks'),
    bin: join(base, 'bin'),
  };
  for (const dir of [sb.home, sb.tmp, sb.root, sb.data, sb.marks, sb.bin]) mkdirSync(dir, { recursive: true });
  const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  process.env.HOME = sb.home;
  process.env.TMPDIR = sb.tmp;
  process.env.XDG_CONFIG_HOME = join(sb.home, '.config');
  onCleanup(() => {
    for (const key of ENV_KEYS) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
  });
  return sb;
}

/**
 * A script that appends a line to `marks/<name>` when run, then does `body`
 * (default `exit 0`; `cat` for a filter, `cat "$1"` for a textconv).
 */
export function marker(sb: Sandbox, name: string, body = 'exit 0'): string {
  const script = join(sb.bin, `${name}.sh`);
  writeFileSync(script, `#!/bin/sh\necho "ran: $0 $*" >> '${join(sb.marks, name)}'\n${body}\n`);
  chmodSync(script, 0o755);
  return script;
}

/** A hooks folder with a marker for every hook git runs around add, commit, ref updates, gc and checkout. */
export function markerHooks(sb: Sandbox, prefix: string, dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const hook of [
    'pre-commit',
    'prepare-commit-msg',
    'commit-msg',
    'post-commit',
    'reference-transaction',
    'post-index-change',
    'pre-auto-gc',
    'post-checkout',
    'post-rewrite',
    'fsmonitor-watchman',
  ]) {
    const target = join(dir, hook);
    writeFileSync(target, `#!/bin/sh\necho "ran: $0" >> '${join(sb.marks, `${prefix}-${hook}`)}'\nexit 0\n`);
    chmodSync(target, 0o755);
  }
}

/** The names of the markers written so far. */
export function marks(sb: Sandbox): string[] {
  return readdirSync(sb.marks).sort();
}

export function clearMarks(sb: Sandbox): void {
  rmSync(sb.marks, { recursive: true, force: true });
  mkdirSync(sb.marks);
}

/** Every path under `dir`, relative, sorted. */
export function listing(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).map((p) => relative(dir, join(dir, p))).sort();
}

/** Plain git as the user runs it: their HOME, so their global config counts. */
export function userGit(sb: Sandbox, cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: sb.home, XDG_CONFIG_HOME: join(sb.home, '.config'), GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' },
  });
}

/** `userGit` that may fail (a marker that exits non-zero, a transport that cannot connect). */
export function userGitMayFail(sb: Sandbox, cwd: string, ...args: string[]): void {
  try {
    userGit(sb, cwd, ...args);
  } catch {
    // The marker is what counts.
  }
}

/** A copy of `dir` for control runs, outside the allowed root. */
export function controlCopy(sb: Sandbox, dir: string, name: string): string {
  const copy = join(sb.base, 'control', name);
  cpSync(dir, copy, { recursive: true });
  return copy;
}
