/**
 * Projects: creating, changing, importing, and binding sessions to them.
 */
import { basename } from 'node:path';
import type { Prisma, Project, ProjectStatus, Session } from '../../generated/prisma/client.js';
import { AppError, BadUserInputError, ConflictError, NotFoundError } from '../../errors.js';
import { assertValidId, newId } from '../../ids.js';
import { findRepoFolders } from '../../projects/find-repos.js';
import { initProjectRepo } from '../../projects/initial-commit.js';
import { checkRepoPlace, openProjectRepo } from '../../projects/project-place.js';
import { dirtyAtJoin } from '../../projects/working-tree.js';
import { outsideRequest } from '../../request-context.js';
import { checkScanRoot } from '../../projects/workdir.js';
import { now, type Deps } from '../deps.js';
import { isBackward, newestFirstPage, pageSize, type Page, type PageArgs } from '../page.js';
import { assertShortText } from '../sessions/validate.js';

function assertName(name: string | null | undefined, field = 'name'): void {
  if (name == null) return;
  if (name.trim() === '') throw new BadUserInputError(`${field} must not be empty.`, { field });
  assertShortText(name, field);
}

export interface CreateProjectInput {
  name: string;
  workdir: string;
  description?: string | null;
  status?: ProjectStatus | null;
  /**
   * When `git init` runs and the folder has files: true makes one first commit
   * of its non-ignored files (see `initialCommitInto`). Default false: no
   * commit, and `Project.needsInitialCommit` says one is missing. Ignored for
   * a folder that is a repo already.
   */
  initialCommit?: boolean | null;
}

/**
 * Creates a project over an existing directory inside the allowed roots;
 * `git init` when it is not a repo (then, with `initialCommit`, a first
 * commit of its files), an existing repo is used as it is.
 * @throws BadUserInputError for a path that is no directory, a bare repo or a
 * folder inside a repo, and for `initialCommit` where git config defines filter
 * drivers or the first commit fails (nothing is created then: the repo just
 * made is removed); ForbiddenError for a folder that may not be used (see
 * checkWorkdir) or a repo whose git directory is outside the allowed roots;
 * ConflictError when it is a project already.
 */
export async function createProject(input: CreateProjectInput, deps: Deps): Promise<Project> {
  assertName(input.name);
  assertShortText(input.description, 'description');
  const checked = await checkRepoPlace(input.workdir, deps.config);
  const workdir = checked.workdir;
  const existing = await deps.db.project.findUnique({ where: { workdir } });
  if (existing) throw new ConflictError(`${workdir} is already the project ${existing.projectId} (${existing.name}).`, { projectId: existing.projectId });
  if (checked.location === null) await initProjectRepo(workdir, deps.config, input.initialCommit === true);
  return deps.db.project.create({
    data: {
      projectId: newId(),
      name: input.name.trim(),
      description: input.description ?? null,
      workdir,
      status: input.status ?? 'ACTIVE',
      createdAt: now(deps),
    },
  });
}

export interface UpdateProjectInput {
  projectId: string;
  name?: string | null;
  description?: string | null;
  status?: ProjectStatus | null;
  /**
   * true: let the agent's commit run the filter drivers the repo's config
   * defines now (pinned to them: a later change turns auto-commit off again);
   * false: withdraw that.
   */
  trustRepoConfig?: boolean | null;
  /** See Project.attributeUnmarkedTurns. */
  attributeUnmarkedTurns?: boolean | null;
}

/**
 * Changes a project's fields; `trustRepoConfig: true` reads the repo's config
 * now and trusts exactly that.
 * @throws NotFoundError for an unknown project; BadUserInputError or
 * ForbiddenError when trust is asked for and the working directory cannot be
 * used now (nothing is changed then).
 */
export async function updateProject(input: UpdateProjectInput, deps: Deps): Promise<Project> {
  assertValidId(input.projectId, 'projectId');
  assertName(input.name);
  assertShortText(input.description, 'description');
  const project = await requireProject(deps, input.projectId);
  let trustedConfig: { trustedConfig: string | null } | Record<string, never> = {};
  if (input.trustRepoConfig === true) trustedConfig = { trustedConfig: (await openProjectRepo(project, deps.config)).verdict.fingerprint };
  if (input.trustRepoConfig === false) trustedConfig = { trustedConfig: null };
  return deps.db.project.update({
    where: { projectId: input.projectId },
    data: {
      ...(input.name != null ? { name: input.name.trim() } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.status != null ? { status: input.status } : {}),
      ...(input.attributeUnmarkedTurns != null ? { attributeUnmarkedTurns: input.attributeUnmarkedTurns } : {}),
      ...trustedConfig,
    },
  });
}

