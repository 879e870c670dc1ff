/**
 * Is a session repo whole? A look at its files only (no git process): the
 * folder, `.git`, `HEAD` and the branch refs, against the commits the
 * database recorded. The mirror worker looks before it touches a repo
 * (`RepoHealing`), and `RepoHealthMonitor` looks at every repo now and then,
 * so a repo deleted, corrupted or rewritten while the server runs is noticed,
 * moved aside and rebuilt without a restart.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Db } from '../db/index.js';
import { GitArgumentError, GitError, GitNotFoundError, GitTimeoutError, isFullSha, isValidBranchName } from '../git/index.js';
import type { Logger } from '../logger.js';
import type { LeaseHolder } from './lease-holder.js';
import { LeaseLostError } from './leases.js';
import { rebuildWaiting, recordFailedRebuild } from './rebuild.js';
import { sessionRepoPath } from './session-repos.js';
import type { MirrorWorkerDeps } from './worker-deps.js';
import { placeholders } from '../db/dialect.js';

export type RepoFaultKind = 'missing' | 'corrupt' | 'diverged';

/** What is wrong with a session repo, in words a person can check with `ls` and `git`. */
export interface RepoFault {
  kind: RepoFaultKind;
  detail: string;
}

export function describeFault(fault: RepoFault): string {
  return `the session repo is ${fault.kind}: ${fault.detail}`;
}

export interface InspectOptions {
  /**
   * Also require each branch to be exactly at the newest commit the database
   * recorded on it. Only meaningful when the session has no turn waiting for
   * its commit (a waiting turn may already be in git, a crash before the
   * database heard of it, which the worker adopts).
   */
  strict: boolean;
}

/**
 * Looks at a session repo's files. `expected` holds, per branch, the commit
 * of its newest turn the database recorded as committed. A missing folder is
 * a fault only when the database expects commits in it (a new session's repo
 * is created at its first commit).
 * @returns the fault, or null when the repo looks whole. Never throws.
 */
export async function inspectSessionRepo(dir: string, expected: ReadonlyMap<string, string>, options: InspectOptions): Promise<RepoFault | null> {
  const missing = (detail: string): RepoFault | null => (expected.size > 0 ? { kind: 'missing', detail } : null);
  const top = await lstatOrNull(dir);
  if (top === null) return missing(`${dir} does not exist`);
  if (!top.isDirectory()) return { kind: 'corrupt', detail: `${dir} is not a folder` };
  const gitDir = join(dir, '.git');
  const git = await lstatOrNull(gitDir);
  // A folder without .git is what a first commit leaves when `git init` failed (git missing, say): init completes it.
  if (git === null) return missing(`${gitDir} does not exist`);
  if (!git.isDirectory()) return { kind: 'corrupt', detail: `${gitDir} is not a folder` };
  const objects = await lstatOrNull(join(gitDir, 'objects'));
  if (objects === null || !objects.isDirectory()) return { kind: 'corrupt', detail: `${join(gitDir, 'objects')} is not a folder` };

  const head = await readText(join(gitDir, 'HEAD'));
  if (head === null) return { kind: 'corrupt', detail: `${join(gitDir, 'HEAD')} is missing` };
  if (head instanceof Error) return { kind: 'corrupt', detail: `${join(gitDir, 'HEAD')} cannot be read (${head.message})` };
  const headRef = /^ref: refs\/heads\/(.+)$/.exec(head.trim())?.[1];
  if (headRef === undefined ? !isFullSha(head.trim()) : !isValidBranchName(headRef)) {
    return { kind: 'corrupt', detail: `${join(gitDir, 'HEAD')} holds ${JSON.stringify(head.trim().slice(0, 60))}, neither a branch nor a commit` };
  }

  const refs = new RefReader(gitDir);
  const branches = new Set(expected.keys());
  if (headRef !== undefined) branches.add(headRef);
  for (const branch of branches) {
    // A name git would refuse is the writer's problem (and no path to read); the worker reports it.
    if (!isValidBranchName(branch)) continue;
    const tip = await refs.read(branch);
    if (tip instanceof Error) return { kind: 'corrupt', detail: `branch ${branch}: ${tip.message}` };
    const want = expected.get(branch);
    if (want === undefined) continue;
    if (tip === null) return { kind: 'diverged', detail: `branch ${branch} is missing; the database has commits on it up to ${want.slice(0, 12)}` };
    if (options.strict && tip !== want) {
      return { kind: 'diverged', detail: `branch ${branch} is at ${tip.slice(0, 12)}, but the newest commit the database recorded on it is ${want.slice(0, 12)}` };
    }
  }
  return null;
}

