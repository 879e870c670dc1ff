/**
 * Keeping the data dir small (`entity-memory gc`): each session repo compacted into one pack with
 * its unreachable objects pruned (SessionRepo.compact), and the copies of broken repos that
 * `moved-aside/` keeps removed once they are MOVED_ASIDE_KEEP_DAYS old. A session in use is never
 * touched: a turn open, a mirror pass or lease of any instance on it, a job waiting for the
 * mirror, or a turn in the last ACTIVE_WITHIN_MS. Each repo is compacted under its repo lock,
 * as the mirror writes it. With `dryRun` nothing is written: the report says what would be done.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import type { KeyedLocks } from '../locks.js';
import { movedAsideAt, movedAsideDir, openSessionRepo, sessionPathTaken, sessionRepoPath } from './session-repos.js';

export const MOVED_ASIDE_KEEP_DAYS = 14;
export const ACTIVE_WITHIN_MS = 10 * 60_000;

export interface GcSession {
  sessionId: string;
  /** Bytes on disk of the repo's .git before. */
  before: number;
  /** After compacting; null when it was not compacted (a dry run, skipped, or failed). */
  after: number | null;
  /** Packs and loose objects before (git count-objects). */
  packs: number;
  looseObjects: number;
  /** Why it was left alone (in use), when it was. */
  skipped?: string;
  /** Why compacting failed, when it did (the repo is as git left it: whole). */
  error?: string;
}

export interface GcMovedAside {
  /** The folder under moved-aside/. */
  name: string;
  bytes: number;
  /** When it was moved aside (from its name, else the folder's change time). */
  movedAt: Date;
  /** Old enough to go; removed unless a dry run. */
  expired: boolean;
}

export interface GcReport {
  dryRun: boolean;
  sessions: GcSession[];
  movedAside: GcMovedAside[];
}

export interface GcDeps {
  db: Db;
  config: Pick<Config, 'dataDir'>;
  repoLocks: KeyedLocks;
}

export async function collectGarbage(deps: GcDeps, options: { dryRun: boolean; now?: Date; onProgress?: (done: number, total: number) => void }): Promise<GcReport> {
  const now = options.now ?? new Date();
  const sessions = await deps.db.session.findMany({ select: { sessionId: true, openTurnId: true }, orderBy: { sessionId: 'asc' } });
  const rows: GcSession[] = [];
  for (const [i, { sessionId, openTurnId }] of sessions.entries()) {
    options.onProgress?.(i, sessions.length);
    if (!(await sessionPathTaken(deps.config, sessionId))) continue;
    const repo = openSessionRepo(deps.config, sessionId);
    const gitDir = join(sessionRepoPath(deps.config, sessionId), '.git');
    const row: GcSession = { sessionId, before: await bytesOnDisk(gitDir), after: null, packs: 0, looseObjects: 0 };
    rows.push(row);
    try {
      const objects = await repo.looseObjects();
      row.packs = objects.packs;
      row.looseObjects = objects.count;
    } catch (error) {
      row.error = oneLine(error);
      continue;
    }
    const busy = await whyInUse(deps.db, { sessionId, openTurnId }, now);
    if (busy) {
      row.skipped = busy;
      continue;
    }
    if (options.dryRun) continue;
    try {
      await deps.repoLocks.run(sessionId, () => repo.compact());
      row.after = await bytesOnDisk(gitDir);
    } catch (error) {
      row.error = oneLine(error);
    }
  }
  options.onProgress?.(sessions.length, sessions.length);
  return { dryRun: options.dryRun, sessions: rows, movedAside: await movedAside(deps.config, now, options.dryRun) };
}

/** Why the session counts as in use now (a turn open, a mirror pass, a lease, a job waiting, a recent turn), or null. */
export async function whyInUse(db: Db, session: { sessionId: string; openTurnId: string | null }, now: Date): Promise<string | null> {
  const { sessionId } = session;
  if (session.openTurnId !== null) return 'a turn is open';
  const [lease, job, recent] = await Promise.all([
    db.sessionLease.findUnique({ where: { sessionId }, select: { expiresAt: true } }),
    db.outboxJob.findFirst({ where: { sessionId }, select: { id: true } }),
    db.turn.findFirst({ where: { sessionId }, orderBy: { number: 'desc' }, select: { createdAt: true, closedAt: true } }),
  ]);
  if (lease && lease.expiresAt > now) return 'an instance holds its lease';
  if (job) return 'work is queued for it';
  const last = Math.max(recent?.createdAt.getTime() ?? 0, recent?.closedAt?.getTime() ?? 0);
  if (now.getTime() - last < ACTIVE_WITHIN_MS) return `a turn in the last ${ACTIVE_WITHIN_MS / 60_000} minutes`;
  return null;
}

/** moved-aside/'s folders, the expired ones removed unless `dryRun`. */
async function movedAside(config: Pick<Config, 'dataDir'>, now: Date, dryRun: boolean): Promise<GcMovedAside[]> {
  const dir = movedAsideDir(config);
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const found: GcMovedAside[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    const stats = await lstat(path);
    const movedAt = movedAsideAt(name) ?? stats.ctime;
    const expired = now.getTime() - movedAt.getTime() > MOVED_ASIDE_KEEP_DAYS * 86_400_000;
    const entry = { name, bytes: await bytesOnDisk(path), movedAt, expired };
    found.push(entry);
    if (expired && !dryRun) await rm(path, { recursive: true, force: true });
  }
  return found;
}

/** Bytes the files under `path` take on disk (blocks allocated; links not followed). */
export async function bytesOnDisk(path: string): Promise<number> {
  const stats = await lstat(path).catch(() => null);
  if (!stats) return 0;
  let bytes = stats.blocks * 512;
  if (stats.isDirectory()) for (const name of await readdir(path)) bytes += await bytesOnDisk(join(path, name));
  return bytes;
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
