/**
 * Archived sessions: a session repo kept as one git bundle in `<data-dir>/archive/` instead of a
 * repo with a working tree (`entity-memory archive`), its database rows untouched (search, the
 * conversation and the turns read as before; git-backed fields answer empty meanwhile), and
 * brought back as it was (`restoreArchived`): the same refs at the same commits, HEAD where it was.
 * The server brings a session back when it needs its repo: a new turn to mirror, a checkout, or
 * `unarchiveSession` (the web UI calls it when an archived session is opened).
 *
 * On disk, per session: `<id>.bundle` (every ref, `git bundle create --all`) and `<id>.json`, the
 * manifest (ArchiveManifest: HEAD, every ref, the bundle's size and sha256). Each is written
 * under a temporary name, fsynced and renamed; the manifest last, so an archive counts only once
 * it is whole. Then the repo is renamed out of the sessions folder and removed. At every moment
 * a kill leaves the repo as it was, or the archive whole (with or without the repo): a repo at
 * the session's path always wins (a repo appears there only whole, by a rename), and the archive
 * files beside it are then stale and removed.
 */
import { existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { syncFile, syncFolder } from '../fs/durable.js';
import { sha256OfFile } from '../fs/sha256.js';
import { sessionsDir } from '../config.js';
import { SessionRepo } from '../git/index.js';
import type { KeyedLocks } from '../locks.js';
import { bytesOnDisk } from './gc.js';
import { countTurnCommits, openSessionRepo, removeStaleStaging, sessionPathTaken, sessionRepoPath, stagingPath } from './session-repos.js';

export const ARCHIVE_FORMAT = 1;

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  sessionId: string;
  archivedAt: string;
  /** HEAD as it was: the branch it named (`refs/heads/…`), or null when detached, and its commit. */
  head: { ref: string | null; sha: string | null };
  /** Every ref and its commit, as `for-each-ref` gave them. */
  refs: Record<string, string>;
  /** Turn commits on all branches (what `verify` counts), so an archived session verifies without its repo. */
  turnCommits: number;
  /** Bytes on disk the repo took (its folder, working tree included) before. */
  repoBytes: number;
  bundleBytes: number;
  bundleSha256: string;
}

/** Where archived sessions' bundles and manifests live. */
export function archiveDir(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'archive');
}

/** An archived session's bundle (see ArchiveManifest for what it holds). */
export function archivedBundleFile(config: Pick<Config, 'dataDir'>, sessionId: string): string {
  return join(archiveDir(config), `${sessionId}.bundle`);
}

function manifestFile(config: Pick<Config, 'dataDir'>, sessionId: string): string {
  return join(archiveDir(config), `${sessionId}.json`);
}

/** Whether the session has an archive (its manifest) and no repo: one or two stats, no git. */
export function isArchived(config: Pick<Config, 'dataDir'>, sessionId: string): boolean {
  return existsSync(manifestFile(config, sessionId)) && !existsSync(sessionRepoPath(config, sessionId));
}

/** The archive's manifest when the session is archived (isArchived), else null. */
export async function archiveOf(config: Pick<Config, 'dataDir'>, sessionId: string): Promise<ArchiveManifest | null> {
  if (!isArchived(config, sessionId)) return null;
  return readManifest(config, sessionId).catch(() => null);
}

/**
 * Sessions whose last turn (created or closed), or whose creation when they have none, is before
 * `cutoff`, the longest idle first: what `archive --older-than` and the disk budget take.
 */
export async function sessionsIdleSince(db: Db, cutoff: Date): Promise<{ sessionId: string; openTurnId: string | null }[]> {
  const [sessions, last] = await Promise.all([
    db.session.findMany({ select: { sessionId: true, openTurnId: true, createdAt: true } }),
    db.turn.groupBy({ by: ['sessionId'], _max: { createdAt: true, closedAt: true } }),
  ]);
  const lastAt = new Map(last.map((l) => [l.sessionId, Math.max(l._max.createdAt?.getTime() ?? 0, l._max.closedAt?.getTime() ?? 0)]));
  return sessions
    .map((s) => ({ sessionId: s.sessionId, openTurnId: s.openTurnId, at: lastAt.get(s.sessionId) ?? s.createdAt.getTime() }))
    .filter((s) => s.at < cutoff.getTime())
    .sort((a, b) => a.at - b.at || (a.sessionId < b.sessionId ? -1 : 1))
    .map(({ sessionId, openTurnId }) => ({ sessionId, openTurnId }));
}

export class ArchiveDamagedError extends Error {
  override readonly name = 'ArchiveDamagedError';
}

export type ArchiveOutcome =
  | { sessionId: string; archived: true; repoBytes: number; bundleBytes: number }
  | { sessionId: string; archived: false; reason: string };

interface ArchiveDeps {
  config: Pick<Config, 'dataDir'>;
  repoLocks: KeyedLocks;
}