/** Branch tips read from `refs/heads/<name>` or `packed-refs`, as git would. */
class RefReader {
  private packed: Map<string, string> | Error | undefined;

  constructor(private readonly gitDir: string) {}

  /** The tip's sha, null when there is no such branch, an Error when the ref holds garbage. */
  async read(branch: string): Promise<string | null | Error> {
    const loose = await readText(join(this.gitDir, 'refs', 'heads', branch));
    if (loose instanceof Error) return loose;
    if (loose !== null) {
      const sha = loose.trim();
      return isFullSha(sha) ? sha.toLowerCase() : new Error(`refs/heads/${branch} holds ${JSON.stringify(sha.slice(0, 60))}, not a commit id`);
    }
    this.packed ??= await this.readPacked();
    if (this.packed instanceof Error) return this.packed;
    return this.packed.get(branch) ?? null;
  }

  private async readPacked(): Promise<Map<string, string> | Error> {
    const text = await readText(join(this.gitDir, 'packed-refs'));
    const tips = new Map<string, string>();
    if (text === null) return tips;
    if (text instanceof Error) return text;
    for (const line of text.split('\n')) {
      const match = /^([0-9a-fA-F]{40}|[0-9a-fA-F]{64}) refs\/heads\/(.+)$/.exec(line);
      if (match) tips.set(match[2]!, match[1]!.toLowerCase());
    }
    return tips;
  }
}

// The look reads a few files of a few dozen bytes each, for every session of a page
// (Session.mirror): synchronous calls take microseconds, where each promise-based one
// goes through the thread pool (four round trips for a readFile). Session.mirror of 50
// sessions: 21.5 -> 8.2 ms, the fastest of 30 at load average 6.
async function lstatOrNull(path: string) {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/** A file's text, null when it does not exist, the error when it cannot be read. */
async function readText(path: string): Promise<string | null | Error> {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    return error as Error;
  }
}

/**
 * Per session and branch, the commit of the newest turn the database
 * recorded as committed (one query; one index probe per branch).
 */
export async function expectedBranchTips(db: Db, sessionId?: string | readonly string[]): Promise<Map<string, Map<string, string>>> {
  const ids = sessionId === undefined ? [] : typeof sessionId === 'string' ? [sessionId] : [...sessionId];
  if (sessionId !== undefined && ids.length === 0) return new Map();
  const p = placeholders(db);
  const rows = await db.$queryRawUnsafe<{ sessionId: string; branch: string; sha: string | null }[]>(
    `SELECT b."sessionId" AS "sessionId", b."name" AS "branch",
       (SELECT t."commitSha" FROM "Turn" t
         WHERE t."sessionId" = b."sessionId" AND t."branch" = b."name" AND t."commitSha" IS NOT NULL
         ORDER BY t."number" DESC LIMIT 1) AS "sha"
     FROM "Branch" b${sessionId === undefined ? '' : ` WHERE b."sessionId" IN (${ids.map(() => p()).join(', ')})`}`,
    ...ids,
  );
  const tips = new Map<string, Map<string, string>>();
  for (const row of rows) {
    if (row.sha === null) continue;
    let branches = tips.get(row.sessionId);
    if (!branches) tips.set(row.sessionId, (branches = new Map()));
    branches.set(row.branch, row.sha);
  }
  return tips;
}

/**
 * Looks at one session's repo against the database. `strict` defaults to
 * "no turn of the session is waiting for its commit".
 */
export async function diagnoseSessionRepo(
  deps: { db: Db; config: Pick<Config, 'dataDir'> },
  sessionId: string,
  options: Partial<InspectOptions> = {},
): Promise<RepoFault | null> {
  const strict = options.strict ?? (await deps.db.outboxJob.count({ where: { sessionId, kind: 'SESSION' } })) === 0;
  const expected = (await expectedBranchTips(deps.db, sessionId)).get(sessionId) ?? new Map<string, string>();
  return inspectSessionRepo(sessionRepoPath(deps.config, sessionId), expected, { strict });
}

/**
 * Whether a failed git run says the repo itself is damaged (as opposed to git
 * missing, slow, or refusing an argument), so rebuilding it is the cure.
 */
export function looksLikeDamagedRepo(error: unknown): boolean {
  if (!(error instanceof GitError) || error instanceof GitNotFoundError || error instanceof GitTimeoutError || error instanceof GitArgumentError) {
    return false;
  }
  return /not a git repository|bad object|corrupt|unable to read|invalid object|missing (?:blob|tree|commit) |unreadable HEAD|no \.git\/HEAD|bad tree object|broken link|packfile .* cannot be accessed|not a valid object name/i.test(
    `${error.message}\n${error.stderr}`,
  );
}

