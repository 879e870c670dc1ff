/**
 * Spawning git, the runner: every git process of the session mirror and of
 * the end-of-turn project commit's plumbing starts here. The user's porcelain
 * operations in a project (status, init, the first commit) go through
 * simple-git instead (src/git/project-porcelain.ts), with the same settings,
 * environment hardening, listeners and request budget; see src/git/README.md.
 *
 * Plain `node:child_process.spawn` semantics here (through the launcher,
 * src/git/launcher.ts, which spawns for us): no queue, no plugin chain,
 * stdout as raw bytes (blobs, fast-import) and a streaming stdin for
 * fast-import.
 */
import { stat } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { meterGitProcess } from '../request-context.js';
import { classifyGitFailure, commandOf, GitError, GitNotFoundError, GitTimeoutError } from './errors.js';
import { launchGit } from './launcher.js';

/** Default time a git run may take before it is killed: 30 000 ms. */
export const DEFAULT_GIT_TIMEOUT_MS = 30_000;

/**
 * Settings (`-c`) given to every git process, in session repos and in users'
 * projects alike, by this runner and by simple-git (its `config` option), so
 * that no config (the repo's `.git/config`, a file it includes, the user's
 * global or system config) can make git start a program. Per-call `-c` beats
 * every config file, `include.path` included. Why each:
 * - `core.pager=cat` (and the runner's `--no-pager`): `core.pager` /
 *   `pager.<cmd>` would run a program (only on a terminal, which neither
 *   path ever gives git, but the setting costs nothing);
 * - `core.fsmonitor=false`: an fsmonitor hook runs on every index refresh:
 *   status, diff, add, commit (measured: it ran at turn start, turn end,
 *   session join and a `workingTree` read before this was set);
 * - `core.hooksPath=/dev/null`: hooks (`.git/hooks/*` or a configured path) on
 *   commit, checkout, gc …; commits also pass `--no-verify`;
 * - `commit.gpgsign`, `tag.gpgsign=false`: `gpg.program` / `gpg.ssh.program`
 *   would run on commit; commits also pass `--no-gpg-sign`;
 * - `log.showSignature=false`: with it, `git log` runs `gpg.program` to verify
 *   every signed commit it shows (Project.history, Turn.projectCommit);
 * - `core.editor=:`, `sequence.editor=:`: `:` is git's "no editor"; we always
 *   pass `-m`/`-F` and never rebase, so this only backs that up;
 * - `credential.helper=` (an empty value empties the helper list),
 *   `core.askPass=`, `core.sshCommand=`: programs run to fetch or push;
 * - `protocol.allow=never`: no transport at all (we never fetch, push or
 *   clone); a repo's `protocol.<name>.allow` would beat this key, so the
 *   runner also sets `GIT_ALLOW_PROTOCOL` to an empty list (see `hardenEnv`),
 *   which beats every `protocol.*` key and also rules out `remote.*` helpers,
 *   `core.gitProxy`, `core.alternateRefsCommand` and `uploadpack.*`;
 * - `gc.auto=0`, `maintenance.auto=false`: no background work of ours in a
 *   user's repo after a commit (session repos pack on their own schedule);
 * - `submodule.recurse=false`: never descend into submodules, whose config we
 *   have not read (status also passes `--ignore-submodules=dirty`).
 *
 * What cannot be switched off here:
 * - filter drivers, `filter.<name>.clean|smudge|process` with a `filter=<name>`
 *   attribute: there is one key per driver name and no key that disables
 *   them all. `git add`, `git status` (to compare a changed file with the
 *   index) and checkout run them. `ProjectRepo` neutralises the drivers it
 *   finds in a project's effective config per call (`RunGitOptions.config`),
 *   and the agent's `git add` only runs where there are none or the user
 *   trusted them (src/projects/repo-config.ts);
 * - `diff.external`, `diff.<driver>.command`, `diff.<driver>.textconv`: an
 *   empty `diff.external` makes `git diff` fail instead, so these are
 *   disabled per command: we only run `diff-tree` (plumbing: no external diff
 *   or textconv unless asked) and pass `--no-ext-diff --no-textconv`;
 * - `merge.<driver>.driver`, `trailer.<token>.cmd`: per-name keys for
 *   commands we never run (merge, `interpret-trailers`, `commit --trailer`).
 */
export const PER_CALL_SETTINGS: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'commit.gpgsign=false',
  'tag.gpgsign=false',
  'log.showSignature=false',
  'core.pager=cat',
  'core.editor=:',
  'sequence.editor=:',
  'credential.helper=',
  'core.askPass=',
  'core.sshCommand=',
  'protocol.allow=never',
  'gc.auto=0',
  'maintenance.auto=false',
  'submodule.recurse=false',
];

/** `--no-pager`, then `PER_CALL_SETTINGS` as `-c` pairs: what the runner puts before every subcommand. */
export const PER_CALL_CONFIG: readonly string[] = ['--no-pager', ...PER_CALL_SETTINGS.flatMap((setting) => ['-c', setting])];

