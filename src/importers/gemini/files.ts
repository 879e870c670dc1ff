/**
 * Gemini CLI chat files on disk: finding them (a file as it is; a folder searched recursively
 * for the chat files under a `chats` folder, as `~/.gemini/tmp/<project>/chats/` holds them:
 * `*.jsonl`, and the older `session-*.json`) and importing each through the import loop
 * (../import-files.ts). A sub-agent's file (`chats/<parent id>/<id>.jsonl`) comes after the
 * others, so its parent session is imported first.
 */
import { readFile, stat } from 'node:fs/promises';
import { importFiles, type ImportFileError, type ImportFilesOptions, type ImportFormat, type ImportSummary } from '../import-files.js';
import type { FollowFormat } from '../follow-format.js';
import type { ImportTarget } from '../target.js';
import { feedLines } from '../feed-lines.js';
import { describeFileError, walkFiles } from '../walk-files.js';
import { MAX_LINE_BYTES } from '../line-reader.js';
import { GeminiChat, parseGeminiChat } from './chat.js';

export const GEMINI_CHAT: ImportFormat = {
  source: 'gemini',
  parse: async (reader, path) => {
    // An older chat is one JSON document, rewritten whole by the CLI: read whole (they are small), within the line bound.
    if (path.endsWith('.json')) {
      const info = await stat(path);
      if (info.size > MAX_LINE_BYTES) throw new Error(`a JSON chat file of ${info.size} bytes is over the ${MAX_LINE_BYTES}-byte bound`);
      return parseGeminiChat(await readFile(path), { path });
    }
    const chat = new GeminiChat({ path });
    const batch = await feedLines(reader, chat);
    return {
      ...batch,
      session: chat.session(),
      skipped: chat.skipped,
      newestLeafId: chat.newestLeafId(),
      consumedBytes: reader.consumedBytes,
      nextLine: reader.nextLine,
      records: chat.records,
    };
  },
  withoutSession: (parsed) => (parsed.messages.length > 0 ? 'no header says which session this is; file skipped' : undefined),
  describeError: describeFileError,
};

/** `import gemini --follow`: chat files read as Gemini CLI writes them (JSONL only: an older JSON chat is rewritten whole). */
export const GEMINI_FOLLOW: FollowFormat = {
  source: 'gemini',
  walk: async (paths) => {
    const { files } = await walkGeminiChats(paths);
    return { files: files.filter((file) => file.endsWith('.jsonl')) };
  },
  parser: (path) => new GeminiChat({ path }),
};

/** A chat file found in a folder: under a `chats` folder, `*.jsonl` or `session-*.json`. */
function isChatFile(path: string): boolean {
  const parts = path.split(/[\\/]/);
  const name = parts.at(-1) ?? '';
  return parts.slice(0, -1).includes('chats') && (name.endsWith('.jsonl') || (name.startsWith('session-') && name.endsWith('.json')));
}

/** How deep below its `chats` folder a file sits: 0 for a session's own file, 1 for a sub-agent's. */
function depthInChats(path: string): number {
  const parts = path.split(/[\\/]/);
  return parts.length - 2 - parts.lastIndexOf('chats');
}

/** The chat files `paths` name, sessions before sub-agents, each group sorted by path; paths that could not be read as errors. */
export async function walkGeminiChats(paths: readonly string[]): Promise<{ files: string[]; errors: ImportFileError[] }> {
  const { files, errors } = await walkFiles(paths, isChatFile);
  return { files: files.sort((a, b) => depthInChats(a) - depthInChats(b) || (a < b ? -1 : a > b ? 1 : 0)), errors };
}

/** Imports every chat file `paths` names into `target`, each whole; never throws for one file's sake. */
export async function importGeminiFiles(target: ImportTarget, paths: readonly string[], options: ImportFilesOptions = {}): Promise<ImportSummary> {
  const walk = await walkGeminiChats(paths);
  return importFiles(target, GEMINI_CHAT, walk.files, options, walk.errors);
}
