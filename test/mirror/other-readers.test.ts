/**
 * Session repos as another git implementation sees them: isomorphic-git reads
 * every repo a real server made (turns, a retry branch, a fork, a rebuild, a
 * repo an older version left with a split index) as clean, and reads the
 * same commits, branches and message files as the API serves.
 */
import * as fs from 'node:fs';
import { rmSync } from 'node:fs';
import isomorphicGit from 'isomorphic-git';
import { describe, expect, it } from 'vitest';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

async function ok<T>(api: TestServer, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const result = await api.raw(query, variables);
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return result.data as T;
}

const RECORD_TURN = `mutation ($input: RecordTurnInput!) { recordTurn(input: $input) { number branch } }`;
const APPEND = `mutation ($input: AppendMessageInput!) { appendMessage(input: $input) { messageId } }`;
const END_TURN = `mutation ($input: EndTurnInput!) { endTurn(input: $input) { number branch } }`;

interface SessionView {
  repoPath: string;
  currentBranch: string;
  detached: boolean;
  head: { sha: string } | null;
  mirror: { dagTurns: number; gitCommits: number; inSync: boolean; lastError: string | null };
  branches: { name: string; head: { sha: string } | null }[];
}
const SESSION_VIEW = `query ($sessionId: String!) { session(sessionId: $sessionId) {
  repoPath currentBranch detached head { sha }
  mirror { dagTurns gitCommits inSync lastError }
  branches { name head { sha } }
} }`;

interface TimelineCommit {
  sha: string;
  message: string;
  parentShas: string[];
  author: { name: string; email: string; date: string };
  committer: { name: string; email: string; date: string };
}
const TIMELINE = `query ($sessionId: String!, $branch: String) { session(sessionId: $sessionId) {
  timeline(branch: $branch, first: 100) { edges { node { sha message parentShas author { name email date } committer { name email date } } } }
} }`;

interface CommitView {
  files: { path: string; size: number }[];
  messages: { messageId: string; path: string; content: string }[];
}
const COMMIT = `query ($sessionId: String!, $sha: String!) { session(sessionId: $sessionId) { commit(sha: $sha) {
  files { path size }
  messages(first: 100) { messageId path content }
} } }`;
const FILE = `query ($sessionId: String!, $sha: String!, $path: String!) { session(sessionId: $sessionId) { commit(sha: $sha) { file(path: $path) { text } } } }`;

/**
 * The session once its mirror is in sync and its repo settled, read after both: one query's
 * fields resolve side by side, so the read that first says in sync may hold branch tips read
 * from the repo before the start-up rebuild had written them.
 */
async function inSync(api: TestServer, sessionId: string): Promise<SessionView> {
  const read = async () => (await ok<{ session: SessionView }>(api, SESSION_VIEW, { sessionId })).session;
  return eventually(async () => {
    if (!(await read()).mirror.inSync) return undefined;
    // Its checkout follows a commit after the commit is recorded: wait for the pass to end.
    await api.repoSettled(sessionId);
    const settled = await read();
    return settled.mirror.inSync ? settled : undefined;
  });
}

/** Paths isomorphic-git's status shows as anything but unmodified in HEAD, working tree and index. */
async function notClean(dir: string): Promise<(string | number)[][]> {
  const matrix = await isomorphicGit.statusMatrix({ fs, dir });
  return matrix.filter(([, head, workdir, stage]) => !(head === 1 && workdir === 1 && stage === 1));
}

/**
 * What isomorphic-git reads of the repo, checked against what the API serves:
 * status clean, the same branches at the same tips, HEAD, every branch's log
 * (shas, parents, messages, identities, dates), and each commit's files and
 * message files byte for byte.
 */
