/**
 * What an agent's tool call is, read from the call as the server keeps it
 * (`Message.metadata.toolCalls[]`: `{ id, name, input }`, the same for Claude Code, Codex CLI
 * and Gemini CLI sessions, imported or hooked), so the page can show it as the agent's own UI
 * does: an edit as a diff, a shell call as its command, a read as a path and line range, a search
 * as its pattern; anything else as pretty JSON. Pure, so it is tested alone.
 */
import { structuredPatch } from 'diff';
import stripAnsi from 'strip-ansi';

export interface ToolCall {
  id: string | null;
  name: string;
  input: unknown;
}

/** One hunk line of a diff: ' ' context, '-' removed, '+' added. */
export interface DiffLine {
  sign: ' ' | '-' | '+';
  text: string;
}

export type CallView =
  | { kind: 'edit'; path: string; lines: DiffLine[]; added: number; removed: number }
  | { kind: 'write'; path: string; lines: DiffLine[]; added: number; removed: 0 }
  | { kind: 'patch'; text: string }
  | { kind: 'shell'; command: string; description: string | null }
  | { kind: 'read'; path: string; range: string | null }
  | { kind: 'search'; pattern: string; where: string | null }
  | { kind: 'json'; text: string };

/** The tool calls a message's metadata holds ([] for none, or a shape it does not know). */
export function toolCallsOf(metadata: unknown): ToolCall[] {
  const calls = (metadata as { toolCalls?: unknown } | null)?.toolCalls;
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call: unknown) => {
    const c = call as { id?: unknown; name?: unknown; input?: unknown } | null;
    return c && typeof c.name === 'string' ? [{ id: typeof c.id === 'string' ? c.id : null, name: c.name, input: c.input }] : [];
  });
}