/**
 * Whether a read of a session repo failed because of git or the repo (then
 * the API answers a degraded value), rather than the request (a bad
 * argument, an exhausted budget: those stay errors).
 */
export function isRepoReadFailure(error: unknown): boolean {
  if (error instanceof GitArgumentError) return false;
  if (error instanceof GitError) return true;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}

/**
 * The last repo-level failure of each session repo (a rebuild that failed,
 * a reconcile that could not finish), as this process saw it, for
 * `Session.mirror.lastError`. Turn-level failures live in the database
 * (`OutboxJob.lastError`); these concern the repo as a whole and are redone
 * from the database at the next start anyway, so they are not persisted.
 * Keyed by the repo's absolute path, so servers over other data dirs in the
 * same process never see each other's.
 */
const repoProblems = new Map<string, string>();

export function noteRepoProblem(config: Pick<Config, 'dataDir'>, sessionId: string, message: string): void {
  repoProblems.set(sessionRepoPath(config, sessionId), message);
}

export function clearRepoProblem(config: Pick<Config, 'dataDir'>, sessionId: string): void {
  repoProblems.delete(sessionRepoPath(config, sessionId));
}

export function repoProblem(config: Pick<Config, 'dataDir'>, sessionId: string): string | null {
  return repoProblems.get(sessionRepoPath(config, sessionId)) ?? null;
}

/** What the monitor hands its findings to (the mirror worker). */
export interface RepoHealer {
  /** A session repo looks broken: look again under the session's lock and heal it. Never throws. */
  check(sessionId: string, fault: RepoFault): void;
  /** Sessions whose next attempt is due but which nothing is draining: drain them. */
  resumeDue(): Promise<void>;
}

export interface RepoHealthOptions {
  /**
   * Time between two looks at every session repo. Default 30 000 ms, so a
   * repo broken while nothing touches it is healed within a minute. 0 turns
   * the periodic look off (the worker still looks before it commits).
   */
  intervalMs?: number;
}

export const DEFAULT_REPO_HEALTH_INTERVAL_MS = 30_000;

/**
 * Every `intervalMs`, looks at the repo of every session that has commits
 * (files only: a stat of `.git`, `HEAD`, and one small file per branch; one
 * database query for all sessions) and hands what looks broken to the healer.
 * A look that throws is logged and the next one runs as planned.
 */
export class RepoHealthMonitor {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly intervalMs: number;

  constructor(
    private readonly deps: { db: Db; config: Pick<Config, 'dataDir'>; logger: Logger },
    private readonly healer: RepoHealer,
    options: RepoHealthOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? DEFAULT_REPO_HEALTH_INTERVAL_MS;
  }

  /** Starts the periodic look (the first after one interval). No-op when the interval is 0. */
  start(): void {
    if (this.intervalMs > 0 && !this.stopped) this.schedule();
  }

  /** Stops looking and waits for a look in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /**
   * One look at every repo now.
   * @returns the faults found, by session.
   */
  async checkAll(): Promise<Map<string, RepoFault>> {
    const { db, config } = this.deps;
    const [tips, waiting] = await Promise.all([
      expectedBranchTips(db),
      db.outboxJob.findMany({ where: { kind: 'SESSION' }, select: { sessionId: true }, distinct: ['sessionId'] }),
    ]);
    const pending = new Set(waiting.map((j) => j.sessionId));
    const faults = new Map<string, RepoFault>();
    for (const [sessionId, expected] of tips) {
      if (this.stopped) break;
      const fault = await inspectSessionRepo(sessionRepoPath(config, sessionId), expected, { strict: !pending.has(sessionId) });
      if (fault) {
        faults.set(sessionId, fault);
        this.healer.check(sessionId, fault);
      }
    }
    if (!this.stopped) await this.healer.resumeDue();
    return faults;
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.running = this.checkAll().then(
        (faults) => {
          if (faults.size > 0) this.deps.logger.info({ sessions: [...faults.keys()] }, 'periodic check: session repos that look broken, looked at again under their lock');
        },
        (error: unknown) => this.deps.logger.error({ err: error }, 'periodic check of the session repos failed'),
      );
      void this.running.finally(() => {
        this.running = undefined;
        if (!this.stopped) this.schedule();
      });
    }, this.intervalMs);
    this.timer.unref();
  }
}

