/**
 * Reading a session repo as a graph: the timeline, one commit, and what a
 * commit holds. Commits come from git; what they mean (turn, messages) from
 * the database.
 */
import { isUtf8 } from 'node:buffer';
import type { Message, Prisma, Session, Turn } from '../../generated/prisma/client.js';
import type { Db } from '../../db/index.js';
import { BadUserInputError, NotFoundError } from '../../errors.js';
import { GitError, isFullSha, isShaPrefix, isValidBranchName, type CommitInfo, type FileDiff, type GitRepo, type SessionRepo, type TreeFile } from '../../git/index.js';
import {
  countTurnCommits,
  isReconciling,
  describeFault,
  inspectSessionRepo,
  sessionRepoPath,
  isRepoReadFailure,
  openSessionRepo,
  repoProblem,
  HEADLINE_SOURCE_CHARS,
  turnHeadline,
} from '../../mirror/index.js';
import { dialectOf, placeholders } from '../../db/dialect.js';
import { unescapeNul } from '../../db/nul-text.js';
import type { Deps } from '../deps.js';
import { branchSegments, messageFilter, segmentsOf, type BranchRows } from '../sessions/branch-path.js';
import { SessionReads } from '../sessions/session-reads.js';
import { Batcher, chunks } from '../batcher.js';
import { ascendingPage, countOnlyPage, emptyPage, isBackward, offsetPage, pageSize, seqRange, type Page, type PageArgs } from '../page.js';

/**
 * A commit of a repo, with the repo to ask for more (and the session, for
 * session repos): read from git already (`info`), or known by its sha only,
 * from the database (a turn's `commitSha`), its git data read on first use
 * (`commitInfoOf`, batched per repo with the others asked for in the same tick).
 */
export type CommitRef = ReadCommitRef | ShaCommitRef;

export interface ReadCommitRef {
  repo: GitRepo;
  /** Carried by a subscription event: its files are the ones it changed (commitFiles). */
  eventScoped?: boolean;
  sessionId: string | null;
  /** The project whose repo holds it (a project's commit: sessionId null). */
  projectId?: string;
  info: CommitInfo;
}

export interface ShaCommitRef {
  repo: SessionRepo;
  /** Carried by a subscription event: its files are the ones it changed (commitFiles). */
  eventScoped?: boolean;
  sessionId: string | null;
  sha: string;
  info?: undefined;
  /** Set by `commitInfoOf`: the git read, made once. */
  reading?: Promise<CommitInfo>;
}

/** A session commit known by its full sha (from the database): no git process until a git-only field is asked for. */
export function shaCommitRef(deps: Pick<Deps, 'config'>, sessionId: string, sha: string): ShaCommitRef {
  return { repo: sessionRepoFor(deps.config, sessionId), sessionId, sha };
}

/**
 * The session repo object for refs, shared: a SessionRepo holds nothing but
 * its paths (git reads are batched per folder, not per object), and a page of
 * 50 sessions' turns and timelines made 1,000 of them (7 ms of path joins).
 * Bounded: cleared when it holds too many.
 */
function sessionRepoFor(config: Pick<Deps['config'], 'dataDir'>, sessionId: string): SessionRepo {
  const key = `${config.dataDir}\n${sessionId}`;
  let repo = sharedRepos.get(key);
  if (!repo) {
    if (sharedRepos.size >= 1000) sharedRepos.clear();
    sharedRepos.set(key, (repo = openSessionRepo(config, sessionId)));
  }
  return repo;
}

const sharedRepos = new Map<string, SessionRepo>();

export function commitShaOf(ref: CommitRef): string {
  return ref.info ? ref.info.sha : ref.sha;
}

/**
 * The git data of a commit (message, author, parents). For a commit known by
 * its sha only, one git process per repo for all those asked for in the same tick.
 * @throws NotFoundError when the repo does not hold it now (being rebuilt by the mirror).
 */
