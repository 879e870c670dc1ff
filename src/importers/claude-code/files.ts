/**
 * Claude Code transcripts on disk: finding them (a file, or a folder searched
 * recursively for *.jsonl) and importing each through an ImportTarget (the
 * in-process import service, or a running server over GraphQL), summed up in
 * one ImportSummary. One bad file never stops the others: what went wrong is
 * reported as file:line.
 *
 * Sub-agent transcripts (<session-id>/subagents/*.jsonl) come after every
 * other file, so their parent session is imported first when both are given.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { ImportTarget, SessionImportOutcome } from '../target.js';
import { parseTranscript } from './transcript.js';

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
  /** Transcript files read (with or without errors). */
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
}

export interface TranscriptWalk {
  /** Absolute paths of the transcripts found, parents before sub-agents, each once. */
  files: string[];
  /** Paths that could not be read (missing, unreadable); line 0. */
  errors: ImportFileError[];
}

/** Progress of importClaudeCodeFiles, once per file after it was handled. */
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
  const found = new Set<string>();
  const errors: ImportFileError[] = [];
  for (const given of paths) {
    const path = resolve(given);
    try {
      const info = await stat(path);
      if (info.isDirectory()) await collect(path, found);
      else if (info.isFile()) found.add(path);
      else errors.push({ file: given, line: 0, message: 'not a file or a folder' });
    } catch (error) {
      errors.push({ file: given, line: 0, message: describe(error) });
    }
  }
  const all = [...found].sort();
  const files = [...all.filter((f) => !isSubagentTranscript(f)), ...all.filter((f) => isSubagentTranscript(f))];
  return { files, errors };
}

async function collect(dir: string, found: Set<string>): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    const path = dir.endsWith(sep) ? dir + entry.name : join(dir, entry.name);
    if (entry.isDirectory()) await collect(path, found);
    else if (entry.isFile() && entry.name.endsWith('.jsonl')) found.add(path);
  }
}

/**
 * Imports every transcript `paths` names (see walkTranscripts) into `target`,
 * each as a whole file (its last turn closed). Never throws for one file's
 * sake: a malformed line, an unreadable file or a refused import is an error
 * of the summary.
 */
export async function importClaudeCodeFiles(
  target: ImportTarget,
  paths: readonly string[],
  options: ImportFilesOptions = {},
): Promise<ImportSummary> {
  const walk = await walkTranscripts(paths);
  const summary: ImportSummary = { files: 0, sessions: 0, turns: 0, messages: 0, branches: 0, skipped: [], errors: [...walk.errors] };
  const skipped = new Map<string, number>();
  const sessions = new Set<string>();
  let index = 0;
  for (const file of walk.files) {
    index += 1;
    summary.files += 1;
    const errors: ImportFileError[] = [];
    let outcome: SessionImportOutcome | undefined;
    try {
      const parsed = parseTranscript(await readFile(file), { path: file });
      for (const problem of parsed.problems) errors.push({ file, line: problem.line, message: problem.message });
      for (const [type, count] of Object.entries(parsed.skipped)) skipped.set(type, (skipped.get(type) ?? 0) + count);
      if (parsed.session.id === null) {
        if (parsed.messages.length > 0) errors.push({ file, line: 0, message: 'no record says which session this is; file skipped' });
      } else {
        outcome = await target.importSession({
          source: 'claude-code',
          session: parsed.session,
          messages: parsed.messages,
          updates: parsed.updates,
          newestLeafId: parsed.newestLeafId,
          closeLastTurn: true,
        });
        sessions.add(outcome.sessionId);
        summary.turns += outcome.turnsAdded;
        summary.messages += outcome.messagesAdded;
        summary.branches += outcome.branchesCreated.length;
        for (const problem of outcome.problems) errors.push({ file, line: problem.line, message: problem.message });
      }
    } catch (error) {
      errors.push({ file, line: 0, message: describe(error) });
    }
    summary.errors.push(...errors);
    options.onProgress?.({ file, index, total: walk.files.length, ...(outcome ? { outcome } : {}), errors });
  }
  summary.sessions = sessions.size;
  summary.skipped = [...skipped.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([type, count]) => ({ type, count }));
  return summary;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'no such file or folder' : error.message;
  }
  return String(error);
}
