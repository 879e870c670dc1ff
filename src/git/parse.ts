/**
 * Parsers for git's plumbing output. Pure functions over strings; they throw
 * a `GitError` when the output does not have the expected shape (which would
 * mean a git version or format mismatch, not a user error).
 */
import type { StatusResult } from 'simple-git';
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
  return parseRawNumstatTokens(stdout.split('\0')).files;
}

/**
 * Parses `diff-tree --raw --numstat -p -z`: the files as parseRawNumstat, and after them (past
 * the empty record git ends the numstat with) the patch text, split as parsePatches.
 */
export function parseRawNumstatPatches(stdout: string): { files: FileDiff[]; patches: (string | null)[] } {
  const tokens = stdout.split('\0');
  const { files, next } = parseRawNumstatTokens(tokens);
  if (files.length === 0) return { files, patches: [] };
  if (tokens[next] !== '') throw malformed('diff-tree', 'no empty record between the numstat and the patch');
  return { files, patches: parsePatches(tokens.slice(next + 1).join('\0')) };
}

function parseRawNumstatTokens(tokens: string[]): { files: FileDiff[]; next: number } {
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
  return { files, next: i };
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

// --- a user's project: status and config ---

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

/** `git status --porcelain=v2 --branch` read for the end of a turn. */
export interface StatusWithHead {
  /** HEAD's commit; null before the first commit. */
  headSha: string | null;
  /** Every path with a change (staged, unstaged or untracked), sorted. */
  dirtyPaths: string[];
  /**
   * HEAD's entry for each dirty path the status described: a path listed
   * here without an entry is not in HEAD (untracked or newly added). A path
   * not listed (an unmerged one) must be looked up in HEAD.
   */
  headEntries: Map<string, { mode: string; oid: string } | null>;
}

const ZERO_OID_RE = /^0+$/;

/**
 * Parses `git status --porcelain=v2 -z --branch --no-renames`: `# branch.oid
 * <sha>|(initial)`, ordinary entries `1 XY sub mH mI mW hH hI path`, unmerged
 * `u XY sub m1 m2 m3 mW h1 h2 h3 path`, untracked `? path`.
 */
export function parseStatusV2(output: string): StatusWithHead {
  let headSha: string | null = null;
  const paths = new Set<string>();
  const headEntries = new Map<string, { mode: string; oid: string } | null>();
  for (const entry of output.split('\0')) {
    if (entry === '') continue;
    if (entry.startsWith('# branch.oid ')) {
      const oid = entry.slice('# branch.oid '.length);
      headSha = oid === '(initial)' ? null : oid;
    } else if (entry.startsWith('1 ')) {
      // Eight fields before the path, which may itself hold spaces.
      const fields = entry.split(' ');
      const path = fields.slice(8).join(' ');
      const [mode = '', oid = ''] = [fields[3], fields[6]];
      paths.add(path);
      headEntries.set(path, ZERO_OID_RE.test(oid) || mode === '000000' ? null : { mode, oid });
    } else if (entry.startsWith('u ')) {
      paths.add(entry.split(' ').slice(10).join(' '));
    } else if (entry.startsWith('? ')) {
      const path = entry.slice(2);
      paths.add(path);
      headEntries.set(path, null);
    }
  }
  return { headSha, dirtyPaths: [...paths].sort(), headEntries };
}

/**
 * Our reading of simple-git's `StatusResult` (of `status --porcelain -b -u -z
 * --no-renames`): the branch (null when detached), every path with a change
 * and those with a staged one (index column not ' ', '?' or '!'), sorted.
 *
 * simple-git trims every entry before parsing it, so a path that begins or
 * ends with whitespace comes out wrong (`"a.txt "` as `"a.txt"`; `" a"`
 * modified in the working tree as `"a"` staged). When `raw`, the output it
 * parsed, holds such a path, the answer is `parseStatus(raw)` instead, so
 * such a file is never reported clean or under another name.
 */
export function statusFromResult(result: StatusResult, raw: string): { branch: string | null; paths: string[]; staged: string[] } {
  if (holdsEdgeWhitespacePath(raw)) return parseStatus(raw);
  const paths = new Set<string>();
  const staged = new Set<string>();
  for (const file of result.files) {
    paths.add(file.path);
    if (!' ?!'.includes(file.index)) staged.add(file.path);
  }
  return { branch: result.detached ? null : result.current, paths: [...paths].sort(), staged: [...staged].sort() };
}

function holdsEdgeWhitespacePath(raw: string): boolean {
  return raw.split('\0').some((entry) => entry.length > 3 && !entry.startsWith('## ') && entry.slice(3) !== entry.slice(3).trim());
}

/** One effective config entry, as `git config --list --show-scope --show-origin`. */
export interface ConfigEntry {
  /** `system`, `global`, `local`, `worktree` or `command`. */
  scope: string;
  /** Where it is set: `file:<path>` (a relative path is inside the repo), `command line:` … */
  origin: string;
  /** Section and key lowercase, the subsection as written: `filter.LFS.clean`. */
  key: string;
  /** Null for a key written without `=` (boolean true). */
  value: string | null;
}

/** Parses `git config --list --show-scope --show-origin -z`: `scope NUL origin NUL key [LF value] NUL`. */
export function parseConfigEntries(output: string): ConfigEntry[] {
  const fields = output.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const item = fields[i + 2]!;
    const newline = item.indexOf('\n');
    entries.push({
      scope: fields[i]!,
      origin: fields[i + 1]!,
      key: newline === -1 ? item : item.slice(0, newline),
      value: newline === -1 ? null : item.slice(newline + 1),
    });
  }
  return entries;
}

