/**
 * Parsers for git's plumbing output. Pure functions over strings; they throw
 * a `GitError` when the output does not have the expected shape (which would
 * mean a git version or format mismatch, not a user error).
 */
import { LOG_FIELDS } from './argv.js';
import { GitError } from './errors.js';

export interface Person {
  name: string;
  email: string;
  date: Date;
}

export interface CommitInfo {
  sha: string;
  parents: string[];
  author: Person;
  committer: Person;
  /** The raw message exactly as stored (normally ending with a newline). */
  message: string;
  /** The message's trailers as git reads them (`Key: value`, unfolded); on repeated keys the last wins. */
  trailers: Record<string, string>;
}

/** How a commit changed a file: `FileChange.status`'s `ChangeStatus`. */
export const DIFF_STATUSES = ['ADDED', 'MODIFIED', 'DELETED', 'RENAMED'] as const;
export type DiffStatus = (typeof DIFF_STATUSES)[number];

export interface FileDiff {
  path: string;
  /** The path before a rename, else null. */
  oldPath: string | null;
  status: DiffStatus;
  additions: number;
  deletions: number;
  /** This file's section of the unified diff (`diff --git` header included); null for binary files. */
  patch: string | null;
}

export interface TreeFile {
  path: string;
  size: number;
}

function malformed(what: string, detail: string): GitError {
  return new GitError(`unexpected git ${what} output: ${detail}`);
}

/**
 * Parses `%(trailers:only,unfold)` output: one `Key: value` per line.
 * Git has already decided which lines are trailers and joined folded ones.
 */
export function parseTrailers(text: string): Record<string, string> {
  const trailers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([^:\s][^:]*?)\s*:\s?(.*)$/.exec(line);
    if (m) trailers[m[1]!] = m[2]!.trim();
  }
  return trailers;
}

function unixDate(seconds: string): Date {
  const n = Number(seconds);
  if (!Number.isFinite(n)) throw malformed('log', `bad timestamp ${JSON.stringify(seconds)}`);
  return new Date(n * 1000);
}

/** Parses `log -z --format=LOG_FORMAT` output, newest first as git printed it. */
export function parseLog(stdout: string): CommitInfo[] {
  if (stdout === '') return [];
  const tokens = stdout.split('\0');
  // Each record is NUL-terminated, so a complete output ends with one empty token.
  if (tokens[tokens.length - 1] === '') tokens.pop();
  const width = LOG_FIELDS.length;
  if (tokens.length % width !== 0) throw malformed('log', `${tokens.length} fields is not a multiple of ${width}`);
  const commits: CommitInfo[] = [];
  for (let i = 0; i < tokens.length; i += width) {
    const [sha, parents, an, ae, at, cn, ce, ct, trailers, message] = tokens.slice(i, i + width) as [
      string, string, string, string, string, string, string, string, string, string,
    ];
    if (!/^[0-9a-f]{40,64}$/.test(sha)) throw malformed('log', `bad sha ${JSON.stringify(sha)}`);
    commits.push({
      sha,
      parents: parents === '' ? [] : parents.split(' '),
      author: { name: an, email: ae, date: unixDate(at) },
      committer: { name: cn, email: ce, date: unixDate(ct) },
      message,
      trailers: parseTrailers(trailers),
    });
  }
  return commits;
}

/** Parses `for-each-ref --format='%(objectname) %(refname)' refs/heads/` into branch → sha. */
export function parseBranchTips(stdout: string): Map<string, string> {
  const tips = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    if (line === '') continue;
    const space = line.indexOf(' ');
    const sha = line.slice(0, space);
    const ref = line.slice(space + 1);
    if (space < 0 || !ref.startsWith('refs/heads/')) throw malformed('for-each-ref', JSON.stringify(line));
    tips.set(ref.slice('refs/heads/'.length), sha);
  }
  return tips;
}

