/**
 * The import loop both file importers share (Claude Code transcripts, chat logs): each file read
 * line by line in bounded memory (line-reader.ts), parsed by its format, sent as one session through an ImportTarget (the in-process
 * import service, or a running server over GraphQL), and summed up in one ImportSummary. One bad
 * file never stops the others: what went wrong is reported as file:line.
 */
import { stat } from 'node:fs/promises';
import { LineReader } from './line-reader.js';
import type { ImportResult } from './model.js';
import type { ImportSource, ImportTarget, SessionImportOutcome } from './target.js';

/** Something that went wrong with one file: a line of it (1-based), or 0 for the file as a whole. */
export interface ImportFileError {
  file: string;
  line: number;
  message: string;
}

export interface SkippedCount {
  /** The record type, e.g. `file-history-snapshot`. */
  type: string;
  count: number;
}

/** What importing a set of files did, summed over them. */
export interface ImportSummary {
  /** Files read (with or without errors). */
  files: number;
  /** Sessions imported into (created or grown or unchanged). */
  sessions: number;
  /** Turns closed by the import. */
  turns: number;
  /** Messages added. */
  messages: number;
  /** Branches created (retry-*, fork-*). */
  branches: number;
  /** Records that became no message, by type, sorted by type. */
  skipped: SkippedCount[];
  errors: ImportFileError[];
  /** Notes on what was done with something unusual (e.g. a sub-agent continuing its parent's records); no errors. */
  notes: ImportFileError[];
}

/** Progress of an import of files, once per file after it was handled. */
export interface ImportProgress {
  file: string;
  /** 1-based position of this file among `total`. */
  index: number;
  total: number;
  /** The import's outcome, or undefined when the file failed before it. */
  outcome?: SessionImportOutcome;
  /** Errors of this file (also in the summary). */
  errors: ImportFileError[];
}

export interface ImportFilesOptions {
  onProgress?: (progress: ImportProgress) => void;
}

/** What the loop needs to know of one kind of file. */
export interface ImportFormat {
  source: ImportSource;
  /**
   * The whole file parsed, read through `reader` (its too-long lines are in `reader.problems`);
   * may throw (the file's error then).
   */
  parse(reader: LineReader, path: string): Promise<ImportResult>;
  /** The error for a file that says no session id, or undefined to pass over it silently. */
  withoutSession(parsed: ImportResult): string | undefined;
  /** A failure to read or send one file, in one line. */
  describeError(error: unknown): string;
  /**
   * Whether the turn left open at the file's end is over, the file unchanged for `quietMs`
   * (src/importers/turn-end.ts); default: always. A turn not over stays open, so the file
   * imported again once it grew continues it: in parts or whole, the same turns.
   */
  closesLastTurn?(parsed: ImportResult, quietMs: number): boolean;
}

/**
 * Imports each of `files` (absolute paths, in order) into `target` as a whole file, its last turn
 * closed once it is over (ImportFormat.closesLastTurn). `errors` are ones found before (paths that could not be walked), put first in the
 * summary. Never throws for one file's sake: a malformed line, an unreadable file or a refused
 * import is an error of the summary.
 */
export async function importFiles(
  target: ImportTarget,
  format: ImportFormat,
  files: readonly string[],
  options: ImportFilesOptions = {},
  errors: readonly ImportFileError[] = [],
): Promise<ImportSummary> {
  const summary: ImportSummary = { files: 0, sessions: 0, turns: 0, messages: 0, branches: 0, skipped: [], errors: [...errors], notes: [] };
  const skipped = new Map<string, number>();
  const sessions = new Set<string>();
  for (const [i, file] of files.entries()) {
    summary.files += 1;
    const fileErrors: ImportFileError[] = [];
    let outcome: SessionImportOutcome | undefined;
    try {
      const { mtimeMs, size } = await stat(file);
      const reader = new LineReader(file);
      const parsed = await format.parse(reader, file);
      const problems = [...reader.problems, ...parsed.problems].sort((a, b) => a.line - b.line);
      for (const problem of problems) {
        (problem.severity === 'info' ? summary.notes : fileErrors).push({ file, line: problem.line, message: problem.message });
      }
      for (const [type, count] of Object.entries(parsed.skipped)) skipped.set(type, (skipped.get(type) ?? 0) + count);
      if (parsed.records === 0 && size > 0) {
        // Not an empty session: not a transcript at all (binary, truncated to nothing, a wrong file).
        fileErrors.push({ file, line: 0, message: `no valid record in its ${size} bytes; file skipped` });
      } else if (parsed.session.id === null) {
        const message = format.withoutSession(parsed);
        if (message !== undefined) fileErrors.push({ file, line: 0, message });
      } else {
        outcome = await target.importSession({
          source: format.source,
          session: parsed.session,
          messages: parsed.messages,
          updates: parsed.updates,
          newestLeafId: parsed.newestLeafId,
          closeLastTurn: format.closesLastTurn?.(parsed, Date.now() - mtimeMs) ?? true,
        });
        sessions.add(outcome.sessionId);
        summary.turns += outcome.turnsAdded;
        summary.messages += outcome.messagesAdded;
        summary.branches += outcome.branchesCreated.length;
        for (const problem of outcome.problems) fileErrors.push({ file, line: problem.line, message: problem.message });
      }
    } catch (error) {
      fileErrors.push({ file, line: 0, message: format.describeError(error) });
    }
    summary.errors.push(...fileErrors);
    options.onProgress?.({ file, index: i + 1, total: files.length, ...(outcome ? { outcome } : {}), errors: fileErrors });
  }
  summary.sessions = sessions.size;
  summary.skipped = [...skipped.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([type, count]) => ({ type, count }));
  return summary;
}
