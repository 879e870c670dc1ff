/**
 * A user's working directory (a project). Unlike session repos, these are the
 * user's own: we read their config (their ignores), never check anything out,
 * never delete a lock, never run their hooks or their signing, and touch only
 * the paths we commit.
 */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitError, GitLockedError } from './errors.js';
import { runGit } from './run.js';

/**
 * The user's environment without inherited GIT_* variables (a GIT_DIR from a
 * hook would redirect us); their global config stays in force.
 */
export function userGitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('GIT_') && value !== undefined) env[key] = value;
  }
  // Pathspecs are literal: a file named ':(glob)*' is that file.
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_LITERAL_PATHSPECS: '1', LC_ALL: 'C', ...extra };
}

export interface WorkingTreeState {
  isRepo: boolean;
  /** Current branch; null when detached or not a repo. */
  branch: string | null;
  /** Paths with changes: tracked, staged or untracked (not ignored), sorted. */
  dirtyPaths: string[];
}

export interface Committer {
  name: string;
  email: string;
}

/** Parses `git status --porcelain=v1 -z --branch --no-renames`. */
export function parseStatus(output: string): { branch: string | null; paths: string[]; staged: string[] } {
  const entries = output.split('\0').filter((e) => e !== '');
  let branch: string | null = null;
  const paths = new Set<string>();
  const staged = new Set<string>();
  for (const entry of entries) {
    if (entry.startsWith('## ')) {
      const head = entry.slice(3);
      if (head.startsWith('HEAD (no branch)')) branch = null;
      else branch = (head.startsWith('No commits yet on ') ? head.slice('No commits yet on '.length) : head).split('...')[0] ?? null;
      continue;
    }
    paths.add(entry.slice(3));
    // X is the index column: anything but ' ' (unstaged) and '?'/'!' (untracked, ignored) is staged.
    if (!' ?!'.includes(entry[0]!)) staged.add(entry.slice(3));
  }
  return { branch, paths: [...paths].sort(), staged: [...staged].sort() };
}

export interface RepoLocation {
  /** Real path of the top of the working tree. */
  top: string;
  /** Absolute path of the git directory. */
  gitDir: string;
}

/**
 * Where each working directory's repo is, asked of git once per process
 * (a spawn saved on every look at the tree); forgotten when a git call fails.
 */
const locations = new Map<string, RepoLocation>();

export class ProjectRepo {
  constructor(
    readonly dir: string,
    private readonly options: { lockWaitMs?: number; timeoutMs?: number } = {},
  ) {}

  private git(args: string[], extra: { input?: string; env?: NodeJS.ProcessEnv } = {}) {
    return runGit(args, { cwd: this.dir, env: userGitEnv(extra.env), input: extra.input, timeoutMs: this.options.timeoutMs ?? 60_000 });
  }

  /** The repo containing `dir` (its top and git directory), or null when it is in none. */
  async locate(): Promise<RepoLocation | null> {
    const known = locations.get(this.dir);
    if (known) return known;
    try {
      const { stdout } = await this.git(['rev-parse', '--show-toplevel', '--absolute-git-dir']);
      const [top = '', gitDir = ''] = stdout.trim().split('\n');
      const location = { top: await realpath(top), gitDir };
      locations.set(this.dir, location);
      return location;
    } catch (error) {
      if (error instanceof GitError && /not a git repository/i.test(error.stderr)) return null;
      throw error;
    }
  }

  /** The top of the repo containing `dir`, or null when it is in none. */
  async topLevel(): Promise<string | null> {
    return (await this.locate())?.top ?? null;
  }

  /** `git init` (their default branch and templates apply). */
  async init(): Promise<void> {
    locations.delete(this.dir);
    await this.git(['init', '-q']);
  }

  /**
   * Branch and dirty paths. Runs with GIT_OPTIONAL_LOCKS=0 so status never
   * rewrites the user's index.
   */
  async state(): Promise<WorkingTreeState & { staged: string[] }> {
    if ((await this.locate()) === null) return { isRepo: false, branch: null, dirtyPaths: [], staged: [] };
    try {
      const { stdout } = await this.git(['status', '--porcelain=v1', '-z', '--branch', '--no-renames', '--untracked-files=all'], {
        env: { GIT_OPTIONAL_LOCKS: '0' },
      });
      const { branch, paths, staged } = parseStatus(stdout);
      return { isRepo: true, branch, dirtyPaths: paths, staged };
    } catch (error) {
      locations.delete(this.dir);
      throw error;
    }
  }

  /**
   * Stages and commits `paths` (every change when null) as `who`, with hooks
   * and signing off. With `onlyPaths: false` the caller has seen that nothing
   * else is staged, and the index is committed as it is after staging. Waits while another git holds the index lock (up to
   * `lockWaitMs`, default 15 s), never removing it. If the commit fails after
   * staging, the staged paths are unstaged again.
   * @returns the new commit's sha.
   */
  async commit(paths: string[] | null, message: string, who: Committer, options: { onlyPaths?: boolean } = {}): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'em-commit-'));
    const messageFile = join(dir, 'message');
    await writeFile(messageFile, message);
    const pathList = paths ? `${paths.join('\0')}\0` : undefined;
    const pathArgs = paths ? ['--pathspec-from-file=-', '--pathspec-file-nul'] : [];
    // `commit -- <paths>` builds a temporary index from HEAD (slow on big trees); it is only
    // needed when the index holds staged changes that are not ours.
    const commitPathArgs = paths && options.onlyPaths !== false ? pathArgs : [];
    const identity = {
      GIT_AUTHOR_NAME: who.name,
      GIT_AUTHOR_EMAIL: who.email,
      GIT_COMMITTER_NAME: who.name,
      GIT_COMMITTER_EMAIL: who.email,
    };
    let staged = false;
    try {
      await this.whileLocked(() => this.git(['add', '-A', ...pathArgs], { input: pathList }));
      staged = true;
      await this.whileLocked(() =>
        this.git(['commit', '--quiet', '--no-verify', '--no-gpg-sign', '--allow-empty-message', '-F', messageFile, ...commitPathArgs], {
          input: commitPathArgs.length > 0 ? pathList : undefined,
          env: identity,
        }),
      );
      staged = false;
      return (await this.git(['rev-parse', 'HEAD'])).stdout.trim();
    } catch (error) {
      if (staged && paths) {
        await this.git(['reset', '--quiet', ...pathArgs], { input: pathList }).catch(() => undefined);
      }
      throw error;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async whileLocked<T>(run: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + (this.options.lockWaitMs ?? 15_000);
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (!(error instanceof GitLockedError) || Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
      }
    }
  }
}