/** What healing asks of the mirror worker whose passes it runs in. None may throw. */
export interface RepoHealingHooks {
  /** The repo is rebuilt: open it afresh at the next use. */
  forget(sessionId: string): void;
  /** Drain the session again in `delayMs`. */
  retryLater(sessionId: string, delayMs: number): void;
  /** Whether the worker has stopped (a failure then says it will not be retried). */
  stopped(): boolean;
}

export interface RepoHealingOptions {
  /** A failed rebuild's first retry delay; doubles per failure. */
  retryBaseMs: number;
  /** Ten times this is the longest delay between two rebuilds that keep failing. */
  retryMaxMs: number;
}

/**
 * The mirror worker's healing, at the start of each pass under the session's repo lock: which
 * sessions' repos are to be rebuilt and why, the backoff of rebuilds that keep failing, and the
 * look at a repo's files before it is touched.
 */
export class RepoHealing {
  /** Sessions whose repo is to be rebuilt at their next drain, and why. */
  private readonly due = new Map<string, string>();
  /** Rebuilds that failed in a row, per session, and when the next may start (epoch ms). */
  private readonly failures = new Map<string, { count: number; notBefore: number }>();

  /** @param leases the worker's lease holder when servers share the database: a rebuild records only under the lease. */
  constructor(
    private readonly deps: MirrorWorkerDeps,
    private readonly leases: LeaseHolder | null,
    private readonly options: RepoHealingOptions,
    private readonly hooks: RepoHealingHooks,
  ) {}

  /** Rebuilds the session's repo at its next pass, whatever it looks like. */
  markDue(sessionId: string, reason: string): void {
    this.due.set(sessionId, reason);
  }

  /** Whether the session's repo is to be rebuilt at its next pass. */
  isDue(sessionId: string): boolean {
    return this.due.has(sessionId);
  }

  /**
   * Looks at the session's repo (files only) and, when it is broken or a
   * rebuild is due, moves it aside and rebuilds it from the database. Call
   * under the session's lock. Never throws.
   * @returns false when the repo is broken and could not be rebuilt (recorded, retried with backoff).
   */
  async healIfBroken(sessionId: string): Promise<boolean> {
    let reason = this.due.get(sessionId);
    const failed = this.failures.get(sessionId);
    if (reason !== undefined && failed && failed.notBefore > Date.now()) {
      // A new turn or a look must not restart a failing rebuild before its backoff is over.
      this.hooks.retryLater(sessionId, failed.notBefore - Date.now());
      return false;
    }
    if (reason === undefined) {
      let fault: RepoFault | null;
      try {
        fault = await diagnoseSessionRepo(this.deps, sessionId);
      } catch (error) {
        // Cannot tell (the database is busy, say): commit as usual; git reports what is wrong.
        this.deps.logger.warn({ err: error, sessionId }, 'could not check a session repo');
        return true;
      }
      if (fault === null) return true;
      reason = describeFault(fault);
    }
    return this.rebuild(sessionId, reason);
  }

  private async rebuild(sessionId: string, reason: string): Promise<boolean> {
    const { logger } = this.deps;
    logger.warn({ sessionId, reason }, 'rebuilding a session repo from the database; what is there is moved aside, never deleted');
    this.hooks.forget(sessionId);
    try {
      const leases = this.leases;
      await rebuildWaiting(this.deps, sessionId, {
        ...(leases && { fence: (tx) => leases.fence(tx, sessionId) }),
        onRebuilt: (turns, ms) => {
          this.due.delete(sessionId);
          this.failures.delete(sessionId);
          clearRepoProblem(this.deps.config, sessionId);
          logger.info({ sessionId, turns, ms }, 'rebuilt a session repo from the database');
        },
      });
      return true;
    } catch (error) {
      if (error instanceof LeaseLostError) {
        this.leases?.lost(sessionId, error.message);
        return false;
      }
      const failures = (this.failures.get(sessionId)?.count ?? 0) + 1;
      // A rebuild rewrites the whole session: one that keeps failing is retried ten times less often than a commit.
      const delay = Math.min(this.options.retryMaxMs * 10, this.options.retryBaseMs * 2 ** Math.min(failures, 20));
      this.failures.set(sessionId, { count: failures, notBefore: Date.now() + delay });
      this.due.set(sessionId, reason);
      const message = `${reason}; rebuilding it from the database failed: ${error instanceof Error ? error.message : String(error)}`;
      noteRepoProblem(this.deps.config, sessionId, message);
      logger.error({ err: error, sessionId, attempts: failures, retryInMs: delay }, 'rebuilding a session repo failed; will retry');
      await recordFailedRebuild(this.deps, sessionId, message, () => !this.hooks.stopped());
      this.hooks.retryLater(sessionId, delay);
      return false;
    }
  }
}
