/**
 * Claude Code transcripts on disk: finding them (a file, or a folder searched
 * recursively for *.jsonl) and importing each through the import loop
 * (../import-files.ts).
 *
 * Sub-agent transcripts (<session-id>/subagents/*.jsonl) come after every
 * other file, so their parent session is imported first when both are given.
 */
import { importFiles, type ImportFileError, type ImportFilesOptions, type ImportFormat, type ImportSummary } from '../import-files.js';
import type { ImportTarget } from '../target.js';
import { lastMessageOf, turnIsOver } from '../turn-end.js';
import { describeFileError, walkFiles } from '../walk-files.js';
import type { LineReader } from '../line-reader.js';
import { feedLines } from '../feed-lines.js';
import type { ImportResult } from '../model.js';
import { ClaudeCodeTranscript } from './transcript.js';

/**
 * A whole transcript read through `reader`, a batch of lines at a time, then flushed: what
 * parseTranscript gives for the same bytes (a last line without newline is left unread). A
 * response cut by a batch boundary is one message with its whole content, as read at once.
 */
async function readTranscript(reader: LineReader, path: string): Promise<ImportResult> {
  const transcript = new ClaudeCodeTranscript({ path });
  const batch = await feedLines(reader, transcript);
  return {
    ...batch,
    session: transcript.session(),
    skipped: transcript.skipped,
    newestLeafId: transcript.newestLeafId(),
    consumedBytes: reader.consumedBytes,
    nextLine: reader.nextLine,
    records: transcript.records,
  };
}

const TRANSCRIPT: ImportFormat = {
  source: 'claude-code',
  parse: (reader, path) => readTranscript(reader, path),
  // A file of records that name no session and make no message (a summary only) is no error.
  withoutSession: (parsed) => (parsed.messages.length > 0 ? 'no record says which session this is; file skipped' : undefined),
  describeError: describeFileError,
  closesLastTurn: (parsed, quietMs) => {
    const last = parsed.messages.at(-1);
    return turnIsOver(last && lastMessageOf(last), quietMs);
  },
};

export interface TranscriptWalk {
  /** Absolute paths of the transcripts found, parents before sub-agents, each once. */
  files: string[];
  /** Paths that could not be read (missing, unreadable); line 0. */
  errors: ImportFileError[];
}

/** True for a transcript written by a sub-agent: it sits in a `subagents` folder. */
export function isSubagentTranscript(path: string): boolean {
  return path.split(/[\\/]/).includes('subagents');
}

/**
 * The transcripts named by `paths`: a file as it is (whatever its name), a
 * folder searched recursively for `*.jsonl` (symbolic links are not followed).
 * Parents first, sub-agent transcripts last, each group sorted by path.
 */
export async function walkTranscripts(paths: readonly string[]): Promise<TranscriptWalk> {
  const { files: found, errors } = await walkFiles(paths, (path) => path.endsWith('.jsonl'));
  const all = found.sort();
  const files = [...all.filter((f) => !isSubagentTranscript(f)), ...all.filter((f) => isSubagentTranscript(f))];
  return { files, errors };
}

/**
 * Imports every transcript `paths` names (see walkTranscripts) into `target`,
 * each as a whole file, its last turn closed once it is over (src/importers/turn-end.ts). Never throws for one file's
 * sake: a malformed line, an unreadable file or a refused import is an error
 * of the summary.
 */
export async function importClaudeCodeFiles(
  target: ImportTarget,
  paths: readonly string[],
  options: ImportFilesOptions = {},
): Promise<ImportSummary> {
  const walk = await walkTranscripts(paths);
  return importFiles(target, TRANSCRIPT, walk.files, options, walk.errors);
}
