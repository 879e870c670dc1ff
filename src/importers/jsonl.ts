/**
 * Line splitting for JSONL transcripts that may still be growing: only
 * complete lines (ending in "\n") are returned, and the number of bytes they
 * took, so a follower can read again from that offset once the writer has
 * finished the last line.
 */

/** One complete line, without its line ending. */
export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
}

export interface SplitLines {
  /** The complete lines that are not blank (blank lines are counted, not returned). */
  lines: JsonlLine[];
  /** Bytes (UTF-8) of `chunk` the returned lines used, up to and including the last "\n". */
  consumedBytes: number;
  /** The number the first line after the consumed bytes has. */
  nextLine: number;
}

const NEWLINE = 0x0a;
const BOM = '\uFEFF';

/**
 * Splits `chunk` (the file's bytes from some line start on; `startLine` is the
 * number of its first line) into complete lines. Tolerates "\r\n" endings and
 * a UTF-8 byte-order mark at the start of the chunk (counted in consumedBytes,
 * not returned). A chunk as a string is measured in UTF-8 bytes.
 */
export function splitLines(chunk: string | Buffer, startLine: number): SplitLines {
  const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
  const end = bytes.lastIndexOf(NEWLINE);
  if (end < 0) return { lines: [], consumedBytes: 0, nextLine: startLine };
  let text = bytes.subarray(0, end).toString('utf8');
  if (text.startsWith(BOM)) text = text.slice(BOM.length);
  const lines: JsonlLine[] = [];
  let line = startLine;
  for (const raw of text.split('\n')) {
    const body = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (body.trim() !== '') lines.push({ line, text: body });
    line += 1;
  }
  return { lines, consumedBytes: end + 1, nextLine: line };
}
