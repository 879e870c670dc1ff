/**
 * Where hook events come in: from `POST /hooks/<agent>` (src/http/hooks-route.ts) and from the
 * spool the hook command writes when no server answers (bin/entity-memory-hook.cjs):
 * `<data-dir>/hooks/spool.jsonl`, one `{"v":1,"agent","receivedAt","payload"}` per line, appended
 * with O_APPEND. The spool is replayed at start, before any event from a request is recorded (so
 * events keep their order), again before any event from a request while one is there (a hook that
 * timed out against a busy server spooled the event before it: it is recorded first), and every
 * `spoolCheckMs`: the file is renamed aside first, its whole lines recorded in order, then removed; a
 * torn last line (a hook killed mid-write) is reported and dropped; a replay stopped by an error
 * keeps the lines not yet recorded for the next one. Events of one session are recorded one at a
 * time, in the order they arrived.
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isHookAgent, readHookEvent, type HookAgent } from '../../hooks/events.js';
import { KeyedLocks } from '../../locks.js';
import type { Deps } from '../deps.js';
import { eventStamp, recordHookEvent, type HookOutcome } from './record-hook-event.js';
import { sessionStartContext } from './session-context.js';

export const SPOOL_FILE = 'spool.jsonl';
const REPLAYING = /^spool\.\d+\.\d+\.replaying$/;

export type IntakeResult = { outcome: HookOutcome } | { ignored: string } | { invalid: string };

export interface HookIntakeOptions {
  /** How often to look for a spool written while this server ran (ms; 0: only at start). Default 2000. */
  spoolCheckMs?: number;
}

export function hooksDir(dataDir: string): string {
  return join(dataDir, 'hooks');
}

export class HookIntake {
  private readonly order = new KeyedLocks();
  private replaying: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastStamp = 0;
  private ready: Promise<void>;
  private markReady!: () => void;

