/**
 * What a project's working tree holds now, read through its checked place
 * (nothing is written): the services and the session that joins a project
 * ask here, not of src/git/, which only src/projects/ opens on a user's repo.
 */
import type { Config } from '../config.js';
import { openProjectRepo, type PlaceProject } from './project-place.js';

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
