/**
 * Code in colour where it helps: the language a file's name says, and a hook that gives a
 * line's highlighted form once the highlighter (./highlighter.ts, a chunk of its own) is in.
 * Until then, when it cannot load, for a language it does not know, or for a long text (which
 * would hold up the page), lines stay plain.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { loadedOr } from './lazy';

/**
 * Lines past which a text is shown plain: highlighting takes 50 to 90 µs a line on a loaded
 * laptop core, and it runs in one task, which must stay short enough not to hold up input.
 */
export const MAX_HIGHLIGHTED_LINES = 1_000;

const BY_EXTENSION: Record<string, string> = {
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript',
  json: 'json', jsonc: 'json',
  py: 'python', rb: 'ruby', go: 'go', rs: 'rust', java: 'java', kt: 'kotlin', kts: 'kotlin', swift: 'swift',
  c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', cs: 'csharp', m: 'objectivec',
  php: 'php', pl: 'perl', pm: 'perl', lua: 'lua', r: 'r', sql: 'sql', graphql: 'graphql', gql: 'graphql',
  sh: 'bash', bash: 'bash', zsh: 'bash',
  css: 'css', scss: 'scss', less: 'less', html: 'xml', htm: 'xml', xml: 'xml', svg: 'xml', vue: 'xml',
  md: 'markdown', markdown: 'markdown', yml: 'yaml', yaml: 'yaml', toml: 'ini', ini: 'ini', cfg: 'ini',
  diff: 'diff', patch: 'diff',
};
const BY_NAME: Record<string, string> = { makefile: 'makefile', gnumakefile: 'makefile', dockerfile: 'bash', '.bashrc': 'bash', '.zshrc': 'bash' };

/** The highlighter's language for a file path, or null when its name says none we know. */
export function languageOf(path: string | null | undefined): string | null {
  if (!path) return null;
  const name = (path.split('/').pop() ?? '').toLowerCase();
  if (BY_NAME[name]) return BY_NAME[name]!;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (BY_EXTENSION[name.slice(dot + 1)] ?? null) : null;
}

type HighlightLine = (language: string, text: string) => ReactNode;

let loaded: HighlightLine | null = null;
let loading: Promise<HighlightLine | null> | null = null;

function load(): Promise<HighlightLine | null> {
  loading ??= loadedOr<HighlightLine | null>(async () => ({ default: (await import('./highlighter')).highlightLine }), null).then((found) => (loaded = found?.default ?? null));
  return loading;
}

/**
 * A function that colours one line of `path`'s text, or null while the text stays plain (no
 * language, more than MAX_HIGHLIGHTED_LINES lines, the highlighter not in yet or not loadable).
 */
export function useHighlight(path: string | null | undefined, lines: number): ((text: string) => ReactNode) | null {
  return useHighlightIn(languageOf(path), lines);
}

/**
 * As useHighlight, for a language named as highlight.js names it or one of its aliases (a
 * markdown block's ts, py, sh); a name it does not know stays plain.
 */
export function useHighlightIn(named: string | null, lines: number): ((text: string) => ReactNode) | null {
  const language = lines <= MAX_HIGHLIGHTED_LINES ? named : null;
  const [ready, setReady] = useState<HighlightLine | null>(() => loaded);
  useEffect(() => {
    if (language === null || ready) return;
    let live = true;
    void load().then((found) => live && found && setReady(() => found));
    return () => {
      live = false;
    };
  }, [language, ready]);
  return language !== null && ready ? (text) => ready(language, text) : null;
}
