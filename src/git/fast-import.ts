/**
 * `git fast-import` for session repos: the one way session commits are
 * written. `SessionRepo.commitTurn` streams one commit per turn through it;
 * rebuilds and backfills stream a whole session (hundreds of times faster
 * than one process per turn). Both encode with `encodeCommit`, so a repo can
 * be built by one and continued by the other; tests hold the commits
 * byte-identical to what git writes through the index for the same tree,
 * message, identities and dates (test/git/index-commit-oracle.ts).
 *
 * The stream goes to git in few writes: the commits are encoded into batches
 * of up to STREAM_BATCH_BYTES, each written whole (with backpressure between
 * batches, so a rebuild of a huge session is never one buffer), the last with
 * the end of the stream. A mirror pass is one batch, so git's stdin is one
 * write: its pipe goes through the git launcher's IPC, and every round trip
 * for a chunk waited on this process's event loop, busy with requests.
 * `fast-import` leaves the index and working tree alone: after a bulk import
 * call `SessionRepo.resetWorkingTree()` (or `checkoutBranch`).
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fastImportArgv } from './argv.js';
import {
  assertFiles,
  normalizeIdentity,
  commitMessageBytes,
  contentBytes,
  rawGitDate,
  type Identity,
  type RepoFile,
} from './commit-input.js';
import { GitArgumentError, GitError } from './errors.js';
import { assertBranchName, isFullSha } from './refs.js';
import { gitEnv, startGit, type GitResult } from './run.js';

export interface FastImportCommit {
  /** A valid session branch; the commit becomes its tip (later commits in the stream may move it on). */
  branch: string;
  /**
   * `'none'` for a root commit, `fastImportMark(i)` (`:<i+1>`) for the i-th
   * commit of this same stream (an earlier one), or the full sha of a commit
   * already in the repo. The commit's tree is the parent's tree plus `files`.
   */
  parent: string;
  files: RepoFile[];
  /** The full message; a final newline is added when missing. */
  message: string;
  author: Identity;
  /** Default: the author. */
  committer?: Identity;
}

export interface FastImportOptions {
  /** Let a branch that already exists move to a commit that does not contain its old tip. Default false (git then fails). */
  force?: boolean;
  /** Kill fast-import after this many ms. Default 600 000; 0 disables. */
  timeoutMs?: number;
}

export interface FastImportResult {
  /** The sha of each input commit, in input order. */
  shas: string[];
  /** Each branch written to, and its final tip. */
  tips: Map<string, string>;
}

/** Bytes of encoded commits written to git at once (a mirror pass is far below it). */
export const STREAM_BATCH_BYTES = 4 * 1024 * 1024;

/** The mark of the `index`-th (0-based) commit of a stream, to use as a later commit's `parent`. */
export function fastImportMark(index: number): string {
  return `:${index + 1}`;
}

/**
 * Streams `commits` into the repo at `dir` (already initialised, see
 * `SessionRepo.init`) and returns their shas.
 *
 * Throws `GitArgumentError` for an invalid commit (before or during the
 * stream: nothing is written then, thanks to fast-import's `done` feature,
 * except unreferenced objects), or the `GitError` fast-import exited with.
 */
export async function fastImport(
  dir: string,
  commits: Iterable<FastImportCommit> | AsyncIterable<FastImportCommit>,
  opts: FastImportOptions = {},
): Promise<FastImportResult> {
  const root = resolve(dir);
  const gitDir = join(root, '.git');
  const marksFile = join(gitDir, `entity-memory-marks-${process.pid}-${randomUUID()}`);
  const git = startGit(fastImportArgv(marksFile, opts.force ?? false), {
    cwd: root,
    env: gitEnv({ GIT_DIR: gitDir }),
    timeoutMs: opts.timeoutMs ?? 600_000,
  });
  const branches: string[] = [];
  try {
    const write = streamWriter(git.stdin, git.done);
    // With `feature done`, a stream cut short (we throw below) is rejected whole.
    let batch: Buffer[] = [Buffer.from('feature done\n')];
    let batchBytes = batch[0]!.length;
    let index = 0;
    for await (const commit of commits) {
      const encoded = encodeCommit(commit, index);
      batch.push(encoded);
      batchBytes += encoded.length;
      branches.push(commit.branch);
      index++;
      if (batchBytes >= STREAM_BATCH_BYTES) {
        await write(Buffer.concat(batch, batchBytes));
        batch = [];
        batchBytes = 0;
      }
    }
    batch.push(Buffer.from('done\n'));
    git.stdin.end(Buffer.concat(batch));
    await git.done;
    const marks = parseMarks(await readFile(marksFile, 'utf8'));
    const shas = branches.map((_, i) => {
      const sha = marks.get(i + 1);
      if (!sha) throw new GitError(`fast-import exported no mark :${i + 1}`);
      return sha;
    });
    const tips = new Map<string, string>();
    branches.forEach((branch, i) => tips.set(branch, shas[i]!));
    return { shas, tips };
  } catch (error) {
    git.kill();
    await git.done.catch(() => undefined);
    throw error;
  } finally {
    await rm(marksFile, { force: true });
  }
}