async function expectReadsLikeTheApi(api: TestServer, sessionId: string): Promise<{ commits: number; files: number }> {
  const view = await inSync(api, sessionId);
  const dir = view.repoPath;
  expect(git(dir, 'status', '--porcelain')).toBe('');
  expect(await notClean(dir)).toEqual([]);

  const branches = await isomorphicGit.listBranches({ fs, dir });
  expect([...branches].sort()).toEqual(view.branches.map((b) => b.name).sort());
  for (const branch of view.branches) {
    expect(await isomorphicGit.resolveRef({ fs, dir, ref: `refs/heads/${branch.name}` }), branch.name).toBe(branch.head?.sha);
  }
  expect(await isomorphicGit.resolveRef({ fs, dir, ref: 'HEAD' })).toBe(view.head?.sha);
  expect(await isomorphicGit.currentBranch({ fs, dir })).toBe(view.detached ? undefined : view.currentBranch);

  const seen = new Set<string>();
  let files = 0;
  for (const branch of view.branches) {
    const timeline = (await ok<{ session: { timeline: { edges: { node: TimelineCommit }[] } } }>(api, TIMELINE, { sessionId, branch: branch.name }))
      .session.timeline.edges.map((e) => e.node);
    const log = await isomorphicGit.log({ fs, dir, ref: `refs/heads/${branch.name}` });
    expect(log.map((entry) => entry.oid), branch.name).toEqual(timeline.map((c) => c.sha));
    for (const [i, entry] of log.entries()) {
      const api = timeline[i]!;
      expect(entry.commit.message).toBe(api.message);
      expect(entry.commit.parent).toEqual(api.parentShas);
      expect({ name: entry.commit.author.name, email: entry.commit.author.email, date: entry.commit.author.timestamp * 1000 }).toEqual({
        ...api.author,
        date: Date.parse(api.author.date),
      });
      expect({ name: entry.commit.committer.name, email: entry.commit.committer.email, date: entry.commit.committer.timestamp * 1000 }).toEqual({
        ...api.committer,
        date: Date.parse(api.committer.date),
      });
    }
    for (const commit of timeline) {
      if (seen.has(commit.sha)) continue;
      seen.add(commit.sha);
      files += await expectCommitFiles(api, sessionId, dir, commit.sha);
    }
  }
  expect(seen.size).toBe(view.mirror.gitCommits);
  return { commits: seen.size, files };
}

/** One commit's tree and message files, isomorphic-git against the API. Returns how many message files were compared. */
async function expectCommitFiles(api: TestServer, sessionId: string, dir: string, sha: string): Promise<number> {
  const commit = (await ok<{ session: { commit: CommitView } }>(api, COMMIT, { sessionId, sha })).session.commit;
  const listed = await isomorphicGit.listFiles({ fs, dir, ref: sha });
  expect([...listed].sort(), sha).toEqual(commit.files.map((f) => f.path).sort());
  const messagePaths = listed.filter((path) => path.startsWith('messages/'));
  expect([...messagePaths].sort()).toEqual(commit.messages.map((m) => m.path).sort());
  for (const message of commit.messages) {
    const { blob } = await isomorphicGit.readBlob({ fs, dir, oid: sha, filepath: message.path });
    const text = Buffer.from(blob).toString('utf8');
    const served = (await ok<{ session: { commit: { file: { text: string } } } }>(api, FILE, { sessionId, sha, path: message.path })).session.commit.file;
    expect(text).toBe(served.text);
    expect(JSON.parse(text)).toMatchObject({ id: message.messageId, content: message.content });
    expect(blob.length).toBe(commit.files.find((f) => f.path === message.path)?.size);
  }
  return commit.messages.length;
}

/** Three turns with tools on main, a retry of turn 2, back to main, a checkout of turn 1 and a fork from there. */
async function sessionWithBranches(api: TestServer, sessionId: string): Promise<void> {
  await ok(api, `mutation ($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }`, { input: { sessionId, title: 'Readers' } });
  for (const n of [1, 2, 3]) {
    await ok(api, RECORD_TURN, {
      input: {
        sessionId,
        user: { messageId: `u${n}`, content: `question ${n}: 你好 "quoted" \\ back` },
        assistant: { messageId: `a${n}`, content: `answer ${n}\nsecond line` },
        toolResults: [{ messageId: `t${n}`, content: `tool output ${n}`, toolName: 'read', toolCallId: `call_${n}`, metadata: { exit: 0 } }],
        durationMs: 1000 + n,
        tokens: 10 * n,
      },
    });
  }
  await inSync(api, sessionId);
  await ok(api, `mutation ($input: RetryTurnInput!) { retryTurn(input: $input) { branch } }`, {
    input: { sessionId, userMessageId: 'u2', assistant: { messageId: 'a2b', content: 'a better answer 2' } },
  });
  await inSync(api, sessionId);
  await ok(api, `mutation ($input: SwitchBranchInput!) { switchBranch(input: $input) { currentBranch } }`, { input: { sessionId, branch: 'main' } });
  const first = (await ok<{ session: { timeline: { edges: { node: { sha: string } }[] } } }>(api, TIMELINE, { sessionId, branch: 'main' })).session.timeline.edges.at(-1)!
    .node.sha;
  await ok(api, `mutation ($input: CheckoutInput!) { checkout(input: $input) { detached } }`, { input: { sessionId, sha: first } });
  await ok(api, APPEND, { input: { sessionId, role: 'USER', messageId: 'u9', content: 'another way' } });
  await ok(api, APPEND, { input: { sessionId, role: 'ASSISTANT', messageId: 'a9', content: 'sure' } });
  const fork = await ok<{ endTurn: { branch: string } }>(api, END_TURN, { input: { sessionId } });
  expect(fork.endTurn.branch).toBe('fork-u9');
}