/** The thinking a message's metadata holds (Claude's thinking blocks, Codex's reasoning summaries, Gemini's thoughts). */
export function thinkingOf(metadata: unknown): string[] {
  const thinking = (metadata as { thinking?: unknown } | null)?.thinking;
  return Array.isArray(thinking) ? thinking.filter((t): t is string => typeof t === 'string' && t.trim() !== '') : [];
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** `input` as an object: some agents send it as JSON text (Codex's function calls). */
function fields(input: unknown): Record<string, unknown> {
  if (typeof input === 'string') {
    try {
      const parsed = JSON.parse(input) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // not JSON: no fields
    }
    return {};
  }
  return input && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

/** The lines of a diff from `before` to `after` (3 lines of context), with the counts. */
export function diffLines(before: string, after: string): { lines: DiffLine[]; added: number; removed: number } {
  const patch = structuredPatch('a', 'b', before, after, '', '', { context: 3 });
  const lines: DiffLine[] = [];
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      const sign = line[0];
      if (sign === '+' || sign === '-' || sign === ' ') lines.push({ sign, text: line.slice(1) });
    }
  }
  return { lines, added: lines.filter((l) => l.sign === '+').length, removed: lines.filter((l) => l.sign === '-').length };
}

const SHELL = /^(bash|shell|exec_command|run_shell_command|local_shell|shell_command|container\.exec)$/i;
const READ = /^(read|read_file|read_many_files|view)$/i;
const SEARCH = /^(grep|glob|search_file_content|search|find|ripgrep|rg|web_search|websearch)$/i;

/** What `call` is, for showing (see the module's comment). */
export function describeCall(call: ToolCall): CallView {
  const input = fields(call.input);
  const name = call.name;
  const path = str(input.file_path) ?? str(input.path) ?? str(input.absolute_path) ?? str(input.notebook_path);
  if ((name === 'Edit' || name === 'replace') && path !== null && str(input.old_string) !== null && str(input.new_string) !== null) {
    return { kind: 'edit', path, ...diffLines(str(input.old_string)!, str(input.new_string)!) };
  }
  if (name === 'MultiEdit' && path !== null && Array.isArray(input.edits)) {
    const parts = (input.edits as { old_string?: unknown; new_string?: unknown }[]).map((edit) => diffLines(str(edit.old_string) ?? '', str(edit.new_string) ?? ''));
    return {
      kind: 'edit',
      path,
      lines: parts.flatMap((p, i) => (i === 0 ? p.lines : [{ sign: ' ' as const, text: '…' }, ...p.lines])),
      added: parts.reduce((n, p) => n + p.added, 0),
      removed: parts.reduce((n, p) => n + p.removed, 0),
    };
  }
  if ((name === 'Write' || name === 'write_file' || name === 'create') && path !== null && str(input.content) !== null) {
    const lines = str(input.content)!.replace(/\n$/, '').split('\n').map((text) => ({ sign: '+' as const, text }));
    return { kind: 'write', path, lines, added: lines.length, removed: 0 };
  }
  // Codex's patch: the call's own text (its transcript), or under `input`/`patch`, or `command` (its hooks' tool_input).
  const patch =
    name === 'apply_patch' ? (typeof call.input === 'string' && !call.input.trimStart().startsWith('{') ? call.input : (str(input.input) ?? str(input.patch) ?? str(input.command))) : null;
  if (patch !== null) return { kind: 'patch', text: patch };
  if (SHELL.test(name)) {
    const command = input.command ?? input.cmd ?? call.input;
    const text = Array.isArray(command) ? shellWords(command.map(String)) : typeof command === 'string' ? command : null;
    if (text !== null) return { kind: 'shell', command: text, description: str(input.description) ?? str(input.justification) };
  }
  if (READ.test(name) && path !== null) {
    const offset = typeof input.offset === 'number' ? input.offset : null;
    const limit = typeof input.limit === 'number' ? input.limit : null;
    const range = offset !== null && limit !== null ? `lines ${offset}–${offset + limit - 1}` : offset !== null ? `from line ${offset}` : limit !== null ? `first ${limit} lines` : null;
    return { kind: 'read', path, range };
  }
  if (SEARCH.test(name)) {
    const pattern = str(input.pattern) ?? str(input.query) ?? str(input.regex);
    if (pattern !== null) return { kind: 'search', pattern, where: path ?? str(input.glob) ?? str(input.include) };
  }
  return { kind: 'json', text: JSON.stringify(call.input, null, 2) ?? 'null' };
}

/**
 * A patch's lines as a diff shows them: `+` added and `-` removed lines coloured, everything else
 * (Codex's `*** Update File:` headers, `@@` hunks, a unified diff's `+++`/`---` file lines) as
 * context.
 */
export function patchLines(text: string): DiffLine[] {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      if (line.startsWith('+') && !line.startsWith('+++')) return { sign: '+' as const, text: line.slice(1) };
      if (line.startsWith('-') && !line.startsWith('---')) return { sign: '-' as const, text: line.slice(1) };
      return { sign: ' ' as const, text: line };
    });
}

/**
 * The files a patch names (Codex's `*** Add/Update/Delete File:` lines, a unified diff's `+++ b/`
 * lines), in order; a file Codex moves (`*** Move to:` after its Update line) as `old → new`.
 */
export function patchFiles(text: string): string[] {
  const files: string[] = [];
  let updated: string | undefined;
  for (const match of text.matchAll(/^(?:\*\*\* (Add|Update|Delete) File: (.+)|\*\*\* Move to: (.+)|\+\+\+ (?:b\/)?(.+))$/gm)) {
    if (match[3] !== undefined) {
      const to = match[3].trim();
      const at = updated === undefined ? -1 : files.indexOf(updated);
      if (at >= 0) files[at] = `${updated} → ${to}`;
      else if (!files.includes(to)) files.push(to);
      updated = undefined;
      continue;
    }
    const file = (match[2] ?? match[4])!.trim();
    updated = match[1] === 'Update' ? file : undefined;
    if (file !== '/dev/null' && !files.includes(file)) files.push(file);
  }
  return files;
}

