/**
 * Issue 10, point 1: input the API accepts must always be committable. Ids
 * git cannot put in a branch name are refused at write time, naming git's
 * rule; any content, NUL and control characters included, is committed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { turnCommitMessage, turnTrailers } from '../../src/mirror/commit-message.js';
import { parseTrailers } from '../../src/git/parse.js';
import { excerpt } from '../../src/text.js';
import { projectCommitMessage } from '../../src/projects/agent-commits.js';
import { assertBranchRefName } from '../../src/services/sessions/validate.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type Result, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const RECORD = `mutation($input: RecordTurnInput!) { recordTurn(input: $input) { number branch mirrorState messages { messageId } } }`;
const RETRY = `mutation($input: RetryTurnInput!) { retryTurn(input: $input) { number branch } }`;
const APPEND = `mutation($input: AppendMessageInput!) { appendMessage(input: $input) { messageId turn { number branch } } }`;
const END = `mutation($input: EndTurnInput!) { endTurn(input: $input) { number branch } }`;
const CREATE = `mutation($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }`;
const STATE = `query($sessionId: String!) {
  session(sessionId: $sessionId) {
    repoPath currentBranch
    branches { name }
    mirror { dagTurns gitCommits pending inSync lastError }
    turns(first: 100) { totalCount edges { node { number branch mirrorState } } }
  }
}`;

interface SessionState {
  repoPath: string;
  currentBranch: string;
  branches: { name: string }[];
  mirror: { dagTurns: number; gitCommits: number; pending: number; inSync: boolean; lastError: string | null };
  turns: { totalCount: number; edges: { node: { number: number; branch: string; mirrorState: string } }[] };
}

async function data(api: TestServer, query: string, variables: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await api.raw(query, variables);
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return result.data!;
}

async function state(api: TestServer, sessionId: string): Promise<SessionState> {
  return (await data(api, STATE, { sessionId })).session as SessionState;
}

/** The session once every closed turn has its commit (fails with the mirror's last error otherwise). */
async function synced(api: TestServer, sessionId: string): Promise<SessionState> {
  let last: SessionState | undefined;
  try {
    const found = await eventually(async () => {
      last = await state(api, sessionId);
      return last.mirror.inSync && last.mirror.pending === 0 ? last : undefined;
    });
    // Its checkout follows a commit after the commit is recorded: wait for the pass to end.
    await api.repoSettled(sessionId);
    return found;
  } catch (error) {
    throw new Error(`session ${sessionId} did not sync: ${JSON.stringify(last?.mirror)}`, { cause: error });
  }
}

function badInput(result: Result<unknown>): { message: string; extensions?: Record<string, unknown> } {
  expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  return result.errors![0]!;
}

/** Session `sessionId` with one answered turn on main; returns its user message id. */
async function sessionWithTurn(api: TestServer, sessionId: string): Promise<string> {
  await data(api, CREATE, { input: { sessionId } });
  await data(api, RECORD, { input: { sessionId, user: { messageId: `${sessionId}-u1`, content: 'hello' }, assistant: { messageId: `${sessionId}-a1`, content: 'hi' } } });
  return `${sessionId}-u1`;
}

