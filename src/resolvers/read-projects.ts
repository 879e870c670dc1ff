/**
 * Reading a project: its repo's history, its working tree, and what a turn did there.
 */
import type { Project, Turn } from '../generated/prisma/client.js';
import { ProjectRepo, SessionRepo, type WorkingTreeState } from '../git/index.js';
import type { Deps } from './deps.js';
import { decodeIntCursor, encodeCursor, pageSize, toPage, type Page, type PageArgs } from './page.js';
import type { CommitRef } from './read-commits.js';

/** A reader over the user's repo (log, diff, files); nothing here writes to it. */
export function projectReader(project: Project): SessionRepo {
  return new SessionRepo(project.workdir);
}

/** Commits of the project's current branch, newest first (the agent's and the user's). */
export async function projectHistory(project: Project, args: PageArgs): Promise<Page<CommitRef>> {
  const size = pageSize(args);
  const state = await new ProjectRepo(project.workdir).state();
  const empty = toPage<CommitRef>([], size, false, () => '', async () => 0);
  if (!state.isRepo) return empty;
  const repo = projectReader(project);
  const head = await repo.headState();
  if (!head.sha) return empty;
  const skip = args.after ? decodeIntCursor(args.after, 'history') : 0;
  const infos = await repo.log({ ref: head.sha, skip, limit: size + 1 });
  let position = skip;
  const refs = infos.map((info) => ({ repo, sessionId: null, info, cursor: encodeCursor('history', ++position) }));
  return toPage(refs, size, skip > 0, (ref) => ref.cursor, () => repo.countCommits(head.sha!));
}

export async function workingTree(project: Project): Promise<WorkingTreeState & { clean: boolean }> {
  const state = await new ProjectRepo(project.workdir).state();
  return { ...state, clean: state.isRepo && state.dirtyPaths.length === 0 };
}

export interface ProjectCommitOutcome {
  result: 'COMMITTED' | 'NOTHING_TO_COMMIT' | 'SKIPPED_DIRTY' | 'FAILED';
  commit: CommitRef | null;
  dirtyPaths: string[];
  message: string | null;
}

/** What the end of a turn did in its project (null without a project, or before it has run). */
export async function turnProjectCommit(deps: Pick<Deps, 'db'>, turn: Turn): Promise<ProjectCommitOutcome | null> {
  if (!turn.projectId || !turn.projectResult) return null;
  const project = await deps.db.project.findUnique({ where: { projectId: turn.projectId } });
  let commit: CommitRef | null = null;
  if (project && turn.projectCommitSha) {
    const repo = projectReader(project);
    const info = await repo.commitInfo(turn.projectCommitSha).catch(() => null);
    commit = info ? { repo, sessionId: null, info } : null;
  }
  return {
    result: turn.projectResult as ProjectCommitOutcome['result'],
    commit,
    dirtyPaths: turn.projectDirtyPaths ? (JSON.parse(turn.projectDirtyPaths) as string[]) : [],
    message: turn.projectMessage,
  };
}
