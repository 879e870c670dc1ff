/**
 * Paths an agent turn left changed, claimed from the turn's close until its
 * project commit has run. Another turn (of this session or another, in this
 * process or another server's) does not mistake them for the user's
 * uncommitted work.
 *
 * One file per turn in the repo's git directory (`entity-memory-claims/<turn>`):
 * created whole with a rename, removed when the turn's commit is done, so no
 * writer ever rewrites another's. Claims older than an hour are ignored (a
 * server that died and never came back).
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gitDirOf, type GitDirOrWorkdir } from './project-place.js';

const MAX_AGE_MS = 60 * 60 * 1000;

/** Where the claims live (see `GitDirOrWorkdir`). */
export type ClaimsWhere = GitDirOrWorkdir;

/** One turn's claim. */
export interface Claim {
  turnId: string;
  /** The session of the turn (null in claims written before sessions were recorded). */
  sessionId: string | null;
  paths: string[];
}

async function claimsDir(where: ClaimsWhere): Promise<string> {
  return join(await gitDirOf(where), 'entity-memory-claims');
}

export async function claimPaths(where: ClaimsWhere, turnId: string, paths: readonly string[], sessionId: string | null = null): Promise<void> {
  if (paths.length === 0) return;
  const dir = await claimsDir(where);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${turnId}.tmp`);
  await writeFile(temp, JSON.stringify({ sessionId, paths }));
  await rename(temp, join(dir, turnId));
}

export async function releaseClaim(where: ClaimsWhere, turnId: string): Promise<void> {
  await rm(join(await claimsDir(where), turnId), { force: true });
}

/** Every live claim but `exceptTurnId`'s. */
export async function readClaims(where: ClaimsWhere, exceptTurnId: string | null = null): Promise<Claim[]> {
  const dir = await claimsDir(where);
  const names = await readdir(dir).catch(() => [] as string[]);
  const claims: Claim[] = [];
  for (const name of names) {
    if (name === exceptTurnId || name.startsWith('.')) continue;
    const file = join(dir, name);
    try {
      if (Date.now() - (await stat(file)).mtimeMs > MAX_AGE_MS) continue;
      const body = JSON.parse(await readFile(file, 'utf8')) as string[] | { sessionId: string | null; paths: string[] };
      claims.push(Array.isArray(body) ? { turnId: name, sessionId: null, paths: body } : { turnId: name, ...body });
    } catch {
      // Removed while we read it: its turn just committed.
    }
  }
  return claims;
}

/** Paths claimed by turns other than `exceptTurnId`. */
export async function claimedPaths(where: ClaimsWhere, exceptTurnId: string): Promise<Set<string>> {
  return new Set((await readClaims(where, exceptTurnId)).flatMap((c) => c.paths));
}

/** Paths claimed by the session's own turns (`mine: true`) or by other sessions' turns (`mine: false`). */
export function pathsOf(claims: readonly Claim[], sessionId: string, mine: boolean): Set<string> {
  return new Set(claims.filter((c) => (c.sessionId === sessionId) === mine).flatMap((c) => c.paths));
}
