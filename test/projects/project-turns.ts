/**
 * What the end-of-turn project tests share: a server with short committer
 * delays, a user's repo, plain-GraphQL turns and outcomes, and a byte-for-byte
 * picture of everything of the user's in a repo (working tree, git directory,
 * refs, stash) to prove a skip touched nothing.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ProjectCommitterOptions } from '../../src/projects/committer.js';
import { CreateSession } from '../api/operations.js';
import { CreateProject } from './operations.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

/** Short settle and retry delays: a skip is decided in ~60 ms, a held lock retried every ≤200 ms. */
export const FAST_COMMITTER: ProjectCommitterOptions = { settleMs: 20, settleAttempts: 3, retryBaseMs: 50, retryMaxMs: 200 };

export const USER_ENV = { GIT_AUTHOR_NAME: 'Dana', GIT_AUTHOR_EMAIL: 'dana@example.com', GIT_COMMITTER_NAME: 'Dana', GIT_COMMITTER_EMAIL: 'dana@example.com' };

/** git as the user runs it, with their identity (and any extra environment, e.g. GIT_SEQUENCE_EDITOR). */
export function userGit(dir: string, ...args: string[]): string {
  return userGitEnv(dir, {}, ...args);
}

export function userGitEnv(dir: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C', ...USER_ENV, ...env },
  });
}

/** A git command the user expects to stop with a non-zero exit (a conflict). */
export function userGitFails(dir: string, ...args: string[]): void {
  expect(() => userGit(dir, ...args), `git ${args.join(' ')}`).toThrow();
}

export async function projectServer(): Promise<{ api: TestServer; root: string }> {
  const root = tempDir('em-turns-');
  const api = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
  return { api, root };
}

