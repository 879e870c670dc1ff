/**
 * Faults of the machine, told apart from bugs (issue 26 item 8): the disk full, the database
 * read-only or locked, git missing. A request that meets one answers with what is wrong and that
 * it is worth retrying (`extensions.reason`, `extensions.retryAfter`), not "Unexpected server
 * error"; `/health` says `degraded` and names it while it lasts.
 */
import { GitNotFoundError } from './git/errors.js';

export type FaultReason = 'DISK_FULL' | 'DATABASE_READ_ONLY' | 'DATABASE_LOCKED' | 'GIT_MISSING';

export interface Fault {
  reason: FaultReason;
  /** A sentence a person can act on. */
  message: string;
}

/** Seconds a client should wait before trying again: long enough for a person to free space or fix a mode. */
export const FAULT_RETRY_AFTER_SECONDS = 30;

const MESSAGES: Record<FaultReason, string> = {
  DISK_FULL: 'The disk holding the data dir is full: nothing was stored. Free some space and try again.',
  DATABASE_READ_ONLY: 'The database cannot be written (its file or folder is read-only, or the database refuses writes): nothing was stored. Make it writable and try again.',
  DATABASE_LOCKED: 'The database is locked by another process: nothing was stored. Try again in a moment.',
  GIT_MISSING: 'git cannot be started (it is not on the PATH of the server, or not executable). Install it or fix PATH, then try again.',
};

// SQLite's result codes and PostgreSQL's SQLSTATEs, as the driver adapters pass them on.
const BY_CODE: Record<string, FaultReason> = {
  SQLITE_FULL: 'DISK_FULL',
  SQLITE_READONLY: 'DATABASE_READ_ONLY',
  SQLITE_BUSY: 'DATABASE_LOCKED',
  SQLITE_LOCKED: 'DATABASE_LOCKED',
  '53100': 'DISK_FULL', // disk_full
  '25006': 'DATABASE_READ_ONLY', // read_only_sql_transaction
  '55P03': 'DATABASE_LOCKED', // lock_not_available
  ENOSPC: 'DISK_FULL',
  EDQUOT: 'DISK_FULL',
  EROFS: 'DATABASE_READ_ONLY',
};

const BY_TEXT: [RegExp, FaultReason][] = [
  [/SQLITE_FULL|database or disk is full|No space left on device|ENOSPC/i, 'DISK_FULL'],
  [/SQLITE_READONLY|attempt to write a readonly database|read-only file system|EROFS/i, 'DATABASE_READ_ONLY'],
  [/SQLITE_BUSY|database is locked/i, 'DATABASE_LOCKED'],
];

/** The machine fault behind `error` (its causes and the driver's codes followed), or null for anything else. */
export function classifyFault(error: unknown): Fault | null {
  const reason = reasonOf(error, 0);
  return reason ? { reason, message: MESSAGES[reason] } : null;
}

function reasonOf(error: unknown, depth: number): FaultReason | null {
  if (error === null || typeof error !== 'object' || depth > 8) return null;
  if (error instanceof GitNotFoundError) return 'GIT_MISSING';
  const e = error as { code?: unknown; originalCode?: unknown; meta?: unknown; cause?: unknown; message?: unknown };
  for (const code of [e.originalCode, e.code]) {
    if (typeof code === 'string' && BY_CODE[code]) return BY_CODE[code];
  }
  const message = typeof e.message === 'string' ? e.message : '';
  for (const [pattern, reason] of BY_TEXT) if (pattern.test(message)) return reason;
  // Prisma's known request errors carry the driver's error in `meta.driverAdapterError.cause`.
  const adapter = (e.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  return reasonOf(adapter, depth + 1) ?? reasonOf(e.cause, depth + 1);
}

/** Machine faults seen lately, by reason: what `/health` names while they last. */
export class FaultBoard {
  private readonly seen = new Map<FaultReason, number>();

  constructor(private readonly windowMs = 60_000) {}

  /** Notes a fault a request met; git is left out, since /health checks it directly (it can tell when it is back). */
  note(reason: FaultReason): void {
    if (reason !== 'GIT_MISSING') this.seen.set(reason, Date.now());
  }

  /** A write succeeded: the faults that stop writes are over. */
  clearWriteFaults(): void {
    this.seen.delete('DISK_FULL');
    this.seen.delete('DATABASE_READ_ONLY');
    this.seen.delete('DATABASE_LOCKED');
  }

  /** The reasons seen within the window, sorted. */
  current(): FaultReason[] {
    const now = Date.now();
    return [...this.seen].filter(([, at]) => now - at < this.windowMs).map(([reason]) => reason).sort();
  }
}
