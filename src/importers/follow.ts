/**
 * `import claude-code --follow`: Claude Code transcripts imported as they are written.
 *
 * Watches the given files and folders (fs.watch on each file given and on each folder holding a
 * transcript, not recursive: Node 20's recursive watch on Linux polls files every few seconds; and
 * a periodic look as a fallback, which also finds transcripts in new sub-folders); a new *.jsonl
 * in a watched folder is picked up. Each file is read from the offset where its last complete line ended: only complete
 * lines (ending in "\n") are fed to that file's ClaudeCodeTranscript, so a line being written waits
 * for its newline. What the parser emits is sent with the ImportTarget at once.
 *
 * The turn left open at the end of a batch is closed when it is over (src/importers/turn-end.ts):
 * the last message is an assistant reply whose stopReason is `end_turn`, or a reply with no tool
 * call pending that nothing has followed for `idleCloseMs` (5 s; some transcripts record every
 * reply with a null stopReason), or nothing has come for 10 minutes. Otherwise it stays open for
 * what follows (tool calls and their results; the next prompt closes it). A record of that turn
 * arriving after it closed is never dropped: it starts the next turn (src/services/sessions/
 * turn-engine.ts), and more of a reply already committed becomes a message of its own,
 * `<id>-L<line>` (src/services/imports/import-session.ts).
 */
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { JsonlLine } from './jsonl.js';
import { LineReader } from './line-reader.js';
import type { ImportedMessage, ImportProblem } from './model.js';
import { CLAUDE_CODE_FOLLOW, type FollowFormat, type FollowParser } from './follow-format.js';
import type { ImportTarget, SessionImport, SessionImportOutcome } from './target.js';
import { callsTools, IDLE_CLOSE_MS, stopReasonOf, turnIsOver } from './turn-end.js';

/** What one send did, for a caller that reports it. */
export interface FollowBatch {
  file: string;
  outcome: SessionImportOutcome;
  /** Lines of the file read in this step. */
  lines: number;
  closedLastTurn: boolean;
}

export interface FollowOptions {
  target: ImportTarget;
  /** Files and folders to follow (folders: every *.jsonl under them, now and later). */
  paths: readonly string[];
  /** How often every known file and folder is looked at even without a watch event; default 1000 ms. */
  pollMs?: number;
  /** A text reply nothing has followed for this long closes its turn; default 5000 ms. */
  idleCloseMs?: number;
  onBatch?: (batch: FollowBatch) => void;
  /** A line the parser could not use, or a send that failed (it is retried at the next change or look). */
  onProblem?: (file: string, problem: ImportProblem) => void;
  /** The transcripts' format; default Claude Code's (follow-format.ts). */
  format?: FollowFormat;
}

/** One followed file. */
interface FollowedFile {
  path: string;
  /** Replaced when the file turns out rewritten (shorter than what was read). */
  transcript: FollowParser;
  /** Bytes read and fed: the start of the first line not read yet. */
  offset: number;
  nextLine: number;
  /** Parsed but not yet accepted by the target (no session id yet, or the send failed). */
  pending: { messages: ImportedMessage[]; updates: SessionImport['updates'] };
  /** The latest message emitted, with its stop reason as known now and whether it calls tools. */
  last: { messageId: string; role: string; stopReason: string | undefined; callsTools: boolean } | undefined;
  /** When a line was last read from the file. */
  readAt: number;
  /** Whether the session's last turn was left open by the last send. */
  turnOpen: boolean;
  /** A read in progress, and whether another was asked for meanwhile. */
  running: Promise<void> | undefined;
  again: boolean;
}

/** Files read (and sent) at the same time. */
const MAX_READS = 4;

export class TranscriptFollower {
  private readonly files = new Map<string, FollowedFile>();
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly roots: string[];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private scanning: Promise<void> | undefined;
  private active = 0;
  private readonly slotWaiters: (() => void)[] = [];

  private readonly format: FollowFormat;

  constructor(private readonly options: FollowOptions) {
    this.roots = options.paths.map((path) => resolve(path));
    this.format = options.format ?? CLAUDE_CODE_FOLLOW;
  }