export function commitInfoOf(ref: CommitRef): Promise<CommitInfo> | CommitInfo {
  if (ref.info) return ref.info;
  return (ref.reading ??= (async () => {
    const info = ref.repo.exists() ? await whileRepoMayBeRebuilt(ref.repo, () => ref.repo.commitInfo(ref.sha), null) : null;
    if (!info) {
      throw new NotFoundError(
        `Commit ${ref.sha} is not in the session repo now (the mirror is rebuilding it); its sha and turn come from the database, try its git fields again shortly.`,
        { sha: ref.sha },
      );
    }
    return info;
  })());
}

/**
 * Reads from a session repo that may be missing, broken or being rebuilt at
 * this moment (the mirror moves a broken one aside and writes it again), or
 * while git itself fails: the database stays the truth, so such a read gets
 * `fallback` instead of an error, and `Session.mirror.lastError` says why.
 * Errors of the request itself (a bad argument, a spent budget) pass through.
 */
export async function whileRepoMayBeRebuilt<T>(_repo: GitRepo, read: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isRepoReadFailure(error)) return fallback;
    throw error;
  }
}

/** @throws BadUserInputError unless `sha` is 7 to 40 (or 64) hex digits. */
export function assertShaInput(sha: string): void {
  if (!isShaPrefix(sha)) {
    throw new BadUserInputError(`sha ${JSON.stringify(sha.slice(0, 80))} is not a commit id: give 7 to 40 hex digits.`, { field: 'sha' });
  }
}

/** A commit of the session repo by full or abbreviated sha; null when the repo has none such. One or two git processes (see `GitRepo.commitInfo`). */
export async function sessionCommit(deps: Pick<Deps, 'config'>, session: Session, sha: string): Promise<CommitRef | null> {
  assertShaInput(sha);
  const repo = openSessionRepo(deps.config, session.sessionId);
  if (!repo.exists()) return null;
  return whileRepoMayBeRebuilt(
    repo,
    async () => {
      // A full sha (a turn's commit) needs no resolving, and is read with the others asked for in the same tick.
      const full = isFullSha(sha) ? sha : await repo.resolveCommit(sha);
      const info = full ? await repo.commitInfo(full) : null;
      return info ? { repo, sessionId: session.sessionId, info } : null;
    },
    null,
  );
}

/**
 * Whether git can read every one of these commits now (their infos, read
 * together: one process per repo). A commit the database names but the repo
 * lacks (deleted, being rebuilt) makes it false, so a read that needs git
 * fields answers empty, as the git-backed reads always did.
 */
