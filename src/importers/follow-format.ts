/**
 * What `--follow` (follow.ts) needs of a transcript format: where its files are, a parser per
 * file fed the complete lines as they are written, and what to send them as. Claude Code's is the
 * default; Codex's and Gemini's are in their folders' files.ts.
 */
import { walkTranscripts } from './claude-code/files.js';
import { ClaudeCodeTranscript } from './claude-code/transcript.js';
import type { JsonlLine } from './jsonl.js';
import type { ImportBatch, ImportedSession } from './model.js';
import type { ImportSource } from './target.js';

/** An incremental parser of one file (ClaudeCodeTranscript, CodexRollout, GeminiChat). */
export interface FollowParser {
  feed(lines: Iterable<JsonlLine>): ImportBatch;
  session(): ImportedSession;
  newestLeafId(): string | null;
  /** Whether the source itself said its last turn is over (Codex's task_complete); absent: only the follower's rules tell. */
  lastTurnEnded?(): boolean;
}

export interface FollowFormat {
  source: ImportSource;
  /** The files `paths` name now (folders searched); looked at again at every scan. */
  walk(paths: readonly string[]): Promise<{ files: string[] }>;
  /** A fresh parser for the file at `path`. */
  parser(path: string): FollowParser;
}

export const CLAUDE_CODE_FOLLOW: FollowFormat = {
  source: 'claude-code',
  walk: walkTranscripts,
  parser: (path) => new ClaudeCodeTranscript({ path }),
};
