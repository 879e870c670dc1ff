/**
 * `[features] hooks = true` in Codex's config.toml, without which Codex runs no hook. The file is
 * edited as lines, not parsed and written again: only the one line that says it changes (or is
 * added), so the rest (comments, order, spacing, other tables) stays as the user wrote it.
 */
import { locatedError } from './settings-file.js';

/** What the file says of the flag: on, off (or a value that is not `true`), or nothing. */
export type HooksFeature = 'on' | 'off' | 'unset';

/** Where the file says it: the line, and the pieces around the value on it. */
interface FlagLine {
  index: number;
  /** The line up to the value, e.g. `hooks = ` or `features.hooks=`. */
  head: string;
  value: string;
  /** Blanks and a comment after the value. */
  tail: string;
}

type Found = { kind: 'line'; line: FlagLine } | { kind: 'table'; header: number } | { kind: 'inline'; index: number } | { kind: 'none' };

const TABLE = /^\s*\[\s*([^[\]]+?)\s*\]\s*(#.*)?$/;
const ARRAY_TABLE = /^\s*\[\[/;
const KEY_VALUE = (key: string) => new RegExp(`^(\\s*${key}\\s*=\\s*)(.*?)(\\s*(#.*)?)$`);

function tableName(raw: string): string {
  return raw
    .split('.')
    .map((part) => part.trim().replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1'))
    .join('.');
}

function find(lines: string[]): Found {
  let table = '';
  let header: number | undefined;
  let inString = false;
  for (const [index, line] of lines.entries()) {
    // Lines inside a multi-line string are no keys or headers.
    const quotes = (line.match(/"""|'''/g) ?? []).length;
    if (inString) {
      if (quotes % 2 === 1) inString = false;
      continue;
    }
    if (quotes % 2 === 1) inString = true;
    if (ARRAY_TABLE.test(line)) {
      table = '[[array]]';
      continue;
    }
    const opened = TABLE.exec(line);
    if (opened) {
      table = tableName(opened[1]!);
      if (table === 'features' && header === undefined) header = index;
      continue;
    }
    const key = table === 'features' ? 'hooks' : table === '' ? 'features\\s*\\.\\s*hooks' : undefined;
    const match = key === undefined ? null : KEY_VALUE(key).exec(line);
    if (match) return { kind: 'line', line: { index, head: match[1]!, value: match[2]!, tail: match[3]! } };
    if (table === '' && /^\s*features\s*=\s*\{/.test(line)) return { kind: 'inline', index };
  }
  return header === undefined ? { kind: 'none' } : { kind: 'table', header };
}

/** What config.toml (undefined: no file) says of `[features] hooks`. */
export function hooksFeature(text: string | undefined): HooksFeature {
  if (text === undefined) return 'unset';
  const lines = text.split('\n');
  const found = find(lines);
  if (found.kind === 'line') return found.line.value.trim() === 'true' ? 'on' : 'off';
  if (found.kind === 'inline') {
    const inline = /\bhooks\s*=\s*(\w+)/.exec(lines[found.index]!);
    return inline ? (inline[1] === 'true' ? 'on' : 'off') : 'unset';
  }
  return 'unset';
}

/**
 * config.toml's text (undefined: no file) with `[features] hooks = true`, and what it said before.
 * @throws SettingsFileError for an inline `features = { … }` table spread over several lines
 */
export function enableHooksFeature(path: string, text: string | undefined): { text: string; was: HooksFeature } {
  const was = hooksFeature(text);
  if (was === 'on') return { text: text!, was };
  const source = text ?? '';
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const lines = source.split('\n');
  const found = find(lines);
  switch (found.kind) {
    case 'line': {
      // The tail keeps the comment, and the \r of a CRLF file.
      const { index, head, tail } = found.line;
      lines[index] = `${head}true${tail}`;
      break;
    }
    case 'table': {
      const cr = lines[found.header]!.endsWith('\r') ? '\r' : '';
      lines.splice(found.header + 1, 0, `hooks = true${cr}`);
      break;
    }
    case 'inline': {
      const line = lines[found.index]!;
      if (!line.includes('}')) throw locatedError(path, source, lines.slice(0, found.index).join('\n').length + (found.index > 0 ? 1 : 0), 'features is an inline table over several lines; add hooks = true to it by hand');
      lines[found.index] = /\bhooks\s*=\s*\w+/.test(line)
        ? line.replace(/\bhooks\s*=\s*\w+/, 'hooks = true')
        : /\{\s*\}/.test(line)
          ? line.replace(/\{\s*\}/, '{ hooks = true }')
          : line.replace('{', '{ hooks = true,');
      break;
    }
    case 'none': {
      const prefix = source === '' ? '' : source.endsWith('\n') ? eol : `${eol}${eol}`;
      return { text: `${source}${prefix}[features]${eol}hooks = true${eol}`, was };
    }
  }
  return { text: lines.join('\n'), was };
}
