/**
 * The search query language, parsed once and compiled for each database, so that both find the
 * same messages:
 *   words            all must match                    login bug
 *   "a phrase"       its words next to each other      "fix the login"
 *   -word, -"…"      must not match                    login -test
 *   prefix*          a word starting so                auth*
 *   role:R           USER, ASSISTANT, TOOL or SYSTEM   role:tool
 *   tool:NAME        NAME among the tools' names       tool:Bash
 *   path:P           P among the tools' inputs         path:src/app.ts
 *   session:ID       one session                       session:abc
 * A "word" is what the index keeps: a run of letters and digits, lower-cased (`src/app.ts` is the
 * phrase "src app ts", `login_bug` the phrase "login bug"), the same on SQLite (FTS5, unicode61)
 * and PostgreSQL (tsvector, 'simple', over the text with everything else made a space).
 */
import { BadUserInputError } from '../../errors.js';

/** Characters a query may have. */
export const MAX_QUERY_LENGTH = 1_000;

export type SearchRole = 'USER' | 'ASSISTANT' | 'TOOL' | 'SYSTEM';
const ROLES: readonly SearchRole[] = ['USER', 'ASSISTANT', 'TOOL', 'SYSTEM'];

/** A word, a phrase or a prefix: the index's words it stands for, next to each other. */
export interface SearchTerm {
  words: string[];
  /** The last word is a prefix (`auth*`). */
  prefix: boolean;
  negated: boolean;
  /** Only among the tools' names and inputs (path:). */
  inTools: boolean;
}

export interface ParsedQuery {
  terms: SearchTerm[];
  role: SearchRole | null;
  session: string | null;
}

/** The index's words of `text`: runs of letters and digits, lower-cased. */
export function indexWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function refuse(message: string, position: number): BadUserInputError {
  return new BadUserInputError(`${message} (at character ${position + 1} of the query).`, { field: 'query', position });
}

const QUALIFIERS = new Set(['role', 'tool', 'path', 'session']);

/**
 * A term with no letter or digit (`{`, `---`) is left out.
 * @throws BadUserInputError (extensions.field "query", .position, 0-based) for an empty or
 * too-long query, a NUL, an unclosed quote, a qualifier without a value or given twice, an
 * unknown role, or a query with nothing to find (only -terms, or no letter or digit at all).
 */
export function parseQuery(query: string): ParsedQuery {
  if (query.length > MAX_QUERY_LENGTH) {
    throw new BadUserInputError(`The query is ${query.length} characters long; at most ${MAX_QUERY_LENGTH} are searched. Shorten it.`, { field: 'query' });
  }
  const nul = query.indexOf('\0');
  if (nul >= 0) throw refuse('A query cannot hold a NUL character', nul);
  if (query.trim() === '') throw new BadUserInputError('The query is empty: give a word to search for.', { field: 'query' });

  const parsed: ParsedQuery = { terms: [], role: null, session: null };
  // Where the first term with no letter or digit was (`{`, `*`, `---`): left out, unless nothing else is there.
  let empty: number | null = null;
  const add = (term: SearchTerm | null, start: number) => {
    if (term) parsed.terms.push(term);
    else empty ??= start;
  };
  let i = 0;
  while (i < query.length) {
    if (/\s/.test(query[i]!)) {
      i++;
      continue;
    }
    const start = i;
    let negated = false;
    if (query[i] === '-' && i + 1 < query.length && !/\s/.test(query[i + 1]!)) {
      negated = true;
      i++;
    }
    // A qualifier: a known name, a colon, a value (quoted or not).
    const name = /^([a-z]+):/i.exec(query.slice(i));
    if (name && QUALIFIERS.has(name[1]!.toLowerCase())) {
      const key = name[1]!.toLowerCase();
      i += name[0].length;
      const value = readValue(query, i);
      i = value.end;
      if (value.text === '') throw refuse(`${key}: needs a value, as in ${key}:${key === 'role' ? 'tool' : key === 'path' ? 'src/app.ts' : key === 'tool' ? 'Bash' : 'SESSION_ID'}`, start);
      if (key === 'path' || key === 'tool') {
        // Words among the tools' names and inputs (a message's tool name and metadata).
        const term = termOf(value.text, { negated, inTools: true, prefix: false });
        if (!term) throw refuse(`${key}:${value.text} has no letter or digit to search for`, start);
        parsed.terms.push(term);
        continue;
      }
      if (negated) throw refuse(`-${key}: is not supported: search for what to find`, start);
      if (parsed[key as 'role' | 'session'] !== null) throw refuse(`${key}: is given twice`, start);
      if (key === 'role') {
        const role = value.text.toUpperCase() as SearchRole;
        if (!ROLES.includes(role)) throw refuse(`role:${value.text} is not a role: use ${ROLES.map((r) => r.toLowerCase()).join(', ')}`, start);
        parsed.role = role;
      } else {
        parsed.session = value.text;
      }
      continue;
    }
    if (query[i] === '"') {
      const value = readValue(query, i);
      i = value.end;
      const prefix = query[i] === '*';
      if (prefix) i++;
      add(termOf(value.text, { negated, inTools: false, prefix }), start);
      continue;
    }
    // A word: up to the next space (a quote inside it is part of it).
    let end = i;
    while (end < query.length && !/\s/.test(query[end]!)) end++;
    const raw = query.slice(i, end);
    i = end;
    const prefix = raw.endsWith('*');
    add(termOf(prefix ? raw.slice(0, -1) : raw, { negated, inTools: false, prefix }), start);
  }
  if (!parsed.terms.some((term) => !term.negated) && parsed.role === null && parsed.session === null) {
    if (empty !== null && parsed.terms.length === 0) throw refuse(`${JSON.stringify(query.trim())} has no letter or digit to search for`, empty);
    throw new BadUserInputError('The query only says what must not match: add a word to search for.', { field: 'query' });
  }
  return parsed;
}

