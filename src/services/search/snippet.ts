/**
 * What a search hit shows: up to 300 characters of the message around its first match, and where
 * each matching word is in them. Computed here from the stored text, the same on both databases.
 */
import type { SearchTerm } from './query.js';

/** Characters of a snippet at most. */
export const SNIPPET_LENGTH = 300;
/** Characters shown before the first match, when the text is longer than a snippet. */
const LEAD = 80;
/** Characters of a text looked through for matches: as many as the index holds of it. */
export const INDEXED_LENGTH = 100_000;

/** [start, end) in UTF-16 code units, as JavaScript strings count. */
export interface TextRange {
  start: number;
  end: number;
}

const WORD = '[\\p{L}\\p{N}]';

/** Each positive term's words as patterns: whole words, or the last one as a prefix. */
function patterns(terms: readonly SearchTerm[], inTools: boolean): RegExp[] {
  return terms
    .filter((term) => !term.negated && term.inTools === inTools)
    .flatMap((term) => term.words.map((word, i) => new RegExp(`(?<!${WORD})${word}${term.prefix && i === term.words.length - 1 ? `${WORD}*` : `(?!${WORD})`}`, 'giu')));
}

/** The matches of `found` in `text`, sorted, overlaps merged. */
function matches(text: string, found: readonly RegExp[]): TextRange[] {
  const ranges: TextRange[] = [];
  for (const pattern of found) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      ranges.push({ start: m.index, end: m.index + m[0].length });
      if (m[0].length === 0) pattern.lastIndex++;
    }
  }
  ranges.sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: TextRange[] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range.start <= last.end) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;
const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * The snippet of a message for `terms`: from its text where a word of the text matched, else from
 * its tools' text (its tool name and metadata: a path or a command that matched), else the text's
 * start. Never splits a surrogate pair.
 */
export function snippetOf(content: string, toolsText: string, terms: readonly SearchTerm[]): { snippet: string; highlights: TextRange[] } {
  let text = content.slice(0, INDEXED_LENGTH);
  let found = matches(text, patterns(terms, false));
  if (found.length === 0) {
    const tools = toolsText.slice(0, INDEXED_LENGTH);
    const inTools = matches(tools, [...patterns(terms, true), ...patterns(terms, false)]);
    if (inTools.length > 0) {
      text = tools;
      found = inTools;
    }
  }
  let begin = found.length > 0 && text.length > SNIPPET_LENGTH ? Math.max(0, found[0]!.start - LEAD) : 0;
  if (begin > 0 && isLow(text.charCodeAt(begin))) begin++;
  let end = Math.min(text.length, begin + SNIPPET_LENGTH);
  if (end < text.length && isHigh(text.charCodeAt(end - 1))) end--;
  const highlights = found
    .filter((range) => range.start >= begin && range.start < end)
    .map((range) => ({ start: range.start - begin, end: Math.min(range.end, end) - begin }));
  return { snippet: text.slice(begin, end), highlights };
}
