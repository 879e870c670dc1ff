/**
 * simple-git for the user's porcelain operations in a project (status, init,
 * the first commit), run under the same rules as the runner (src/git/run.ts):
 *
 * - the same `-c` settings (`PER_CALL_SETTINGS`, simple-git's `config`
 *   option) and the same environment: the user's, without inherited `GIT_*`
 *   or program-naming variables, no transport (`hardenEnv`), the repo's
 *   neutralised filter drivers as `GIT_CONFIG_COUNT` entries, its ceilings;
 * - simple-git's own guard stays on, in strict mode (which adds its
 *   "recommended" checks): no `unsafe.allowUnsafe*` flag is set. Its
 *   `allowConfig` and `allowEnvironment` lists name exactly the keys this
 *   module writes itself (each of our settings switches a program off), so
 *   any other config key or git variable in an argv or environment is still
 *   refused before git starts. They allow a key whatever its value: the
 *   values come only from `PER_CALL_SETTINGS` and the neutralisers, never
 *   from a request, and no task here passes `-c` of its own;
 * - the `onGitSpawn` listeners and the request's git budget (processes and
 *   bytes read) count these processes like the runner's;
 * - failures become the typed errors of src/git/errors.ts.
 *
 * Completion: `{ onClose: true, onExit: 50 }`, simple-git's default, written
 * out. A task settles on `close` (all output read) or 50 ms after `exit`,
 * whichever comes first. Measured (bench/project-status.ts, 57 interleaved
 * rounds of a small repo's status, shared machine at load ~13): p50 18.8 ms
 * with the runner, 18.2 ms with the default, 16.7 ms with `onExit: false`,
 * 19.1 ms with `onExit: 0` (an earlier, quieter run: 6.2, 6.8, 6.7, 6.9), all
 * within noise, because `close` follows `exit` at once when git's stdio is
 * only ours. `onExit: false` would buy nothing and would wait forever on a
 * process that keeps git's stderr open after git exits (a trusted filter
 * driver's daemon): simple-git's block timeout is cleared at `exit`. What
 * does cost is simple-git waiting 50 ms after a process that printed nothing
 * at all, in every completion setting (`git init -q` p50 78 ms against
 * 28 ms for `git init` in the same run): the commands here are run so that they print
 * (`init` without `-q`, `commit` without `--quiet`), except `add`.
 */
import { type SimpleGit, simpleGit, GitError as SimpleGitError, GitPluginError } from 'simple-git';
import { meterGitProcess } from '../request-context.js';
import { classifyGitFailure, GitArgumentError, GitError, GitNoWorkTreeError, GitNotFoundError, GitTimeoutError } from './errors.js';
import { statusFromResult } from './parse.js';
import { announceGitSpawn, gitBinary, hardenEnv, PER_CALL_SETTINGS } from './run.js';

export interface PorcelainOptions {
  /** The folder git runs in; must exist. */
  cwd: string;
  /** The environment before hardening (`userGitEnv(...)`); `hardenEnv` is applied here. */
  env: NodeJS.ProcessEnv;
  /** Extra settings, after `PER_CALL_SETTINGS`, passed as `GIT_CONFIG_COUNT` entries (any key name). Default none. */
  config?: ReadonlyArray<readonly [string, string]>;
  /** Kill git when it has printed nothing for this many ms (simple-git's block timeout). Default 60 000. */
  timeoutMs?: number;
}

/**
 * Runs `task` with a simple-git instance set up for one git process (and
 * a function returning what that process printed, decoded): the
 * request's process budget is charged first, the listeners hear of the
 * process with its real argv, and every byte it prints counts against the
 * request's text budget (over it, git is killed and the budget error thrown).
 * @throws GitTimeoutError, GitNotFoundError, GitArgumentError (simple-git's
 *   guard refused an argument or variable; nothing ran), GitNoWorkTreeError,
 *   or the `GitError` subclass `classifyGitFailure` picks from stderr.
 */
export async function runPorcelain<T>(options: PorcelainOptions, task: (git: SimpleGit, stdout: () => string) => Promise<T>): Promise<T> {
  const meter = meterGitProcess();
  const env = porcelainEnv(options);
  const abort = new AbortController();
  let overBudget: Error | null = null;
  let argv: string[] = [];
  const stdoutChunks: Buffer[] = [];
  const stderr: Buffer[] = [];
  let git: SimpleGit;
  try {
    git = simpleGit({
      baseDir: options.cwd,
      binary: gitBinary(),
      config: [...PER_CALL_SETTINGS],
      completion: { onClose: true, onExit: 50 },
      timeout: { block: options.timeoutMs ?? 60_000 },
      abort: abort.signal,
      strict: true,
      allowConfig: [...PER_CALL_SETTINGS.map((s) => s.slice(0, s.indexOf('='))), ...(options.config ?? []).map(([key]) => key)],
      allowEnvironment: Object.keys(env).filter((key) => key.startsWith('GIT_')),
    });
  } catch (error) {
    throw new GitError(`git cannot run: ${(error as Error).message} (${options.cwd})`, [], null, '', { cause: error });
  }
  git.env(env).outputHandler((binary, stdout, errors, args) => {
    argv = [binary, ...args];
    announceGitSpawn({ argv, cwd: options.cwd, env });
    stdout.on('data', (chunk: Buffer) => {
      stdoutChunks.push(chunk);
      const over = meter?.(chunk.length);
      if (over && !overBudget) {
        overBudget = over;
        abort.abort();
      }
    });
    errors.on('data', (chunk: Buffer) => stderr.push(chunk));
  });
  try {
    return await task(git, () => Buffer.concat(stdoutChunks).toString('utf8'));
  } catch (error) {
    if (overBudget) throw overBudget;
    throw typedError(error, argv, Buffer.concat(stderr).toString('utf8').trim());
  }
}