/** Parses `ls-tree -r -l -z` output; only blobs (submodules and the like are skipped). */
export function parseLsTree(stdout: string): TreeFile[] {
  const files: TreeFile[] = [];
  for (const entry of stdout.split('\0')) {
    if (entry === '') continue;
    const tab = entry.indexOf('\t');
    if (tab < 0) throw malformed('ls-tree', JSON.stringify(entry));
    const [, type, , size] = entry.slice(0, tab).split(/ +/);
    if (type !== 'blob') continue;
    files.push({ path: entry.slice(tab + 1), size: Number(size) });
  }
  return files;
}

/** Parses `config --list -z` output into key → last value. */
export function parseConfigList(stdout: string): Map<string, string> {
  const config = new Map<string, string>();
  for (const entry of stdout.split('\0')) {
    if (entry === '') continue;
    const nl = entry.indexOf('\n');
    if (nl < 0) config.set(entry, 'true');
    else config.set(entry.slice(0, nl), entry.slice(nl + 1));
  }
  return config;
}

const STATUS: Record<string, DiffStatus> = { A: 'ADDED', M: 'MODIFIED', T: 'MODIFIED', D: 'DELETED', R: 'RENAMED', C: 'ADDED' };

/**
 * Parses `diff-tree -r -M --raw --numstat -z` output: first the raw entries
 * (`:modes shas status\0path\0[path2\0]`), then as many numstat entries
 * (`adds\tdels\tpath\0`, or `adds\tdels\t\0old\0new\0` for a rename).
 * `patch` is left null: `GitRepo.diffPatches` reads the patches, in the same order, when asked.
 */
export function parseRawNumstat(stdout: string): FileDiff[] {
  const tokens = stdout.split('\0');
  let i = 0;
  const files: FileDiff[] = [];
  while (i < tokens.length && tokens[i]!.startsWith(':')) {
    const meta = tokens[i++]!;
    const letter = meta.slice(meta.lastIndexOf(' ') + 1).charAt(0);
    const status = STATUS[letter];
    if (!status) throw malformed('diff-tree', `unknown status in ${JSON.stringify(meta)}`);
    const first = tokens[i++];
    if (first === undefined) throw malformed('diff-tree', 'missing path');
    if (letter === 'R' || letter === 'C') {
      const second = tokens[i++];
      if (second === undefined) throw malformed('diff-tree', 'missing rename target');
      files.push({ path: second, oldPath: letter === 'R' ? first : null, status, additions: 0, deletions: 0, patch: null });
    } else {
      files.push({ path: first, oldPath: null, status, additions: 0, deletions: 0, patch: null });
    }
  }
  for (const file of files) {
    const stat = tokens[i++];
    if (stat === undefined) throw malformed('diff-tree', 'fewer numstat than raw entries');
    const [adds, dels, path] = stat.split('\t');
    if (path === '') i += 2; // rename: old and new path follow as their own tokens
    file.additions = adds === '-' ? 0 : Number(adds);
    file.deletions = dels === '-' ? 0 : Number(dels);
  }
  return files;
}

/**
 * Splits a `diff-tree -p` output into per-file sections. A section starts at
 * a line beginning with `diff --git `; content lines are always prefixed
 * (` `, `+`, `-`, `\`), so they can never be mistaken for one.
 */
export function splitPatch(patch: string): string[] {
  if (patch === '') return [];
  const sections: string[] = [];
  let start = patch.startsWith('diff --git ') ? 0 : -1;
  let from = 0;
  for (;;) {
    const next = patch.indexOf('\ndiff --git ', from);
    if (next < 0) break;
    if (start >= 0) sections.push(patch.slice(start, next + 1));
    start = next + 1;
    from = next + 1;
  }
  if (start >= 0) sections.push(patch.slice(start));
  return sections;
}

/** A section is binary when git printed no text hunks for it. */
export function isBinarySection(section: string): boolean {
  return /^Binary files .* differ$/m.test(section) || /^GIT binary patch$/m.test(section);
}

/** The patch of each file of a `diff-tree -p` output, in git's order; null for a binary file. */
export function parsePatches(patch: string): (string | null)[] {
  return splitPatch(patch).map((section) => (isBinarySection(section) ? null : section));
}