  /** Reads what the files hold now, then keeps following them until stop(). */
  async start(): Promise<void> {
    for (const root of this.roots) this.watchPath(root);
    await this.scan();
    await this.settled();
    this.timer = setInterval(() => void this.poll(), this.options.pollMs ?? 1000);
    this.timer.unref?.();
  }

  /** Stops watching and waits for the reads in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    await this.scanning;
    await this.settled();
  }

  /** Looks at every followed file and folder now, as the periodic look does; resolves once what it read is sent. */
  async check(): Promise<void> {
    await this.scan();
    for (const path of this.files.keys()) this.read(path);
    await this.settled();
  }

  /** Resolves once no file is being read. */
  async settled(): Promise<void> {
    for (;;) {
      const running = [...this.files.values()].map((file) => file.running).filter((p) => p !== undefined);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  /** Watches a followed file, or a folder (its direct entries), once. */
  private watchPath(path: string): void {
    if (this.stopped || this.watchers.has(path)) return;
    try {
      const watcher = watch(path, { persistent: true }, (_event, name) => {
        if (this.stopped) return;
        // A watched file reports its own base name (or none); a folder names what changed in it.
        if (this.files.has(path)) {
          this.read(path);
          return;
        }
        const file = name === null ? undefined : join(path, name.toString());
        if (file !== undefined && this.files.has(file)) this.read(file);
        else void this.scan();
      });
      // Gone or unwatchable: the periodic look goes on, and watches it again once it is back.
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(path);
      });
      this.watchers.set(path, watcher);
    } catch {
      // Not there yet, or no watching on this file system: the periodic look covers it.
    }
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    await this.check();
  }

  /** Whether the turn left open is over with nothing new read (src/importers/turn-end.ts). */
  private idleReplyDue(file: FollowedFile): boolean {
    return file.turnOpen && this.turnOver(file);
  }

  private turnOver(file: FollowedFile): boolean {
    return turnIsOver(file.last, Date.now() - file.readAt, this.options.idleCloseMs ?? IDLE_CLOSE_MS);
  }

  /** Finds transcripts not followed yet and reads them from the start. */
  private scan(): Promise<void> {
    this.scanning ??= (async () => {
      try {
        const { files } = await this.format.walk(this.roots);
        for (const root of this.roots) this.watchPath(root);
        for (const path of files) {
          this.watchPath(dirname(path));
          if (this.stopped || this.files.has(path)) continue;
          this.files.set(path, {
            path,
            transcript: this.format.parser(path),
            offset: 0,
            nextLine: 1,
            pending: { messages: [], updates: [] },
            last: undefined,
            readAt: Date.now(),
            turnOpen: false,
            running: undefined,
            again: false,
          });
          this.read(path);
        }
      } finally {
        this.scanning = undefined;
      }
    })();
    return this.scanning;
  }

  /** Runs `work` once fewer than MAX_READS others run: a folder of a thousand transcripts is not read all at once. */
  private async inSlot(work: () => Promise<void>): Promise<void> {
    while (this.active >= MAX_READS) await new Promise<void>((done) => this.slotWaiters.push(done));
    this.active += 1;
    try {
      await work();
    } finally {
      this.active -= 1;
      this.slotWaiters.shift()?.();
    }
  }

  /** Reads the file's new complete lines and sends what they make; one read per file at a time. */
  private read(path: string): void {
    const file = this.files.get(path);
    if (!file) return;
    if (file.running) {
      file.again = true;
      return;
    }
    file.running = (async () => {
      do {
        file.again = false;
        try {
          await this.inSlot(() => this.readOnce(file));
        } catch (error) {
          this.options.onProblem?.(file.path, { line: 0, message: (error as Error).message });
        }
      } while (file.again && !this.stopped);
      file.running = undefined;
    })();
  }

