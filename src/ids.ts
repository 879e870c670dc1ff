/**
 * The plain ids chosen by the agent runtime become folder and file names on
 * disk and parts of git ref names (branches `retry-<message id>` and
 * `fork-<message id>`, a project's `refs/entity-memory/snapshots/<session id>/…`),
 * so they are checked here, once, before anything uses them. An id git could
 * not put in a ref would be stored and then never committed (issue 10: the
 * mirror retried such a turn forever), so it is refused up front.
 */
import { randomBytes } from 'node:crypto';
import { BadUserInputError } from './errors.js';
import { refFormatProblem } from './git/ref-format.js';

/** 1 to 128 of letters, digits, '.', '_' and '-', starting with a letter or digit (the contract's rule). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * True when `value` follows the contract's pattern and git accepts it as any
 * part of a ref name: no "..", not ending in "." or ".lock" (the only ref
 * rules the pattern leaves to break).
 */
export function isValidId(value: string): boolean {
  return ID_PATTERN.test(value) && refFormatProblem(value, { allowOneLevel: true }) === null;
}

/**
 * @returns `value`.
 * @throws BadUserInputError naming the field (and, for a ref rule, the rule in
 * `extensions.rule`) when `value` breaks the rule.
 */
export function assertValidId(value: string, field: string): string {
  const shown = JSON.stringify(truncate(value, 40));
  if (!ID_PATTERN.test(value)) {
    throw new BadUserInputError(
      `${field} ${shown} is not a valid id: use 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
      { field },
    );
  }
  const problem = refFormatProblem(value, { allowOneLevel: true });
  if (problem) {
    const what = problem.rule === 'lock-suffix' ? 'ends in ".lock"' : problem.message;
    throw new BadUserInputError(
      `${field} ${shown} cannot be used: ids become part of git branch and ref names (retry-<id>, fork-<id>), and git refuses a name that ${what}. Choose an id without "..", not ending in "." or ".lock".`,
      { field, rule: problem.rule },
    );
  }
  return value;
}

/** A fresh id that satisfies ID_PATTERN: 20 lower-case hex digits. */
export function newId(): string {
  return randomBytes(10).toString('hex');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
