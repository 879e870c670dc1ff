/**
 * A message's text as GitHub-flavoured markdown (tables, task lists, strikethrough), raw HTML
 * left out. Its own module, loaded after the page (React.lazy in Conversation.tsx): the markdown
 * parser is the largest part of the UI's script, and the page shows the plain text until it is in.
 */
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';

export default function MarkdownText({ text }: { text: string }) {
  return (
    <Markdown skipHtml remarkPlugins={[remarkGfm]}>
      {text}
    </Markdown>
  );
}
