/**
 * `entity-memory import chat FILE…`: each chat log (src/importers/chat/parse.ts) read line by line and
 * sent as one session through the import loop (import-files.ts), summed up in the same
 * ImportSummary as Claude Code imports.
 */
import { resolve } from 'node:path';
import { parseChatLines } from './chat/parse.js';
import type { JsonlLine } from './jsonl.js';
import { importFiles, type ImportFilesOptions, type ImportFormat, type ImportSummary } from './import-files.js';
import type { ImportTarget } from './target.js';

const CHAT_LOG: ImportFormat = {
  source: 'chat',
  parse: async (reader, path) => {
    const lines: JsonlLine[] = [];
    let tail: JsonlLine | undefined;
    for await (const line of reader.lines()) {
      if (line.terminated) lines.push({ line: line.line, text: line.text });
      else tail = { line: line.line, text: line.text };
    }
    const bytes = reader.consumedBytes + (tail ? Buffer.byteLength(tail.text) : 0);
    return parseChatLines(lines, tail ?? { line: reader.nextLine, text: '' }, { consumedBytes: reader.consumedBytes, bytes }, { path });
  },
  withoutSession: () => 'no session id: name the file <id>.jsonl or give a {"session": {"id": …}} header line; file skipped',
  describeError: (error) => {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a chat log' : (error as Error).message;
  },
};

/** Imports each chat log of `paths` (resolved against the working directory); never throws for one file's sake. */
export async function importChatFiles(target: ImportTarget, paths: readonly string[], options: ImportFilesOptions = {}): Promise<ImportSummary> {
  return importFiles(target, CHAT_LOG, paths.map((given) => resolve(given)), options);
}
