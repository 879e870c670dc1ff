/**
 * What git answers about commits named by full shas, kept: a commit's info, the diff between two
 * commits, a log from a commit. A sha names one content for good, so these answers never go
 * stale, and the pages read them again and again (a session page's head, each turn's code changes
 * as the user steps back and forth, the timeline's first page), each a git process otherwise: on a
 * 2-core machine the processes of a cold open competed with the browser for the cores.
 *
 * Kept per repo (an answer is only given for the repo that gave it): its working tree and the
 * identity of its `.git` (inode and birth time), so a repo rebuilt, moved aside, redacted or made
 * anew at the same path starts with nothing kept: an old commit it no longer holds (a redacted
 * one, say) is not answered from here. Least recently used first out, within
 * SHA_CACHE_MAX_ENTRIES and SHA_CACHE_MAX_BYTES (each answer weighed by the length of its
 * strings). Answers about refs (HEAD, a branch) or anything else that moves are never kept:
 * callers only use this with full shas.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { CommitInfo, FileDiff } from './parse.js';

export const SHA_CACHE_MAX_ENTRIES = 5_000;
export const SHA_CACHE_MAX_BYTES = 32 * 1024 * 1024;

/** A diff's files with their patches, from one process (GitRepo.diffFilesAndPatches). */
export interface FilesAndPatches {
  files: FileDiff[];
  patches: (string | null)[];
}

/** What may be kept. */
export type Answer = CommitInfo | CommitInfo[] | FileDiff[] | (string | null)[] | FilesAndPatches;

interface Entry {
  value: Answer;
  bytes: number;
}

const entries = new Map<string, Entry>();
let totalBytes = 0;

/**
 * Where the answers of the repo whose working tree is `dir` are kept now: the folder and its
 * `.git`'s identity (one lstat, a few microseconds); null when it has no `.git` (nothing kept).
 * Taken before git is asked, so an answer is kept for the repo that gave it.
 */
export function cacheSlot(dir: string): string | null {
  try {
    const stats = lstatSync(join(dir, '.git'), { bigint: true });
    return `${dir}\0${stats.ino}.${stats.birthtimeNs}`;
  } catch {
    return null;
  }
}

/** The kept answer for `key` in `slot` (it becomes the most recently used), or undefined. */
export function cachedAnswer<T extends Answer>(slot: string | null, key: string): T | undefined {
  if (slot === null) return undefined;
  const id = `${slot}\0${key}`;
  const entry = entries.get(id);
  if (!entry) return undefined;
  entries.delete(id);
  entries.set(id, entry);
  return entry.value as T;
}

/** Keeps `value` as the answer for `key` in `slot` (taken before git was asked); returns it. */
export function keepAnswer<T extends Answer>(slot: string | null, key: string, value: T): T {
  if (slot === null) return value;
  const id = `${slot}\0${key}`;
  const bytes = id.length + weigh(value);
  // One answer larger than a quarter of the budget is not kept (it would push out most others).
  if (bytes > SHA_CACHE_MAX_BYTES / 4) return value;
  const old = entries.get(id);
  if (old) {
    totalBytes -= old.bytes;
    entries.delete(id);
  }
  // Frozen: every caller shares it from now on, and one that changed it would change it for all.
  entries.set(id, { value: deepFreeze(value), bytes });
  totalBytes += bytes;
  for (const [oldest, entry] of entries) {
    if (entries.size <= SHA_CACHE_MAX_ENTRIES && totalBytes <= SHA_CACHE_MAX_BYTES) break;
    entries.delete(oldest);
    totalBytes -= entry.bytes;
  }
  return value;
}

/** How many answers are kept and their weight (tests). */
export function shaCacheSize(): { entries: number; bytes: number } {
  return { entries: entries.size, bytes: totalBytes };
}

/** Forgets every answer (tests). */
export function clearShaCache(): void {
  entries.clear();
  totalBytes = 0;
}

/** About the bytes an answer holds: its strings' lengths (in UTF-16 units) and a little per object. */
function weigh(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 8;
  let bytes = 16;
  for (const item of Array.isArray(value) ? value : Object.values(value)) bytes += weigh(item);
  return bytes;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