  constructor(
    private readonly deps: Deps,
    private readonly options: HookIntakeOptions = {},
  ) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
  }

  /** Replays the spool left while no server ran, then records requests' events; looks for a new spool every `spoolCheckMs`. */
  async start(): Promise<void> {
    try {
      await this.replaySpool();
    } finally {
      this.markReady();
    }
    const every = this.options.spoolCheckMs ?? 2000;
    if (every > 0) {
      this.timer = setInterval(() => void this.replaySpool(), every);
      this.timer.unref();
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.replaying;
  }

  /**
   * Records one payload an agent's hook sent. Waits for the start-up replay of the spool.
   * @throws what recording throws (the database out of reach): the hook then spools the event.
   */
  async receive(agent: HookAgent, payload: unknown): Promise<IntakeResult> {
    await this.ready;
    // An earlier hook may have spooled its event (this server was too slow to answer it in time):
    // that event goes first, so a turn never closes before the tool calls it holds are recorded
    // (a Stop recorded before its turn's spooled PostToolUse left the agent's file unattributed,
    // the turn skipped as dirty, and every later turn with it).
    if (await this.spoolWaiting()) await this.replaySpool();
    return this.record(agent, payload);
  }

  /**
   * What a SessionStart hook installed with `--context` gives the agent (src/services/hooks/session-context.ts);
   * '' for any other event, a subagent's, or a project with no history.
   */
  async sessionStartContext(agent: HookAgent, payload: unknown): Promise<string> {
    const read = readHookEvent(agent, payload);
    if (!('event' in read) || read.event.kind !== 'session-start' || read.event.subagent) return '';
    return sessionStartContext(this.deps, read.event.sessionId, read.event.cwd);
  }

  /** Whether a spool is there to replay (one stat: every event asks). */
  private spoolWaiting(): Promise<boolean> {
    return stat(join(hooksDir(this.deps.config.dataDir), SPOOL_FILE)).then(
      () => true,
      () => false,
    );
  }

  /** @param at when the hook received the event, for one from the spool: its messages and turn carry that time. */
  private async record(agent: HookAgent, payload: unknown, at?: Date): Promise<IntakeResult> {
    const read = readHookEvent(agent, payload);
    if ('error' in read) return { invalid: read.error };
    if ('ignored' in read) return { ignored: read.ignored };
    const { event } = read;
    const deps = at ? { ...this.deps, now: () => at } : this.deps;
    const outcome = await this.order.run(event.sessionId, () => recordHookEvent(event, deps, at ? { replayedFrom: at } : {}));
    if (typeof outcome === 'object') this.deps.logger.debug({ agent, sessionId: event.sessionId, event: event.kind, why: outcome.skipped }, 'a hook event was not recorded');
    await this.stamp(eventStamp(event, this.deps));
    return { outcome };
  }

  /** `<data-dir>/hooks/last-event.json`, for `hooks status`: at most once a second. Never throws. */
  private async stamp(stamp: ReturnType<typeof eventStamp>): Promise<void> {
    const at = Date.now();
    if (at - this.lastStamp < 1000) return;
    this.lastStamp = at;
    const dir = hooksDir(this.deps.config.dataDir);
    const temporary = join(dir, `last-event.${process.pid}.tmp`);
    await writeFile(temporary, `${JSON.stringify(stamp)}\n`, { mode: 0o600 })
      .then(() => rename(temporary, join(dir, 'last-event.json')))
      .catch(() => undefined);
  }

  /** Replays the spool now (one replay at a time). Logs its failures, never throws. */
  replaySpool(): Promise<void> {
    this.replaying ??= this.replayFiles()
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'replaying the hooks spool failed; it is tried again'))
      .finally(() => (this.replaying = null));
    return this.replaying;
  }

  private async replayFiles(): Promise<void> {
    const dir = hooksDir(this.deps.config.dataDir);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // Left by a replay that stopped (a crash, an error), oldest first, then the current spool.
    const files = (await readdir(dir)).filter((name) => REPLAYING.test(name)).sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
    const aside = `spool.${Date.now()}.${process.pid}.replaying`;
    const moved = await rename(join(dir, SPOOL_FILE), join(dir, aside)).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false;
        throw error;
      },
    );
    if (moved) files.push(aside);
    for (const name of files) await this.replayFile(join(dir, name));
  }

  private async replayFile(path: string): Promise<void> {
    const text = await readFile(path, 'utf8');
    const lines = text.split('\n');
    const torn = lines.pop();
    if (torn !== undefined && torn !== '') this.deps.logger.warn({ file: path, bytes: torn.length }, 'the hooks spool ends in a torn line (a hook stopped mid-write); it is dropped');
    let done = 0;
    try {
      for (const line of lines) {
        if (line.trim() !== '') await this.replayLine(line);
        done++;
      }
    } catch (error) {
      // Kept for the next replay: the lines not yet recorded.
      await writeFile(path, lines.slice(done).map((l) => `${l}\n`).join(''), { mode: 0o600 });
      throw error;
    }
    await rm(path, { force: true });
  }

  private async replayLine(line: string): Promise<void> {
    let entry: { agent?: unknown; payload?: unknown; receivedAt?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      this.deps.logger.warn({ bytes: line.length }, 'a line of the hooks spool is not JSON; it is dropped');
      return;
    }
    if (typeof entry.agent !== 'string' || !isHookAgent(entry.agent)) {
      this.deps.logger.warn({ agent: entry.agent }, 'a line of the hooks spool names no agent entity-memory knows; it is dropped');
      return;
    }
    const received = typeof entry.receivedAt === 'string' ? new Date(entry.receivedAt) : undefined;
    // A time from the future (a clock set wrong) is not believed.
    const at = received && !Number.isNaN(received.getTime()) && received.getTime() <= Date.now() ? received : undefined;
    const result = await this.record(entry.agent, entry.payload, at);
    if ('invalid' in result) this.deps.logger.warn({ agent: entry.agent, why: result.invalid }, 'a spooled hook event is not one; it is dropped');
  }
}
