/**
 * Reading a project: its repo's history, its working tree, and what a turn did there.
 */
import type { Project, ProjectCommitResult, Turn } from '../../generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { GitRepo } from '../../git/index.js';
import { locateProjectRepoKept, openProjectRepo } from '../../projects/project-place.js';
import { holdsFiles, previewSnapshot, snapshotConflicts, type PlannedPath } from '../../projects/restore.js';
import type { RecordedState } from '../../projects/restore-plan.js';
import type { AutoCommitState } from '../../projects/repo-config.js';
import type { WorkingTreeState } from '../../projects/working-tree.js';
import type { Deps } from '../deps.js';
import { emptyPage, isBackward, offsetPage, pageSize, type Page, type PageArgs } from '../page.js';
import type { CommitRef } from '../replay/read-commits.js';

/**
 * A reader over the user's repo (log, diff, files); nothing here writes to
 * it. Its git directory is asked of git at the first read, so a `.git` file
 * (a `git worktree add` checkout, a submodule) is followed. Unchecked: for a
 * commit just made there (subscriptions); readers of a project's repo at any
 * other time use `checkedReader`.
 */
export function projectReader(project: Project): GitRepo {
  return new GitRepo(project.workdir);
}

/**
 * A reader over the project's repo once its folder and git directory are
 * checked again (at the git directories that check located); null when refused.
 * The repo's config is not read: no read here runs a program it could name
 * (see GitRepo), and `git config --list` was one of 4 processes per
 * Project.history.
 */
async function checkedReader(project: Project, deps: Pick<Deps, 'config'>): Promise<GitRepo | null> {
  try {
    return await projectRepoReader(project, deps);
  } catch (error) {
    if (error instanceof AppError) return null;
    throw error;
  }
}

/**
 * As `checkedReader`, but a folder or repo that cannot be used now is refused with the project's
 * own error (a request that names one file there says why).
 */
export async function projectRepoReader(project: Project, deps: Pick<Deps, 'config'>): Promise<GitRepo> {
  const { workdir, location } = await locateProjectRepoKept(project, deps.config);
  return new GitRepo(workdir, { gitDirs: { gitDir: location.gitDir, commonDir: location.commonDir } });
}

/**
 * Commits of the project's current branch, newest first (the agent's and the
 * user's). Empty when the folder or its repo cannot be used now
 * (`Project.autoCommit` says why). Runs no status.
 */
export async function projectHistory(project: Project, args: PageArgs, deps: Pick<Deps, 'config' | 'logger'>): Promise<Page<CommitRef>> {
  const page = { size: pageSize(args), after: args.after, before: args.before, backward: isBackward(args), kind: 'history' };
  const repo = await checkedReader(project, deps);
  if (!repo) return emptyPage();
  const { sha } = await repo.headState();
  if (!sha) return emptyPage();
  return offsetPage<CommitRef>(
    page,
    async (skip, take) => (await repo.log({ ref: sha, skip, limit: take })).map((info) => ({ repo, sessionId: null, projectId: project.projectId, info })),
    () => repo.countCommits(sha),
  );
}

/**
 * Branch and dirty paths now, with every filter driver the user has not
 * trusted switched off. `isRepo: false` when the folder or its repo cannot be
 * used now (nothing is run there; `Project.autoCommit` says why).
 */
export async function workingTree(project: Project, deps: Pick<Deps, 'config'>): Promise<WorkingTreeState & { clean: boolean }> {
  let place;
  try {
    place = await openProjectRepo(project, deps.config);
  } catch (error) {
    if (error instanceof AppError) return { isRepo: false, branch: null, dirtyPaths: [], clean: false };
    throw error;
  }
  const state = await place.repo.status();
  return { ...state, clean: state.isRepo && state.dirtyPaths.length === 0 };
}

export interface ProjectAutoCommit {
  state: AutoCommitState;
  unsafeKeys: string[];
  message: string | null;
}

/** Whether the agent's edits are committed in this project now, and if not, why and how to change it. */
export async function projectAutoCommit(project: Project, deps: Pick<Deps, 'config'>): Promise<ProjectAutoCommit> {
  try {
    const place = await openProjectRepo(project, deps.config);
    return { state: place.autoCommit, unsafeKeys: place.verdict.unsafeKeys, message: place.autoCommitMessage };
  } catch (error) {
    if (error instanceof AppError) return { state: 'UNAVAILABLE', unsafeKeys: [], message: error.message };
    throw error;
  }
}

