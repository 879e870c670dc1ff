/**
 * The real Claude Code CLI for the agent tests: `@anthropic-ai/claude-code` at one exact version,
 * installed from the npm registry the first time a test asks for it, into a cache folder under
 * node_modules (git-ignored, gone with `npm ci`'s fresh node_modules). Test files run in parallel
 * (vitest forks), so the install is done under a file lock: one process installs, the others wait
 * for it and reuse the result.
 *
 * Claude Code 2.x is a native binary: the package pulls `@anthropic-ai/claude-code-<platform>`
 * (about 245 MB) as an optional dependency, and its postinstall hard-links it over
 * `bin/claude.exe`. When install scripts did not run (npm's allow-scripts, `--ignore-scripts`),
 * the postinstall (`install.cjs`) is run here.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lock } from 'proper-lockfile';

/** The version the agent tests were written against (hook payloads, tool names, request shapes). */
export const CLAUDE_CODE_VERSION = '2.1.197';

const PACKAGE = '@anthropic-ai/claude-code';

/**
 * Where installs are kept: `ENTITY_MEMORY_AGENTS_CACHE` when set, else
 * `<project>/node_modules/.cache/entity-memory-agents`.
 */
export function agentsCacheDir(): string {
  return process.env.ENTITY_MEMORY_AGENTS_CACHE ?? fileURLToPath(new URL('../../node_modules/.cache/entity-memory-agents', import.meta.url));
}

function installDir(): string {
  return join(agentsCacheDir(), `claude-code-${CLAUDE_CODE_VERSION}`);
}

function binaryIn(dir: string): string {
  return join(dir, 'node_modules', PACKAGE, 'bin', 'claude.exe');
}

/** What `claude --version` prints, or null when the binary is missing or does not run. */
function versionOf(binary: string): Promise<string | null> {
  if (!existsSync(binary)) return Promise.resolve(null);
  return new Promise((resolve) => {
    execFile(binary, ['--version'], { env: { PATH: '/usr/bin:/bin', HOME: dirname(binary) }, timeout: 30_000 }, (error, stdout) =>
      resolve(error ? null : stdout.trim()),
    );
  });
}

async function runs(binary: string): Promise<boolean> {
  return (await versionOf(binary))?.startsWith(`${CLAUDE_CODE_VERSION} `) ?? false;
}

/** Runs a command to its end; rejects with its output when it fails. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`))));
  });
}

/**
 * What npm sets for a script's run (`npm test`) and must not reach the install: this project's
 * package, its prefixes, the running command. The rest (`npm_config_cache`, `_registry`,
 * `_cafile`, ...) is the user's npm configuration and is kept.
 */
const SCRIPT_ONLY = /^(npm_package_|npm_lifecycle_|npm_command$|npm_config_(prefix|local_prefix|global|global_prefix|call|omit|include|ignore_scripts|dry_run|save|package_lock|workspaces?)$|INIT_CWD$)/i;

/** npm as the test run found it: the npm that runs `npm test` (npm_execpath), else `npm` on PATH. */
function npm(args: string[]): [string, string[], NodeJS.ProcessEnv] {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !SCRIPT_ONLY.test(key)));
  const execpath = process.env.npm_execpath;
  if (execpath && /npm-cli\.js$/.test(execpath)) return [process.execPath, [execpath, ...args], env];
  return ['npm', args, env];
}

/** Installs into a fresh folder beside the cache entry, then moves it in whole (never a half install). */
async function install(dir: string): Promise<void> {
  const staging = await mkdtemp(`${dir}.partial-`);
  try {
    const [command, args, env] = npm([
      'install',
      '--no-audit',
      '--no-fund',
      '--no-save',
      '--no-package-lock',
      '--include=optional',
      '--prefix',
      staging,
      `${PACKAGE}@${CLAUDE_CODE_VERSION}`,
    ]);
    await run(command, args, staging, env);
    if (!(await runs(binaryIn(staging)))) await run(process.execPath, [join(staging, 'node_modules', PACKAGE, 'install.cjs')], staging, env);
    if (!(await runs(binaryIn(staging)))) {
      throw new Error(`${PACKAGE}@${CLAUDE_CODE_VERSION} installed, but ${binaryIn(staging)} does not run (${process.platform}-${process.arch}: no native package?)`);
    }
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

let found: Promise<string> | undefined;

/**
 * The path of the Claude Code binary, installed on first use (once per machine and version,
 * whichever process gets there first; the others wait for it, up to 10 minutes).
 * @throws when npm fails (no registry), or the installed binary does not run here.
 */
export function claudeCodeBinary(): Promise<string> {
  found ??= locate().catch((error: unknown) => {
    found = undefined;
    throw error;
  });
  return found;
}

async function locate(): Promise<string> {
  const dir = installDir();
  if (await runs(binaryIn(dir))) return binaryIn(dir);
  await mkdir(agentsCacheDir(), { recursive: true });
  // The holder refreshes the lock file while it installs; a holder that died leaves it stale after 30 s.
  const release = await lock(agentsCacheDir(), {
    lockfilePath: `${dir}.lock`,
    stale: 30_000,
    retries: { retries: 600, factor: 1, minTimeout: 1_000, maxTimeout: 1_000 },
  });
  try {
    if (!(await runs(binaryIn(dir)))) {
      const started = Date.now();
      await install(dir);
      // The figure CI pays once per clean clone (it counts against the run's time budget).
      process.stderr.write(`[agents] installed ${PACKAGE}@${CLAUDE_CODE_VERSION} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    await release();
  }
  return binaryIn(dir);
}
