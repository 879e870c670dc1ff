/**
 * Reading a session repo as a graph: the timeline, one commit, and what a
 * commit holds. Commits come from git; what they mean (turn, messages) from
 * the database.
 */
import type { Message, Session, Turn } from '../generated/prisma/client.js';
import type { Db } from '../db/index.js';
import { BadUserInputError, NotFoundError } from '../errors.js';
import { GitError, isShaPrefix, isValidBranchName, type CommitInfo, type SessionRepo } from '../git/index.js';
import { countTurnCommits } from '../mirror/reconcile.js';
import { openSessionRepo } from '../mirror/session-repos.js';
import type { Deps } from './deps.js';
import { branchSegments, messageFilter } from './branch-path.js';
import { decodeIntCursor, encodeCursor, pageSize, toPage, type Page, type PageArgs } from './page.js';

/** A commit of a repo, with the repo to ask for more (and the session, for session repos). */
export interface CommitRef {
  repo: SessionRepo;
  sessionId: string | null;
  info: CommitInfo;
}

/**
 * Reads from a session repo that may be missing or being rebuilt at this
 * moment (reconcile moves a broken one aside and writes it again): the
 * database stays the truth, so a read that finds no repo gets `fallback`
 * instead of an error.
 */
export async function whileRepoMayBeRebuilt<T>(repo: SessionRepo, read: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof GitError && !repo.exists()) return fallback;
    throw error;
  }
}

/** @throws BadUserInputError unless `sha` is 7 to 40 (or 64) hex digits. */
export function assertShaInput(sha: string): void {
  if (!isShaPrefix(sha)) {
    throw new BadUserInputError(`sha ${JSON.stringify(sha.slice(0, 80))} is not a commit id: give 7 to 40 hex digits.`, { field: 'sha' });
  }
}

/** A commit of the session repo by full or abbreviated sha; null when the repo has none such. */
export async function sessionCommit(deps: Pick<Deps, 'config'>, session: Session, sha: string): Promise<CommitRef | null> {
  assertShaInput(sha);
  const repo = openSessionRepo(deps.config, session.sessionId);
  if (!repo.exists()) return null;
  return whileRepoMayBeRebuilt(
    repo,
    async () => {
      const full = await repo.resolveCommit(sha);
      const info = full ? await repo.commitInfo(full) : null;
      return info ? { repo, sessionId: session.sessionId, info } : null;
    },
    null,
  );
}

export interface TimelineArgs extends PageArgs {
  branch?: string | null;
  all?: boolean | null;
}

/** Commits newest first: of a branch (the current one by default), or of every branch. */
export async function timeline(deps: Pick<Deps, 'config' | 'db'>, session: Session, args: TimelineArgs): Promise<Page<CommitRef>> {
  const size = pageSize(args);
  const repo = openSessionRepo(deps.config, session.sessionId);
  const branch = args.branch ?? session.currentBranch;
  if (!args.all) {
    if (!isValidBranchName(branch)) throw new BadUserInputError(`${JSON.stringify(branch)} is not a branch name of a session.`, { field: 'branch' });
    const known = await deps.db.branch.findUnique({ where: { sessionId_name: { sessionId: session.sessionId, name: branch } } });
    if (!known) throw new NotFoundError(`Session ${session.sessionId} has no branch ${JSON.stringify(branch)}.`, { branch });
  }
  const empty = toPage<CommitRef>([], size, false, () => '', async () => 0);
  if (!repo.exists()) return empty;
  const skip = args.after ? decodeIntCursor(args.after, 'commit') : 0;
  const infos = await whileRepoMayBeRebuilt(
    repo,
    async () => {
      const tips = await repo.branchTips();
      if (!args.all && !tips.has(branch)) return [];
      return repo.log({ ref: args.all ? undefined : branch, all: Boolean(args.all), skip, limit: size + 1 });
    },
    [],
  );
  if (infos.length === 0 && skip === 0) return empty;
  const refs = infos.map((info) => ({ repo, sessionId: session.sessionId, info }));
  let position = skip;
  const cursors = new Map(refs.map((ref) => [ref.info.sha, encodeCursor('commit', ++position)]));
  return toPage(refs, size, skip > 0, (ref) => cursors.get(ref.info.sha)!, () =>
    args.all ? countTurnCommits(repo) : repo.countCommits(branch),
  );
}

