/**
 * The messages of a transcript whose records come in conversation order (Codex rollouts, Gemini
 * chat files): each message is emitted as soon as its first record is read, and a later record
 * that adds to it (a tool call after the text of one response, a Gemini message written again
 * with its tool calls) changes it in place. What changed after the feed() that emitted it is
 * handed out as an update (src/importers/model.ts), so reading a file in parts gives what reading
 * it whole gives once the updates are applied.
 */
import type { ImportBatch, ImportedMessage, ImportedUpdate, ImportProblem } from './model.js';

interface Entry {
  message: ImportedMessage;
  /** The step (begin() count) that emitted it. */
  step: number;
}

export class MessageLog {
  private readonly entries = new Map<string, Entry>();
  private step = 0;
  private emitted: Entry[] = [];
  private changed = new Map<string, number>();

  /** Starts a step (one feed or flush): what is added or changed from here on is in the next batch. */
  begin(): void {
    this.step += 1;
    this.emitted = [];
    this.changed = new Map();
  }

  has(messageId: string): boolean {
    return this.entries.has(messageId);
  }

  /** The message as it stands now (live: change it only through change()). */
  get(messageId: string): ImportedMessage | undefined {
    return this.entries.get(messageId)?.message;
  }

  /** Emits `message`; its predecessor and caller must have been added before. */
  add(message: ImportedMessage): void {
    const entry = { message, step: this.step };
    this.entries.set(message.messageId, entry);
    this.emitted.push(entry);
  }

  /** Applies `edit` to an added message; one emitted by an earlier step becomes an update with `line`. */
  change(messageId: string, line: number, edit: (message: ImportedMessage) => void): void {
    const entry = this.entries.get(messageId);
    if (!entry) return;
    edit(entry.message);
    if (entry.step < this.step) this.changed.set(messageId, line);
  }

  /** What this step added (copies, in emit order) and changed, with the step's problems. */
  batch(problems: ImportProblem[]): ImportBatch {
    const updates: ImportedUpdate[] = [];
    for (const [messageId, line] of this.changed) {
      const { message } = this.entries.get(messageId)!;
      const update: ImportedUpdate = { messageId, content: message.content, line };
      if (message.metadata !== undefined) update.metadata = structuredClone(message.metadata);
      updates.push(update);
    }
    return { messages: this.emitted.map(({ message }) => copy(message)), updates, problems };
  }
}

function copy(message: ImportedMessage): ImportedMessage {
  const result = { ...message };
  if (message.metadata !== undefined) result.metadata = structuredClone(message.metadata);
  return result;
}