describe('session repos read by another git implementation (isomorphic-git)', () => {
  it('reads turns, a retry branch and a fork as clean, with the API’s commits, branches and message files', async () => {
    const api = await startTestServer();
    await sessionWithBranches(api, 's');
    // A second session on the same server, left on main.
    await ok(api, `mutation ($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }`, { input: { sessionId: 'plain' } });
    for (const n of [1, 2]) await ok(api, RECORD_TURN, { input: { sessionId: 'plain', user: { content: `q${n}` }, assistant: { content: `r${n}` } } });

    const view = await inSync(api, 's');
    expect(view.currentBranch).toBe('fork-u9');
    expect(view.branches.map((b) => b.name)).toEqual(['main', 'retry-a2b', 'fork-u9']);
    expect(await expectReadsLikeTheApi(api, 's')).toEqual({ commits: 5, files: 3 + 6 + 9 + 5 + 5 });
    expect(await expectReadsLikeTheApi(api, 'plain')).toEqual({ commits: 2, files: 2 + 4 });

    // Detached at an older commit (replay): still clean, HEAD where the API says.
    const turn1 = (await ok<{ session: { timeline: { edges: { node: { sha: string } }[] } } }>(api, TIMELINE, { sessionId: 's', branch: 'main' })).session.timeline
      .edges[1]!.node.sha;
    await ok(api, `mutation ($input: CheckoutInput!) { checkout(input: $input) { detached } }`, { input: { sessionId: 's', sha: turn1 } });
    const detached = await inSync(api, 's');
    expect(detached.detached).toBe(true);
    expect(await expectReadsLikeTheApi(api, 's')).toEqual({ commits: 5, files: 28 });
  });

  it('reads a repo rebuilt from the database at start-up as clean', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    await sessionWithBranches(first, 's');
    const before = await inSync(first, 's');
    await first.server.stop();

    rmSync(before.repoPath, { recursive: true, force: true });
    const again = await startTestServer({ dataDir });
    const after = await inSync(again, 's');
    expect(after.branches).toEqual(before.branches);
    expect(after.head).toEqual(before.head);
    expect(await expectReadsLikeTheApi(again, 's')).toEqual({ commits: 5, files: 28 });
  });

  it('converges a repo an older version left with a split index at its next turn', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    await sessionWithBranches(first, 's');
    const { repoPath } = await inSync(first, 's');
    await first.server.stop();

    // What the older version left: core.splitIndex on, the index split into sharedindex.*.
    git(repoPath, 'config', 'core.splitIndex', 'true');
    git(repoPath, 'update-index', '--split-index');
    expect(fs.readdirSync(`${repoPath}/.git`).some((name) => name.startsWith('sharedindex.'))).toBe(true);
    expect((await notClean(repoPath)).length).toBeGreaterThan(0);

    const again = await startTestServer({ dataDir });
    await ok(again, RECORD_TURN, { input: { sessionId: 's', user: { messageId: 'u10', content: 'after the upgrade' }, assistant: { messageId: 'a10', content: 'ok' } } });
    expect(await expectReadsLikeTheApi(again, 's')).toEqual({ commits: 6, files: 28 + 7 });
    expect(git(repoPath, 'config', 'core.splitIndex').trim()).toBe('false');
    expect(fs.readdirSync(`${repoPath}/.git`).filter((name) => name.startsWith('sharedindex.'))).toEqual([]);
  });
});
