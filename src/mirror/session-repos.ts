/**
 * Where session repos live, where a rebuild writes before it swaps a repo in,
 * and moving a broken one aside (never deleting it).
 */
import { lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sessionsDir, type Config } from '../config.js';
import { SessionRepo } from '../git/index.js';

export function sessionRepoPath(config: Pick<Config, 'dataDir'>, sessionId: string): string {
  return join(sessionsDir(config), sessionId);
}

export function openSessionRepo(config: Pick<Config, 'dataDir'>, sessionId: string): SessionRepo {
  return new SessionRepo(sessionRepoPath(config, sessionId));
}

/** Turn commits on all branches of a session repo (0 for none, or no repo): what `verify` compares with the database. */
export async function countTurnCommits(repo: SessionRepo): Promise<number> {
  if (!repo.exists()) return 0;
  const tips = await repo.branchTips();
  return tips.size === 0 ? 0 : repo.countCommits({ all: true });
}

/** Whether anything (a repo, a folder, a file, a link) is at the session repo's path. */
export async function sessionPathTaken(config: Pick<Config, 'dataDir'>, sessionId: string): Promise<boolean> {
  return lstat(sessionRepoPath(config, sessionId)).then(
    () => true,
    () => false,
  );
}

/**
 * A rebuild's working folder beside the repos: `sessions/.rebuild+<id>+<stamp>`.
 * Ids start with a letter or digit and hold no `+`, so it is never a session's
 * path, and the prefix of one session never matches another's.
 */
export function stagingPath(config: Pick<Config, 'dataDir'>, sessionId: string, now = new Date()): string {
  return join(sessionsDir(config), `.rebuild+${sessionId}+${process.pid}-${stamp(now)}`);
}

/**
 * Removes what earlier rebuilds of this session left half-written (a crash
 * mid-rebuild): only our own `.rebuild+<id>+…` folders, written from the
 * database, never a repo. Call under the session's lock.
 */
export async function removeStaleStaging(config: Pick<Config, 'dataDir'>, sessionId: string): Promise<void> {
  const prefix = `.rebuild+${sessionId}+`;
  const names = await readdir(sessionsDir(config)).catch(() => [] as string[]);
  for (const name of names) {
    if (name.startsWith(prefix)) await rm(join(sessionsDir(config), name), { recursive: true, force: true });
  }
}

/**
 * Renames whatever is at a session repo's path (a repo, a broken folder, a
 * file) to `<data-dir>/moved-aside/<session>-<time>` so a rebuild can start
 * clean while the old one stays for a person to inspect.
 * @returns the new path, or null when there was nothing to move.
 * @throws when the rename fails (nothing is removed then).
 */
export async function moveAside(config: Pick<Config, 'dataDir'>, sessionId: string, now = new Date()): Promise<string | null> {
  if (!(await sessionPathTaken(config, sessionId))) return null;
  const from = sessionRepoPath(config, sessionId);
  const dir = movedAsideDir(config);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let to = join(dir, `${sessionId}-${stamp(now)}`);
  // Two moves of one session within a millisecond (a rebuild that failed at once) must not collide.
  for (let n = 2; await lstat(to).then(() => true, () => false); n++) to = join(dir, `${sessionId}-${stamp(now)}-${n}`);
  await rename(from, to);
  return to;
}

/** Where `moveAside` keeps what it moved. */
export function movedAsideDir(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'moved-aside');
}

/** When the copy `moveAside` named `name` was moved (its `<session>-<time>[-n]`), or undefined for a name of another form. */
export function movedAsideAt(name: string): Date | undefined {
  const time = /-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z(?:-\d+)?$/.exec(name);
  return time ? new Date(`${time[1]}T${time[2]}:${time[3]}:${time[4]}.${time[5]}Z`) : undefined;
}

/** An ISO time with `-` for `:` and `.`: a file name's part (read back by `movedAsideAt`). */
function stamp(now: Date): string {
  return now.toISOString().replace(/[:.]/g, '-');
}
