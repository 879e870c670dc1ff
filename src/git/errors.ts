/**
 * The typed failures of the git layer. Every error this folder throws is a
 * `GitError`, so callers can map the whole family to one GraphQL code and the
 * subclasses to more precise ones.
 */

export class GitError extends Error {
  /** The full argv that ran, binary first (empty for argument checks made before spawning). */
  readonly argv: string[];
  /** The exit code, or null when git never ran or was killed. */
  readonly exitCode: number | null;
  /** What git wrote to stderr (trimmed). */
  readonly stderr: string;

  constructor(message: string, argv: string[] = [], exitCode: number | null = null, stderr = '', options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.argv = argv;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** The git binary could not be started (missing, or not executable). */
export class GitNotFoundError extends GitError {}

/** Git ran longer than the allowed time and was killed. */
export class GitTimeoutError extends GitError {}

/**
 * Another process holds (or a crashed one left) a `.lock` file: `index.lock`,
 * `HEAD.lock`, `refs/heads/<b>.lock`. See `SessionRepo.recoverStaleLocks`.
 */
export class GitLockedError extends GitError {}

/** A revision, object or path inside a commit does not exist (or is ambiguous). */
export class GitObjectNotFoundError extends GitError {}

/**
 * A compare-and-swap ref update lost: the branch is not at the expected commit,
 * or a branch that should be new already exists.
 */
export class GitRefConflictError extends GitError {}

/**
 * The folder is a bare repository, or lies inside a git directory: there is
 * no working tree to commit from.
 */
export class GitNoWorkTreeError extends GitError {}

/**
 * An argument was refused before git was spawned: an invalid branch name, sha,
 * path or identity. Nothing was changed.
 */
export class GitArgumentError extends GitError {}

const LOCKED = /Unable to create '[^']*\.lock': File exists|\.lock': File exists|index\.lock/;
const REF_CONFLICT = /cannot lock ref '[^']*': (?:is at [0-9a-f]+ but expected|reference already exists|reference is missing but expected)/;
const NOT_FOUND = new RegExp(
  [
    'bad revision',
    'unknown revision',
    'Not a valid object name',
    'not a valid object',
    'invalid object name',
    'bad object',
    'invalid reference',
    'Needed a single revision',
    'ambiguous argument',
    'is ambiguous',
    'does not exist in',
    'exists on disk, but not in',
    'not a tree object',
    'Not a valid commit name',
    'Invalid revision range',
    'does not have any commits yet',
    'no such path',
  ].join('|'),
);

/** Picks the error class for a failed git run from its stderr. */
export function classifyGitFailure(argv: string[], exitCode: number | null, stderr: string): GitError {
  const firstLine = stderr.split('\n').find((l) => l.trim() !== '') ?? '';
  const message = `${argv.slice(0, 1).concat(commandOf(argv)).join(' ')} failed with exit code ${exitCode}${firstLine ? `: ${firstLine}` : ''}`;
  if (LOCKED.test(stderr)) return new GitLockedError(message, argv, exitCode, stderr);
  if (REF_CONFLICT.test(stderr)) return new GitRefConflictError(message, argv, exitCode, stderr);
  if (NOT_FOUND.test(stderr)) return new GitObjectNotFoundError(message, argv, exitCode, stderr);
  return new GitError(message, argv, exitCode, stderr);
}

/** The subcommand of an argv, skipping `-c key=value` pairs and other global options. */
export function commandOf(argv: readonly string[], start = 1): string[] {
  for (let i = start; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-c' || a === '-C') {
      i++;
      continue;
    }
    if (!a.startsWith('-')) return [a];
  }
  return [];
}
