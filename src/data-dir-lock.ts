/**
 * One writer per data dir: the process that serves it (or runs `backfill` on it) holds
 * `<dataDir>/entity-memory.lock`, and writes who it is into `<dataDir>/entity-memory.lock.json`
 * beside it, so the next process can say who is in the way.
 *
 * proper-lockfile does the lock (an atomic mkdir kept fresh by touching its mtime); a lock
 * whose mtime stopped moving for `staleMs` is taken over. A holder that was killed with
 * SIGKILL on this machine is noticed by its pid at once and taken over as soon as its last
 * touch is two seconds old, so a restart after `kill -9` waits at most that long.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';

/** Who holds a data dir, as written beside the lock. */
export interface DataDirHolder {
  pid: number;
  /** ISO 8601, when the holder took the lock. */
  since: string;
  /** The command holding it: `serve` or `backfill`. */
  command: string;
  /** os.hostname() of the holder: a pid means nothing on another machine sharing the folder. */
  host: string;
}

/** The data dir is locked by a live process; `holder` is undefined when it has not said who it is. */
export class DataDirBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirHolder | undefined,
  ) {
    super(
      holder
        ? `data dir ${dataDir} is in use by entity-memory pid ${holder.pid} since ${holder.since}${holder.command === 'serve' ? '' : ` (${holder.command})`}`
        : `data dir ${dataDir} is in use by another entity-memory process`,
    );
  }
}

export interface DataDirLock {
  dataDir: string;
  holder: DataDirHolder;
  /** Removes the lock and its holder file. Safe to call twice. */
  release(): Promise<void>;
}

export interface LockDataDirOptions {
  /** Written into the holder file; default `serve`. */
  command?: string;
  /**
   * A lock not touched for this long is another process's to take. Default 10 000 ms; the holder
   * touches it every fifth of that, so its event loop may stall for 8 s before the lock is at risk.
   */
  staleMs?: number;
  /**
   * Called when the lock was lost (removed by someone, or not touched for `staleMs`); default:
   * ignore. The process keeps running, but another may now take the data dir.
   */
  onCompromised?: (error: Error) => void;
}

/**
 * The data dir as several servers share it (with a PostgreSQL database, src/config.ts
 * `databaseUrl`): nothing is locked. What one lock kept apart is kept apart otherwise there: the
 * database serialises the writes, a lease per session lets one server at a time write its repo,
 * and project commits take a lock in the database.
 */
export function sharedDataDir(dataDir: string, command = 'serve'): DataDirLock {
  return {
    dataDir: resolve(dataDir),
    holder: { pid: process.pid, since: new Date().toISOString(), command, host: hostname() },
    release: async () => {},
  };
}

/** proper-lockfile's smallest staleness; also how long a dead holder's lock must be untouched. */
const DEAD_HOLDER_STALE_MS = 2_000;
/**
 * How long to wait for a dead holder's lock to age (its last touch is at most one update interval,
 * 2 s by default, before it died), or for a new holder to say who it is.
 */
const SETTLE_MS = 5_000;

export function lockPath(dataDir: string): string {
  return join(dataDir, 'entity-memory.lock');
}

export function holderPath(dataDir: string): string {
  return join(dataDir, 'entity-memory.lock.json');
}

/**
 * Takes the data dir's lock, creating the folder if missing.
 * @throws DataDirBusyError at once when a live process holds it; waits up to 5 s when its
 *   holder was a process of this machine that is gone (killed with SIGKILL), then takes it.
 * @throws the file system's error when the folder cannot be created or written.
 */
export async function lockDataDir(dataDir: string, options: LockDataDirOptions = {}): Promise<DataDirLock> {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const staleMs = options.staleMs ?? 10_000;
  const onCompromised = options.onCompromised ?? (() => {});
  const attempt = (stale: number) =>
    lockfile.lock(dir, { lockfilePath: lockPath(dir), realpath: false, stale, update: Math.max(1_000, staleMs / 5), retries: 0, onCompromised });

  const deadline = Date.now() + SETTLE_MS;
  let release: () => Promise<void>;
  for (;;) {
    try {
      release = await attempt(staleMs);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    }
    const holder = readHolder(dir);
    const dead = holder !== undefined && holder.host === hostname() && !isAlive(holder.pid);
    if (holder !== undefined && !dead) throw new DataDirBusyError(dir, holder);
    if (Date.now() > deadline) throw new DataDirBusyError(dir, holder);
    if (dead) {
      // The holder file may be a dead process's while a new holder has just made the lock and not
      // yet written its own: the two-second age keeps that new lock safe.
      try {
        release = await attempt(DEAD_HOLDER_STALE_MS);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      }
    }
    await new Promise((done) => setTimeout(done, 100));
  }

  // proper-lockfile makes its folder with mkdir's default mode: private, as everything here.
  chmodSync(lockPath(dir), 0o700);
  const holder: DataDirHolder = { pid: process.pid, since: new Date().toISOString(), command: options.command ?? 'serve', host: hostname() };
  // Written whole or not at all, so a reader never sees half a file.
  const temporary = `${holderPath(dir)}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  renameSync(temporary, holderPath(dir));

  let released: Promise<void> | undefined;
  return {
    dataDir: dir,
    holder,
    release: () => {
      released ??= (async () => {
        const current = readHolder(dir);
        if (current?.pid === process.pid && current.since === holder.since) rmSync(holderPath(dir), { force: true });
        await release().catch((error: NodeJS.ErrnoException) => {
          // Already lost (compromised) or removed by hand: nothing left to release.
          if (error.code !== 'ERELEASED' && error.code !== 'ENOTACQUIRED') throw error;
        });
      })();
      return released;
    },
  };
}

function readHolder(dir: string): DataDirHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(holderPath(dir), 'utf8')) as Partial<DataDirHolder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.since !== 'string') return undefined;
    return { pid: parsed.pid, since: parsed.since, command: parsed.command ?? 'serve', host: parsed.host ?? '' };
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid runs (on this machine), ours or another user's. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