/** Parses output of one item a line (`rev-list`, `rev-parse --git-path`): the non-empty lines. */
export function parseLines(stdout: string): string[] {
  return stdout.split('\n').filter((line) => line !== '');
}

/** Parses `cat-file --batch-check=%(objectname) %(objecttype)`: the asked ids that are no blob (`<id> missing` included). */
export function parseNonBlobs(stdout: string): Set<string> {
  const missing = new Set<string>();
  for (const line of stdout.split('\n')) {
    const [oid, type] = line.split(' ');
    if (oid && type !== 'blob') missing.add(oid);
  }
  return missing;
}

/** A git identity: author and committer of a commit. */
export interface Committer {
  name: string;
  email: string;
}

/**
 * Parses `git config -z --get-regexp ^user\.(name|email)$`: `key LF value NUL`,
 * the last value of each key winning; null unless both are set and non-empty.
 */
export function parseIdentity(stdout: string): Committer | null {
  let name = '';
  let email = '';
  for (const item of stdout.split('\0')) {
    const newline = item.indexOf('\n');
    if (newline === -1) continue;
    const key = item.slice(0, newline);
    const value = item.slice(newline + 1).trim();
    if (key === 'user.name') name = value;
    if (key === 'user.email') email = value;
  }
  return name !== '' && email !== '' ? { name, email } : null;
}

/** A tree entry as `ls-tree` prints it. */
export interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
}

/** Parses `ls-tree -z`: `<mode> SP <type> SP <oid> TAB <path> NUL`. */
export function parseTreeListing(stdout: string): { path: string; entry: TreeEntry }[] {
  const out: { path: string; entry: TreeEntry }[] = [];
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode = '', type = '', oid = ''] = record.slice(0, tab).split(' ');
    out.push({ path: record.slice(tab + 1), entry: { mode, type, oid } });
  }
  return out;
}

/** Parses the paths of a raw `-z` diff without renames (`diff-index`): `:<modes> <oids> <status>` NUL `<path>` NUL. */
export function parseRawDiffPaths(stdout: string): string[] {
  const items = stdout.split('\0');
  const paths: string[] = [];
  for (let i = 0; i + 1 < items.length; i += 2) paths.push(items[i + 1]!);
  return paths;
}

/** Parses the paths of `ls-files -s -z`: `<mode> <oid> <stage>` TAB `<path>` NUL. */
export function parseStagedPaths(stdout: string): string[] {
  return stdout.split('\0').flatMap((record) => (record.includes('\t') ? [record.slice(record.indexOf('\t') + 1)] : []));
}

/** Lines [startLine, endLine] (1-based, inclusive) of a file last changed by commit `sha`, and their text. */
export interface BlameRange {
  sha: string;
  startLine: number;
  endLine: number;
  lines: string[];
}

/**
 * `git blame --porcelain`: each line's commit and text, consecutive lines of one commit as one
 * range, in line order. The group headers (`<sha> <orig line> <final line> [<count>]`) and the
 * TAB-led text lines are read; the commits' details are skipped (read as commits, once each).
 */
export function parseBlamePorcelain(stdout: string): BlameRange[] {
  const ranges: BlameRange[] = [];
  for (const line of stdout.split('\n')) {
    if (line.startsWith('\t')) {
      ranges.at(-1)?.lines.push(line.slice(1));
      continue;
    }
    const header = /^([0-9a-f]{40}|[0-9a-f]{64}) \d+ (\d+)(?: \d+)?$/.exec(line);
    if (!header) continue;
    const sha = header[1]!;
    const number = Number(header[2]);
    const last = ranges.at(-1);
    if (last && last.sha === sha && last.endLine === number - 1) last.endLine = number;
    else ranges.push({ sha, startLine: number, endLine: number, lines: [] });
  }
  return ranges;
}
