/**
 * What a commit is made of (files, identity, message), validated and encoded
 * the same way for `fast-import` (every session commit) and for `commit-tree`
 * (the tests' oracle, test/git/index-commit-oracle.ts),
 * so a commit is byte-identical whichever way it is written.
 */
import { GitArgumentError } from './errors.js';

/** A person in a commit header. */
export interface Identity {
  name: string;
  email: string;
  date: Date;
}

/** A file to write into a commit, at a repo-relative path with `/` separators. */
export interface RepoFile {
  path: string;
  /** Text (written as UTF-8) or raw bytes. */
  content: string | Uint8Array;
}

/**
 * Throws `GitArgumentError` unless `path` is a plain relative path inside the
 * repo: no leading `/`, no empty, `.` or `..` segment, no `.git` segment, no
 * NUL, CR or LF, not starting with `"` (fast-import would read it as quoted).
 */
export function assertRepoPath(path: unknown): asserts path is string {
  const bad = (why: string) => new GitArgumentError(`invalid repo path ${JSON.stringify(path)}: ${why}`);
  if (typeof path !== 'string' || path === '') throw bad('empty');
  if (path.length > 4096) throw bad('too long');
  if (/[\0\r\n]/.test(path)) throw bad('control character');
  if (path.startsWith('"')) throw bad('starts with a quote');
  if (path.startsWith('/') || path.includes('\\')) throw bad('must be relative with / separators');
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw bad('empty, . or .. segment');
    if (segment.toLowerCase() === '.git') throw bad('.git segment');
  }
}

/** Characters git strips from both ends of an ident name or email (ident.c `crud`). */
const CRUD = /^[\x00-\x20.,:;<>"\\']+|[\x00-\x20.,:;<>"\\']+$/g;

/**
 * The identity as git itself would write it from `GIT_AUTHOR_*`: name and
 * email with git's "crud" (spaces, `.,:;<>"\'`) stripped from both ends.
 * Both write paths use it, so `commit-tree` and `fast-import` agree byte for
 * byte. Throws `GitArgumentError` when nothing usable is left, when `<`, `>`,
 * NUL or a newline remain inside, or for an invalid or pre-1970 date.
 */
export function normalizeIdentity(who: Identity, role = 'author'): Identity {
  const bad = (why: string) => new GitArgumentError(`invalid ${role}: ${why}`);
  if (!who || typeof who !== 'object') throw bad('missing');
  const clean = (field: 'name' | 'email'): string => {
    const value = who[field];
    if (typeof value !== 'string') throw bad(`${field} must be a string`);
    const stripped = value.replace(CRUD, '');
    if (stripped === '') throw bad(`empty ${field}`);
    if (/[<>\0\r\n]/.test(stripped)) throw bad(`${field} contains <, >, NUL or a newline`);
    return stripped;
  };
  const name = clean('name');
  const email = clean('email');
  if (!(who.date instanceof Date) || Number.isNaN(who.date.getTime())) throw bad('invalid date');
  // Git's date parser has no negative timestamps.
  if (who.date.getTime() < 0) throw bad('date before 1970');
  return { name, email, date: who.date };
}

/**
 * `GIT_AUTHOR_*` and `GIT_COMMITTER_*` for a `commit-tree` (the committer is the author unless
 * given). Without a date git takes the current time. A date is written `@<unix seconds> +0000`:
 * the `@` makes git read it as a timestamp even when small (`20200101` would be a calendar day).
 */
export function identityEnv(author: { name: string; email: string; date?: Date }, committer = author): NodeJS.ProcessEnv {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    ...(author.date ? { GIT_AUTHOR_DATE: `@${rawGitDate(author.date)}` } : {}),
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    ...(committer.date ? { GIT_COMMITTER_DATE: `@${rawGitDate(committer.date)}` } : {}),
  };
}

/** Git's raw date format, always UTC: `<unix seconds> +0000` (fast-import's `--date-format=raw`). */
export function rawGitDate(date: Date): string {
  return `${Math.floor(date.getTime() / 1000)} +0000`;
}

/**
 * The exact bytes stored as a commit message: the text as given, plus a
 * final newline when missing (git's own convention). Throws on NUL, which git
 * cannot store.
 */
export function commitMessageBytes(message: string): Buffer {
  if (typeof message !== 'string' || message.trim() === '') throw new GitArgumentError('empty commit message');
  if (message.includes('\0')) throw new GitArgumentError('commit message contains NUL');
  return Buffer.from(message.endsWith('\n') ? message : `${message}\n`, 'utf8');
}

/** File content as bytes. */
export function contentBytes(content: string | Uint8Array): Buffer {
  return typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
}

/** Validates a file list: paths valid and unique. */
export function assertFiles(files: readonly RepoFile[]): void {
  if (!Array.isArray(files)) throw new GitArgumentError('files must be an array');
  const seen = new Set<string>();
  for (const file of files) {
    assertRepoPath(file.path);
    if (seen.has(file.path)) throw new GitArgumentError(`duplicate path ${JSON.stringify(file.path)}`);
    seen.add(file.path);
    if (typeof file.content !== 'string' && !(file.content instanceof Uint8Array)) {
      throw new GitArgumentError(`content of ${JSON.stringify(file.path)} must be a string or bytes`);
    }
  }
}
