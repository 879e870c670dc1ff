/**
 * Projects: creating, changing, importing, and binding sessions to them.
 */
import { readdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Prisma, Project, ProjectStatus, Session } from '../../generated/prisma/client.js';
import { AppError, BadUserInputError, ConflictError, NotFoundError } from '../../errors.js';
import { GitError, ProjectRepo, type RepoLocation } from '../../git/index.js';
import { assertValidId, newId } from '../../ids.js';
import { INITIAL_COMMIT_MESSAGE, initialCommitUnsafeMessage, SETUP_IDENTITY } from '../../projects/initial-commit.js';
import { checkRepoPlace, openProjectRepo, placeOf, type PlaceProject } from '../../projects/project-place.js';
import { judgeRepoConfig } from '../../projects/repo-config.js';
import { outsideRequest } from '../../request-context.js';
import { checkScanRoot, realRoots } from '../../projects/workdir.js';
import { now, type Deps } from '../deps.js';
import { newestFirstPage, pageSize, type Page, type PageArgs } from '../page.js';
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
  let checked = await checkRepoPlace(input.workdir, deps.config);
  const workdir = checked.workdir;
  const existing = await deps.db.project.findUnique({ where: { workdir } });
  if (existing) throw new ConflictError(`${workdir} is already the project ${existing.projectId} (${existing.name}).`, { projectId: existing.projectId });
  if (checked.location === null) {
    const repo = new ProjectRepo(workdir, { ceilings: realRoots(deps.config) });
    // Nothing to commit in an empty folder, so nothing to refuse there.
    const commitFirst = input.initialCommit === true && (await readdir(workdir)).length > 0;
    // Judged before init, so a refusal leaves the folder as it was: a fresh repo has no
    // config of its own yet, but the global and system configs apply to it.
    if (commitFirst) assertNoFilterDrivers(workdir, judgeRepoConfig(await repo.configEntries()));
    await repo.init();
    checked = await checkRepoPlace(workdir, deps.config);
    if (commitFirst && checked.location) await initialCommitInto(workdir, checked.location, deps);
  }
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

function assertNoFilterDrivers(workdir: string, verdict: ReturnType<typeof judgeRepoConfig>): void {
  if (verdict.unsafeKeys.length > 0) {
    throw new BadUserInputError(initialCommitUnsafeMessage(workdir, verdict), { field: 'initialCommit', unsafeKeys: verdict.unsafeKeys });
  }
}

/**
 * The first commit of a repo `createProject` has just made: every non-ignored
 * file, authored and committed by the user's git identity in that folder
 * (`user.name`, `user.email`), else `SETUP_IDENTITY`. The config is judged
 * again as at every use (an `init.templateDir` can bring a config with filter
 * drivers). On any refusal or failure the repo is removed again, so the
 * folder is left as it was found.
 */
async function initialCommitInto(workdir: string, location: RepoLocation, deps: Deps): Promise<void> {
  try {
    const place = await placeOf({ projectId: '', trustedConfig: null }, workdir, location, deps.config);
    assertNoFilterDrivers(workdir, place.verdict);
    const who = (await place.repo.configuredIdentity()) ?? SETUP_IDENTITY;
    await place.repo.initialCommit(INITIAL_COMMIT_MESSAGE, who);
  } catch (error) {
    // Ours to remove: the folder had no `.git` at all (checkRepoPlace refuses an unreadable
    // one), so the one there now is what init() just made.
    if (location.gitDir === join(workdir, '.git')) await rm(location.gitDir, { recursive: true, force: true });
    if (error instanceof AppError) throw error;
    if (error instanceof GitError) {
      throw new BadUserInputError(
        `The first commit in ${workdir} could not be made (git: ${error.stderr || error.message}); nothing was created. ` +
          'Fix that and try again, or create the project without initialCommit.',
        { field: 'initialCommit' },
      );
    }
    throw error;
  }
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
 * The dirty paths of a project's working directory now (what a session
 * joining it starts from), with the folder and repo checked again.
 * @throws BadUserInputError or ForbiddenError when they cannot be used now.
 */
export async function workdirDirty(project: PlaceProject, deps: Pick<Deps, 'config'>): Promise<string[]> {
  const place = await openProjectRepo(project, deps.config);
  return (await place.repo.status()).dirtyPaths;
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
    const baseline = await workdirDirty(project, deps);
    return deps.db.session.update({
      where: { sessionId: session.sessionId },
      data: { projectId: project.projectId, projectJoinedAt: now(deps), projectDirtyBaseline: JSON.stringify(baseline) },
    });
  });
}

const SKIP_DIRS = new Set(['node_modules', '.git', 'vendor', 'target', 'dist', 'build', '.cache']);

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
  const found: string[] = [];
  async function walk(dir: string, depth: number): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((e) => e.name === '.git')) {
      found.push(dir);
      return;
    }
    if (depth >= maxDepth) return;
    for (const entry of entries) {
      if (entry.isDirectory() && !entry.isSymbolicLink() && !SKIP_DIRS.has(entry.name) && !entry.name.startsWith('.')) {
        await walk(join(dir, entry.name), depth + 1);
      }
    }
  }
  await walk(root, 0);
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
    { size, after: args.after, kind: 'project', key: 'projectId' },
    ({ after, orderBy, take }) => deps.db.project.findMany({ where: after ? { AND: [base, after] } : base, orderBy, take }),
    () => deps.db.project.count({ where: base }),
  );
}