describe('poisoned input (issue 10)', () => {
  it('refuses the issue\'s retry and fork message ids x..y, z.lock and w. with BAD_USER_INPUT naming the rule, writing nothing', async () => {
    const api = await startTestServer();
    const user = await sessionWithTurn(api, 's');
    const before = await synced(api, 's');
    const rules = { 'x..y': 'double-dot', 'z.lock': 'lock-suffix', 'w.': 'trailing-dot' } as const;

    for (const [id, rule] of Object.entries(rules)) {
      // retryTurn: the reply's id names the branch retry-<id>.
      const retry = badInput(await api.raw(RETRY, { input: { sessionId: 's', userMessageId: user, assistant: { messageId: id, content: 'again' } } }));
      expect(retry.extensions).toMatchObject({ field: 'assistant.messageId', rule });
      expect(retry.message).toContain(JSON.stringify(id));
      expect(retry.message).toMatch(/git refuses a name that (contains "\.\."|ends in "\.lock"|ends with "\.")/);
      // An ASSISTANT message answering an answered user message is a retry too.
      const appendRetry = badInput(
        await api.raw(APPEND, { input: { sessionId: 's', role: 'ASSISTANT', predecessorId: user, messageId: id, content: 'again' } }),
      );
      expect(appendRetry.extensions).toMatchObject({ field: 'messageId', rule });
      // A USER message after an earlier turn's last message forks fork-<id>.
      const fork = badInput(await api.raw(APPEND, { input: { sessionId: 's', role: 'USER', predecessorId: 's-a1', messageId: id, content: 'fork' } }));
      expect(fork.extensions).toMatchObject({ field: 'messageId', rule });
      // The same id rule holds for every id: a plain turn, and a session id (it names refs/entity-memory/snapshots/<id>/…).
      badInput(await api.raw(RECORD, { input: { sessionId: 's', user: { messageId: id, content: 'u' }, assistant: { content: 'a' } } }));
      expect(badInput(await api.raw(CREATE, { input: { sessionId: id } })).extensions).toMatchObject({ field: 'sessionId', rule });
    }

    const after = await state(api, 's');
    expect(after).toEqual(before);
    expect(git(after.repoPath, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main\n');
    const sessions = (await data(api, `{ sessions(first: 10) { totalCount } }`, {})).sessions;
    expect(sessions).toEqual({ totalCount: 1 });
  });

  it('checks a branch name where it is derived, whatever the id rule lets through', () => {
    expect(() => assertBranchRefName('retry-x..y', 'messageId')).toThrow(
      expect.objectContaining({ code: 'BAD_USER_INPUT', details: { field: 'messageId', rule: 'double-dot', branch: 'retry-x..y' } }),
    );
    expect(() => assertBranchRefName('fork-z.lock', 'messageId')).toThrow(/it has a part ending in "\.lock"/);
    expect(() => assertBranchRefName('retry-a.lock.b', 'messageId')).not.toThrow();
  });

  it('commits retries and forks on ids with dots that git accepts (a.b, x.lock.y, v1.-_)', async () => {
    const api = await startTestServer();
    const user = await sessionWithTurn(api, 's');
    await data(api, RETRY, { input: { sessionId: 's', userMessageId: user, assistant: { messageId: 'a.b', content: 'again' } } });
    await data(api, RETRY, { input: { sessionId: 's', userMessageId: user, assistant: { messageId: 'x.lock.y', content: 'and again' } } });
    await data(api, APPEND, { input: { sessionId: 's', role: 'USER', predecessorId: 's-a1', messageId: 'v1.-_', content: 'fork' } });
    await data(api, END, { input: { sessionId: 's' } });
    const done = await synced(api, 's');
    expect(done.mirror).toMatchObject({ dagTurns: 4, gitCommits: 4, lastError: null });
    expect(done.branches.map((b) => b.name).sort()).toEqual(['fork-v1.-_', 'main', 'retry-a.b', 'retry-x.lock.y']);
    expect(git(done.repoPath, 'for-each-ref', '--format=%(refname)', 'refs/heads').trim().split('\n').sort()).toEqual(
      ['refs/heads/fork-v1.-_', 'refs/heads/main', 'refs/heads/retry-a.b', 'refs/heads/retry-x.lock.y'],
    );
  });

  it('commits a NUL and other control characters in the first 60 characters of the user message and the first 80 of the reply, and later turns after them', async () => {
    const api = await startTestServer();
    await data(api, CREATE, { input: { sessionId: 'nul' } });
    const user = 'before\u0000after \u001b[31mred\u001b[0m\ttab\u007fdel\u0085nel\u0001end';
    const reply = 'reply\u0000with a NUL, a bell\u0007, a form feed\u000c and 😀 past it';
    await data(api, RECORD, { input: { sessionId: 'nul', user: { messageId: 'u1', content: user }, assistant: { messageId: 'a1', content: reply } } });
    // A NUL as the very first character, and a reply that is nothing but control characters.
    await data(api, RECORD, { input: { sessionId: 'nul', user: { messageId: 'u2', content: '\u0000' }, assistant: { messageId: 'a2', content: '\u0000\u0001\u0002' } } });
    // A retry whose reply starts with a NUL, then a turn on it, then back on main through a fork.
    await data(api, RETRY, { input: { sessionId: 'nul', userMessageId: 'u2', assistant: { messageId: 'r2', content: '\u0000retried' } } });
    await data(api, RECORD, { input: { sessionId: 'nul', user: { messageId: 'u3', content: 'later turn' }, assistant: { messageId: 'a3', content: 'fine' } } });
    await data(api, APPEND, { input: { sessionId: 'nul', role: 'USER', predecessorId: 'a2', messageId: 'u4', content: 'fork after \u0000' } });
    await data(api, END, { input: { sessionId: 'nul' } });

    const done = await synced(api, 'nul');
    expect(done.mirror).toMatchObject({ dagTurns: 5, gitCommits: 5, pending: 0, lastError: null });
    expect(done.branches.map((b) => b.name).sort()).toEqual(['fork-u4', 'main', 'retry-r2']);
    expect(done.turns.edges.every((e) => e.node.mirrorState === 'COMMITTED')).toBe(true);
    const repo = done.repoPath;
    expect(git(repo, 'fsck', '--strict', '--no-dangling').trim()).toBe('');

    const first = git(repo, 'log', '-1', '--format=%B', 'main~1');
    expect(first.split('\n').slice(0, 3)).toEqual([
      'turn 1: before\uFFFDafter \uFFFD[31mred\uFFFD[0m\ttab\uFFFDdel\uFFFDnel\uFFFDend',
      '',
      'assistant: reply\uFFFDwith a NUL, a bell\uFFFD, a form feed\uFFFD and 😀 past it',
    ]);
    expect(git(repo, 'log', '-1', '--format=%B', 'main').split('\n').slice(0, 3)).toEqual(['turn 2: \uFFFD', '', 'assistant: \uFFFD\uFFFD\uFFFD']);
    // The trailers survive (a NUL stored in a message would have hidden them from git log).
    const trailers = git(repo, 'log', '--all', '--format=%(trailers:key=Message-Ids,valueonly)%x00').split('\0').map((s) => s.trim()).filter(Boolean).sort();
    expect(trailers).toEqual(['u1,a1', 'u2,a2', 'u2,r2', 'u3,a3', 'u4']);
    // The message files keep the exact content.
    const files = git(repo, 'ls-tree', '-r', '--name-only', 'main').trim().split('\n');
    const userFile = files.find((f) => f.endsWith('-u-u1.json'))!;
    const replyFile = files.find((f) => f.endsWith('-a-a1.json'))!;
    expect(JSON.parse(git(repo, 'show', `main:${userFile}`)).content).toBe(user);
    expect(JSON.parse(git(repo, 'show', `main:${replyFile}`)).content).toBe(reply);
  });

  it('keeps a tool name with newlines on the tools line, so it cannot pose as a trailer', async () => {
    const api = await startTestServer();
    await data(api, CREATE, { input: { sessionId: 't' } });
    const toolName = 'read\nSession-Id: other\nTurn: 7\nMessage-Ids: zz';
    await data(api, RECORD, {
      input: { sessionId: 't', user: { messageId: 'u1', content: 'go' }, assistant: { messageId: 'a1', content: 'ok' }, toolResults: [{ messageId: 't1', content: 'r', toolName }] },
    });
    const done = await synced(api, 't');
    const message = git(done.repoPath, 'log', '-1', '--format=%B', 'main');
    expect(message.split('\n').slice(0, 4)).toEqual(['turn 1: go', '', 'assistant: ok', 'tools: read Session-Id: other Turn: 7 Message-Ids: zz']);
    // As the server reads them: git's own trailer parse.
    const trailers = parseTrailers(git(done.repoPath, 'log', '-1', '--format=%(trailers:only,unfold)', 'main'));
    expect(turnTrailers(trailers)).toEqual({ sessionId: 't', turn: 1, messageIds: ['u1', 'a1', 't1'] });
    // The message file keeps the name as sent.
    const file = git(done.repoPath, 'ls-tree', '-r', '--name-only', 'main').trim().split('\n').find((f) => f.endsWith('-t-t1.json'))!;
    expect(JSON.parse(git(done.repoPath, 'show', `main:${file}`)).tool_name).toBe(toolName);
  });

  it('folds control characters in the project commit message too, and git commit-tree takes both messages', () => {
    const content = 'a\u0000b\u001bc\td\ne\u0085';
    expect(excerpt(content, 60)).toBe('a\uFFFDb\uFFFDc\td e\uFFFD');
    const project = projectCommitMessage('s', 1, content);
    expect(project.split('\n')[0]).toBe('[agent s] turn 1: a\uFFFDb\uFFFDc\td e\uFFFD');
    const session = turnCommitMessage({
      sessionId: 's', number: 1, userContent: content, assistantContent: content, toolNames: [], toolCount: 0, durationMs: null, tokens: null, messageIds: ['u'],
    });
    // eslint-disable-next-line no-control-regex
    for (const message of [project, session]) expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(message)).toBe(false);

    const repo = tempDir('em-commit-tree-');
    git(repo, 'init', '-q');
    const tree = git(repo, 'mktree').trim();
    for (const message of [project, session]) {
      const sha = execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit-tree', tree], { cwd: repo, input: message, encoding: 'utf8' }).trim();
      expect(git(repo, 'log', '-1', '--format=%B', sha)).toBe(`${message}\n`);
    }
  });

  it('commits a project turn whose user message starts with a NUL, the headline folded', async () => {
    const root = tempDir('em-poison-project-');
    const api = await startTestServer({ allowedRoots: [root] });
    const dir = join(root, 'app');
    mkdirSync(dir);
    const { createProject } = (await data(api, `mutation($input: CreateProjectInput!) { createProject(input: $input) { projectId } }`, {
      input: { name: 'App', workdir: dir },
    })) as { createProject: { projectId: string } };
    await data(api, CREATE, { input: { sessionId: 'p', projectId: createProject.projectId } });
    await data(api, APPEND, { input: { sessionId: 'p', role: 'USER', content: '\u0000write a file' } });
    writeFileSync(join(dir, 'agent.txt'), 'agent output\n');
    await data(api, APPEND, { input: { sessionId: 'p', role: 'ASSISTANT', content: 'done' } });
    await data(api, END, { input: { sessionId: 'p', touchedPaths: ['agent.txt'] } });
    const outcome = await eventually(async () => {
      const view = (await data(api, `query($s: String!) { session(sessionId: $s) { turns(first: 5) { edges { node { projectCommit { result reason commit { sha } } } } } } }`, { s: 'p' })) as {
        session: { turns: { edges: { node: { projectCommit: { result: string; reason: string | null; commit: { sha: string } | null } } }[] } };
      };
      const found = view.session.turns.edges[0]?.node.projectCommit;
      return found && found.result !== 'PENDING' ? found : undefined;
    });
    expect(outcome).toMatchObject({ result: 'COMMITTED' });
    expect(git(dir, 'log', '-1', '--format=%s', outcome.commit!.sha).trim()).toBe('[agent p] turn 1: \uFFFDwrite a file');
  });
});
