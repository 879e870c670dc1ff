/**
 * The command line's refusals and exit statuses (see src/cli.ts for the whole list): a one-line
 * refusal exits 2; a command that found failures exits with how many, 1 to 125.
 */
import type { ImportFileError } from '../importers/import-files.js';

/** Exit statuses above 125 mean "not found", "not executable" or a signal to a shell. */
const MAX_FAILED_EXIT = 125;

/** A one-line refusal that is not a usage mistake (so no "see --help"); exit 2. */
export class CannotRun extends Error {}

/** The exit status for `failed` sessions or files: their number, at most 125. */
export function exitFor(failed: number): number {
  return Math.min(failed, MAX_FAILED_EXIT);
}

/** How many files an import's errors concern: what `import` exits with. */
export function filesWithErrors(errors: ImportFileError[]): number {
  return new Set(errors.map((error) => error.file)).size;
}
