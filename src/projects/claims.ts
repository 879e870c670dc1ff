/**
 * Paths an agent turn says it wrote (its touchedPaths), claimed from the turn's
 * close until its project commit. Another session's turn, in this process or
 * another server's, does not mistake them for the user's uncommitted work.
 *
 * One file per turn in the repo's git directory (`entity-memory-claims/<turn>`):
 * created whole with a rename, removed when the turn's commit is done, so no
 * writer ever rewrites another's. Claims older than an hour are ignored (a
 * server that died and never came back).
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { ProjectRepo } from '../git/index.js';
import type { Logger } from '../logger.js';
import { openProjectRepo } from './project-place.js';

const MAX_AGE_MS = 60 * 60 * 1000;

/**
 * Where the claims live: a git directory already checked (`RepoPlace.location`),
 * or a working directory whose repo is located unchecked (tests, benchmarks).
 */
export type ClaimsWhere = string | { gitDir: string };

async function claimsDir(where: ClaimsWhere): Promise<string> {
  if (typeof where !== 'string') return join(where.gitDir, 'entity-memory-claims');
  const location = await new ProjectRepo(where).locate();
  if (!location) throw new Error(`${where} is not a git repository`);
  return join(location.gitDir, 'entity-memory-claims');
}

export async function claimPaths(where: ClaimsWhere, turnId: string, paths: string[]): Promise<void> {
  if (paths.length === 0) return;
  const dir = await claimsDir(where);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${turnId}.tmp`);
  await writeFile(temp, JSON.stringify(paths));
  await rename(temp, join(dir, turnId));
}

export async function releaseClaim(where: ClaimsWhere, turnId: string): Promise<void> {
  await rm(join(await claimsDir(where), turnId), { force: true });
}

/** Paths claimed by turns other than `exceptTurnId`. */
export async function claimedPaths(where: ClaimsWhere, exceptTurnId: string): Promise<Set<string>> {
  const dir = await claimsDir(where);
  const names = await readdir(dir).catch(() => [] as string[]);
  const claimed = new Set<string>();
  for (const name of names) {
    if (name === exceptTurnId || name.startsWith('.')) continue;
    const file = join(dir, name);
    try {
      if (Date.now() - (await stat(file)).mtimeMs > MAX_AGE_MS) continue;
      for (const path of JSON.parse(await readFile(file, 'utf8')) as string[]) claimed.add(path);
    } catch {
      // Removed while we read it: its turn just committed.
    }
  }
  return claimed;
}

/**
 * Claims a just-closed turn's touchedPaths in its project, if it has both,
 * in the project's git directory once it is checked again (a refused folder
 * gets no claim file). Never throws: a claim is a hint that keeps concurrent
 * sessions apart.
 */
export async function claimTurn(
  deps: {
    db: { project: { findUnique(args: { where: { projectId: string } }): Promise<{ projectId: string; workdir: string; trustedConfig: string | null } | null> } };
    logger: Pick<Logger, 'warn'>;
    config: Pick<Config, 'allowedRoots' | 'dataDir'>;
  },
  turn: { id: string; projectId: string | null; touchedPaths: string | null },
): Promise<void> {
  if (!turn.projectId || !turn.touchedPaths) return;
  try {
    const project = await deps.db.project.findUnique({ where: { projectId: turn.projectId } });
    if (!project) return;
    const place = await openProjectRepo(project, deps.config);
    await claimPaths(place.location, turn.id, JSON.parse(turn.touchedPaths) as string[]);
  } catch (error) {
    deps.logger.warn({ err: error, turnId: turn.id }, 'could not claim the paths of a turn in its project');
  }
}