/**
 * The environment simple-git runs git with: `hardenEnv` as the runner's, and
 * without `PREFIX`, a variable simple-git's guard counts as a config path
 * (git itself does not read it on the systems we run on; without this a
 * user's shell that sets it, as Termux does, would make every call refuse).
 */
function porcelainEnv(options: PorcelainOptions): NodeJS.ProcessEnv {
  const env = hardenEnv(options.env, options.config);
  for (const key of Object.keys(env)) if (key.toLowerCase() === 'prefix') delete env[key];
  return env;
}

/** simple-git's failure as ours: the argv that ran and git's stderr are kept. */
function typedError(error: unknown, argv: string[], stderr: string): unknown {
  if (error instanceof GitError || !(error instanceof SimpleGitError)) return error;
  const text = stderr || error.message.trim();
  if (error instanceof GitPluginError) {
    if (error.plugin === 'timeout') return new GitTimeoutError(`git ${subcommand(argv)} printed nothing for too long and was killed`, argv, null, text, { cause: error });
    if (error.plugin === 'binary') return new GitNotFoundError(`git binary ${gitBinary()} cannot be used: ${error.message}`, argv, null, text, { cause: error });
    return new GitArgumentError(`git ${subcommand(argv)} was refused before it ran: ${error.message}`, argv, null, '', { cause: error });
  }
  if (/spawn .*(ENOENT|EACCES)/.test(error.message) && argv.length > 0 && !/^fatal:/m.test(stderr)) {
    return new GitNotFoundError(`git binary ${argv[0]} could not be started`, argv, null, text, { cause: error });
  }
  if (/must be run in a work tree/i.test(text)) {
    return new GitNoWorkTreeError(`git ${subcommand(argv)} needs a working tree: ${firstLine(text)}`, argv, null, text, { cause: error });
  }
  const typed = classifyGitFailure(argv, null, text);
  (typed as { cause?: unknown }).cause = error;
  return typed;
}

function subcommand(argv: readonly string[]): string {
  for (let i = 1; i < argv.length; i++) {
    if (argv[i] === '-c') i++;
    else if (!argv[i]!.startsWith('-')) return argv[i]!;
  }
  return '';
}

function firstLine(text: string): string {
  return text.split('\n').find((l) => l.trim() !== '') ?? '';
}

// --- the tasks run on a user's repo, each one git process (ProjectRepo runs them with its settings) ---

/** A task for `runPorcelain`: one simple-git call, and what that process printed. */
export type PorcelainTask<T> = (git: SimpleGit, stdout: () => string) => Promise<T>;

/** `git init` (their default branch and templates apply). Not `-q`: simple-git waits 50 ms after a process that printed nothing. */
export const initTask: PorcelainTask<unknown> = (git) => git.init();

/**
 * Branch, dirty and staged paths (`statusFromResult`) from simple-git's
 * `status()` (`--porcelain -b -u -z`, to which we add `--no-renames` and
 * `--ignore-submodules=dirty`, so submodules' config is never read).
 */
export const statusTask: PorcelainTask<{ branch: string | null; paths: string[]; staged: string[] }> = async (git, stdout) =>
  statusFromResult(await git.status(['--no-renames', '--ignore-submodules=dirty']), stdout());

/** Null when HEAD has a commit; while it is unborn, whether any non-ignored file is there and whether anything is staged. */
export const unbornHeadTask: PorcelainTask<{ hasFiles: boolean; staged: boolean } | null> = async (git, stdout) => {
  // `--untracked-files=normal` after simple-git's `-u`: the last one wins, and an untracked folder is one entry.
  const result = await git.status(['--no-renames', '--untracked-files=normal', '--ignore-submodules=dirty']);
  // StatusResult has no "unborn": its `current` is the branch either way. git's own branch line says it.
  if (!stdout().startsWith('## No commits yet on ')) return null;
  const { paths, staged } = statusFromResult(result, stdout());
  return { hasFiles: paths.length > 0, staged: staged.length > 0 };
};

/** `git add -A`: every non-ignored file (.gitignore and the user's excludes hold). Prints nothing, so simple-git waits 50 ms after it. */
export const addAllTask: PorcelainTask<unknown> = (git) => git.add(['-A']);

/**
 * `git commit` of the index with `message`, hooks and signing off. Not
 * `--quiet`: its summary line carries the full sha (simple-git passes
 * core.abbrev=40), which saves a `rev-parse HEAD`.
 */
export function commitTask(message: string): PorcelainTask<{ commit: string }> {
  return (git) => git.commit(message, [], { '--no-verify': null, '--no-gpg-sign': null });
}