  private async readOnce(file: FollowedFile): Promise<void> {
    let size: number;
    try {
      size = (await stat(file.path)).size;
    } catch {
      return; // removed: nothing more to read
    }
    if (size < file.offset) {
      // Shorter than what was read: rewritten, not appended to. Read again from the start (the
      // session skips the messages it already has).
      file.transcript = this.format.parser(file.path);
      file.offset = 0;
      file.nextLine = 1;
      file.last = undefined;
      file.pending = { messages: [], updates: [] };
    }
    let lines = 0;
    if (size > file.offset) {
      // Streamed, a batch of lines at a time: what was appended is never read whole (line-reader.ts).
      const reader = new LineReader(file.path, { start: file.offset, firstLine: file.nextLine });
      let batch: JsonlLine[] = [];
      const feed = (): void => {
        if (batch.length === 0) return;
        file.readAt = Date.now();
        const fed = file.transcript.feed(batch);
        for (const problem of fed.problems) this.options.onProblem?.(file.path, problem);
        file.pending.messages.push(...fed.messages);
        file.pending.updates.push(...fed.updates);
        this.noteLast(file, fed.messages, fed.updates);
        batch = [];
      };
      for await (const line of reader.lines()) {
        if (!line.terminated) break; // its newline is not written yet
        batch.push({ line: line.line, text: line.text });
        lines += 1;
        if (batch.length >= 1000) feed();
      }
      feed();
      // A line still being written is reported once its newline comes, not at every look.
      for (const problem of reader.problems) if (problem.line < reader.nextLine) this.options.onProblem?.(file.path, problem);
      file.offset = reader.consumedBytes;
      file.nextLine = reader.nextLine;
    }
    const idle = lines === 0 && this.idleReplyDue(file);
    // The source's own end of turn (Codex's task_complete) may come on a line that makes no message.
    const ended = file.turnOpen && file.transcript.lastTurnEnded?.() === true;
    if (file.pending.messages.length === 0 && file.pending.updates.length === 0 && !idle && !ended) return;
    await this.send(file, lines, idle);
  }

  private noteLast(file: FollowedFile, messages: ImportedMessage[], updates: SessionImport['updates']): void {
    const newest = messages.at(-1);
    if (newest) file.last = { messageId: newest.messageId, role: newest.role, stopReason: stopReasonOf(newest.metadata), callsTools: callsTools(newest.metadata) };
    for (const update of updates) {
      if (file.last?.messageId === update.messageId) {
        file.last.stopReason = stopReasonOf(update.metadata);
        file.last.callsTools = callsTools(update.metadata);
      }
    }
  }

  /** @param idle the reply has been left alone for idleCloseMs: close its turn whatever its stop reason. */
  private async send(file: FollowedFile, lines: number, idle = false): Promise<void> {
    const session = file.transcript.session();
    if (session.id === null) return; // kept until a record names the session
    const closeLastTurn = idle || this.turnOver(file) || file.transcript.lastTurnEnded?.() === true;
    const { messages, updates } = file.pending;
    file.pending = { messages: [], updates: [] };
    let outcome: SessionImportOutcome;
    try {
      outcome = await this.options.target.importSession({
        source: this.format.source,
        session,
        messages,
        updates,
        newestLeafId: file.transcript.newestLeafId(),
        closeLastTurn,
      });
    } catch (error) {
      // Sent again with whatever comes next: the session skips messages it already has.
      file.pending.messages.unshift(...messages);
      file.pending.updates.unshift(...updates);
      this.options.onProblem?.(file.path, { line: 0, message: (error as Error).message });
      return;
    }
    file.turnOpen = !closeLastTurn && file.last !== undefined;
    for (const problem of outcome.problems) this.options.onProblem?.(file.path, problem);
    this.options.onBatch?.({ file: file.path, outcome, lines, closedLastTurn: closeLastTurn });
  }
}


/** Follows `options.paths` until the process gets SIGINT or SIGTERM; resolves after stopping. */
export async function followUntilSignal(options: FollowOptions): Promise<void> {
  const follower = new TranscriptFollower(options);
  const signalled = new Promise<void>((done) => {
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
  await follower.start();
  await signalled;
  await follower.stop();
}
