/**
 * Edits of a JSON (or JSONC) settings file that touch only the text they change: every other
 * byte, comments and formatting included, stays as it was.
 *
 * jsonc-parser parses (with offsets) and scans; the insertions and removals are ours because its
 * own `modify` does not keep that promise: with formatting options it reformats whole lines
 * around an insertion (a one-line array of someone else's hooks came out on nine lines), and
 * without them it removes a last property together with the comment after the previous one.
 */
import { createScanner, parseTree, type Node, type SyntaxKind } from 'jsonc-parser';

// jsonc-parser's SyntaxKind is a const enum, which isolatedModules cannot read: its values.
const COMMA = 5 as SyntaxKind;
const TRIVIA = new Set<SyntaxKind>([12, 13, 14, 15] as SyntaxKind[]);

/** A change of `length` characters at `offset` into `content`. */
export interface TextEdit {
  offset: number;
  length: number;
  content: string;
}

/** How the file is written: its end of line and one level of indentation (default `\n` and two spaces). */
export interface TextStyle {
  eol: string;
  indent: string;
}

export function detectStyle(text: string): TextStyle {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let indent: string | undefined;
  for (const match of text.matchAll(/^([ \t]+)\S/gm)) {
    const lead = match[1]!;
    if (lead.startsWith('\t')) {
      indent = '\t';
      break;
    }
    if (indent === undefined || lead.length < indent.length) indent = lead;
  }
  return { eol, indent: indent ?? '  ' };
}

/** Applies edits that do not overlap, whatever their order. */
export function applyTextEdits(text: string, edits: TextEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.offset - a.offset)) {
    result = result.slice(0, edit.offset) + edit.content + result.slice(edit.offset + edit.length);
  }
  return result;
}

/** The tree of `text`, which the caller has checked parses. */
export function tree(text: string): Node {
  const root = parseTree(text, [], { allowTrailingComma: false, disallowComments: false });
  if (!root) throw new Error('settings text must parse before it is edited');
  return root;
}

/** The property node (key and value) named `key` of an object node. */
export function property(object: Node, key: string): Node | undefined {
  return object.children?.find((child) => child.children?.[0]?.value === key);
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The whitespace that starts the line holding `offset`. */
function indentAt(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset)))![0];
}

/** Whether only blanks come before `offset` on its line. */
function startsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStart(text, offset), offset));
}

/** `value` as JSON in the file's style, its lines after the first indented by `base`. */
export function formatValue(value: unknown, base: string, style: TextStyle): string {
  return JSON.stringify(value, null, style.indent).split('\n').join(style.eol + base);
}

/** The next token from `offset` that is not a blank, a line break or a comment. */
function nextToken(text: string, offset: number): { kind: SyntaxKind; offset: number; end: number } {
  const scanner = createScanner(text, false);
  scanner.setPosition(offset);
  for (;;) {
    const kind = scanner.scan();
    if (TRIVIA.has(kind)) continue;
    return { kind, offset: scanner.getTokenOffset(), end: scanner.getTokenOffset() + scanner.getTokenLength() };
  }
}

/**
 * Where the line of `offset` ends, when nothing but blanks and one comment follow `offset` on it
 * (a comment about the element before); otherwise undefined.
 */
function quietLineEnd(text: string, offset: number): number | undefined {
  const rest = /^[^\r\n]*/.exec(text.slice(offset))![0];
  if (/^[ \t]*(\/\/.*|\/\*.*\*\/[ \t]*)?$/.test(rest)) return offset + rest.length;
  return undefined;
}

/**
 * Inserts `value` as the last element of the array node, or as property `key` of the object node.
 * In a container written one element per line the new one gets its own lines at its siblings'
 * indentation; in a container written on one line it goes on that line, compact.
 */
export function insertChild(text: string, container: Node, key: string | undefined, value: unknown, style: TextStyle): TextEdit[] {
  const children = container.children ?? [];
  const label = key === undefined ? '' : `${JSON.stringify(key)}: `;
  const last = children.at(-1);
  if (last) {
    const end = last.offset + last.length;
    if (startsLine(text, last.offset)) {
      const indent = indentAt(text, last.offset);
      const element = `${style.eol}${indent}${label}${formatValue(value, indent, style)}`;
      const lineEnd = quietLineEnd(text, end);
      // After the sibling's own comment, so the comment stays with it.
      if (lineEnd !== undefined && lineEnd !== end) return [{ offset: end, length: 0, content: ',' }, { offset: lineEnd, length: 0, content: element }];
      return [{ offset: end, length: 0, content: `,${element}` }];
    }
    return [{ offset: end, length: 0, content: `, ${label}${JSON.stringify(value)}` }];
  }
  const open = container.offset + 1;
  const close = container.offset + container.length - 1;
  const indent = indentAt(text, container.offset);
  const inner = indent + style.indent;
  const element = `${style.eol}${inner}${label}${formatValue(value, inner, style)}`;
  // Empty but for blanks: written as a fresh container would be. Holding a comment: the comment stays.
  if (/^\s*$/.test(text.slice(open, close))) return [{ offset: open, length: close - open, content: `${element}${style.eol}${indent}` }];
  return [{ offset: open, length: 0, content: element }];
}

/** Replaces a value node (an array element, a property's value) by `value`, at its indentation. */
export function replaceValue(text: string, node: Node, value: unknown, style: TextStyle): TextEdit {
  const content = startsLine(text, node.offset) || text.slice(node.offset, node.offset + node.length).includes('\n') ? formatValue(value, indentAt(text, node.offset), style) : JSON.stringify(value);
  return { offset: node.offset, length: node.length, content };
}

/**
 * Removes one child (an array element, or an object's property node) of `container`, with its
 * comma, and its lines when it has lines of its own (a comment at the end of its last line goes
 * with it).
 */
export function removeChild(text: string, container: Node, child: Node): TextEdit[] {
  const children = container.children ?? [];
  const index = children.indexOf(child);
  if (index < 0) throw new Error('not a child of this container');
  const previous = children[index - 1];
  const isLast = index === children.length - 1;
  const end = child.offset + child.length;
  const after = nextToken(text, end);
  const through = after.kind === COMMA ? after.end : end;
  const open = container.offset + 1;
  const close = container.offset + container.length - 1;
  // The only child, with nothing but blanks around it: the container closes up again (`{}`).
  if (children.length === 1 && /^\s*$/.test(text.slice(open, child.offset)) && /^\s*$/.test(text.slice(through, close))) {
    return [{ offset: open, length: close - open, content: '' }];
  }
  const lineEnd = quietLineEnd(text, through);
  if (startsLine(text, child.offset) && lineEnd !== undefined) {
    const from = lineStart(text, child.offset);
    const breakLength = text.startsWith('\r\n', lineEnd) ? 2 : text.startsWith('\n', lineEnd) ? 1 : 0;
    const edits: TextEdit[] = [{ offset: from, length: lineEnd + breakLength - from, content: '' }];
    if (isLast && previous) {
      const comma = nextToken(text, previous.offset + previous.length);
      if (comma.kind === COMMA) edits.push({ offset: comma.offset, length: 1, content: '' });
    }
    return edits;
  }
  if (!isLast) {
    // Through the comma and the blanks up to the next element.
    const next = children[index + 1]!;
    return [{ offset: child.offset, length: next.offset - child.offset, content: '' }];
  }
  if (previous) {
    const from = previous.offset + previous.length;
    return [{ offset: from, length: end - from, content: '' }];
  }
  return [{ offset: child.offset, length: child.length, content: '' }];
}
