/**
 * A project's working directory and repo, checked on every use: a folder can
 * be replaced by a symlink, a `.git` file rewritten, or a filter driver added
 * between two turns, so nothing here is remembered from one call to the next,
 * save one thing (`locateProjectRepoKept`): where the repo was found, while the
 * working directory, its `.git`, and the git directories found are the very same
 * files and nothing that says where the repo is has changed. The config is read
 * on every use (`placeOf`).
 * Every git run in a project (status, add, commit, log) goes through a place
 * opened here; refused places get no git run beyond locating the repo, and
 * nothing of ours (lock file, claims, message file, commit) is written there.
 */
import { lstat, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { BadUserInputError, ForbiddenError } from '../errors.js';
import { GitNoWorkTreeError } from '../git/errors.js';
import { ProjectRepo, type RepoLocation } from '../git/project-repo.js';
import { autoCommitState, judgeRepoConfig, unsafeConfigMessage, type AutoCommitState, type RepoConfigVerdict } from './repo-config.js';
import { checkWorkdir, insideRoots, realRoots } from './workdir.js';

type PlaceConfig = Pick<Config, 'allowedRoots' | 'dataDir'>;

/** The project fields a place needs. */
export interface PlaceProject {
  projectId: string;
  workdir: string;
  /** Fingerprint of the repo config the user trusted, or null. */
  trustedConfig: string | null;
}

export interface RepoPlace {
  /** The real path of the working directory. */
  workdir: string;
  /** The repo, with its location checked. */
  location: RepoLocation;
  /** Runs git there; with every filter driver neutralised unless auto-commit may run them. */
  repo: ProjectRepo;
  verdict: RepoConfigVerdict;
  autoCommit: Exclude<AutoCommitState, 'UNAVAILABLE'>;
  /** Why auto-commit is off and how to turn it on (DISABLED_UNSAFE_CONFIG), else null. */
  autoCommitMessage: string | null;
}

/**
 * Checks a folder and the repo around it: the folder as `checkWorkdir` does,
 * the repo's top is the folder itself, and its git directories (a `.git`
 * file's `gitdir:` target, a worktree's common directory) are real paths
 * inside the allowed roots.
 * @returns the repo's location, or null when the folder is in no repo (git
 * is not allowed to look above the allowed roots for one).
 * @throws BadUserInputError for a missing folder, a bare repo or a folder
 * inside a repo; ForbiddenError for a refused folder or git directory.
 */
export async function checkRepoPlace(workdir: string, config: PlaceConfig): Promise<{ workdir: string; location: RepoLocation | null }> {
  const real = await checkWorkdir(workdir, config);
  const repo = new ProjectRepo(real, { ceilings: realRoots(config) });
  let location: RepoLocation | null;
  try {
    location = await repo.locate();
  } catch (error) {
    if (error instanceof GitNoWorkTreeError) throw new BadUserInputError(error.message, { field: 'workdir' });
    throw error;
  }
  if (!location) {
    // A `.git` git cannot read (a `gitdir:` to nowhere): never `git init` over it.
    if (await lstat(join(real, '.git')).then(() => true, () => false)) {
      throw new BadUserInputError(`${join(real, '.git')} exists but git cannot read it as a repository; repair or remove it first.`, { field: 'workdir' });
    }
    return { workdir: real, location: null };
  }
  if (location.top !== real) {
    throw new BadUserInputError(`${real} is inside the git repository ${location.top}; use ${location.top} as the workdir.`, { field: 'workdir' });
  }
  for (const [what, dir] of [
    ['git directory', location.gitDir],
    ['common git directory', location.commonDir],
  ] as const) {
    const realDir = await realpath(dir).catch(() => dir);
    if (!insideRoots(realDir, config)) {
      throw new ForbiddenError(
        `The ${what} of ${real} is ${realDir}, outside the server's allowed roots (${realRoots(config).join(', ')}); ` +
          'nothing is written there. Point its .git back inside the project, or use another folder.',
        { field: 'workdir' },
      );
    }
  }
  return { workdir: real, location: { ...location, gitDir: await realpath(location.gitDir), commonDir: await realpath(location.commonDir) } };
}

/**
 * Opens an existing project's repo for one use.
 * @param options.init `git init` when the folder is in no repo (the end-of-turn commit). Default false: then
 * a folder in no repo is refused.
 * @throws BadUserInputError or ForbiddenError (see `checkRepoPlace`), and ForbiddenError when the folder now
 * resolves somewhere other than the project's stored real path (replaced by a symlink).
 */
export async function openProjectRepo(project: PlaceProject, config: PlaceConfig, options: { init?: boolean } = {}): Promise<RepoPlace> {
  const { workdir, location } = await locateProjectRepoKept(project, config, options);
  return placeOf(project, workdir, location, config);
}

/**
 * Where the repo is, every check run in full (one git process): what
 * `locateProjectRepoKept` runs the first time and whenever its stamp changed.
 */
async function locateProjectRepo(project: PlaceProject, config: PlaceConfig, options: { init?: boolean } = {}): Promise<{ workdir: string; location: RepoLocation }> {
  // The stored workdir is a real path: anything else now means a symlink was put in its way.
  const real = await realpath(project.workdir).catch(() => project.workdir);
  if (real !== project.workdir) {
    throw new ForbiddenError(
      `The project's working directory ${project.workdir} now resolves to ${real} (was it replaced by a symlink?); ` +
        'nothing is read or written there. Restore the folder, or create a new project.',
      { projectId: project.projectId },
    );
  }
  let checked = await checkRepoPlace(project.workdir, config);
  if (checked.workdir !== project.workdir) {
    throw new ForbiddenError(`The project's working directory ${project.workdir} now resolves to ${checked.workdir}.`, { projectId: project.projectId });
  }
  if (!checked.location && options.init) {
    await new ProjectRepo(checked.workdir, { ceilings: realRoots(config) }).init();
    checked = await checkRepoPlace(project.workdir, config);
  }
  if (!checked.location) {
    throw new BadUserInputError(`${checked.workdir} is not a git repository any more.`, { projectId: project.projectId });
  }
  return { workdir: checked.workdir, location: checked.location };
}

/** The most projects whose location is kept (`locateProjectRepoKept`). */
const LOCATIONS_KEPT = 256;

/** Where each project's repo was last located, and by which files (`placeStamp`). */
const keptLocations = new Map<string, { stamp: string; location: RepoLocation }>();

/**
 * What a location found in `workdir` rests on: the folder itself and its `.git` being the same
 * files (lstat: device, inode and type; a symlink or another folder put in their place is another
 * file), and what in them says where the repo is: a `.git` file's `gitdir:` line (its size and
 * change times), or in a `.git` folder its `commondir` file (a linked worktree's) and its `config`
 * (core.worktree, core.bare), each present or not; with a location, its git directory and common
 * directory being the same folders too (a `gitdir:` target swapped for a symlink is another file).
 * Not the times of the folders themselves: files come and go in them at every commit. Null when
 * the folder, its `.git` or a git directory of the location is missing.
 */
async function placeStamp(workdir: string, config: PlaceConfig, location?: RepoLocation): Promise<string | null> {
  const stat = (path: string) => lstat(path, { bigint: true }).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(error)));
  const same = (s: Awaited<ReturnType<typeof stat>>) => (s ? `${s.dev}:${s.ino}:${s.mode}` : '-');
  const content = (s: Awaited<ReturnType<typeof stat>>) => (s ? `${same(s)}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : '-');
  try {
    const dotGitPath = join(workdir, '.git');
    const [dir, dotGit] = await Promise.all([stat(workdir), stat(dotGitPath)]);
    if (!dir?.isDirectory() || !dotGit) return null;
    const inside = dotGit.isDirectory() ? await Promise.all([stat(join(dotGitPath, 'commondir')), stat(join(dotGitPath, 'config'))]) : [];
    const gitDirs = location ? await Promise.all([stat(location.gitDir), stat(location.commonDir)]) : [];
    if (gitDirs.some((s) => !s?.isDirectory())) return null;
    return [...realRoots(config), same(dir), dotGit.isDirectory() ? same(dotGit) : content(dotGit), ...inside.map(content), ...gitDirs.map(same)].join('\0');
  } catch {
    return null;
  }
}

/**
 * `locateProjectRepo`, remembered: the checks (and git, to locate the repo) run in full the
 * first time and whenever anything the location rests on is no longer what it was then (see
 * `placeStamp`: the working directory, its `.git`, what says where the repo is, the git
 * directories found); otherwise the location found then is given again, with the working
 * directory's real path checked again, and no git process. So git, run in the working directory,
 * finds the very repo that was checked: the same `.git` folder, or the same `gitdir:` line to the
 * same git directory. Every place opened (`openProjectRepo`: readers, the turn's close, the
 * commit under its lock, restores) and the committer's lock file are placed so; the repo's
 * config is read afresh each time.
 */
export async function locateProjectRepoKept(project: PlaceProject, config: PlaceConfig, options: { init?: boolean } = {}): Promise<{ workdir: string; location: RepoLocation }> {
  const kept = keptLocations.get(project.workdir);
  if (kept) {
    const now = await placeStamp(project.workdir, config, kept.location);
    if (now !== null && now === kept.stamp && (await realpath(project.workdir).catch(() => null)) === project.workdir) {
      return { workdir: project.workdir, location: kept.location };
    }
    keptLocations.delete(project.workdir);
  }
  const before = await placeStamp(project.workdir, config);
  const found = await locateProjectRepo(project, config, options);
  // Kept only when nothing moved while git was asked (the stamp with the location begins with the one without).
  const stamp = before === null || found.workdir !== project.workdir ? null : await placeStamp(project.workdir, config, found.location);
  if (stamp !== null && stamp.startsWith(`${before}\0`)) {
    if (keptLocations.size >= LOCATIONS_KEPT) keptLocations.delete(keptLocations.keys().next().value!);
    keptLocations.set(project.workdir, { stamp, location: found.location });
  }
  return found;
}

/** Reads the repo's effective config and picks how git may run there. */
export async function placeOf(project: Pick<PlaceProject, 'projectId' | 'trustedConfig'>, workdir: string, location: RepoLocation, config: PlaceConfig): Promise<RepoPlace> {
  const ceilings = realRoots(config);
  const verdict = judgeRepoConfig(await new ProjectRepo(workdir, { ceilings }).configEntries());
  const autoCommit = autoCommitState(verdict, project.trustedConfig);
  return {
    workdir,
    location,
    // Trusted or without drivers: git as the user runs it. Otherwise every driver found is switched off.
    repo: new ProjectRepo(workdir, { ceilings, config: autoCommit === 'DISABLED_UNSAFE_CONFIG' ? verdict.neutralisers : [] }),
    verdict,
    autoCommit,
    autoCommitMessage: autoCommit === 'DISABLED_UNSAFE_CONFIG' ? unsafeConfigMessage(project.projectId, verdict, project.trustedConfig) : null,
  };
}

/** The message of an error that refused a place, for a turn's FAILED outcome or a log line. */
export function refusalReason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A git directory already checked (`RepoPlace.location.gitDir`), or a working
 * directory whose repo is located now, unchecked (tests, benchmarks): where
 * the commit lock and the claims of a project live.
 */
export type GitDirOrWorkdir = string | { gitDir: string };

/** @throws Error when a working directory given is in no repo. */
export async function gitDirOf(where: GitDirOrWorkdir): Promise<string> {
  if (typeof where !== 'string') return where.gitDir;
  const location = await new ProjectRepo(where).locate();
  if (!location) throw new Error(`${where} is not a git repository`);
  return location.gitDir;
}