/** Encodes one `commit` command (with its inline file contents). */
export function encodeCommit(commit: FastImportCommit, index: number): Buffer {
  const where = `fast-import commit #${index}`;
  assertBranchName(commit.branch);
  assertFiles(commit.files);
  const author = normalizeIdentity(commit.author, 'author');
  const committer = normalizeIdentity(commit.committer ?? commit.author, 'committer');
  const message = commitMessageBytes(commit.message);
  const from = parentFrom(commit.parent, index, where);

  const ref = `refs/heads/${commit.branch}`;
  const parts: Buffer[] = [];
  const text = (s: string) => parts.push(Buffer.from(s, 'utf8'));
  // A root commit on a branch the stream already wrote to: forget that branch's tip first.
  if (from === null) text(`reset ${ref}\n`);
  text(
    `commit ${ref}\nmark ${fastImportMark(index)}\n` +
      `author ${author.name} <${author.email}> ${rawGitDate(author.date)}\n` +
      `committer ${committer.name} <${committer.email}> ${rawGitDate(committer.date)}\n` +
      `data ${message.length}\n`,
  );
  parts.push(message);
  text(from === null ? '\n' : `\nfrom ${from}\n`);
  for (const file of commit.files) {
    const bytes = contentBytes(file.content);
    // For `M`, the path is the rest of the line; assertFiles refused LF and a leading quote.
    text(`M 100644 inline ${file.path}\ndata ${bytes.length}\n`);
    parts.push(bytes);
    text('\n');
  }
  text('\n');
  return Buffer.concat(parts);
}

function parentFrom(parent: string, index: number, where: string): string | null {
  if (parent === 'none') return null;
  const mark = /^:([1-9][0-9]*)$/.exec(parent);
  if (mark) {
    if (Number(mark[1]) > index) throw new GitArgumentError(`${where}: parent ${parent} is not an earlier commit of the stream`);
    return parent;
  }
  if (isFullSha(parent)) return parent.toLowerCase();
  throw new GitArgumentError(`${where}: parent must be 'none', a :mark or a full sha, got ${JSON.stringify(parent)}`);
}

/** `:<n> <sha>` per line. */
function parseMarks(text: string): Map<number, string> {
  const marks = new Map<number, string>();
  for (const line of text.split('\n')) {
    const m = /^:(\d+) ([0-9a-f]{40,64})$/.exec(line);
    if (m) marks.set(Number(m[1]), m[2]!);
  }
  return marks;
}

/**
 * Writes with backpressure; if git exits while we wait for `drain`, its
 * error wins (or a generic one if it exited 0 mid-stream).
 */
function streamWriter(stdin: NodeJS.WritableStream, done: Promise<GitResult<string>>) {
  let exited = false;
  const exit = done.then(
    () => {
      exited = true;
      throw new GitError('git fast-import exited before the stream ended');
    },
    (error: unknown) => {
      exited = true;
      throw error;
    },
  );
  exit.catch(() => undefined);
  return async (chunk: Buffer): Promise<void> => {
    if (exited) await exit;
    if (stdin.write(chunk)) return;
    await Promise.race([new Promise<void>((ok) => stdin.once('drain', ok)), exit]);
  };
}
