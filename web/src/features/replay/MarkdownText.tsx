/**
 * A message's text as GitHub-flavoured markdown (tables, task lists, strikethrough), raw HTML
 * left out, and code blocks that name their language in colour (rehype-highlight: highlight.js's
 * common grammars, through lowlight; a block that names none stays plain). Its own module, loaded
 * after the page (React.lazy in Conversation.tsx): the markdown parser is the largest part of the
 * UI's script, and the page shows the plain text until it is in.
 */
import { memo } from 'react';
import Markdown from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';

const PLUGINS = [remarkGfm];
const REHYPE_PLUGINS = [rehypeHighlight];

/**
 * Rendered again only when its text changes: stepping through turns re-renders every message
 * shown, and parsing each one's markdown again made "Previous turn" several times slower.
 */
export default memo(function MarkdownText({ text }: { text: string }) {
  return (
    <Markdown skipHtml remarkPlugins={PLUGINS} rehypePlugins={REHYPE_PLUGINS}>
      {text}
    </Markdown>
  );
});