export interface ProjectCommitOutcome {
  result: ProjectCommitResult;
  /** The agent's commit, read from the project's repo once it is checked again; null without one, or when refused. */
  commit: () => Promise<CommitRef | null>;
  /** The private snapshot of a skipped turn, read the same way. */
  snapshot: () => Promise<CommitRef | null>;
  /** Whether the working tree holds the snapshot's files now (null: no snapshot, or the folder cannot be used). */
  snapshotApplied: () => Promise<boolean | null>;
  /** The paths that would refuse applying the snapshot now (null: no snapshot, or the folder cannot be used). */
  snapshotConflicts: () => Promise<string[] | null>;
  /** What applying the snapshot would write now, path by path (null: no snapshot, or the folder cannot be used). */
  snapshotChanges: () => Promise<PlannedPath[] | null>;
  /** The agent's commit's and the snapshot's shas as recorded (no git). */
  commitSha: string | null;
  snapshotSha: string | null;
  dirtyPaths: string[];
  message: string | null;
  reason: string | null;
  paths: string[];
}

/**
 * What the end of a turn did in its project (null without a project; PENDING
 * until the commit has run). Reads no git until `commit` or `snapshot` is asked for.
 */
export function turnProjectCommit(deps: Pick<Deps, 'db' | 'config' | 'logger'>, turn: Turn): ProjectCommitOutcome | null {
  if (!turn.projectId) return null;
  const projectId = turn.projectId;
  const read = (sha: string | null) => async (): Promise<CommitRef | null> => {
    if (!sha) return null;
    const project = await deps.db.project.findUnique({ where: { projectId } });
    const repo = project ? await checkedReader(project, deps) : null;
    const info = repo ? await repo.commitInfo(sha).catch(() => null) : null;
    return repo && info ? { repo, sessionId: null, projectId, info } : null;
  };
  const files = turn.projectFiles ? (JSON.parse(turn.projectFiles) as RecordedState[]) : [];
  /** A read of the working tree at the snapshot's paths; null without a snapshot, or when the folder cannot be used now. */
  const withSnapshot = async <T>(read: (project: Project) => Promise<T>): Promise<T | null> => {
    if (!turn.projectSnapshotSha || files.length === 0) return null;
    const project = await deps.db.project.findUnique({ where: { projectId } });
    if (!project) return null;
    try {
      return await read(project);
    } catch (error) {
      if (error instanceof AppError) return null;
      throw error;
    }
  };
  return {
    result: turn.projectResult ?? 'PENDING',
    commit: read(turn.projectCommitSha),
    snapshot: read(turn.projectSnapshotSha),
    snapshotApplied: () => withSnapshot((project) => holdsFiles(project, deps.config, files)),
    snapshotConflicts: () => withSnapshot((project) => snapshotConflicts(project, deps.config, files)),
    snapshotChanges: () => withSnapshot(async (project) => (await previewSnapshot(project, deps.config, files)).changes),
    commitSha: turn.projectCommitSha,
    snapshotSha: turn.projectSnapshotSha,
    dirtyPaths: turn.projectDirtyPaths ? (JSON.parse(turn.projectDirtyPaths) as string[]) : [],
    message: turn.projectMessage,
    reason: turn.projectReason,
    paths: files.map((f) => f.path),
  };
}

/**
 * Whether the project's repo still needs its first commit: HEAD is unborn and
 * a non-ignored file is there, so every file counts as the user's uncommitted
 * change and the agent's edits are never committed (`initialCommitHint`).
 * False when the folder or its repo cannot be used now (`Project.autoCommit`
 * says why). The folder is checked again, then one status.
 */
export async function projectNeedsInitialCommit(project: Project, deps: Pick<Deps, 'config'>): Promise<boolean> {
  let place;
  try {
    place = await openProjectRepo(project, deps.config);
  } catch (error) {
    if (error instanceof AppError) return false;
    throw error;
  }
  return (await place.repo.unbornHead())?.hasFiles ?? false;
}

/**
 * A commit of a project's repo, read once the project's folder and git
 * directory are checked again; null when the project, its folder or the
 * commit cannot be read now.
 */
export async function readProjectCommit(deps: Pick<Deps, 'db' | 'config' | 'logger'>, projectId: string, sha: string): Promise<CommitRef | null> {
  const project = await deps.db.project.findUnique({ where: { projectId } });
  const repo = project ? await checkedReader(project, deps) : null;
  const info = repo ? await repo.commitInfo(sha).catch(() => null) : null;
  return repo && info ? { repo, sessionId: null, projectId, info } : null;
}
