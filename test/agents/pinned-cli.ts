/**
 * The real agent CLIs for the agent tests: an npm package at one exact version, installed from the
 * npm registry the first time a test asks for it, into a cache folder under node_modules
 * (git-ignored, gone with `npm ci`'s fresh node_modules). Test files run in parallel (vitest
 * forks), so the install is done under a file lock: one process installs, the others wait for it
 * and reuse the result. claude-cli.ts and gemini-cli.ts say which package and how it runs.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lock } from 'proper-lockfile';

export interface PinnedCli {
  /** The npm package, e.g. `@google/gemini-cli`. */
  package: string;
  /** The version the agent tests were written against (hook payloads, tool names, request shapes). */
  version: string;
  /** The name of its cache entry (with the version appended). */
  name: string;
  /** Its executable in an install folder (the folder `npm install --prefix` was given). */
  binary(dir: string): string;
  /** A JavaScript bundle run by this node, rather than an executable of its own. Default false. */
  node?: boolean;
  /** Run after npm when the binary does not run yet (a postinstall npm did not run). */
  repair?(dir: string, env: NodeJS.ProcessEnv): Promise<void>;
}

/** How to start a pinned CLI: the command and the arguments before the CLI's own. */
export interface CliCommand {
  command: string;
  args: string[];
}

/**
 * Where installs are kept: `ENTITY_MEMORY_AGENTS_CACHE` when set, else
 * `<project>/node_modules/.cache/entity-memory-agents`.
 */
export function agentsCacheDir(): string {
  return process.env.ENTITY_MEMORY_AGENTS_CACHE ?? fileURLToPath(new URL('../../node_modules/.cache/entity-memory-agents', import.meta.url));
}

function installDir(cli: PinnedCli): string {
  return join(agentsCacheDir(), `${cli.name}-${cli.version}`);
}

function commandIn(cli: PinnedCli, dir: string): CliCommand {
  const binary = cli.binary(dir);
  return cli.node ? { command: process.execPath, args: [binary] } : { command: binary, args: [] };
}

/** Whether the CLI in `dir` runs and says it is the pinned version (`--version`). */
function runs(cli: PinnedCli, dir: string): Promise<boolean> {
  if (!existsSync(cli.binary(dir))) return Promise.resolve(false);
  const { command, args } = commandIn(cli, dir);
  return new Promise((resolve) => {
    execFile(command, [...args, '--version'], { env: { PATH: '/usr/bin:/bin', HOME: dirname(cli.binary(dir)) }, timeout: 30_000 }, (error, stdout) => {
      // `2.1.197 (Claude Code)`, `0.61.0`, `codex-cli 0.171.0`.
      resolve(!error && stdout.trim().split(/\s+/).includes(cli.version));
    });
  });
}

/** Runs a command to its end; rejects with its output when it fails. */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
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
async function install(cli: PinnedCli, dir: string): Promise<void> {
  const staging = await mkdtemp(`${dir}.partial-`);
  const spec = `${cli.package}@${cli.version}`;
  try {
    const [command, args, env] = npm(['install', '--no-audit', '--no-fund', '--no-save', '--no-package-lock', '--include=optional', '--prefix', staging, spec]);
    await run(command, args, staging, env);
    if (!(await runs(cli, staging)) && cli.repair) await cli.repair(staging, env);
    if (!(await runs(cli, staging))) throw new Error(`${spec} installed, but ${cli.binary(staging)} does not run (${process.platform}-${process.arch}: no native package?)`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

const found = new Map<string, Promise<CliCommand>>();

/**
 * How to start `cli`, installed on first use (once per machine and version, whichever process
 * gets there first; the others wait for it, up to 10 minutes).
 * @throws when npm fails (no registry), or the installed CLI does not run here.
 */
export function pinnedCli(cli: PinnedCli): Promise<CliCommand> {
  const key = `${cli.name}-${cli.version}`;
  let pending = found.get(key);
  if (!pending) {
    pending = locate(cli).catch((error: unknown) => {
      found.delete(key);
      throw error;
    });
    found.set(key, pending);
  }
  return pending;
}

async function locate(cli: PinnedCli): Promise<CliCommand> {
  const dir = installDir(cli);
  if (await runs(cli, dir)) return commandIn(cli, dir);
  await mkdir(agentsCacheDir(), { recursive: true });
  // The holder refreshes the lock file while it installs; a holder that died leaves it stale after 30 s.
  const release = await lock(agentsCacheDir(), {
    lockfilePath: `${dir}.lock`,
    stale: 30_000,
    retries: { retries: 600, factor: 1, minTimeout: 1_000, maxTimeout: 1_000 },
  });
  try {
    if (!(await runs(cli, dir))) {
      const started = Date.now();
      await install(cli, dir);
      // The figure CI pays once per clean clone (it counts against the run's time budget).
      process.stderr.write(`[agents] installed ${cli.package}@${cli.version} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    await release();
  }
  return commandIn(cli, dir);
}