/** A repo on `main` with one commit by the user: README.md and notes.txt ("v1"). */
export function userRepo(root: string, name = 'app'): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  userGit(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), '# app\n');
  writeFileSync(join(dir, 'notes.txt'), 'v1\n');
  userGit(dir, 'add', '-A');
  userGit(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** A project on `dir` and a session `sessionId` in it. */
export async function projectSession(api: TestServer, dir: string, sessionId = 's', model = 'test-model'): Promise<string> {
  const { createProject } = await api.ok(CreateProject, { input: { name: 'App', workdir: dir } });
  await api.ok(CreateSession, { input: { sessionId, model, projectId: createProject.projectId } });
  return createProject.projectId;
}

export interface ProjectCommitView {
  result: string;
  reason: string | null;
  paths: string[];
  dirtyPaths: string[];
  message: string | null;
  commit: { sha: string } | null;
  snapshot: { sha: string } | null;
}

/** Cheap: no git-backed field, so fifty turns fit in one request's cost. */
const RESULTS = `
  query Results($sessionId: String!) {
    session(sessionId: $sessionId) {
      turns(first: 50) { edges { cursor node { number projectCommit { result } } } }
    }
  }`;

/** One turn's outcome with its commits (git-backed, so one turn a request). */
const OUTCOME = `
  query Outcome($sessionId: String!, $after: String) {
    session(sessionId: $sessionId) {
      turns(first: 1, after: $after) { edges { node { number projectCommit { result reason paths dirtyPaths message commit { sha } snapshot { sha } } } } }
    }
  }`;

async function query<T>(api: TestServer, text: string, variables: Record<string, unknown>): Promise<T> {
  const result = await api.raw(text, variables);
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return result.data as unknown as T;
}

interface TurnEdges<N> {
  session: { turns: { edges: { cursor: string; node: N }[] } };
}

/** Each turn's project result now (PENDING until the commit has run). */
export async function results(api: TestServer, sessionId: string): Promise<Map<number, { result: string; cursor: string } | null>> {
  const data = await query<TurnEdges<{ number: number; projectCommit: { result: string } | null }>>(api, RESULTS, { sessionId });
  return new Map(data.session.turns.edges.map((e) => [e.node.number, e.node.projectCommit ? { result: e.node.projectCommit.result, cursor: e.cursor } : null]));
}

/** The turn's project commit once it has run (not PENDING). */
export async function outcome(api: TestServer, sessionId: string, number: number): Promise<ProjectCommitView> {
  await eventually(async () => {
    const found = (await results(api, sessionId)).get(number);
    return found && found.result !== 'PENDING';
  });
  const cursors = await results(api, sessionId);
  const after = number > 1 ? cursors.get(number - 1)?.cursor : undefined;
  const data = await query<TurnEdges<{ number: number; projectCommit: ProjectCommitView | null }>>(api, OUTCOME, { sessionId, after });
  const node = data.session.turns.edges[0]?.node;
  expect(node?.number).toBe(number);
  return node!.projectCommit!;
}

const RECORD = `
  mutation Record($input: RecordTurnInput!) {
    recordTurn(input: $input) { number projectCommit { result paths } }
  }`;

export interface RecordInput {
  sessionId: string;
  content?: string;
  touchedPaths?: string[];
  startedAt?: string;
}

/** recordTurn; returns the closing response's turn number and project commit. */
export async function recordTurn(api: TestServer, input: RecordInput): Promise<{ number: number; projectCommit: { result: string; paths: string[] } | null }> {
  const { sessionId, content = 'do it', ...rest } = input;
  const result = await api.raw(RECORD, { input: { sessionId, user: { content }, assistant: { content: 'done' }, ...rest } });
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return (result.data as unknown as { recordTurn: { number: number; projectCommit: { result: string; paths: string[] } | null } }).recordTurn;
}

export function snapshotRefOf(sessionId: string, turn: number): string {
  return `refs/entity-memory/snapshots/${sessionId}/turn-${turn}`;
}

/** Everything of the user's in a repo, byte for byte. */
export interface RepoPicture {
  /** Every path outside .git: mode and content hash (symlinks: their target). */
  worktree: Record<string, string>;
  /** Every file of the git directory (index, HEAD, MERGE_HEAD, rebase-merge/…, refs, logs) but objects and ours. */
  gitDir: Record<string, string>;
  /** `git for-each-ref` without refs/entity-memory/. */
  refs: string;
  stash: string;
}

function walk(base: string, rel: string, skip: (rel: string) => boolean, out: Record<string, string>): void {
  for (const name of readdirSync(join(base, rel)).sort()) {
    const path = rel ? `${rel}/${name}` : name;
    if (skip(path)) continue;
    const info = lstatSync(join(base, path));
    const mode = (info.mode & 0o7777).toString(8);
    if (info.isDirectory()) {
      out[`${path}/`] = mode;
      walk(base, path, skip, out);
    } else if (info.isSymbolicLink()) {
      out[path] = `link ${readlinkSync(join(base, path))}`;
    } else {
      out[path] = `${mode} ${createHash('sha256').update(readFileSync(join(base, path))).digest('hex')}`;
    }
  }
}

/** Files of ours in a git directory: objects (blobs and snapshot commits), our refs, claims, lock and temporary index. */
function ours(path: string): boolean {
  return (
    path === 'objects' ||
    path.startsWith('entity-memory-') ||
    path === 'refs/entity-memory' ||
    path === 'logs/refs/entity-memory'
  );
}

/** Reads files first, then runs only read-only git commands (no status: it may refresh the index). */
export function picture(dir: string): RepoPicture {
  const worktree: Record<string, string> = {};
  walk(dir, '', (p) => p === '.git', worktree);
  const gitDir: Record<string, string> = {};
  walk(join(dir, '.git'), '', ours, gitDir);
  const refs = git(dir, 'for-each-ref', '--format=%(refname) %(objecttype) %(objectname) %(symref)')
    .split('\n')
    .filter((line) => !line.startsWith('refs/entity-memory/'))
    .join('\n');
  return { worktree, gitDir, refs, stash: git(dir, 'stash', 'list', '--format=%H %gd %gs') };
}

/** The repo is exactly as `before`, and no temporary index of ours was left behind. */
export function expectUntouched(dir: string, before: RepoPicture): void {
  const after = picture(dir);
  expect(after.worktree, 'working tree').toEqual(before.worktree);
  expect(after.gitDir, 'git directory').toEqual(before.gitDir);
  expect(after.refs, 'refs').toBe(before.refs);
  expect(after.stash, 'stash').toBe(before.stash);
  expect(readdirSync(join(dir, '.git')).filter((n) => n.startsWith('entity-memory-index-'))).toEqual([]);
}

/** A skipped turn's snapshot: on its private ref, on `parent`, holding `files` (path → content). */
export function expectSnapshot(dir: string, result: ProjectCommitView, sessionId: string, turn: number, parent: string, files: Record<string, string>): void {
  expect(result.snapshot?.sha, 'snapshot').toBeTruthy();
  expect(git(dir, 'rev-parse', snapshotRefOf(sessionId, turn)).trim()).toBe(result.snapshot!.sha);
  expect(git(dir, 'rev-parse', `${result.snapshot!.sha}^`).trim()).toBe(parent);
  for (const [path, content] of Object.entries(files)) {
    expect(git(dir, 'show', `${result.snapshot!.sha}:${path}`), path).toBe(content);
  }
}

/** Commits on HEAD made by the agent. */
export function agentCommits(dir: string): string[] {
  return git(dir, 'log', '--format=%H', '--author=agent@openprogram.invalid', 'HEAD').split('\n').filter(Boolean);
}