/**
 * Environment variables that name a program git would run, or that inject
 * config or a different git: removed from every environment the runner is
 * given, whoever built it.
 */
const PROGRAM_ENV = [
  'GIT_EXTERNAL_DIFF',
  'GIT_PAGER',
  'PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'VISUAL',
  'EDITOR',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_PROXY_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
];

/**
 * `env` made safe to hand to git: without `PROGRAM_ENV` and inherited
 * `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, with no transport allowed
 * (`GIT_ALLOW_PROTOCOL` set to an empty list), and with `config` passed as
 * `GIT_CONFIG_COUNT` entries (any key name, unlike `-c`, which splits
 * `filter.a=b.clean` at the first `=`).
 */
export function hardenEnv(env: NodeJS.ProcessEnv, config: ReadonlyArray<readonly [string, string]> = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || PROGRAM_ENV.includes(key) || key.startsWith('GIT_CONFIG_KEY_') || key.startsWith('GIT_CONFIG_VALUE_')) continue;
    out[key] = value;
  }
  out.GIT_ALLOW_PROTOCOL = '';
  if (config.length > 0) {
    out.GIT_CONFIG_COUNT = String(config.length);
    config.forEach(([key, value], i) => {
      out[`GIT_CONFIG_KEY_${i}`] = key;
      out[`GIT_CONFIG_VALUE_${i}`] = value;
    });
  }
  return out;
}

/**
 * The git binary: `$ENTITY_MEMORY_GIT_BINARY`, default `git`. Read at every
 * call so tests can point it at a missing or misbehaving binary.
 */
export function gitBinary(): string {
  const fromEnv = process.env.ENTITY_MEMORY_GIT_BINARY;
  return fromEnv && fromEnv.trim() !== '' ? fromEnv : 'git';
}

/**
 * `process.env` without any `GIT_*` variable (a `GIT_DIR` or `GIT_INDEX_FILE`
 * inherited from a hook would silently redirect every command), no terminal
 * prompt, C locale so stderr matching is stable, then `settings` and `extra`
 * in that order (a value of undefined removes the variable).
 */
