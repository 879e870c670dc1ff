/**
 * What an importer makes of a foreign transcript before anything is stored:
 * plain data in the shape of our message DAG (see schema.graphql), shared by
 * the Claude Code parser (src/importers/claude-code/) and the generic chat-log
 * importer. Nothing here touches the database or git; an importer turns these
 * into appendMessage / updateMessage calls.
 */

/** The four message roles of the GraphQL contract (`enum Role`). */
export type ImportedRole = 'USER' | 'ASSISTANT' | 'TOOL' | 'SYSTEM';

/** Arbitrary JSON kept with a message or a session (`metadata: JSON`). */
export type ImportedMetadata = Record<string, unknown>;

/** One message of the DAG, as read from a transcript. */
export interface ImportedMessage {
  /** A valid id (src/ids.ts), unique within the session. */
  messageId: string;
  role: ImportedRole;
  /** The message text; an empty string when it only carries tool calls. */
  content: string;
  /**
   * The conversation parent: a messageId emitted earlier (importers emit
   * messages so that predecessors and callers always come first), or null for
   * a root.
   */
  predecessorId: string | null;
  /** For a TOOL message: the ASSISTANT message whose tool call it answers. */
  callerId?: string;
  /** For a TOOL message: the id of the tool call it answers. */
  toolCallId?: string;
  /** For a TOOL message: the called tool's name. */
  toolName?: string;
  metadata?: ImportedMetadata;
  /** ISO 8601 time the source gave the message (its first record's), or null when it gave none. */
  createdAt: string | null;
  /** True for a real user prompt: it opens a turn. */
  opensTurn: boolean;
  /** 1-based line (or record) number of the message's first record in its source. */
  line: number;
}

/**
 * A message emitted earlier whose content or metadata changed because more of
 * it arrived later (a response written as several records, read in follow
 * mode). Carries the full new values, not a diff.
 */
export interface ImportedUpdate {
  messageId: string;
  content: string;
  metadata?: ImportedMetadata;
  /** The line of the latest record that changed it. */
  line: number;
}

/** The session header, as far as it is known. */
export interface ImportedSession {
  /** A valid id, or null while no record has said which session this is. */
  id: string | null;
  /** A title from the source, or the first prompt's first line (at most 80 characters), or null. */
  title: string | null;
  /** The agent runtime, e.g. `claude-code`. */
  agentId: string;
  /** The model of the latest reply, or null before any. */
  model: string | null;
  /** For a sub-agent's transcript: the session that started it. */
  parentSessionId?: string;
  metadata: ImportedMetadata;
}

/** Something the importer could not use, or (severity `info`) something unusual it handled, with where it is. */
export interface ImportProblem {
  /** 1-based line (or record) number; 0 when it concerns no single line. */
  line: number;
  message: string;
  /** `info`: a note on what the import did, not an error (the file still imported cleanly). Default: an error. */
  severity?: 'info';
}

/** What one incremental step adds: new messages (in emit order), updates to earlier ones, problems. */
export interface ImportBatch {
  messages: ImportedMessage[];
  updates: ImportedUpdate[];
  problems: ImportProblem[];
}

/** A whole file read at once. */
export interface ImportResult extends ImportBatch {
  session: ImportedSession;
  /** Records that became no message, by record type. */
  skipped: Record<string, number>;
  /**
   * Branch hint: the message with the latest createdAt that has no
   * successor (the path to it is the branch the source ended on), or null.
   */
  newestLeafId: string | null;
  /** Bytes of the input read; a partial last line (no newline yet) is not. */
  consumedBytes: number;
  /** The line number the next unread line will have. */
  nextLine: number;
  /** Lines that were records (JSON objects), used or not: none in a file that is not a transcript at all. */
  records: number;
}
