/**
 * Checks on user input shared by several services. Each throws
 * BadUserInputError with a message that says what to change.
 */
import { BadUserInputError } from '../../errors.js';
import { refFormatProblem } from '../../git/ref-format.js';

const MAX_SHORT_TEXT = 1000;
const MAX_METADATA_BYTES = 1024 * 1024;

export function assertContentSize(content: string, maxBytes: number, field = 'content'): void {
  // Buffer.byteLength is exact for UTF-8 and cheap next to the write itself.
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > maxBytes) {
    throw new BadUserInputError(
      `${field} is ${bytes} bytes, over the server's limit of ${maxBytes} bytes (--max-content-bytes).`,
      { field, bytes, limit: maxBytes },
    );
  }
}

/** A UTF-16 surrogate without its pair: text no UTF-8 database or file can hold. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Text must be valid Unicode: a lone UTF-16 surrogate (half of an emoji cut in two, a broken
 * encoder) cannot be stored in a UTF-8 database or file, and would otherwise become U+FFFD unsaid.
 * @throws BadUserInputError naming the field and the position.
 */
export function assertWellFormed(text: string | null | undefined, field: string): void {
  if (text == null) return;
  const match = LONE_SURROGATE.exec(text);
  if (!match) return;
  const unit = match[0].charCodeAt(0).toString(16).toUpperCase();
  throw new BadUserInputError(
    `${field} holds a lone UTF-16 surrogate (\\u${unit}) at character ${match.index}, which cannot be stored: send valid Unicode (replace it, for example with U+FFFD, or fix the encoding that produced it).`,
    { field, position: match.index },
  );
}

/** The text with each lone UTF-16 surrogate replaced by U+FFFD (what an agent's own transcript or hook sent is kept, not refused). */
export function wellFormed(text: string): string {
  return LONE_SURROGATE.test(text) ? text.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD') : text;
}

/** Optional short text (titles, tool names): no control characters but tab/newline, bounded length. */
export function assertShortText(value: string | null | undefined, field: string): void {
  if (value == null) return;
  if (value.length > MAX_SHORT_TEXT) {
    throw new BadUserInputError(`${field} is ${value.length} characters long; the limit is ${MAX_SHORT_TEXT}.`, { field });
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(value)) {
    throw new BadUserInputError(`${field} contains control characters.`, { field });
  }
}

/**
 * Metadata must be a JSON object. It is stored as the JSON text it arrived as
 * (key order kept) because it is written to git byte for byte.
 * @returns the JSON text, or null when absent.
 */
export function metadataText(metadata: unknown, field = 'metadata'): string | null {
  if (metadata === undefined || metadata === null) return null;
  let value = metadata;
  if (typeof value === 'string') {
    // A client that sends the JSON as a string gets it parsed, or a clear error.
    try {
      value = JSON.parse(value);
    } catch {
      throw new BadUserInputError(`${field} is not valid JSON: send a JSON object.`, { field });
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BadUserInputError(`${field} must be a JSON object, like {"key": "value"}.`, { field });
  }
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text, 'utf8') > MAX_METADATA_BYTES) {
    throw new BadUserInputError(`${field} is larger than ${MAX_METADATA_BYTES} bytes.`, { field });
  }
  return text;
}

export function assertNonNegativeInt(value: number | null | undefined, field: string): void {
  if (value == null) return;
  if (!Number.isInteger(value) || value < 0) {
    throw new BadUserInputError(`${field} must be a whole number of at least 0, got ${value}.`, { field });
  }
}

/**
 * A branch named after a caller's id (`retry-<id>`, `fork-<id>`) must be a ref
 * name git accepts, or its turns could be stored and never committed. The id
 * rule (src/ids.ts) already keeps ids ref-safe; this checks the name where it
 * is derived, so no later change of either can store a branch git refuses.
 * Call it before writing anything.
 * @throws BadUserInputError naming git's rule in the message and in `extensions.rule`.
 */
export function assertBranchRefName(branch: string, field: string): void {
  const error = branchRefNameError(branch, field);
  if (error) throw error;
}

/** The error `assertBranchRefName` throws for `branch`, or null when git accepts the name. */
export function branchRefNameError(branch: string, field: string): BadUserInputError | null {
  const problem = refFormatProblem(`refs/heads/${branch}`);
  if (!problem) return null;
  return new BadUserInputError(
    `The branch ${JSON.stringify(branch)} named after ${field} is not a name git accepts: it ${problem.message}. Choose another ${field}.`,
    { field, rule: problem.rule, branch },
  );
}
