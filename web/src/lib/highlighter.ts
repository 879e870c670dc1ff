/**
 * Syntax highlighting, loaded after the page (./highlight.ts loads it): lowlight runs
 * highlight.js's grammars (its common set, about forty languages) and answers a syntax tree,
 * which becomes React elements (hast-util-to-jsx-runtime), so no code is ever set as HTML.
 */
import { toJsxRuntime } from 'hast-util-to-jsx-runtime';
import { common, createLowlight } from 'lowlight';
import type { ReactNode } from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';

const lowlight = createLowlight(common);

/** `text` (one line) in `language`'s colours; its plain text when the grammar fails on it. */
export function highlightLine(language: string, text: string): ReactNode {
  if (!lowlight.registered(language)) return text;
  try {
    return toJsxRuntime(lowlight.highlight(language, text), { Fragment, jsx, jsxs });
  } catch {
    return text;
  }
}
