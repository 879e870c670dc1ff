/**
 * What a project's working tree holds now, read through its checked place
 * (nothing is written): the services and the session that joins a project
 * ask here, not of src/git/, which only src/projects/ opens on a user's repo.
 */
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { checkRepoPlace, openProjectRepo, type PlaceProject } from './project-place.js';

export type { WorkingTreeState } from '../git/project-repo.js';

/**
 * The dirty paths of a project's working directory now (what a session
 * joining it starts from), with the folder and repo checked again.
 * @throws BadUserInputError or ForbiddenError when they cannot be used now.
 */
export async function workdirDirty(project: PlaceProject, deps: { config: Pick<Config, 'allowedRoots' | 'dataDir'> }): Promise<string[]> {
  const place = await openProjectRepo(project, deps.config);
  return (await place.repo.status()).dirtyPaths;
}

/**
 * The user's dirty paths as a session joins the project: as `workdirDirty`, but none when the
 * folder is no longer in a repo (its `.git` deleted): the session's first turn re-creates the
 * repo, as any turn does, and nothing is created here.
 * @throws as `workdirDirty` for a folder that cannot be used.
 */
export async function dirtyAtJoin(project: PlaceProject, deps: { config: Pick<Config, 'allowedRoots' | 'dataDir'> }): Promise<string[]> {
  const { location } = await checkRepoPlace(project.workdir, deps.config);
  return location ? workdirDirty(project, deps) : [];
}

/** Each dirty path of a working tree with what it looked like (size, mode, change time), or `gone`. */
export type DirtyFingerprint = Map<string, string>;

/**
 * The dirty paths of a project's working directory now, each with its size, mode and change
 * time: taken before and after an agent's shell command, the two tell which paths the command
 * changed (`changedBetween`). One `git status` and one lstat per dirty path.
 * @throws as `workdirDirty`.
 */
export async function dirtyFingerprint(project: PlaceProject, deps: { config: Pick<Config, 'allowedRoots' | 'dataDir'> }): Promise<DirtyFingerprint> {
  const place = await openProjectRepo(project, deps.config);
  const dirty = (await place.repo.status()).dirtyPaths;
  return printOf(place.workdir, dirty);
}

/** Each of `paths` under `workdir` with what it looks like now (size, mode, change times), or `gone`; no git runs. */
export async function printOf(workdir: string, paths: readonly string[]): Promise<DirtyFingerprint> {
  const print: DirtyFingerprint = new Map();
  await Promise.all(
    paths.map(async (path) => {
      const stats = await lstat(join(workdir, path)).catch(() => null);
      print.set(path, stats ? `${stats.size}:${stats.mode}:${stats.mtimeMs}:${stats.ctimeMs}` : 'gone');
    }),
  );
  return print;
}

/** The paths dirty after and not before, dirty both times but changed, or dirty before and clean after. */
export function changedBetween(before: DirtyFingerprint, after: DirtyFingerprint): string[] {
  const changed = [...after].filter(([path, print]) => before.get(path) !== print).map(([path]) => path);
  for (const path of before.keys()) if (!after.has(path)) changed.push(path);
  return changed.sort();
}
