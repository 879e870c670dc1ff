/**
 * The plain ids chosen by the agent runtime become folder and file names on
 * disk, so they are checked here, once, before anything uses them.
 */
import { randomBytes } from 'node:crypto';
import { BadUserInputError } from './errors.js';

/** 1 to 128 of letters, digits, '.', '_' and '-', starting with a letter or digit (the contract's rule). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isValidId(value: string): boolean {
  return ID_PATTERN.test(value);
}

/**
 * @throws BadUserInputError naming the field when `value` breaks the rule.
 */
export function assertValidId(value: string, field: string): string {
  if (!isValidId(value)) {
    throw new BadUserInputError(
      `${field} ${JSON.stringify(truncate(value, 40))} is not a valid id: use 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
      { field },
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
