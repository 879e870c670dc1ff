/**
 * A message's text as GitHub-flavoured markdown (tables, task lists, strikethrough), raw HTML
 * left out. Its own module, loaded after the page (React.lazy in Conversation.tsx): the markdown
 * parser is the largest part of the UI's script, and the page shows the plain text until it is in.
 */
import { memo } from 'react';
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

const PLUGINS = [remarkGfm];

/**
 * Rendered again only when its text changes: stepping through turns re-renders every message
 * shown, and parsing each one's markdown again made "Previous turn" several times slower.
 */
export default memo(function MarkdownText({ text }: { text: string }) {
  return (
    <Markdown skipHtml remarkPlugins={PLUGINS}>
      {text}
    </Markdown>
  );
});