export async function requireProject(deps: Pick<Deps, 'db'>, projectId: string): Promise<Project> {
  assertValidId(projectId, 'projectId');
  const project = await deps.db.project.findUnique({ where: { projectId } });
  if (!project) throw new NotFoundError(`Project ${JSON.stringify(projectId)} does not exist.`, { projectId });
  return project;
}

/**
 * Binds a session to a project; its later turns commit there.
 * @throws ConflictError when the session belongs to another project or has an open turn.
 */
export async function addSessionToProject(input: { sessionId: string; projectId: string }, deps: Deps): Promise<Session> {
  assertValidId(input.sessionId, 'sessionId');
  const project = await requireProject(deps, input.projectId);
  return deps.sessionLocks.run(input.sessionId, async () => {
    const session = await deps.db.session.findUnique({ where: { sessionId: input.sessionId } });
    if (!session) throw new NotFoundError(`Session ${JSON.stringify(input.sessionId)} does not exist.`, { sessionId: input.sessionId });
    if (session.projectId === project.projectId) return session;
    if (session.projectId) {
      throw new ConflictError(`Session ${session.sessionId} already belongs to project ${session.projectId}.`, { projectId: session.projectId });
    }
    if (session.openTurnId) throw new ConflictError('A turn is open: end it (endTurn) before joining a project.');
    const baseline = await dirtyAtJoin(project, deps);
    return deps.db.session.update({
      where: { sessionId: session.sessionId },
      data: { projectId: project.projectId, projectJoinedAt: now(deps), projectDirtyBaseline: JSON.stringify(baseline) },
    });
  });
}

/**
 * Finds git repos under `root` (to `maxDepth` levels, default 3, at most 10)
 * and adds those not yet known as projects. Running it twice adds nothing.
 * Each repo found is checked as `createProject` checks a workdir (its folder
 * and git directory inside the allowed roots, the top of its repo, not bare)
 * and skipped otherwise. One whose config defines filter drivers is added,
 * with auto-commit off until the user trusts it (`Project.autoCommit`).
 * @returns the projects added now.
 */
export async function importProjects(input: { root: string; maxDepth?: number | null }, deps: Deps): Promise<Project[]> {
  const maxDepth = input.maxDepth ?? 3;
  if (!Number.isInteger(maxDepth) || maxDepth < 0 || maxDepth > 10) {
    throw new BadUserInputError(`maxDepth must be from 0 to 10, got ${maxDepth}.`, { field: 'maxDepth' });
  }
  const root = await checkScanRoot(input.root, deps.config, 'root');
  const found = await findRepoFolders(root, maxDepth);
  const added: Project[] = [];
  for (const dir of found) {
    let workdir: string;
    try {
      // One git process per repo found, however many: the walk is bounded by maxDepth, not by
      // the request's budget of git processes (src/request-context.ts), which would stop half-way.
      const checked = await outsideRequest(() => checkRepoPlace(dir, deps.config));
      if (!checked.location) continue;
      workdir = checked.workdir;
    } catch (error) {
      if (error instanceof AppError) continue;
      throw error;
    }
    if (await deps.db.project.findUnique({ where: { workdir } })) continue;
    added.push(
      await deps.db.project.create({
        data: { projectId: newId(), name: basename(workdir), workdir, status: 'ACTIVE', createdAt: now(deps) },
      }),
    );
  }
  return added;
}

/** Projects newest first, optionally of one status. */
export async function listProjects(deps: Pick<Deps, 'db'>, args: PageArgs & { status?: ProjectStatus | null }): Promise<Page<Project>> {
  const size = pageSize(args);
  const base: Prisma.ProjectWhereInput = args.status ? { status: args.status } : {};
  return newestFirstPage(
    { size, after: args.after, before: args.before, backward: isBackward(args), kind: 'project', key: 'projectId' },
    ({ after, orderBy, take }) => deps.db.project.findMany({ where: after ? { AND: [base, after] } : base, orderBy, take }),
    () => deps.db.project.count({ where: base }),
  );
}
