/**
 * A JSONL file read line by line from a stream, in bounded memory: a file is never read whole,
 * and a line longer than MAX_LINE_BYTES is skipped (reported) rather than buffered without limit,
 * so a 1.5 GB file of NULs costs the importer at most that bound, not the file's size. Lines are
 * split as jsonl.ts splits them: "\n" ends a line, a "\r" before it is dropped, a UTF-8
 * byte-order mark at the start of the file is dropped, blank lines are counted, not returned.
 */
import { createReadStream } from 'node:fs';
import type { JsonlLine } from './jsonl.js';
import type { ImportProblem } from './model.js';

/** The longest line read: 64 MiB (the longest real record seen, a tool output, is a few MB). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

const NEWLINE = 0x0a;
const BOM = '\uFEFF';

export interface LineReaderOptions {
  /** Byte offset to start at, the start of a line; default 0. */
  start?: number;
  /** The number the first line read has; default 1. */
  firstLine?: number;
  /** Longer lines are skipped and reported; default MAX_LINE_BYTES. */
  maxLineBytes?: number;
}

/**
 * Reads `path` from `start`: `lines()` yields the complete non-blank lines, then (`terminated`
 * false) a last line with no newline yet, if it is not blank. After the iteration,
 * `consumedBytes` is where the first unread line starts (after the last "\n"), `nextLine` its
 * number, and `problems` says which lines were too long.
 */
export class LineReader {
  consumedBytes: number;
  nextLine: number;
  readonly problems: ImportProblem[] = [];
  private readonly start: number;
  private readonly max: number;

  constructor(
    private readonly path: string,
    options: LineReaderOptions = {},
  ) {
    this.start = options.start ?? 0;
    this.consumedBytes = this.start;
    this.nextLine = options.firstLine ?? 1;
    this.max = options.maxLineBytes ?? MAX_LINE_BYTES;
  }

  /** @throws the stream's error (a missing or unreadable file). */
  async *lines(): AsyncGenerator<JsonlLine & { terminated: boolean }> {
    let parts: Buffer[] = [];
    /** Bytes of the current line kept in `parts`, and read in all (with those dropped). */
    let length = 0;
    let lineBytes = 0;
    /** The current line went over the bound: its bytes are dropped until its newline. */
    let tooLong = false;
    let atFileStart = this.start === 0;
    const text = (bytes: Buffer): string => {
      let value = bytes.toString('utf8');
      if (atFileStart && value.startsWith(BOM)) value = value.slice(BOM.length);
      atFileStart = false;
      return value.endsWith('\r') ? value.slice(0, -1) : value;
    };
    const stream = createReadStream(this.path, { start: this.start, highWaterMark: 1024 * 1024 });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let from = 0;
      for (;;) {
        const end = chunk.indexOf(NEWLINE, from);
        const piece = chunk.subarray(from, end < 0 ? chunk.length : end);
        lineBytes += piece.length;
        if (!tooLong) {
          if (length + piece.length > this.max) {
            tooLong = true;
            parts = [];
            length = 0;
          } else if (piece.length > 0) {
            parts.push(piece);
            length += piece.length;
          }
        }
        if (end < 0) break;
        const line = this.nextLine;
        this.nextLine += 1;
        this.consumedBytes += lineBytes + 1;
        if (tooLong) {
          this.problems.push({ line, message: `longer than ${this.max / 1024 / 1024} MiB; line skipped` });
          atFileStart = false;
        } else {
          const body = text(Buffer.concat(parts, length));
          if (body.trim() !== '') yield { line, text: body, terminated: true };
        }
        parts = [];
        length = 0;
        lineBytes = 0;
        tooLong = false;
        from = end + 1;
      }
    }
    if (tooLong) {
      this.problems.push({ line: this.nextLine, message: `longer than ${this.max / 1024 / 1024} MiB and no newline; not read` });
    } else if (length > 0) {
      const body = text(Buffer.concat(parts, length));
      if (body.trim() !== '') yield { line: this.nextLine, text: body, terminated: false };
    }
  }
}