/**
 * Archives one session's repo (under its repo lock, as the mirror writes it). The caller decides
 * whether the session may be archived (not in use); a session with no repo, or a repo without a
 * commit, is left as it is and says why.
 */
export async function archiveSession(deps: ArchiveDeps, sessionId: string, now = new Date()): Promise<ArchiveOutcome> {
  return deps.repoLocks.run(sessionId, async () => {
    const { config } = deps;
    await removeLeftovers(config, sessionId);
    if (isArchived(config, sessionId)) return { sessionId, archived: false, reason: 'archived already' };
    // A repo beside an archive: the archive is stale (a kill after its manifest, or after an unarchive's rename).
    await removeArchiveFiles(config, sessionId);
    if (!(await sessionPathTaken(config, sessionId))) return { sessionId, archived: false, reason: 'no session repo' };
    const repo = openSessionRepo(config, sessionId);
    if (!repo.exists()) return { sessionId, archived: false, reason: 'not a git repo (verify or a server start repairs it)' };
    const refs = await repo.allRefs();
    if (refs.size === 0) return { sessionId, archived: false, reason: 'no commit yet' };
    const repoPath = sessionRepoPath(config, sessionId);
    const manifest: ArchiveManifest = {
      format: ARCHIVE_FORMAT,
      sessionId,
      archivedAt: now.toISOString(),
      head: await repo.headRef(),
      refs: Object.fromEntries(refs),
      turnCommits: await countTurnCommits(repo),
      repoBytes: await bytesOnDisk(repoPath),
      bundleBytes: 0,
      bundleSha256: '',
    };
    const dir = archiveDir(config);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const bundle = archivedBundleFile(config, sessionId);
    const partial = `${bundle}.partial`;
    try {
      await repo.writeBundle(partial);
      await repo.verifyBundle(partial);
      await syncFile(partial);
      manifest.bundleBytes = (await stat(partial)).size;
      manifest.bundleSha256 = await sha256OfFile(partial);
      crashPoint('bundle-written');
      await rename(partial, bundle);
      await writeDurably(manifestFile(config, sessionId), `${JSON.stringify(manifest, null, 2)}\n`);
      await syncFolder(dir);
      crashPoint('manifest-written');
    } catch (error) {
      await rm(partial, { force: true });
      await removeArchiveFiles(config, sessionId);
      throw error;
    }
    // The archive is whole: the repo leaves the sessions folder in one rename, then goes.
    const leaving = join(sessionsDir(config), `.archived+${sessionId}+${process.pid}-${Date.now()}`);
    await rename(repoPath, leaving);
    await syncFolder(sessionsDir(config));
    crashPoint('repo-moved');
    await rm(leaving, { recursive: true, force: true });
    return { sessionId, archived: true, repoBytes: manifest.repoBytes, bundleBytes: manifest.bundleBytes };
  });
}

/**
 * Brings an archived session's repo back, as it was: the bundle (its checksum checked) fetched
 * into a new repo beside the others, HEAD pointed where it was, the working tree checked out,
 * every ref checked against the manifest; then the repo is renamed into place and the archive
 * removed. Call under the session's repo lock (`unarchiveSession` takes it).
 * @returns whether a repo was brought back (false: the session was not archived).
 * @throws ArchiveDamagedError when the bundle fails its checksum or does not give back what the
 *   manifest lists (the archive is left as it is, for a person to look at).
 */
