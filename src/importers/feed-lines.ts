/**
 * Feeds a file read by a LineReader to an incremental parser a batch of lines at a time, in
 * bounded memory, and gathers what it made into one whole-file batch: the messages (each with
 * the content its later updates gave it) and the problems (the reader keeps its too-long lines).
 * What the Claude Code, Codex and Gemini importers share.
 */
import type { JsonlLine } from './jsonl.js';
import type { LineReader } from './line-reader.js';
import type { ImportBatch, ImportedMessage, ImportProblem } from './model.js';

const FEED_LINES = 1000;

export interface LineParser {
  feed(lines: Iterable<JsonlLine>): ImportBatch;
  /** What still waits once no more input will come (Claude Code's parser holds messages back until their ancestors are known). */
  flush?(): ImportBatch;
}

/** Every terminated line of `reader` fed to `parser`; a last line without its newline is left unread. */
export async function feedLines(reader: LineReader, parser: LineParser): Promise<ImportBatch> {
  const messages = new Map<string, ImportedMessage>();
  const problems: ImportProblem[] = [];
  const take = (step: ImportBatch): void => {
    for (const message of step.messages) messages.set(message.messageId, message);
    for (const update of step.updates) {
      const message = messages.get(update.messageId);
      if (!message) continue;
      message.content = update.content;
      if (update.metadata !== undefined) message.metadata = update.metadata;
    }
    problems.push(...step.problems);
  };
  let batch: JsonlLine[] = [];
  for await (const line of reader.lines()) {
    if (!line.terminated) break;
    batch.push({ line: line.line, text: line.text });
    if (batch.length >= FEED_LINES) {
      take(parser.feed(batch));
      batch = [];
    }
  }
  take(parser.feed(batch));
  if (parser.flush) take(parser.flush());
  return { messages: [...messages.values()], updates: [], problems };
}