export async function gitCanRead(refs: CommitRef[]): Promise<boolean> {
  try {
    await Promise.all(refs.map((ref) => commitInfoOf(ref)));
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

export interface TimelineArgs extends PageArgs {
  branch?: string | null;
  all?: boolean | null;
}

/**
 * Commits newest first: of a branch (the current one by default), or of every branch.
 * @param reads the request's batched reads (a page of sessions shares them).
 */
export async function timeline(
  deps: Pick<Deps, 'config' | 'db'>,
  session: Session,
  args: TimelineArgs,
  reads: SessionReads = new SessionReads(deps.db),
): Promise<Page<CommitRef>> {
  const page = { size: pageSize(args), after: args.after, before: args.before, backward: isBackward(args), kind: 'commit' };
  const repo = openSessionRepo(deps.config, session.sessionId);
  const branch = args.branch ?? session.currentBranch;
  if (!args.all) {
    if (!isValidBranchName(branch)) throw new BadUserInputError(`${JSON.stringify(branch)} is not a branch name of a session.`, { field: 'branch' });
    // Both asked for at once, so a page of sessions reads them in the same statements.
    const [rows, ends] = await Promise.all([reads.branches(session.sessionId), reads.ends(session.sessionId, branch)]);
    if (!rows.branches.some((b) => b.name === branch)) {
      throw new NotFoundError(`Session ${session.sessionId} has no branch ${JSON.stringify(branch)}.`, { branch });
    }
    if (!repo.exists()) return emptyPage();
    if (args.countOnly) return countOnlyPage(async () => ends.committed?.number ?? 0, args.after, 'commit');
    return branchTimeline(deps, reads, rows, session.sessionId, branch, ends.committed, page);
  }
  if (!repo.exists()) return emptyPage();
  return offsetPage<CommitRef>(
    page,
    async (skip, take) => {
      const infos = await whileRepoMayBeRebuilt(repo, () => repo.log({ all: true, skip, limit: take }), []);
      return infos.map((info) => ({ repo, sessionId: session.sessionId, info }));
    },
    // When git fails between the page and its count, the count is what was seen.
    (seen) => whileRepoMayBeRebuilt(repo, () => countTurnCommits(repo), seen),
  );
}

/**
 * A branch's commits newest first, from the database: the committed turns on
 * the path to its tip (every commit of a session repo records one turn, a
 * branch's tip is its newest committed turn, and the mirror commits a turn
 * only after its parent). So the path to that turn holds `own.number` commits,
 * numbered 1 to `own.number`: the count is kept, and the page after `skip`
 * commits starts at number `own.number - skip`. No git process; git fields are read lazily.
 */
async function branchTimeline(
  deps: Pick<Deps, 'config' | 'db'>,
  reads: SessionReads,
  rows: BranchRows,
  sessionId: string,
  branch: string,
  own: { number: number } | null,
  page: { size: number; after: string | null | undefined; before?: string | null; backward?: boolean; kind: string },
): Promise<Page<CommitRef>> {
  // A branch is in git from its first committed turn on.
  if (!own) return emptyPage(page.after, page.kind);
  const segments = segmentsOf(rows, sessionId, branch, { branch, number: own.number });
  return offsetPage<CommitRef>(
    page,
    async (skip, take) => {
      const shas = skip >= own.number ? [] : await reads.commitShas(sessionId, segments, own.number - skip, take);
      return shas.map((sha) => shaCommitRef(deps, sessionId, sha));
    },
    async () => own.number,
  );
}

/** The parents that can be read; none while git fails on the repo. */
export async function commitParents(ref: CommitRef): Promise<CommitRef[]> {
  const { parents: shas } = await commitInfoOf(ref);
  const parents = await whileRepoMayBeRebuilt(ref.repo, () => Promise.all(shas.map((sha) => ref.repo.commitInfo(sha))), []);
  return parents.filter((info): info is CommitInfo => info !== null).map((info) => ({ repo: ref.repo, sessionId: ref.sessionId, info }));
}

/** The turn a session commit records. */
export async function commitTurn(db: Db, ref: CommitRef): Promise<Turn | null> {
  if (!ref.sessionId) return null;
  return db.turn.findFirst({ where: { sessionId: ref.sessionId, commitSha: commitShaOf(ref) } });
}

/**
 * commitTurn for many commits at once: the lookups asked for in the same tick (a timeline
 * page's `turn` fields, of one session or of many) are answered by one query.
 * One loader per request.
 */
export class CommitTurnLoader {
  private readonly batcher: Batcher<{ sessionId: string; sha: string }, Turn | null>;

  constructor(db: Db) {
    this.batcher = new Batcher(
      async (keys) => {
        const found = new Map<string, Turn>();
        const terms = shaRanges(keys).map(({ sessionId, shas }) => ({ sessionId, commitSha: { in: shas } }));
        for (const slice of chunks(terms, 50)) {
          for (const row of await db.turn.findMany({ where: { OR: slice } })) found.set(`${row.sessionId}\n${row.commitSha}`, row);
        }
        return keys.map((k) => found.get(`${k.sessionId}\n${k.sha}`) ?? null);
      },
      (k) => `${k.sessionId}\n${k.sha}`,
    );
  }

  load(ref: CommitRef): Promise<Turn | null> {
    if (!ref.sessionId) return Promise.resolve(null);
    return this.batcher.load({ sessionId: ref.sessionId, sha: commitShaOf(ref) });
  }
}

/**
 * Session commits' headlines from the database: a turn commit's headline is made from its turn's
 * number and user message (turnHeadline), so a page of timelines or turns shows them with no git
 * process. The headlines asked for in the same tick are read by one statement (per 50 sessions'
 * worth), the user messages' first characters only. Null for a sha no turn records (then the
 * caller asks git).
 */
export class CommitHeadlineLoader {
  private readonly batcher: Batcher<{ sessionId: string; sha: string }, string | null>;

  constructor(db: Db) {
    const sqlite = dialectOf(db) === 'sqlite';
    const utf8 = new TextDecoder();
    this.batcher = new Batcher(
      async (keys) => {
        const found = new Map<string, string>();
        for (const slice of chunks(shaRanges(keys), 50)) {
          const p = placeholders(db);
          const params: string[] = [];
          const terms = slice
            .map(({ sessionId, shas }) => {
              params.push(sessionId, ...shas);
              return `(t."sessionId" = ${p()} AND t."commitSha" IN (${shas.map(() => p()).join(', ')}))`;
            })
            .join(' OR ');
          // SQLite's substr of text stops at a NUL, its substr of bytes does not: a message holding a
          // NUL is read as bytes too ("bytes", in hex: the adapter reads no blob column of a raw
          // query; a character cut at the end is decoded as U+FFFD, past what the headline reads).
          // PostgreSQL's text holds no NUL (escaped: unescapeNul).
          const blob = `CAST(m."content" AS BLOB)`;
          const bytes = sqlite ? `CASE WHEN instr(${blob}, x'00') > 0 THEN hex(substr(${blob}, 1, ${4 * HEADLINE_SOURCE_CHARS})) END` : 'NULL';
          const rows = await db.$queryRawUnsafe<{ sessionId: string; sha: string; number: number | bigint; head: string; bytes: string | null }[]>(
            `SELECT t."sessionId" AS "sessionId", t."commitSha" AS "sha", t."number" AS "number", ` +
              `substr(m."content", 1, ${HEADLINE_SOURCE_CHARS}) AS "head", ${bytes} AS "bytes" ` +
              `FROM "Turn" t JOIN "Message" m ON m."id" = t."userMessageId" WHERE ${terms}`,
            ...params,
          );
          for (const row of rows) {
            const text = row.bytes !== null ? utf8.decode(Buffer.from(row.bytes, 'hex')) : sqlite ? row.head : unescapeNul(row.head);
            found.set(`${row.sessionId}\n${row.sha}`, turnHeadline(Number(row.number), text));
          }
        }
        return keys.map((k) => found.get(`${k.sessionId}\n${k.sha}`) ?? null);
      },
      (k) => `${k.sessionId}\n${k.sha}`,
    );
  }

  /** The headline of a session commit known by its sha; null for a project's commit or a sha no turn records. */
  load(ref: CommitRef): Promise<string | null> {
    if (!ref.sessionId) return Promise.resolve(null);
    return this.batcher.load({ sessionId: ref.sessionId, sha: commitShaOf(ref) });
  }
}

/** Session commits asked for by sha, as one (sessionId, commitSha IN ...) index range per session (TURN_BATCH shas at most). */
function shaRanges(keys: readonly { sessionId: string; sha: string }[]): { sessionId: string; shas: string[] }[] {
  const bySession = new Map<string, string[]>();
  for (const k of keys) {
    const shas = bySession.get(k.sessionId);
    if (shas) shas.push(k.sha);
    else bySession.set(k.sessionId, [k.sha]);
  }
  return [...bySession].flatMap(([sessionId, shas]) => chunks(shas, TURN_BATCH).map((slice) => ({ sessionId, shas: slice })));
}

/** Shas per `IN (...)`: well under SQLite's bound-parameter limit. */
const TURN_BATCH = 500;

/**
 * The conversation as it stood at a session commit, in seq order: one page
 * of it, `first` messages (50 when omitted, at most 500) after the seq cursor
 * `after` (as Session.messages gives), selected as `query` says (Pothos'
 * plan of the GraphQL selection). Content is never in it: it is loaded per
 * message, within the request's text budget.
 * @throws BadUserInputError for a bad `first` or `after`.
 */
export async function commitMessages(
  db: Db,
  ref: CommitRef,
  page: PageArgs = {},
  query: Omit<Prisma.MessageFindManyArgs, 'where' | 'orderBy' | 'take'> = {},
): Promise<Page<Omit<Message, 'content'>>> {
  const size = pageSize(page);
  // Set by the fetch: null while the commit records no turn, and then the list is empty.
  let recorded: Turn | null = null;
  return ascendingPage<Omit<Message, 'content'>>(
    { size, after: page.after, before: page.before, backward: isBackward(page), kind: 'seq', keyOf: (m) => m.seq },
    async (range) => {
      const turn = await commitTurn(db, ref);
      if (!turn || !ref.sessionId) return [];
      const segments = await branchSegments(db, ref.sessionId, turn.branch, { branch: turn.branch, number: turn.number });
      const where = await messageFilter(db, ref.sessionId, segments);
      recorded = turn;
      return db.message.findMany({
        ...(query.select ? {} : { omit: { content: true } }),
        ...query,
        ...seqRange(where, range),
      });
    },
    // The messages on the path through the commit's turn, as kept on it.
    async () => (recorded as Turn | null)?.messagesThrough ?? 0,
  );
}

/** Largest patch text `FileChange.patch` gives: 256 KiB (whole lines). */
export const PATCH_MAX_BYTES = 256 * 1024;

/** Largest text `Blob.text` gives: 1 MiB. */
export const BLOB_TEXT_MAX_BYTES = 1024 * 1024;

/** A text cut to a size, and whether it was. */
export interface CappedText {
  text: string;
  truncated: boolean;
}

/**
 * `text` cut to at most `maxBytes` of UTF-8, never inside a character (and,
 * with `wholeLines`, after the last newline that fits).
 */
export function capText(text: string, maxBytes: number, wholeLines = false): CappedText {
  // A UTF-16 unit is at most 3 bytes of UTF-8, so short strings need no count.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return { text, truncated: false };
  return { text: capBytes(Buffer.from(text, 'utf8'), maxBytes, wholeLines), truncated: true };
}

function capBytes(bytes: Buffer, maxBytes: number, wholeLines: boolean): string {
  // A streaming decode leaves an incomplete last character out.
  let text = new TextDecoder('utf-8').decode(bytes.subarray(0, maxBytes), { stream: true });
  if (wholeLines) {
    const end = text.lastIndexOf('\n');
    if (end >= 0) text = text.slice(0, end + 1);
  }
  return text;
}

/** One file of a commit's diff; its patch is read (once per commit) only when asked for. */
export interface FileChangeView extends Omit<FileDiff, 'patch'> {
  /** The patch capped at `PATCH_MAX_BYTES`; null for a binary file. */
  patch(): Promise<CappedText | null>;
}

export interface DiffView {
  /** The first parent, or null for a root commit. */
  base(): Promise<CommitRef | null>;
  files: FileChangeView[];
}

/**
 * Commit.files: every file of the commit's tree, or for a commit an event carries (`eventScoped`)
 * only the files it added or changed against its first parent, so that an event's size does not
 * grow with the session (a 4,000-turn session's tree was 1.4 MB in every turnCommitted).
 */
export async function commitFiles(ref: CommitRef): Promise<TreeFile[]> {
  if (!ref.eventScoped) return ref.repo.listFiles(commitShaOf(ref));
  const info = await commitInfoOf(ref);
  const changed = await ref.repo.diffFiles(info.sha, info.parents[0] ?? null);
  return ref.repo.listFilesAmong(
    info.sha,
    changed.filter((file) => file.status !== 'DELETED').map((file) => file.path),
  );
}

/**
 * What a commit changed against its first parent (the empty tree for a root
 * commit): one git process for the files, one more for all their patches
 * when a patch is asked for (none more when `withPatches` said so: then the
 * files and patches come from one), one for the base commit when it is.
 */
export async function commitDiff(ref: CommitRef, opts: { withPatches?: boolean } = {}): Promise<DiffView> {
  const info = await commitInfoOf(ref);
  const baseSha = info.parents[0] ?? null;
  let files: FileDiff[];
  let patches: Promise<(string | null)[]> | undefined;
  if (opts.withPatches) {
    // Both from one process: the patches are asked for with the files.
    const both = await ref.repo.diffFilesAndPatches(info.sha, baseSha);
    files = both.files;
    patches = Promise.resolve(both.patches);
  } else {
    files = await ref.repo.diffFiles(info.sha, baseSha);
  }
  const patchOf = async (n: number): Promise<CappedText | null> => {
    patches ??= ref.repo.diffPatches(info.sha, baseSha).then((all) => {
      if (all.length !== files.length) throw new GitError(`diff of ${info.sha}: ${all.length} patches for ${files.length} files`);
      return all;
    });
    const patch = (await patches)[n];
    return patch == null ? null : capText(patch, PATCH_MAX_BYTES, true);
  };
  let base: Promise<CommitRef | null> | undefined;
  return {
    base: () =>
      (base ??= baseSha === null
        ? Promise.resolve(null)
        : ref.repo.commitInfo(baseSha).then((base) => (base ? { repo: ref.repo, sessionId: ref.sessionId, info: base } : null))),
    files: files.map(({ patch: _none, ...file }, n) => ({ ...file, patch: () => patchOf(n) })),
  };
}

/**
 * The rule for `Commit.file(path:)`, the git layer's: a path relative to the
 * repository's root with `/` between folders.
 * @returns why `path` breaks it, or null when it does not.
 */
export function badRepoPath(path: string): string | null {
  if (path === '') return 'it is empty';
  if (path.length > 4096) return 'it is longer than 4096 characters';
  if (/[\0\r\n]/.test(path)) return 'it holds a control character';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'it is absolute';
  if (path.includes('\\')) return 'it uses \\ (folders are separated by /)';
  if (path.startsWith('"')) return 'it starts with a quote';
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return 'it has an empty, . or .. segment';
    if (segment.toLowerCase() === '.git') return "it is inside git's own .git folder";
  }
  return null;
}

/**
 * One file of a commit, its text capped at `BLOB_TEXT_MAX_BYTES`; null when
 * the commit has no file there (missing, or a folder), or git fails on the repo.
 * @throws BadUserInputError when `path` is not a path inside the repository.
 */
export async function commitFile(ref: CommitRef, path: string) {
  const bad = badRepoPath(path);
  if (bad !== null) {
    throw new BadUserInputError(
      `path ${JSON.stringify(path.slice(0, 80))} is not a file path in the repository (${bad}): ` +
        'give it relative to the repository root with / between folders, e.g. messages/000/000001-u-abc.json, ' +
        'without ., .. or .git segments.',
      { field: 'path' },
    );
  }
  const bytes = await whileRepoMayBeRebuilt(ref.repo, () => ref.repo.readFile(commitShaOf(ref), path), null);
  if (bytes === null) return null;
  const isBinary = bytes.includes(0) || !isUtf8(bytes);
  const truncated = !isBinary && bytes.length > BLOB_TEXT_MAX_BYTES;
  return {
    path,
    size: bytes.length,
    isBinary,
    truncated,
    text: isBinary ? null : truncated ? capBytes(bytes, BLOB_TEXT_MAX_BYTES, false) : bytes.toString('utf8'),
  };
}

export interface MirrorStatus {
  dagTurns: number;
  gitCommits: number;
  pending: number;
  inSync: boolean;
  lastError: string | null;
  lastCommittedAt: Date | null;
}

/**
 * `Session.mirror` for every session of a page at once: how far the mirror is,
 * from the database alone (no git process). The branches (shared with the
 * page's other reads), the outbox, and the ends of every branch are read in
 * one statement each for all the sessions asked for in the same tick, whatever
 * their number and length. One loader per request.
 *
 * `gitCommits` is the number of closed turns the mirror recorded as committed
 * (their `commitSha`), which is what the repo holds while it is healthy:
 * rebuilds are byte-identical and every commit records one turn. A repo that
 * is absent is looked at (its files only) and `lastError` says what is wrong;
 * one broken in place is found by the health monitor (`repoProblem`) or by the
 * mirror's next look, and reported here from then on, while the mirror heals it.
 *
 * Both counts are read from each branch's ends, not counted: a branch's own
 * turns are numbered on from the turn it grows from (its fork turn's number,
 * 0 without one) to its newest, and committed on from there to its newest
 * committed one (a turn is committed only after its parent); at most one turn
 * of a session is open.
 */
export class MirrorStatusLoader {
  private readonly batcher: Batcher<Pick<Session, 'sessionId' | 'openTurnId'>, MirrorStatus>;
  private readonly branchRows = new Map<string, Promise<BranchRows>>();

  constructor(deps: Pick<Deps, 'config' | 'db'>, private readonly reads: SessionReads) {
    this.batcher = new Batcher(
      (sessions) => {
        const rows = new Map(sessions.map((s) => [s.sessionId, this.branchRows.get(s.sessionId)!]));
        for (const s of sessions) this.branchRows.delete(s.sessionId);
        return loadMirrorStatuses(deps, reads, sessions, rows);
      },
      (s) => s.sessionId,
    );
  }

  load(session: Pick<Session, 'sessionId' | 'openTurnId'>): Promise<MirrorStatus> {
    // Asked for now, so the branches of a page are read once for its turns, timelines and mirrors.
    if (!this.branchRows.has(session.sessionId)) {
      const rows = this.reads.branches(session.sessionId);
      rows.catch(() => undefined);
      this.branchRows.set(session.sessionId, rows);
    }
    return this.batcher.load(session);
  }
}

async function loadMirrorStatuses(
  deps: Pick<Deps, 'config' | 'db'>,
  reads: SessionReads,
  sessions: Pick<Session, 'sessionId' | 'openTurnId'>[],
  branchRows: Map<string, Promise<BranchRows>>,
): Promise<(MirrorStatus | Error)[]> {
  const { db, config } = deps;
  const ids = sessions.map((s) => s.sessionId);
  const jobs = new Map<string, { lastError: string | null }[]>();
  for (const chunk of chunks(ids, TURN_BATCH)) {
    const rows = await db.outboxJob.findMany({ where: { sessionId: { in: chunk }, kind: 'SESSION' }, orderBy: { id: 'asc' }, select: { sessionId: true, lastError: true } });
    for (const job of rows) jobs.set(job.sessionId, [...(jobs.get(job.sessionId) ?? []), job]);
  }
  return Promise.all(
    sessions.map(async ({ sessionId, openTurnId }): Promise<MirrorStatus | Error> => {
      try {
        const rows = await branchRows.get(sessionId)!;
        let dagTurns = openTurnId === null ? 0 : -1;
        let gitCommits = 0;
        let last: Date | null = null;
        // The repo's branch tips the database expects (src/mirror/health.ts expectedBranchTips).
        const expected = new Map<string, string>();
        await Promise.all(
          rows.branches.map(async (branch) => {
            const { tip, committed } = await reads.ends(sessionId, branch.name);
            const base = branch.forkTurnId ? (rows.forkTurns.get(branch.forkTurnId)?.number ?? 0) : 0;
            if (tip) dagTurns += tip.number - base;
            if (!committed) return;
            gitCommits += committed.number - base;
            expected.set(branch.name, committed.commitSha);
            if (committed.mirroredAt && (!last || committed.mirroredAt > last)) last = committed.mirroredAt;
          }),
        );
        const sessionJobs = jobs.get(sessionId) ?? [];
        // The repo's files against the branch tips the database expects (no git process): a repo deleted,
        // with a broken HEAD or a branch moved by hand is reported at once, while the mirror heals it.
        const fault = await inspectSessionRepo(sessionRepoPath(config, sessionId), expected, {
          strict: sessionJobs.length === 0,
        }).catch(() => null);
        const failing = sessionJobs.find((job) => job.lastError !== null);
        const lastError = repoProblem(config, sessionId) ?? failing?.lastError ?? (fault ? describeFault(fault) : null);
        return {
          dagTurns: Math.max(0, dagTurns),
          gitCommits,
          pending: sessionJobs.length,
          // Until the start-up catch-up has compared every repo with the database, none is known to agree.
          inSync: sessionJobs.length === 0 && dagTurns === gitCommits && lastError === null && !isReconciling(config),
          lastError,
          lastCommittedAt: last,
        };
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
    }),
  );
}