/** A value after a qualifier, or a quoted phrase: its text and where it ends. */
function readValue(query: string, at: number): { text: string; end: number } {
  if (query[at] === '"') {
    const close = query.indexOf('"', at + 1);
    if (close < 0) throw refuse('This quote is never closed: add the closing "', at);
    return { text: query.slice(at + 1, close), end: close + 1 };
  }
  let end = at;
  while (end < query.length && !/\s/.test(query[end]!)) end++;
  return { text: query.slice(at, end), end };
}

/** A term of `text`'s words; null when it has none (punctuation alone). */
function termOf(text: string, how: { negated: boolean; inTools: boolean; prefix: boolean }): SearchTerm | null {
  const words = indexWords(text);
  return words.length === 0 ? null : { words, ...how };
}

/**
 * What a database is asked: `match`, the messages to find (the positive terms, and the negative
 * ones as exceptions), or, when no term is positive (the filters alone choose), `exclude`, the
 * messages any negative term finds, to leave out. Each null when there is nothing to ask.
 */
export interface Compiled {
  match: string | null;
  exclude: string | null;
}

/**
 * FTS5 MATCH expressions over the columns `content` and `tools`. Every word is quoted, and holds
 * only letters and digits: nothing of the query reaches FTS5's own syntax.
 */
export function fts5Query(terms: readonly SearchTerm[]): Compiled {
  const phrase = (term: SearchTerm) => `${term.inTools ? 'tools : ' : ''}"${term.words.join(' ')}"${term.prefix ? '*' : ''}`;
  const positive = terms.filter((term) => !term.negated).map(phrase);
  const negative = terms.filter((term) => term.negated).map(phrase);
  if (positive.length > 0) return { match: [positive.join(' AND '), ...negative.map((n) => `NOT ${n}`)].join(' '), exclude: null };
  return { match: null, exclude: negative.length > 0 ? negative.join(' OR ') : null };
}

/**
 * PostgreSQL tsqueries (for to_tsquery('simple', …)). Tools' words carry weight B (content's are
 * A): `path:` and `tool:` ask for B. Words hold only letters and digits, so nothing of the query
 * reaches tsquery's own syntax.
 */
export function tsQuery(terms: readonly SearchTerm[]): Compiled {
  const phrase = (term: SearchTerm) => {
    const last = term.words.length - 1;
    const words = term.words.map((word, i) => `${word}${i === last && term.prefix ? ':*' : ''}${term.inTools ? (i === last && term.prefix ? 'B' : ':B') : ''}`);
    return words.length === 1 ? words[0]! : `(${words.join(' <-> ')})`;
  };
  const positive = terms.filter((term) => !term.negated).map(phrase);
  const negative = terms.filter((term) => term.negated).map(phrase);
  if (positive.length > 0) return { match: [...positive, ...negative.map((n) => `!${n}`)].join(' & '), exclude: null };
  return { match: null, exclude: negative.length > 0 ? negative.join(' | ') : null };
}
