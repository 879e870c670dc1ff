/**
 * Reading a transcript in parts, as a follower or an import of a growing file does: the parser's
 * batches folded into one list of messages, each update applied to the message it names.
 */
import { expect } from 'vitest';
import { splitLines } from '../../src/importers/jsonl.js';
import type { ImportBatch, ImportedMessage } from '../../src/importers/model.js';
import { isValidId } from '../../src/ids.js';

/** What a line-fed parser offers (CodexRollout, GeminiChat). */
export interface LineParser {
  feed(lines: ReturnType<typeof splitLines>['lines']): ImportBatch;
  flush(): ImportBatch;
}

/**
 * Feeds `bytes` cut at each of `cuts` (byte offsets, ascending): each read takes the complete lines
 * from where the last one stopped up to the cut, the last read the rest; then flush(). Returns the
 * messages with every update applied, in emit order, and how many updates there were.
 */
export function readInParts(parser: LineParser, bytes: Buffer, cuts: number[]): { messages: ImportedMessage[]; updates: number } {
  const batches: ImportBatch[] = [];
  let offset = 0;
  let line = 1;
  for (const cut of [...cuts, bytes.length]) {
    if (cut < offset) continue;
    const split = splitLines(bytes.subarray(offset, cut), line);
    batches.push(parser.feed(split.lines));
    offset += split.consumedBytes;
    line = split.nextLine;
  }
  batches.push(parser.flush());
  const messages = new Map<string, ImportedMessage>();
  let updates = 0;
  for (const batch of batches) {
    for (const update of batch.updates) {
      const known = messages.get(update.messageId);
      expect(known, `update of ${update.messageId} follows its message`).toBeDefined();
      messages.set(update.messageId, { ...known!, content: update.content, metadata: update.metadata });
      updates += 1;
    }
    for (const m of batch.messages) messages.set(m.messageId, m);
  }
  return { messages: [...messages.values()], updates };
}

/** Every predecessor and caller is emitted before the message naming it; ids are valid and unique. */
export function expectWellOrdered(messages: ImportedMessage[]): void {
  const seen = new Set<string>();
  for (const m of messages) {
    expect(isValidId(m.messageId), m.messageId).toBe(true);
    expect(seen.has(m.messageId), `${m.messageId} emitted twice`).toBe(false);
    if (m.predecessorId !== null) expect(seen.has(m.predecessorId), `${m.messageId}'s predecessor first`).toBe(true);
    if (m.callerId !== undefined) expect(seen.has(m.callerId), `${m.messageId}'s caller first`).toBe(true);
    seen.add(m.messageId);
  }
}

/** The byte offsets just after each newline of `bytes`, and one in the middle of each line. */
export function cutPoints(bytes: Buffer): number[] {
  const cuts: number[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    if (bytes[i] !== 0x0a) continue;
    cuts.push(start + Math.floor((i - start) / 2), i + 1);
    start = i + 1;
  }
  return cuts;
}