export async function commitParents(ref: CommitRef): Promise<CommitRef[]> {
  const parents = await Promise.all(ref.info.parents.map((sha) => ref.repo.commitInfo(sha)));
  return parents.filter((info): info is CommitInfo => info !== null).map((info) => ({ ...ref, info }));
}

/** The turn a session commit records. */
export async function commitTurn(db: Db, ref: CommitRef): Promise<Turn | null> {
  if (!ref.sessionId) return null;
  return db.turn.findFirst({ where: { sessionId: ref.sessionId, commitSha: ref.info.sha } });
}

/**
 * The conversation as it stood at a session commit, in seq order; with
 * `first`, one page of it (after the seq cursor `after`, as Session.messages gives).
 */
export async function commitMessages(db: Db, ref: CommitRef, page: { first?: number | null; after?: string | null } = {}): Promise<Message[]> {
  const turn = await commitTurn(db, ref);
  if (!turn || !ref.sessionId) return [];
  const segments = await branchSegments(db, ref.sessionId, turn.branch, { branch: turn.branch, number: turn.number });
  const filter = await messageFilter(db, ref.sessionId, segments);
  const after = page.after ? decodeIntCursor(page.after, 'seq') : null;
  return db.message.findMany({
    where: after === null ? filter : { AND: [filter, { seq: { gt: after } }] },
    orderBy: { seq: 'asc' },
    ...(page.first != null ? { take: pageSize({ first: page.first }) } : {}),
  });
}

export async function commitFile(ref: CommitRef, path: string) {
  if (path === '' || path.startsWith('/') || path.includes('\0') || path.split('/').includes('..') || path.length > 4096) {
    throw new BadUserInputError(`path ${JSON.stringify(path.slice(0, 80))} is not a path inside the repository.`, { field: 'path' });
  }
  const bytes = await ref.repo.readFile(ref.info.sha, path);
  if (bytes === null) return null;
  const isBinary = bytes.includes(0) || !isUtf8(bytes);
  return { path, size: bytes.length, isBinary, text: isBinary ? null : bytes.toString('utf8') };
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

export interface MirrorStatus {
  dagTurns: number;
  gitCommits: number;
  pending: number;
  inSync: boolean;
  lastError: string | null;
  lastCommittedAt: Date | null;
}

export async function mirrorStatus(deps: Pick<Deps, 'config' | 'db'>, session: Session): Promise<MirrorStatus> {
  const { db } = deps;
  const [dagTurns, jobs, last] = await Promise.all([
    db.turn.count({ where: { sessionId: session.sessionId, open: false } }),
    db.mirrorJob.findMany({ where: { sessionId: session.sessionId, kind: 'SESSION' }, orderBy: { id: 'asc' } }),
    db.turn.findFirst({ where: { sessionId: session.sessionId, mirroredAt: { not: null } }, orderBy: { mirroredAt: 'desc' } }),
  ]);
  const repo = openSessionRepo(deps.config, session.sessionId);
  const gitCommits = await whileRepoMayBeRebuilt(repo, () => countTurnCommits(repo), 0);
  const failing = jobs.find((job) => job.lastError !== null);
  return {
    dagTurns,
    gitCommits,
    pending: jobs.length,
    inSync: jobs.length === 0 && dagTurns === gitCommits,
    lastError: failing?.lastError ?? null,
    lastCommittedAt: last?.mirroredAt ?? null,
  };
}

