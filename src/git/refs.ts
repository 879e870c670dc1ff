/**
 * Validation of the names and ids that reach git's argv. Anything a user can
 * type (a branch name, a commit id from the UI) passes through here first, so
 * it can never be read by git as an option or a revision expression.
 */
import { GitArgumentError } from './errors.js';

const BRANCH = /^(?:main|(?:retry|fork)-[A-Za-z0-9][A-Za-z0-9._-]{0,127})$/;
const SHA_PREFIX = /^(?:[0-9a-fA-F]{7,40}|[0-9a-fA-F]{64})$/;
const FULL_SHA = /^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;

/** The empty tree's id (SHA-1): git knows it without it being stored. */
export const EMPTY_TREE_SHA1 = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * True for the branch names sessions use: `main`, `retry-<id>`, `fork-<id>`
 * with id `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`, that also pass git's
 * check-ref-format rules (no `..`, no trailing `.lock` or `.`, no `@{`).
 */
export function isValidBranchName(name: unknown): boolean {
  if (typeof name !== 'string' || !BRANCH.test(name)) return false;
  return !name.includes('..') && !name.endsWith('.lock') && !name.endsWith('.') && !name.includes('@{');
}

/** Throws `GitArgumentError` unless `isValidBranchName(name)`. */
export function assertBranchName(name: unknown): asserts name is string {
  if (!isValidBranchName(name)) throw new GitArgumentError(`invalid branch name: ${JSON.stringify(name)}`);
}

/** True for 7 to 40 (or exactly 64) hex digits, either case. */
export function isShaPrefix(s: unknown): boolean {
  return typeof s === 'string' && SHA_PREFIX.test(s);
}

/** True for a full object id: 40 (SHA-1) or 64 (SHA-256) hex digits. */
export function isFullSha(s: unknown): boolean {
  return typeof s === 'string' && FULL_SHA.test(s);
}

/** Throws `GitArgumentError` unless `isShaPrefix(s)`. */
export function assertSha(s: unknown, what = 'commit id'): asserts s is string {
  if (!isShaPrefix(s)) throw new GitArgumentError(`invalid ${what}: ${JSON.stringify(s)}`);
}

/** Throws `GitArgumentError` unless `isFullSha(s)`. */
export function assertFullSha(s: unknown, what = 'commit id'): asserts s is string {
  if (!isFullSha(s)) throw new GitArgumentError(`invalid ${what} (a full 40 or 64 hex digit id is required): ${JSON.stringify(s)}`);
}

/**
 * A revision the read methods accept: a sha (prefix), one of our branch
 * names, or `HEAD`. Returns the string git should be given (branches fully
 * qualified, so a branch can never be mistaken for an abbreviated sha).
 */
export function assertRev(rev: unknown): string {
  if (typeof rev === 'string') {
    if (rev === 'HEAD' || isShaPrefix(rev)) return rev;
    if (isValidBranchName(rev)) return `refs/heads/${rev}`;
  }
  throw new GitArgumentError(`invalid revision: ${JSON.stringify(rev)}`);
}
