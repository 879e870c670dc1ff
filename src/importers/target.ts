/**
 * Where an import goes: one session's parsed messages handed to the server's import
 * service, in-process (src/services/imports/) or over GraphQL through a running server
 * (the command line's `import` when a server holds the data dir). Both take the same
 * SessionImport and answer the same SessionImportOutcome, so the file walking, following
 * and summaries (src/importers/) never care which.
 */
import type { ImportedMessage, ImportedSession, ImportedUpdate, ImportProblem } from './model.js';

/** The importers that exist; kept on the session (Session.source). */
export const IMPORT_SOURCES = ['claude-code', 'chat', 'codex', 'gemini'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];
/** Whether a name (a command-line word, an API input) is one of IMPORT_SOURCES. */
export const isImportSource = (source: string | undefined): source is ImportSource =>
  source !== undefined && (IMPORT_SOURCES as readonly string[]).includes(source);

/** One session's worth of parsed messages: a whole file, or what a follower read since last time. */
export interface SessionImport {
  source: ImportSource;
  /** The header as the parser knows it; `id` must be set. */
  session: ImportedSession;
  /** New messages in emit order (predecessors and callers first). Ones the session already has are skipped. */
  messages: ImportedMessage[];
  /** Later content of messages already sent (a response read in several parts). */
  updates: ImportedUpdate[];
  /** The branch hint: the current branch becomes the path to this message when given. */
  newestLeafId: string | null;
  /**
   * Close the turn left open at the end (a whole-file import: yes; a follower: only when the
   * source says the reply is complete, otherwise the turn stays open for what follows).
   */
  closeLastTurn: boolean;
}

export interface SessionImportOutcome {
  sessionId: string;
  /** True when this import created the session. */
  created: boolean;
  messagesAdded: number;
  messagesUpdated: number;
  /** Turns closed by this import (each becomes one commit in the session repo). */
  turnsAdded: number;
  branchesCreated: string[];
  currentBranch: string;
  /** Messages that could not be stored, with their source line. */
  problems: ImportProblem[];
}

export interface ImportTarget {
  importSession(input: SessionImport): Promise<SessionImportOutcome>;
}
