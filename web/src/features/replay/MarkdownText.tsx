/**
 * A message's text as GitHub-flavoured markdown (tables, task lists, strikethrough), raw HTML
 * left out, and code blocks that name their language in colour once the highlighter is in
 * (lib/highlight: highlight.js's common grammars through lowlight, a chunk of its own loaded
 * after the page; a block that names none, or a language it does not know, stays plain). Its own
 * module, loaded after the page (React.lazy in Conversation.tsx): the markdown parser is the
 * largest part of the UI's script, and the page shows the plain text until it is in. The
 * highlighter is not part of it: parsing and registering its grammars took 90 ms of a cold
 * open's main thread before the page's first read (bench/ui-replay --profile).
 */
import { memo, type ComponentProps } from 'react';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { useHighlightIn } from '../../lib/highlight';

const PLUGINS = [remarkGfm];

/** A code element: a fenced block's (class language-<name>) coloured once the highlighter is in. */
function Code({ className, children, node: _node, ...rest }: ComponentProps<'code'> & { node?: unknown }) {
  const language = /(?:^|\s)language-([\w+#.-]+)/.exec(className ?? '')?.[1] ?? null;
  const text = typeof children === 'string' ? children : null;
  const highlight = useHighlightIn(text === null ? null : language, text === null ? 0 : text.split('\n').length);
  const shown = highlight && text !== null ? highlight(text) : children;
  return (
    <code {...rest} className={highlight ? `${className} hljs` : className}>
      {shown}
    </code>
  );
}

const COMPONENTS: Components = { code: Code };

/**
 * Rendered again only when its text changes: stepping through turns re-renders every message
 * shown, and parsing each one's markdown again made "Previous turn" several times slower.
 */
export default memo(function MarkdownText({ text }: { text: string }) {
  return (
    <Markdown skipHtml remarkPlugins={PLUGINS} components={COMPONENTS}>
      {text}
    </Markdown>
  );
});
