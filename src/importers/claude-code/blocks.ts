/**
 * Pure helpers that read the content blocks of Claude Code records (the
 * Anthropic Messages API shapes) into text. Tolerant: a field of an
 * unexpected type is treated as absent, an unknown block type is ignored.
 */

/** The value as a plain object, or null. */
export function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The value when it is a string, else undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The placeholder an image stands in text as. */
export const IMAGE_PLACEHOLDER = '[image]';

/** What an image block said about itself (never its data). */
export interface ImageInfo {
  sourceType?: string;
  mediaType?: string;
}

function imageInfo(block: Record<string, unknown>): ImageInfo {
  const source = asObject(block.source);
  const info: ImageInfo = {};
  const sourceType = asString(source?.type);
  const mediaType = asString(source?.media_type);
  if (sourceType !== undefined) info.sourceType = sourceType;
  if (mediaType !== undefined) info.mediaType = mediaType;
  return info;
}

/** A `tool_result` block of a user record. */
export interface ToolResultBlock {
  toolUseId: string | undefined;
  text: string;
  isError: boolean;
  images: ImageInfo[];
}

/** A user record's content split into its text part (text and image blocks, in order) and its tool results. */
export interface UserContent {
  /** Text blocks joined with blank lines, images as "[image]"; '' when none. */
  text: string;
  images: ImageInfo[];
  toolResults: ToolResultBlock[];
}

export function readUserContent(content: unknown): UserContent {
  if (typeof content === 'string') return { text: content, images: [], toolResults: [] };
  const parts: string[] = [];
  const images: ImageInfo[] = [];
  const toolResults: ToolResultBlock[] = [];
  if (Array.isArray(content)) {
    for (const item of content) {
      const block = asObject(item);
      if (!block) continue;
      if (block.type === 'text') {
        const text = asString(block.text);
        if (text !== undefined && text !== '') parts.push(text);
      } else if (block.type === 'image') {
        parts.push(IMAGE_PLACEHOLDER);
        images.push(imageInfo(block));
      } else if (block.type === 'tool_result') {
        const inner = blocksText(block.content);
        toolResults.push({
          toolUseId: asString(block.tool_use_id),
          text: inner.text,
          isError: block.is_error === true,
          images: inner.images,
        });
      }
    }
  }
  return { text: parts.join('\n\n'), images, toolResults };
}

/** A tool result's content (a string, or text and image blocks) as text: blocks joined with newlines. */
export function blocksText(content: unknown): { text: string; images: ImageInfo[] } {
  if (typeof content === 'string') return { text: content, images: [] };
  const parts: string[] = [];
  const images: ImageInfo[] = [];
  if (Array.isArray(content)) {
    for (const item of content) {
      const block = asObject(item);
      if (!block) continue;
      if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
      else if (block.type === 'image') {
        parts.push(IMAGE_PLACEHOLDER);
        images.push(imageInfo(block));
      }
    }
  }
  return { text: parts.join('\n'), images };
}

/** One tool call of an assistant response. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** What the content blocks of one assistant record hold. */
export interface AssistantContent {
  texts: string[];
  thinking: string[];
  toolCalls: ToolCall[];
}

export function readAssistantContent(content: unknown): AssistantContent {
  const result: AssistantContent = { texts: [], thinking: [], toolCalls: [] };
  if (typeof content === 'string') {
    if (content !== '') result.texts.push(content);
    return result;
  }
  if (!Array.isArray(content)) return result;
  for (const item of content) {
    const block = asObject(item);
    if (!block) continue;
    if (block.type === 'text') {
      const text = asString(block.text);
      if (text !== undefined && text !== '') result.texts.push(text);
    } else if (block.type === 'thinking') {
      const thinking = asString(block.thinking);
      if (thinking !== undefined && thinking !== '') result.thinking.push(thinking);
    } else if (block.type === 'redacted_thinking') {
      result.thinking.push('[redacted]');
    } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      const id = asString(block.id);
      if (id !== undefined) result.toolCalls.push({ id, name: asString(block.name) ?? '', input: block.input ?? null });
    }
  }
  return result;
}

/**
 * What kind of user text this is. Our call: only a person's own prompt is a
 * USER message that opens a turn; the rest of what Claude Code files under
 * `type: "user"` is said by the client, not the person, so it becomes a
 * SYSTEM message (no turn) whose metadata.kind says which:
 * - `meta`: a record with isMeta (caveats and context the client injects);
 * - `compact-summary`: the summary that continues a compacted conversation;
 * - `interruption`: "[Request interrupted by user…]" notices;
 * - `command`: a slash command (`<command-name>…`, `<command-message>…`);
 * - `command-output`: its local output (`<local-command-stdout>…`, `-stderr`, `-caveat`).
 */
export type UserTextKind = 'prompt' | 'meta' | 'compact-summary' | 'interruption' | 'command' | 'command-output';

export function classifyUserText(text: string, record: Record<string, unknown>): UserTextKind {
  if (record.isMeta === true) return 'meta';
  if (record.isCompactSummary === true) return 'compact-summary';
  const start = text.trimStart();
  if (start.startsWith('[Request interrupted by user')) return 'interruption';
  if (/^<(command-name|command-message|command-args)>/.test(start)) return 'command';
  if (/^<local-command-(stdout|stderr|caveat)>/.test(start)) return 'command-output';
  return 'prompt';
}

/** The first non-blank line of `text`, trimmed, cut to `max` characters (with "…" when cut); null when there is none. */
export function titleFrom(text: string, max = 80): string | null {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '');
  if (line === undefined) return null;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
