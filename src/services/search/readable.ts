/**
 * A message's text as a search hit shows it. Agents' hooks send a tool's result or input as JSON
 * (Claude Code's `tool_response` object, the tool calls kept in a message's metadata), stored as
 * its JSON text: shown as it is, a snippet read `{"stdout":"compiling\nerror: ...` with its
 * escapes and keys. Such text is shown as its string values instead, one a line, in order (ids
 * left out); JSON too long to parse here, or cut, keeps its text with its escapes made characters
 * again. The index reads the same words (the *_message_search_json migrations read those escapes
 * as spaces), so a snippet finds the words a search matched.
 */
import { INDEXED_LENGTH } from './snippet.js';

/** JSON longer than this is not parsed for a snippet (its escapes are undone instead): twice what the index reads of a text. */
const MAX_PARSED = 2 * INDEXED_LENGTH;

/** Keys whose values are ids (`id`, `tool_use_id`, `responseId`): noise in a snippet. */
const ID_KEY = /(?:^|_)id$|[a-z]Id$/;

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: ' ', f: ' ', '"': '"', '\\': '\\', '/': '/' };

/**
 * `text` to read: JSON (it starts with `{` or `[`) as its string values, one a line; other text as
 * it is. At most the INDEXED_LENGTH characters a snippet looks through.
 */
export function readableText(text: string): string {
  const first = text[0];
  if (first !== '{' && first !== '[') return text.slice(0, INDEXED_LENGTH);
  if (text.length <= MAX_PARSED) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (typeof value === 'object' && value !== null) {
      const lines: string[] = [];
      collect(value, lines);
      return lines.join('\n').slice(0, INDEXED_LENGTH);
    }
  }
  return text.slice(0, INDEXED_LENGTH).replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (_all, code: string | undefined, escape: string | undefined) =>
    code !== undefined ? String.fromCharCode(Number.parseInt(code, 16)) : ESCAPES[escape!]!,
  );
}

function collect(value: unknown, lines: string[]): void {
  if (typeof value === 'string') {
    if (value.trim() !== '') lines.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, lines);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (!(typeof item === 'string' && ID_KEY.test(key))) collect(item, lines);
    }
  }
}