export function envWithoutGit(settings: NodeJS.ProcessEnv, extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('GIT_') && value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries({ GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', ...settings, ...extra })) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/**
 * An environment for running git against our own repos: `envWithoutGit`, and no
 * system or global config. `extra` is applied last and may set `GIT_*`
 * variables (identity, `GIT_DIR`).
 */
export function gitEnv(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return envWithoutGit({ GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }, extra);
}

export interface RunGitOptions {
  /** Working directory of the git process. Required: git never runs in the server's own cwd by accident. */
  cwd: string;
  /** Written to stdin, then stdin is closed. Default: stdin is /dev/null. */
  input?: string | Uint8Array;
  /** Environment. Default `gitEnv()`; pass the user's environment for user repos. */
  env?: NodeJS.ProcessEnv;
  /** Kill git (SIGKILL) and reject with `GitTimeoutError` after this many ms. Default 30 000; 0 disables. */
  timeoutMs?: number;
  /** Exit codes that count as success. Default `[0]`. */
  okExitCodes?: number[];
  /**
   * Extra settings for this run, after `PER_CALL_CONFIG` (as `GIT_CONFIG_COUNT`
   * entries, so any key name works). Default none.
   */
  config?: ReadonlyArray<readonly [string, string]>;
}

export interface GitResult<Out> {
  stdout: Out;
  stderr: string;
  exitCode: number;
}

/** What the spawn observer is told; used by tests and benchmarks to count spawns. */
export interface GitSpawnEvent {
  argv: string[];
  cwd: string;
  /** The environment git runs with (after `hardenEnv`). */
  env: NodeJS.ProcessEnv;
}

const spawnListeners = new Set<(event: GitSpawnEvent) => void>();

/**
 * Registers a listener called synchronously before every git spawn. Returns
 * the function that removes it. A listener that throws is ignored.
 */
export function onGitSpawn(listener: (event: GitSpawnEvent) => void): () => void {
  spawnListeners.add(listener);
  return () => spawnListeners.delete(listener);
}

/**
 * Tells the `onGitSpawn` listeners about a git process about to start (or,
 * for simple-git, just started). For the other git path in this folder only.
 */
export function announceGitSpawn(event: GitSpawnEvent): void {
  for (const listener of spawnListeners) {
    try {
      listener({ argv: [...event.argv], cwd: event.cwd, env: { ...event.env } });
    } catch {
      // Observers must never break a git run.
    }
  }
}

/** The argv actually executed: binary, per-call config, then `args`. */
export function buildGitArgv(args: readonly string[]): string[] {
  return [gitBinary(), ...PER_CALL_CONFIG, ...args];
}

/**
 * Runs git and resolves with its decoded (UTF-8) output.
 *
 * Rejects with `GitNotFoundError` when the binary cannot be started,
 * `GitTimeoutError` when killed after `timeoutMs`, and otherwise, for an exit
 * code outside `okExitCodes`, with the `GitError` subclass that matches stderr
 * (`GitLockedError`, `GitObjectNotFoundError`, `GitRefConflictError`).
 */
export async function runGit(args: readonly string[], opts: RunGitOptions): Promise<GitResult<string>> {
  const result = await runGitBuffer(args, opts);
  return { stdout: result.stdout.toString('utf8'), stderr: result.stderr, exitCode: result.exitCode };
}

/** `runGit` with stdout kept as raw bytes (blobs). Same failures. */
export async function runGitBuffer(args: readonly string[], opts: RunGitOptions): Promise<GitResult<Buffer>> {
  const proc = startProcess(args, opts, opts.input !== undefined);
  if (opts.input !== undefined) proc.stdin!.end(opts.input);
  return proc.done;
}

export interface StreamingGit {
  /** Git's stdin; write to it (respecting backpressure) and `end()` it. */
  stdin: Writable;
  /** Settles when git exits, with the same failures as `runGit`. Never rejects unhandled. */
  done: Promise<GitResult<string>>;
  /** Kills git (SIGKILL); `done` then rejects. */
  kill(): void;
}

/**
 * Starts git with a writable stdin, for streams too large to hold in memory
 * (`fast-import`). `opts.input` is ignored.
 */
export function startGit(args: readonly string[], opts: RunGitOptions): StreamingGit {
  const proc = startProcess(args, opts, true);
  const done = proc.done.then((r) => ({ stdout: r.stdout.toString('utf8'), stderr: r.stderr, exitCode: r.exitCode }));
  // Mark as handled: a caller that fails while writing may never await it.
  done.catch(() => undefined);
  return { stdin: proc.stdin!, done, kill: proc.kill };
}

interface Process {
  stdin: Writable | null;
  done: Promise<GitResult<Buffer>>;
  kill(): void;
}

function startProcess(args: readonly string[], opts: RunGitOptions, pipeStdin: boolean): Process {
  const argv = buildGitArgv(args);
  const [binary, ...rest] = argv as [string, ...string[]];
  // Inside a request, every git process and every byte it prints is counted
  // against that request's budget (throws when the processes are spent,
  // before any observer hears of a process that never starts).
  const meter = meterGitProcess();
  const env = hardenEnv(opts.env ?? gitEnv(), opts.config);
  announceGitSpawn({ argv, cwd: opts.cwd, env });
  const okExitCodes = opts.okExitCodes ?? [0];
  const timeoutMs = opts.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;

  // Through the launcher: a fork of the server itself would hold its event loop (src/git/launcher.ts).
  const child = launchGit(binary, rest, { cwd: opts.cwd, env, pipeStdin });
  // EPIPE when git exits before reading all input: the exit code tells what happened.
  child.stdin?.on('error', () => undefined);

  const done = new Promise<GitResult<Buffer>>((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let settled = false;
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
            // Do not wait for 'close': a grandchild may still hold the pipes open.
            child.once('exit', () =>
              finish(() =>
                reject(
                  new GitTimeoutError(
                    `git ${commandName(args)} timed out after ${timeoutMs} ms`,
                    argv,
                    null,
                    Buffer.concat(err).toString('utf8').trim(),
                  ),
                ),
              ),
            );
          }, timeoutMs)
        : undefined;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      fn();
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      out.push(chunk);
      const overBudget = meter?.(chunk.length);
      if (overBudget) {
        child.kill('SIGKILL');
        finish(() => reject(overBudget));
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish(() => {
        void spawnFailure(error, argv, opts.cwd).then(reject, reject);
      });
    });
    child.on('close', (code, signal) => {
      finish(() => {
        const stderr = Buffer.concat(err).toString('utf8').trim();
        if (timedOut) {
          reject(new GitTimeoutError(`git ${commandName(args)} timed out after ${timeoutMs} ms`, argv, null, stderr));
        } else if (code === null) {
          reject(new GitError(`git ${commandName(args)} was killed by ${signal ?? 'a signal'}`, argv, null, stderr));
        } else if (!okExitCodes.includes(code)) {
          reject(classifyGitFailure(argv, code, stderr));
        } else {
          resolve({ stdout: Buffer.concat(out), stderr, exitCode: code });
        }
      });
    });
  });

  return {
    stdin: child.stdin,
    done,
    kill: () => {
      child.kill('SIGKILL');
    },
  };
}

/** ENOENT from spawn means either a missing binary or a missing cwd; tell them apart. */
async function spawnFailure(error: NodeJS.ErrnoException, argv: string[], cwd: string): Promise<GitError> {
  if (error.code === 'ENOENT' || error.code === 'EACCES') {
    const cwdExists = await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!cwdExists) {
      return new GitError(`git cannot run: working directory ${cwd} does not exist`, argv, null, '', { cause: error });
    }
    return new GitNotFoundError(`git binary ${argv[0]} could not be started (${error.code})`, argv, null, '', {
      cause: error,
    });
  }
  return new GitError(`git could not be started: ${error.message}`, argv, null, '', { cause: error });
}

function commandName(args: readonly string[]): string {
  return commandOf(args, 0)[0] ?? '';
}
