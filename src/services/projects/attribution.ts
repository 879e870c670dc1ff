/**
 * Which turn wrote each line of a project's file, and which commits changed it: `git blame` and
 * `git log -- path` of the user's repo (read-only, through the checked reader), each commit
 * told apart by the database: the agent's when a turn or a restore recorded it as its project
 * commit (exactly: no trailer is parsed, none can be forged), the user's otherwise.
 */
import type { Project, Session, Turn } from '../../generated/prisma/client.js';
import { BadUserInputError, NotFoundError } from '../../errors.js';
import { assertRepoPath, GitArgumentError, GitObjectNotFoundError, type GitRepo } from '../../git/index.js';
import type { Deps } from '../deps.js';
import { isBackward, offsetPage, pageSize, type Page, type PageArgs } from '../page.js';
import { projectRepoReader } from './read-projects.js';
import type { CommitRef } from '../replay/read-commits.js';

export type LineOrigin = 'AGENT' | 'USER';

/** Who made a commit: the agent (with its session, and the turn unless it was a restore) or the user. */
export interface CommitOrigin {
  origin: LineOrigin;
  sessionId: string | null;
  turnNumber: number | null;
  /** The agent's session (read with the origins: one query for the sessions of the whole answer). */
  session: Session | null;
  /** The agent's turn (null for a restore, or the user's). */
  turn: Turn | null;
}

export interface BlameLines extends CommitOrigin {
  startLine: number;
  endLine: number;
  /** The lines' text at the rev blamed. */
  lines: string[];
  commit: CommitRef;
}

export interface FileCommit extends CommitOrigin {
  commit: CommitRef;
}

type AttributionDeps = Pick<Deps, 'db' | 'config'>;

/**
 * Each range of lines of `path` at `rev` (default HEAD; or a commit sha) with the commit that
 * last changed it and who made that commit.
 * @throws BadUserInputError for a bad path or rev; NotFoundError for a file or commit the repo
 * does not have; the project's own refusal when its folder cannot be used now.
 */
export async function projectBlame(project: Project, args: { path: string; rev?: string | null }, deps: AttributionDeps): Promise<BlameLines[]> {
  const repo = await projectRepoReader(project, deps);
  const path = checkedPath(args.path);
  const sha = await resolveRev(repo, args.rev ?? 'HEAD');
  let ranges;
  try {
    ranges = await repo.blame(sha, path);
  } catch (error) {
    if (error instanceof GitObjectNotFoundError) throw new NotFoundError(`${project.name} has no file ${path} at ${args.rev ?? 'HEAD'} (${sha.slice(0, 7)}).`, { field: 'path' });
    throw error;
  }
  const shas = [...new Set(ranges.map((range) => range.sha))];
  const [origins, infos] = await Promise.all([originsOf(deps, project.projectId, shas), Promise.all(shas.map((s) => repo.commitInfo(s)))]);
  const commits = new Map(shas.map((s, i) => [s, infos[i]!]));
  return ranges.map((range) => ({
    startLine: range.startLine,
    endLine: range.endLine,
    lines: range.lines,
    commit: { repo, sessionId: null, projectId: project.projectId, info: commits.get(range.sha)! },
    ...(origins.get(range.sha) ?? USER),
  }));
}

/**
 * The commits of the current branch that changed `path`, newest first, each with who made it.
 * @throws as `projectBlame`.
 */
export async function projectFileHistory(project: Project, args: PageArgs & { path: string }, deps: AttributionDeps): Promise<Page<FileCommit>> {
  const repo = await projectRepoReader(project, deps);
  const path = checkedPath(args.path);
  const page = { size: pageSize(args), after: args.after, before: args.before, backward: isBackward(args), kind: 'file-history' };
  const { sha } = await repo.headState();
  if (!sha) return offsetPage<FileCommit>(page, async () => [], async () => 0);
  return offsetPage<FileCommit>(
    page,
    async (skip, take) => {
      const infos = await repo.log({ ref: sha, skip, limit: take, path });
      const origins = await originsOf(deps, project.projectId, infos.map((info) => info.sha));
      return infos.map((info) => ({ commit: { repo, sessionId: null, projectId: project.projectId, info }, ...(origins.get(info.sha) ?? USER) }));
    },
    () => repo.countCommits(sha, path),
  );
}

const USER: CommitOrigin = { origin: 'USER', sessionId: null, turnNumber: null, session: null, turn: null };

/** The agent's commits among `shas`: those a turn or a restore recorded as its project commit. */
async function originsOf(deps: AttributionDeps, projectId: string, shas: string[]): Promise<Map<string, CommitOrigin>> {
  const origins = new Map<string, CommitOrigin>();
  if (shas.length === 0) return origins;
  const [turns, restores] = await Promise.all([
    deps.db.turn.findMany({ where: { projectId, projectCommitSha: { in: shas } } }),
    deps.db.projectRestore.findMany({ where: { projectId, commitSha: { in: shas } }, select: { commitSha: true, sessionId: true } }),
  ]);
  // Values, not lazy reads: a blame has a range per line, and a promise per range and field cost more than this one query.
  const sessionIds = [...new Set([...turns.map((t) => t.sessionId), ...restores.map((r) => r.sessionId)])];
  const sessions = new Map(
    sessionIds.length === 0 ? [] : (await deps.db.session.findMany({ where: { sessionId: { in: sessionIds } } })).map((s) => [s.sessionId, s] as const),
  );
  for (const restore of restores) {
    origins.set(restore.commitSha!, { origin: 'AGENT', sessionId: restore.sessionId, turnNumber: null, session: sessions.get(restore.sessionId) ?? null, turn: null });
  }
  for (const turn of turns) {
    origins.set(turn.projectCommitSha!, { origin: 'AGENT', sessionId: turn.sessionId, turnNumber: turn.number, session: sessions.get(turn.sessionId) ?? null, turn });
  }
  return origins;
}

function checkedPath(path: string): string {
  const trimmed = path.replace(/^\.\//, '');
  try {
    // The repo path rules (relative, no `..`, no `.git`): checked here for a clear error first.
    assertRepoPath(trimmed);
  } catch (error) {
    if (error instanceof GitArgumentError) throw new BadUserInputError(`path ${JSON.stringify(path)} is not a file path of the repo: ${error.message.replace(/^invalid repo path "[^"]*": /, '')}.`, { field: 'path' });
    throw error;
  }
  return trimmed;
}

/** HEAD, or a commit's sha (7 to 64 hex digits), as a full sha. */
async function resolveRev(repo: GitRepo, rev: string): Promise<string> {
  if (rev === 'HEAD') {
    const { sha } = await repo.headState();
    if (!sha) throw new NotFoundError('The repo has no commit yet.', { field: 'rev' });
    return sha;
  }
  if (!/^[0-9a-f]{7,64}$/i.test(rev)) throw new BadUserInputError(`rev must be HEAD or a commit's sha (7 to 64 hex digits), got ${JSON.stringify(rev.slice(0, 80))}.`, { field: 'rev' });
  const sha = await repo.resolveCommit(rev);
  if (!sha) throw new NotFoundError(`The repo has no commit ${rev}.`, { field: 'rev' });
  return sha;
}
