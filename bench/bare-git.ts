/**
 * The bare baseline of a turn commit: the same files committed by hand with
 * plain git plumbing (files written, `update-index`, `write-tree`,
 * `commit-tree`, `update-ref`), spawned directly with an isolated
 * environment, as a person would script it. bench/mirror.ts and
 * bench/turn-latency.ts time the mirror against it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { contentBytes, type Identity, type RepoFile } from '../src/git/commit-input.js';
import { bareGitEnv, command } from './stats.js';

export const BARE_ENV = bareGitEnv(true);

export const BARE_STEPS = ['write files', 'update-index', 'write-tree', 'commit-tree', 'update-ref'] as const;

/** Runs git with the bare environment; resolves with its stdout. */
export function sh(args: string[], cwd: string, opts: { input?: string | Buffer; env?: NodeJS.ProcessEnv; stdinFd?: number } = {}): Promise<string> {
  return command('git', args, { cwd, env: opts.env ?? BARE_ENV, input: opts.input, stdinFd: opts.stdinFd });
}

function identityEnvFor(who: Identity): NodeJS.ProcessEnv {
  const date = `@${Math.floor(who.date.getTime() / 1000)} +0000`;
  return {
    ...BARE_ENV,
    GIT_AUTHOR_NAME: who.name,
    GIT_AUTHOR_EMAIL: who.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: who.name,
    GIT_COMMITTER_EMAIL: who.email,
    GIT_COMMITTER_DATE: date,
  };
}

/** One turn by hand on `branch` of the repo at `dir`, from `parent`. Returns the commit and per-step ms (BARE_STEPS). */
export async function bareCommit(
  dir: string,
  turn: { files: readonly RepoFile[]; message: string; author: Identity },
  parent: string,
  branch = 'main',
): Promise<{ sha: string; steps: number[] }> {
  const env = identityEnvFor(turn.author);
  const paths = turn.files.map((f) => f.path);
  const marks = [performance.now()];
  const dirs = new Set(paths.map((p) => dirname(p)).filter((d) => d !== '.'));
  await Promise.all([...dirs].map((d) => mkdir(join(dir, d), { recursive: true })));
  await Promise.all(turn.files.map((f) => writeFile(join(dir, f.path), contentBytes(f.content))));
  marks.push(performance.now());
  await sh(['update-index', '--add', '--', ...paths], dir);
  marks.push(performance.now());
  const tree = (await sh(['write-tree'], dir)).trim();
  marks.push(performance.now());
  const sha = (await sh(['commit-tree', tree, '-p', parent], dir, { input: turn.message, env })).trim();
  marks.push(performance.now());
  await sh(['update-ref', `refs/heads/${branch}`, sha, parent], dir);
  marks.push(performance.now());
  return { sha, steps: marks.slice(1).map((m, i) => m - marks[i]!) };
}
