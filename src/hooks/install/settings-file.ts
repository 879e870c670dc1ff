/**
 * What every agent's installer shares: reading a settings file (refused, with where, when it
 * does not parse), writing one (a backup of the previous file, then an atomic replace that keeps
 * its mode), and the unified diff `--dry-run` prints.
 */
import { closeSync, copyFileSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeSync, chmodSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { syncFolderSync } from '../../fs/durable.js';

/** A settings file that cannot be edited safely; the message is `path:line:col: reason`. */
export class SettingsFileError extends Error {}

/** The suffix of the copy of a settings file kept before it is rewritten. */
export const BACKUP_SUFFIX = '.entity-memory.bak';

/** One file a change writes: its text before (undefined when there is no file) and after. */
export interface FileChange {
  path: string;
  before: string | undefined;
  after: string;
}

/** The file's text, or undefined when there is none. Other read errors throw. */
export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** 1-based line and column of `offset`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

export function locatedError(path: string, text: string, offset: number, reason: string): SettingsFileError {
  const { line, column } = lineAndColumn(text, offset);
  return new SettingsFileError(`${path}:${line}:${column}: ${reason}`);
}

const REASONS: Partial<Record<string, string>> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'not a number',
  PropertyNameExpected: 'a property name (in double quotes) was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: 'a colon was expected',
  CommaExpected: 'a comma was expected',
  CloseBraceExpected: 'a closing } was expected',
  CloseBracketExpected: 'a closing ] was expected',
  EndOfFileExpected: 'nothing may follow the top-level value',
  InvalidCommentToken: 'a comment is not closed',
  UnexpectedEndOfComment: 'a comment is not closed',
  UnexpectedEndOfString: 'a string is not closed',
  UnexpectedEndOfNumber: 'a number is cut short',
  InvalidUnicode: 'a bad \\u escape',
  InvalidEscapeCharacter: 'a bad escape in a string',
  InvalidCharacter: 'a character not allowed in a string',
};

/**
 * The text of a JSON settings file (comments allowed, as the agents allow them) as a tree whose
 * root is an object; a missing or blank file is `{}`.
 * @throws SettingsFileError at the first syntax error, or when the top level is not an object.
 */
export function parseSettings(path: string, text: string | undefined): { text: string; root: Node } {
  const source = text === undefined || text.trim() === '' ? '{}\n' : text;
  const errors: ParseError[] = [];
  const root = parseTree(source, errors, { allowTrailingComma: false, disallowComments: false });
  const first = errors[0];
  if (first) {
    const code = printParseErrorCode(first.error);
    throw locatedError(path, source, first.offset, REASONS[code] ?? code);
  }
  if (!root || root.type !== 'object') throw locatedError(path, source, root?.offset ?? 0, 'the settings must be a JSON object');
  return { text: source, root };
}

/** The file a write goes to: through a symlink (a settings file kept in a dotfiles repo) to its target. */
function realTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Writes `change.after` to `change.path`: the previous file, if any, is copied to
 * `<path>.entity-memory.bak` first; the new text goes to a temporary file in the same folder,
 * fsynced, then renamed over the old one, so a crash leaves the old file or the new one, never
 * half of one. The file keeps its mode (a new one gets 0644 less the umask). Missing folders are
 * made. Returns the backup's path, if one was made.
 */
export function writeChange(change: FileChange): string | undefined {
  const target = realTarget(change.path);
  const folder = dirname(target);
  mkdirSync(folder, { recursive: true });
  let mode: number | undefined;
  let backup: string | undefined;
  if (change.before !== undefined) {
    mode = statSync(target).mode & 0o7777;
    backup = `${change.path}${BACKUP_SUFFIX}`;
    copyFileSync(target, backup);
  }
  const temporary = join(folder, `.${basename(target)}.entity-memory.${process.pid}.tmp`);
  const fd = openSync(temporary, 'w', mode ?? 0o644);
  try {
    writeSync(fd, change.after);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  // The umask applied at open: the old file's mode is set exactly.
  if (mode !== undefined) chmodSync(temporary, mode);
  renameSync(temporary, target);
  // The rename itself is durable once the folder is.
  syncFolderSync(folder);
  return backup;
}

/** Lines of `text`, each with its line break, so a last line without one shows as different. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

type Op = { kind: ' ' | '-' | '+'; line: string };

/** The line operations turning `a` into `b`: common head and tail, a longest common subsequence between. */
function lineOps(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  // lcs[i][j]: the longest common subsequence of x[i..] and y[j..]; the middle is what an install changed, small.
  const lcs = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const middle: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      middle.push({ kind: ' ', line: x[i++]! });
      j++;
    } else if (i < x.length && (j === y.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) middle.push({ kind: '-', line: x[i++]! });
    else middle.push({ kind: '+', line: y[j++]! });
  }
  return [...a.slice(0, head).map((line): Op => ({ kind: ' ', line })), ...middle, ...a.slice(a.length - tail).map((line): Op => ({ kind: ' ', line }))];
}

const CONTEXT = 3;

/** `diff -u` of two texts (undefined: no file), or '' when they are equal. */
export function unifiedDiff(path: string, before: string | undefined, after: string): string {
  if (before === after) return '';
  const ops = lineOps(lines(before ?? ''), lines(after));
  const out = [`--- ${before === undefined ? '/dev/null' : path}`, `+++ ${path}`];
  let index = 0;
  while (index < ops.length) {
    const change = ops.findIndex((op, k) => k >= index && op.kind !== ' ');
    if (change < 0) break;
    const start = Math.max(index, change - CONTEXT);
    // The hunk runs until a stretch of more than twice the context without changes.
    let end = change;
    for (let k = change; k < ops.length; k++) {
      if (ops[k]!.kind !== ' ') end = k;
      else if (k - end > 2 * CONTEXT) break;
    }
    end = Math.min(ops.length - 1, end + CONTEXT);
    const hunk = ops.slice(start, end + 1);
    const oldStart = ops.slice(0, start).filter((op) => op.kind !== '+').length;
    const newStart = ops.slice(0, start).filter((op) => op.kind !== '-').length;
    const oldCount = hunk.filter((op) => op.kind !== '+').length;
    const newCount = hunk.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${oldCount === 0 ? oldStart : oldStart + 1},${oldCount} +${newCount === 0 ? newStart : newStart + 1},${newCount} @@`);
    for (const op of hunk) {
      const text = op.line.endsWith('\n') ? op.line.slice(0, -1).replace(/\r$/, '') : op.line;
      out.push(`${op.kind}${text}`);
      if (!op.line.endsWith('\n')) out.push('\\ No newline at end of file');
    }
    index = end + 1;
  }
  return `${out.join('\n')}\n`;
}