export async function restoreArchived(config: Pick<Config, 'dataDir'>, sessionId: string): Promise<boolean> {
  await removeLeftovers(config, sessionId);
  if (!existsSync(manifestFile(config, sessionId))) return false;
  if (await sessionPathTaken(config, sessionId)) {
    // A repo at the path wins: it only ever appears there whole.
    await removeArchiveFiles(config, sessionId);
    return false;
  }
  const manifest = await readManifest(config, sessionId);
  const bundle = archivedBundleFile(config, sessionId);
  const problem = await bundleProblem(bundle, manifest);
  if (problem !== null) throw new ArchiveDamagedError(`the archive of session ${sessionId} (${bundle}) ${problem === 'missing' ? 'has no bundle' : 'fails its checksum'}; it is left as it is`);
  await removeStaleStaging(config, sessionId);
  const staging = stagingPath(config, sessionId);
  try {
    if (!(await sessionRepoFromBundle(staging, bundle, manifest.head, manifest.refs))) {
      throw new ArchiveDamagedError(`the archive of session ${sessionId} does not give back the refs its manifest lists; it is left as it is`);
    }
    await rename(staging, sessionRepoPath(config, sessionId));
    await syncFolder(sessionsDir(config));
  } catch (error) {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
  await removeArchiveFiles(config, sessionId);
  return true;
}

/** `restoreArchived` under the session's repo lock. */
export function unarchiveSession(deps: ArchiveDeps, sessionId: string): Promise<boolean> {
  return deps.repoLocks.run(sessionId, () => restoreArchived(deps.config, sessionId));
}

/**
 * Checks an archive without restoring it: the manifest readable, the bundle's checksum, and git's
 * own check of the bundle (`bundle verify`, run in a scratch repo).
 * @returns the manifest.
 * @throws ArchiveDamagedError saying what is wrong.
 */
export async function checkArchive(config: Pick<Config, 'dataDir'>, sessionId: string): Promise<ArchiveManifest> {
  const manifest = await readManifest(config, sessionId);
  const bundle = archivedBundleFile(config, sessionId);
  const problem = await bundleProblem(bundle, manifest);
  if (problem !== null) throw new ArchiveDamagedError(problem === 'missing' ? 'archived, but its bundle is missing' : 'archived, but its bundle fails its checksum');
  const scratch = stagingPath(config, `${sessionId}+check`);
  try {
    const repo = new SessionRepo(scratch);
    await repo.init();
    await repo.verifyBundle(bundle).catch((error: unknown) => {
      throw new ArchiveDamagedError(`archived, but git refuses its bundle: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return manifest;
}

/** What is wrong with an archive's bundle against its manifest's checksum, or null. */
async function bundleProblem(bundle: string, manifest: ArchiveManifest): Promise<'missing' | 'checksum' | null> {
  const sum = await sha256OfFile(bundle).catch(() => null);
  return sum === null ? 'missing' : sum === manifest.bundleSha256 ? null : 'checksum';
}

/**
 * A session repo made at `dir` from the bundle at `bundle`: its refs and objects, HEAD where
 * `head` says, the working tree checked out. What an unarchive and an import of an export share.
 * @returns false, with the working tree left unchecked out, when the bundle's refs are not exactly
 *   `refs` (the caller removes `dir`).
 */
export async function sessionRepoFromBundle(dir: string, bundle: string, head: ArchiveManifest['head'], refs: Record<string, string>): Promise<boolean> {
  const repo = new SessionRepo(dir);
  await repo.init();
  const written = await repo.restoreBundle(bundle, head);
  if (!sameRefs(Object.fromEntries(written), refs)) return false;
  await repo.resetWorkingTree();
  return true;
}

async function readManifest(config: Pick<Config, 'dataDir'>, sessionId: string): Promise<ArchiveManifest> {
  let manifest: ArchiveManifest;
  try {
    manifest = JSON.parse(await readFile(manifestFile(config, sessionId), 'utf8')) as ArchiveManifest;
  } catch (error) {
    throw new ArchiveDamagedError(`the archive manifest of session ${sessionId} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (manifest.format !== ARCHIVE_FORMAT || manifest.sessionId !== sessionId || typeof manifest.bundleSha256 !== 'string' || typeof manifest.refs !== 'object') {
    throw new ArchiveDamagedError(`the archive manifest of session ${sessionId} is not one this version writes (format ${String(manifest.format)})`);
  }
  return manifest;
}

async function removeArchiveFiles(config: Pick<Config, 'dataDir'>, sessionId: string): Promise<void> {
  // The manifest first: without it, the bundle is only a leftover.
  await rm(manifestFile(config, sessionId), { force: true });
  await rm(archivedBundleFile(config, sessionId), { force: true });
}

/** What a killed archive left: a half-written bundle, a repo renamed out but not yet removed. */
async function removeLeftovers(config: Pick<Config, 'dataDir'>, sessionId: string): Promise<void> {
  await rm(`${archivedBundleFile(config, sessionId)}.partial`, { force: true });
  await rm(`${manifestFile(config, sessionId)}.partial`, { force: true });
  const prefix = `.archived+${sessionId}+`;
  for (const name of await readdir(sessionsDir(config)).catch(() => [] as string[])) {
    if (name.startsWith(prefix)) await rm(join(sessionsDir(config), name), { recursive: true, force: true });
  }
}

/**
 * The tests' kill -9 at a named step of an archive: with ENTITY_MEMORY_TEST_KILL_AT=<step> in the
 * environment the process kills itself there (SIGKILL: nothing runs after), so a test checks what
 * a kill at that moment leaves. Unset, nothing happens.
 */
function crashPoint(step: 'bundle-written' | 'manifest-written' | 'repo-moved'): void {
  if (process.env.ENTITY_MEMORY_TEST_KILL_AT === step) process.kill(process.pid, 'SIGKILL');
}

/** Whether two ref lists name the same refs at the same commits. */
function sameRefs(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}


/** `text` at `file`, whole or not at all: written to `<file>.partial`, fsynced, renamed. */
async function writeDurably(file: string, text: string): Promise<void> {
  const partial = `${file}.partial`;
  const handle = await open(partial, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(partial, file);
}
