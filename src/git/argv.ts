/**
 * Argv builders: pure functions from validated inputs to the arguments after
 * `git`. Nothing here validates; callers pass values already checked by
 * `refs.ts` / `commit-input.ts`. User-controlled text never appears here:
 * messages and path lists go through stdin.
 */

/** Fields of one commit in `LOG_FORMAT`, in order. */
export const LOG_FIELDS = [
  'sha',
  'parents',
  'authorName',
  'authorEmail',
  'authorTime',
  'committerName',
  'committerEmail',
  'committerTime',
  'trailers',
  'message',
] as const;

/**
 * One commit per NUL-terminated record (`-z`), fields NUL-separated, the raw
 * message last. No field can contain NUL (git cannot store one), so the
 * output splits unambiguously whatever the message holds.
 */
export const LOG_FORMAT = '%H%x00%P%x00%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct%x00%(trailers:only,unfold)%x00%B';

/** A session repo's init: no template (no sample hooks, description or info/exclude: 15 files, ~70 KB on disk per repo). */
export function initArgv(): string[] {
  return ['init', '-q', '--template=', '-b', 'main'];
}

export function configListArgv(): string[] {
  return ['config', '--local', '--list', '-z'];
}

export function configSetArgv(key: string, value: string): string[] {
  return ['config', '--local', '--replace-all', key, value];
}

/** Reads NUL-separated paths from stdin and stages them as they are on disk. */
export function updateIndexAddArgv(): string[] {
  return ['update-index', '--add', '-z', '--stdin'];
}

/** Makes index and working tree match `treeish`; tracked files not in it are removed. */
export function readTreeResetArgv(treeish: string): string[] {
  return ['read-tree', '--reset', '-u', treeish];
}

export function checkoutBranchArgv(branch: string): string[] {
  return ['checkout', '-f', '-q', branch, '--'];
}

export function checkoutDetachedArgv(sha: string): string[] {
  return ['checkout', '-f', '-q', '--detach', sha, '--'];
}

export function forEachBranchArgv(): string[] {
  return ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/'];
}

export function verifyCommitArgv(rev: string): string[] {
  return ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`];
}

export function logArgv(opts: { rev?: string; all?: boolean; skip?: number; limit?: number; format?: string; path?: string }): string[] {
  const argv = ['log', '-z', `--format=${opts.format ?? LOG_FORMAT}`, '--no-color', '--no-decorate'];
  // Across branches, keep every child before its parent even when commit times tie.
  if (opts.all) argv.push('--date-order');
  if (opts.skip) argv.push(`--skip=${opts.skip}`);
  if (opts.limit !== undefined) argv.push(`--max-count=${opts.limit}`);
  // Every branch: the history. Other refs (a session's exported contexts, a project's private
  // snapshots) are not part of it.
  argv.push(...(opts.all ? ['--branches'] : ['--end-of-options', opts.rev ?? 'HEAD']), '--');
  // Only the commits that changed this file (its history; a rename ends it).
  if (opts.path !== undefined) argv.push(opts.path);
  return argv;
}

export function revListCountArgv(target: { rev: string; path?: string } | { all: true }): string[] {
  if ('all' in target) return ['rev-list', '--count', '--branches'];
  return ['rev-list', '--count', '--end-of-options', target.rev, '--', ...(target.path !== undefined ? [target.path] : [])];
}

/**
 * Which commit last changed each line of `path` at `sha` (a full sha: git blame takes no
 * --end-of-options, so nothing but a sha goes before the `--`).
 */
export function blameArgv(sha: string, path: string): string[] {
  return ['blame', '--porcelain', sha, '--', path];
}

export function lsTreeArgv(rev: string): string[] {
  return ['ls-tree', '-r', '-l', '-z', '--full-tree', rev];
}

export function catFileBlobArgv(rev: string, path: string): string[] {
  return ['cat-file', 'blob', `${rev}:${path}`];
}

/**
 * Diffs pass `--no-ext-diff --no-textconv` although `diff-tree` is plumbing and
 * runs neither by default: a repo's `diff.external`, `diff.<driver>.command`
 * and `diff.<driver>.textconv` name programs, and no per-call key turns them
 * all off (see PER_CALL_CONFIG).
 */
export function diffRawNumstatArgv(base: string, sha: string): string[] {
  return ['diff-tree', '-r', '-M', '--no-ext-diff', '--no-textconv', '--raw', '--numstat', '-z', base, sha];
}

export function diffRawNumstatPatchArgv(base: string, sha: string): string[] {
  return ['diff-tree', '-r', '-M', '--no-ext-diff', '--no-textconv', '--no-color', '--raw', '--numstat', '-p', '-z', base, sha];
}

export function diffPatchArgv(base: string, sha: string): string[] {
  return ['diff-tree', '-r', '-M', '--no-ext-diff', '--no-textconv', '--no-color', '-p', base, sha];
}

export function fastImportArgv(marksFile: string, force: boolean): string[] {
  return ['fast-import', '--quiet', '--date-format=raw', `--export-marks=${marksFile}`, ...(force ? ['--force'] : [])];
}
