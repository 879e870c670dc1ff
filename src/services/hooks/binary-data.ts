/**
 * Binary data a tool answered an agent with, as base64, is not kept: Claude Code's Read of an
 * image or a PDF answers `{"type":"image","file":{"base64":"iVBORw0…","type":"image/png",…}}`,
 * Gemini CLI's read_file an `inlineData` with its `data`, an MCP tool an image's `data` or a
 * `data:` URL. Kept, a screenshot the agent looked at was stored whole (up to the content limit)
 * as text in the tool result: in the database, the session's repo and the search index, shown on
 * the session page and handed back by the MCP tools. The importers already keep "[image]" in an
 * image's place (src/importers/claude-code/blocks.ts).
 *
 * A string is taken for binary data when it is long (MIN_CHARS), is base64 all through (or a
 * base64 `data:` URL), and its first bytes decode to what no text starts with (control bytes,
 * or a PDF's header). Base64 of text (`base64 -w0` of a source file) is kept as the agent saw it.
 */

/** Shorter strings are kept whatever they hold. */
const MIN_CHARS = 256;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)?(?:;[\w.+-]+=[^;,]*)*;base64,/;
/** Where an object says what its data is (Claude Code: `type`, MCP: `mimeType`, Gemini: `mimeType`, the Messages API: `media_type`). */
const TYPE_KEYS = ['mimeType', 'mime_type', 'media_type', 'mediaType', 'type'];
/** Nesting deeper than this is kept as it is (tool answers are a few levels deep). */
const MAX_DEPTH = 32;

/**
 * `value` (a tool's answer, as the hook sent it) with each base64 string of binary data replaced
 * by a note of what it was: `[image/png, 11,737 bytes of base64: not kept]`. The same object when
 * nothing was replaced.
 */
export function withoutBinaryData(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return binaryNote(value, undefined) ?? value;
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const items = value.map((item) => {
      const kept = withoutBinaryData(item, depth + 1);
      if (kept !== item) changed = true;
      return kept;
    });
    return changed ? items : value;
  }
  const record = value as Record<string, unknown>;
  const declared = TYPE_KEYS.map((key) => record[key]).find((type): type is string => typeof type === 'string' && /^[\w.+-]+\/[\w.+-]+$/.test(type));
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) {
    const kept = typeof item === 'string' ? (binaryNote(item, declared) ?? item) : withoutBinaryData(item, depth + 1);
    if (kept !== item) changed = true;
    out[key] = kept;
  }
  return changed ? out : value;
}

/** The note that stands for `text` when it is base64 of binary data, else undefined. */
function binaryNote(text: string, declared: string | undefined): string | undefined {
  if (text.length < MIN_CHARS) return undefined;
  let data = text;
  let type = declared;
  const url = DATA_URL.exec(text.slice(0, 200));
  if (url) {
    data = text.slice(url[0].length);
    type = url[1] ?? type;
  }
  if (data.length < MIN_CHARS || !BASE64.test(data)) return undefined;
  const head = Buffer.from(data.slice(0, 64), 'base64');
  const magic = magicType(head);
  if (magic === undefined && !hasControlBytes(head)) return undefined;
  const bytes = Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
  return `[${type ?? magic ?? 'binary data'}, ${bytes.toLocaleString('en-US')} bytes of base64: not kept]`;
}

/** The media type a file's first bytes announce, for the kinds agents read. */
function magicType(head: Buffer): string | undefined {
  const starts = (bytes: number[], at = 0) => bytes.every((byte, i) => head[at + i] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf';
  return undefined;
}

/** Whether bytes hold what text does not: NUL and the other control bytes but tab, line breaks, form feed and escape. */
function hasControlBytes(head: Buffer): boolean {
  return head.some((byte) => byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b) || byte === 0x7f);
}