/** argv as a shell line: `bash -lc "…"` shows its script; other words quoted when they need it. */
function shellWords(argv: string[]): string {
  if (argv.length === 3 && /^(ba|z)?sh$/.test(argv[0]!.split('/').pop()!) && /^-l?c$/.test(argv[1]!)) return argv[2]!;
  return argv.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * `path` as the agent's own UI shows it: relative to the project's folder when it is inside it
 * (Claude Code and Gemini CLI send absolute paths), else as sent.
 */
export function relativePath(path: string, root: string | null | undefined): string {
  if (!root) return path;
  const base = root.endsWith('/') ? root : `${root}/`;
  return path.startsWith(base) && path.length > base.length ? path.slice(base.length) : path;
}

/** One line saying what the call was, for a result's summary ("Bash: npm test"); paths relative to `root` when inside it. */
export function callSummary(call: ToolCall, root: string | null = null): string {
  const view = describeCall(call);
  const what =
    view.kind === 'edit' || view.kind === 'write' || view.kind === 'read'
      ? relativePath(view.path, root)
      : view.kind === 'shell'
        ? view.command.split('\n')[0]!
        : view.kind === 'search'
          ? view.pattern
          : view.kind === 'patch'
            ? patchFiles(view.text).join(', ')
            : '';
  return what.length > 120 ? `${what.slice(0, 119)}…` : what;
}

/** Keys whose values are ids (`id`, `tool_use_id`, `responseId`): noise in a tool's output. */
const ID_KEY = /(?:^|_)id$|[a-z]Id$/;
/** Tool outputs longer than this are shown as recorded, not parsed. */
const MAX_PARSED_OUTPUT = 1_000_000;

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function stringLeaves(value: unknown, lines: string[]): void {
  if (typeof value === 'string') {
    if (value.trim() !== '') lines.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) stringLeaves(item, lines);
  } else {
    for (const [key, item] of Object.entries(record(value) ?? {})) if (!(typeof item === 'string' && ID_KEY.test(key))) stringLeaves(item, lines);
  }
}

/**
 * A tool's output as the agent's own UI shows it, when the agent's hook sent it as an object
 * (kept as its JSON text): Claude Code's Bash as its stdout and stderr, its Read as the file's
 * text (an image's or PDF's as the note kept in place of its data), its Write and Edit as the file
 * they wrote; Gemini CLI's as what the model was told
 * (`llmContent`); any other object as its strings, one a line, ids left out. Null for output that
 * is not such JSON (Codex's, an imported transcript's) or holds no string: shown as it is. Paths
 * relative to `root`.
 */
export function toolOutput(content: string, root: string | null = null): string | null {
  if (!/^[[{]/.test(content) || content.length > MAX_PARSED_OUTPUT) return null;
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return null;
  }
  const object = record(value);
  if (object && (typeof object.stdout === 'string' || typeof object.stderr === 'string')) {
    const text = [object.stdout, object.stderr].filter((part): part is string => typeof part === 'string' && part !== '').join('\n');
    return `${text === '' ? '(no output)' : text}${object.interrupted === true ? '\n[interrupted]' : ''}`;
  }
  const file = record(object?.file);
  if (object?.type === 'text' && typeof file?.content === 'string') return file.content;
  // An image or PDF it read: the note the server keeps in its data's place.
  if ((object?.type === 'image' || object?.type === 'pdf') && typeof file?.base64 === 'string' && file.base64.startsWith('[')) return file.base64;
  if (object && typeof object.filePath === 'string' && (object.type === 'create' || object.type === 'update' || typeof object.oldString === 'string')) {
    return `${object.type === 'create' ? 'Wrote' : 'Edited'} ${relativePath(object.filePath, root)}`;
  }
  if (object && 'llmContent' in object) {
    if (typeof object.llmContent === 'string') return object.llmContent;
    value = object.llmContent;
  }
  if (typeof value !== 'object' || value === null) return null;
  const lines: string[] = [];
  stringLeaves(value, lines);
  return lines.length > 0 ? lines.join('\n') : null;
}

/** Terminal colour and cursor codes taken out of a tool's output or a system message. */
export function plainText(text: string): string {
  return stripAnsi(text);
}

/** The tag a message starts with (`<task-notification>…`), shown as text under that name, or null. */
export function leadingTag(text: string): string | null {
  return /^\s*<([A-Za-z][\w-]*)[\s>]/.exec(text)?.[1] ?? null;
}
