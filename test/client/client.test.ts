/**
 * Issue 13: the typed client for agent runtimes (src/client/) against a real
 * server: an agent loop with tool results, a retry and a fork, subscriptions,
 * the token on HTTP and WebSocket, retries that do not duplicate, error codes.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createClient, EntityMemoryError, type EntityMemoryClient, type TimelineEvent, type TurnCommittedEvent } from '../../src/client/index.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, git } from '../helpers/git.js';
import { tempDir } from '../helpers/temp.js';
import { CreateProject } from '../projects/operations.js';
import { FAST_COMMITTER, userGit } from '../projects/project-turns.js';
import { onCleanup } from '../helpers/leftovers.js';
import { startTestServer } from '../helpers/server.js';

const TOKEN = 'client-test-token-0123456789';

function client(url: string, options: Partial<Parameters<typeof createClient>[0]> = {}): EntityMemoryClient {
  const api = createClient({ url, retryDelayMs: 10, ...options });
  onCleanup(() => api.close());
  return api;
}

/** The error a call failed with (fails when it did not). */
async function failure(call: Promise<unknown>): Promise<EntityMemoryError> {
  try {
    await call;
  } catch (error) {
    expect(error).toBeInstanceOf(EntityMemoryError);
    return error as EntityMemoryError;
  }
  throw new Error('the call succeeded');
}

describe('the typed client', () => {
  it('records an agent loop with tool results, a retry and a fork, and hears the commits', async () => {
    const server = await startTestServer({ token: TOKEN });
    const api = client(server.url, { token: TOKEN });
    const session = await api.createSession({ title: 'Client loop', agentId: 'test-agent', model: 'm-1' });
    expect(session).toMatchObject({ title: 'Client loop', agentId: 'test-agent', currentBranch: 'main' });
    const sessionId = session.sessionId;

    const committed: TurnCommittedEvent[] = [];
    const timeline: TimelineEvent[] = [];
    const stopCommits = api.subscribe.turnCommitted(sessionId, (event) => committed.push(event));
    const stopTimeline = api.subscribe.timeline(sessionId, (event) => timeline.push(event));
    await Promise.all([stopCommits.ready, stopTimeline.ready]);

    // The loop: each prompt, the model's reply with one tool call, its result.
    const turns = [];
    for (const [i, prompt] of ['list the files', 'read a.txt', 'count the lines'].entries()) {
      const callId = `call-${i}`;
      turns.push(
        await api.recordTurn({
          sessionId,
          user: prompt,
          assistant: { content: `done: ${prompt}`, metadata: { toolCalls: [{ id: callId, name: 'shell' }] } },
          toolResults: [{ content: `output ${i}`, toolCallId: callId, toolName: 'shell' }],
          startedAt: new Date(Date.now() - 1000),
          durationMs: 900,
          tokens: 10 + i,
        }),
      );
    }
    expect(turns.map((t) => [t.number, t.branch, t.open, t.tokens])).toEqual([
      [1, 'main', false, 10],
      [2, 'main', false, 11],
      [3, 'main', false, 12],
    ]);
    const third = turns[2]!;
    expect(third.toolResults).toHaveLength(1);
    expect(third.toolResults[0]).toMatchObject({ role: 'TOOL', toolName: 'shell', toolCallId: 'call-2', caller: { messageId: third.assistantMessage!.messageId } });
    // Ids the client made are UUIDs, valid as message ids.
    expect(third.userMessage.messageId).toMatch(/^[0-9a-f-]{36}$/);

    // The same loop step by step: append, fill the reply in, add a result, close.
    const user = await api.appendMessage({ sessionId, role: 'USER', content: 'write b.txt' });
    expect(user.turn).toMatchObject({ number: 4, open: true });
    const reply = await api.appendMessage({ sessionId, role: 'ASSISTANT', content: '' });
    await api.updateMessage({ sessionId, messageId: reply.messageId, content: 'wrote b.txt', metadata: { toolCalls: [{ id: 'w1' }] } });
    await api.appendMessage({ sessionId, role: 'TOOL', content: 'ok', toolCallId: 'w1', toolName: 'write', callerId: reply.messageId });
    const fourth = await api.endTurn({ sessionId, durationMs: 5 });
    expect(fourth).toMatchObject({ number: 4, open: false, assistantMessage: { content: 'wrote b.txt' } });
    expect(fourth.toolResults.map((m) => m.caller?.messageId)).toEqual([reply.messageId]);

    await eventually(async () => committed.length >= 4);
    expect(committed.map((e) => [e.session.sessionId, e.turn.number, e.turn.branch]).sort()).toEqual([
      [sessionId, 1, 'main'],
      [sessionId, 2, 'main'],
      [sessionId, 3, 'main'],
      [sessionId, 4, 'main'],
    ]);
    expect(committed.every((e) => /^[0-9a-f]{40}$/.test(e.commit.sha))).toBe(true);

    // A retry of turn 2's reply: a new branch retry-<assistant messageId>, current.
    const retried = await api.retryTurn({
      sessionId,
      userMessageId: turns[1]!.userMessage.messageId,
      assistant: 'a better answer',
    });
    const retryBranch = `retry-${retried.assistantMessage!.messageId}`;
    expect(retried).toMatchObject({ number: 2, branch: retryBranch, open: false });

    // A fork: back on main, check out turn 1's commit and send another prompt from there.
    await api.switchBranch({ sessionId, branch: 'main' });
    const mainTurns = await api.turns(sessionId, { first: 10 });
    expect(mainTurns.totalCount).toBe(4);
    const firstSha = mainTurns.nodes[0]!.commit!.sha;
    const viewing = await api.checkout({ sessionId, sha: firstSha });
    expect(viewing).toMatchObject({ detached: true, head: { sha: firstSha } });
    const forked = await api.recordTurn({ sessionId, user: 'try another way', assistant: 'another way' });
    const forkBranch = `fork-${forked.userMessage.messageId}`;
    expect(forked).toMatchObject({ number: 2, branch: forkBranch });

    const details = await eventually(async () => {
      const s = await api.session(sessionId);
      return s?.mirror.inSync && s.mirror.gitCommits === 6 ? s : undefined;
    });
    expect(details.currentBranch).toBe(forkBranch);
    expect(details.branches.map((b) => [b.name, b.kind, b.isCurrent])).toEqual([
      ['main', 'MAIN', false],
      [retryBranch, 'RETRY', false],
      [forkBranch, 'FORK', true],
    ]);
    expect(details.mirror).toMatchObject({ dagTurns: 6, pending: 0, lastError: null });

    const forkMessages = await api.messages(sessionId, { first: 50 });
    expect(forkMessages.nodes.map((m) => m.content)).toEqual(['list the files', 'done: list the files', 'output 0', 'try another way', 'another way']);
    const retryTurns = await api.turns(sessionId, { branch: retryBranch });
    expect(retryTurns.nodes.map((t) => t.assistantMessage?.content)).toEqual(['done: list the files', 'a better answer']);
    const page = await api.turns(sessionId, { branch: 'main', first: 2 });
    expect(page.pageInfo.hasNextPage).toBe(true);
    const rest = await api.turns(sessionId, { branch: 'main', first: 2, after: page.pageInfo.endCursor! });
    expect(rest.nodes.map((t) => t.number)).toEqual([3, 4]);

    await eventually(async () => timeline.some((e) => e.kind === 'BRANCH_CREATED' && e.branch === forkBranch));
    const kinds = timeline.map((e) => `${e.kind} ${e.branch}`);
    expect(kinds).toContain(`BRANCH_CREATED ${retryBranch}`);
    expect(kinds).toContain('BRANCH_SWITCHED main');
    expect(kinds).toContain('CHECKED_OUT main');
    expect(kinds.filter((k) => k === 'COMMITTED main')).toHaveLength(4);

    // After unsubscribing, nothing more arrives (the next event would be the commit of this turn).
    stopCommits();
    const seen = committed.length;
    await api.recordTurn({ sessionId, user: 'one more', assistant: 'sure' });
    await eventually(async () => timeline.some((e) => e.kind === 'COMMITTED' && e.branch === forkBranch && e.commit?.headline.includes('one more')));
    expect(committed).toHaveLength(seen);
    stopTimeline();
  });

  it('sends the token over HTTP and WebSocket, and says UNAUTHENTICATED or FORBIDDEN without it', async () => {
    const server = await startTestServer({ token: TOKEN }, {}, { token: null });
    const anonymous = client(server.url);
    const http = await failure(anonymous.createSession());
    expect(http).toMatchObject({ code: 'UNAUTHENTICATED', status: 401, retryable: false });

    const wrong = client(`${server.url}/graphql`, { token: 'wrong-token-0123456789' });
    expect((await failure(wrong.session('x'))).code).toBe('UNAUTHENTICATED');
    const socketErrors: EntityMemoryError[] = [];
    const stop = wrong.subscribe.turnCommitted(null, () => {}, (error) => socketErrors.push(error));
    await expect(stop.ready).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await eventually(async () => socketErrors.length > 0);
    expect(socketErrors[0]).toMatchObject({ code: 'FORBIDDEN', extensions: { closeCode: 4403 } });

    const right = client(server.url, { token: TOKEN });
    const made = await right.createSession({ sessionId: 'with-token' });
    expect(made.sessionId).toBe('with-token');
    const events: TurnCommittedEvent[] = [];
    const live = right.subscribe.turnCommitted(null, (event) => events.push(event));
    await live.ready;
    await right.recordTurn({ sessionId: 'with-token', user: 'hi', assistant: 'hello' });
    await eventually(async () => events.length === 1);
  });

  it('does not duplicate a turn sent again with the same ids, after a lost answer or by the caller', async () => {
    const server = await startTestServer();
    // A fetch that delivers a request and then loses its answer, as a dropped connection would:
    // the next request whose text holds `lose` (a mutation's name).
    let lose: string | undefined = 'recordTurn(';
    let recordTurnPosts = 0;
    const lossy: typeof fetch = async (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      const response = await fetch(input, init);
      if (body.includes('recordTurn(')) recordTurnPosts += 1;
      if (lose !== undefined && body.includes(lose)) {
        lose = undefined;
        await response.arrayBuffer();
        throw new TypeError('fetch failed: socket hang up');
      }
      return response;
    };
    const api = client(server.url, { fetch: lossy });
    const { sessionId } = await api.createSession();
    const first = await api.recordTurn({ sessionId, user: 'one', assistant: 'uno', toolResults: [{ content: 'r', toolCallId: 't1' }] });
    expect(recordTurnPosts).toBe(2);
    expect(first).toMatchObject({ number: 1, open: false, assistantMessage: { content: 'uno' } });

    // The caller sends the same turn again (its own retry): one turn still.
    const ids = {
      user: { content: 'two', messageId: randomUUID() },
      assistant: { content: 'dos', messageId: randomUUID() },
    };
    const second = await api.recordTurn({ sessionId, ...ids });
    const again = await api.recordTurn({ sessionId, ...ids });
    // The same turn (its mirror state may have moved on meanwhile).
    expect({ ...again, mirrorState: null }).toEqual({ ...second, mirrorState: null });
    expect(second.number).toBe(2);
    const turns = await api.turns(sessionId);
    expect(turns.totalCount).toBe(2);
    const messages = await api.messages(sessionId);
    expect(messages.totalCount).toBe(5);

    // The same ids with other text is a real conflict.
    const clash = await failure(api.recordTurn({ sessionId, user: { ...ids.user, content: 'other' }, assistant: ids.assistant }));
    expect(clash).toMatchObject({ code: 'CONFLICT', extensions: { code: 'CONFLICT', messageId: ids.user.messageId } });

    // A user message sent twice with one id: the second answers the first.
    const messageId = randomUUID();
    const once = await api.appendMessage({ sessionId, role: 'USER', content: 'three', messageId });
    const twice = await api.appendMessage({ sessionId, role: 'USER', content: 'three', messageId });
    expect(twice.messageId).toBe(once.messageId);
    expect(twice.seq).toBe(once.seq);
    expect(twice.turn).toEqual({ number: 3, open: true });
    // endTurn's answer lost: sent again, it finds no open turn and answers the turn it closed.
    lose = 'endTurn(';
    const closed = await api.endTurn({ sessionId });
    expect(closed).toMatchObject({ number: 3, open: false, userMessage: { messageId } });
    expect(lose).toBeUndefined();
    expect((await api.turns(sessionId)).totalCount).toBe(3);
  });

  it('gives up after the retries with NETWORK_ERROR when nothing answers', async () => {
    let calls = 0;
    const down: typeof fetch = async () => {
      calls += 1;
      throw new TypeError('fetch failed: connect ECONNREFUSED');
    };
    const api = client('http://127.0.0.1:9', { fetch: down, retries: 2, retryDelayMs: 1 });
    const error = await failure(api.session('s'));
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', retryable: true });
    expect(calls).toBe(3);
  });

  it("tells a runtime what each turn did in its project, and restores the agent's files, refusing over the user's change", async () => {
    const root = tempDir('em-client-project-');
    const server = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
    const workdir = join(root, 'app');
    mkdirSync(workdir);
    userGit(workdir, 'init', '-q', '-b', 'main');
    writeFileSync(join(workdir, 'README.md'), '# App\n');
    userGit(workdir, 'add', '-A');
    userGit(workdir, 'commit', '-q', '-m', 'Start');
    const { createProject } = await server.ok(CreateProject, { input: { name: 'App', workdir } });
    const api = client(server.url);
    const { sessionId } = await api.createSession({ projectId: createProject.projectId });
    const settled = async (number: number) =>
      eventually(async () => {
        const turn = (await api.turns(sessionId)).nodes.find((node) => node.number === number);
        return turn?.projectCommit && turn.projectCommit.result !== 'PENDING' ? turn.projectCommit : undefined;
      });

    // Turn 1: committed by the agent; recordTurn answers before the commit runs.
    writeFileSync(join(workdir, 'a.txt'), 'agent 1\n');
    const first = await api.recordTurn({ sessionId, user: 'add a.txt', assistant: 'done', touchedPaths: ['a.txt'] });
    expect(first.projectCommit?.result).toBe('PENDING');
    const committed = await settled(1);
    expect(committed).toMatchObject({ result: 'COMMITTED', paths: ['a.txt'], dirtyPaths: [] });
    expect(committed.commitSha).toBe(git(workdir, 'rev-parse', 'HEAD').trim());

    // Turn 2: the user has an uncommitted change; the agent's file stays uncommitted, and the client says why.
    writeFileSync(join(workdir, 'notes.txt'), 'mine\n');
    writeFileSync(join(workdir, 'b.txt'), 'agent 2\n');
    await api.recordTurn({ sessionId, user: 'add b.txt', assistant: 'done', touchedPaths: ['b.txt'] });
    const skipped = await settled(2);
    expect(skipped).toMatchObject({ result: 'SKIPPED_DIRTY', paths: ['b.txt'], dirtyPaths: ['notes.txt'], commitSha: null });
    expect(skipped.message).toContain('notes.txt');

    // Back to before turn 1, the user's a.txt edit in the way: refused, nothing written.
    writeFileSync(join(workdir, 'a.txt'), 'the user\'s\n');
    const refused = await failure(api.restoreProjectFiles({ sessionId, turn: 0 }));
    expect(refused).toMatchObject({ code: 'CONFLICT', extensions: { paths: ['a.txt'] } });
    expect(readFileSync(join(workdir, 'b.txt'), 'utf8')).toBe('agent 2\n');
    // The user puts it back: the agent's files go, the user's notes stay.
    writeFileSync(join(workdir, 'a.txt'), 'agent 1\n');
    const restored = await api.restoreProjectFiles({ sessionId, turn: 0 });
    expect(restored.paths).toEqual(['a.txt', 'b.txt']);
    expect(restored.result).toBe('SNAPSHOT');
    expect([existsSync(join(workdir, 'a.txt')), existsSync(join(workdir, 'b.txt')), readFileSync(join(workdir, 'notes.txt'), 'utf8')]).toEqual([false, false, 'mine\n']);
  });

  it('surfaces the server error codes and their extensions', async () => {
    const server = await startTestServer();
    const api = client(server.url);
    const bad = await failure(api.createSession({ sessionId: 'a..b' }));
    expect(bad).toMatchObject({ code: 'BAD_USER_INPUT', extensions: { field: 'sessionId' }, retryable: false });
    expect(bad.message).toMatch(/not valid|cannot be used/);

    await api.createSession({ sessionId: 'taken' });
    const taken = await failure(api.createSession({ sessionId: 'taken' }));
    expect(taken).toMatchObject({ code: 'CONFLICT', extensions: { sessionId: 'taken' } });

    expect((await failure(api.turns('nobody'))).code).toBe('NOT_FOUND');
    expect(await api.session('nobody')).toBeNull();
    expect((await failure(api.recordTurn({ sessionId: 'nobody', user: 'u', assistant: 'a' }))).code).toBe('NOT_FOUND');
    const noTurn = await failure(api.endTurn({ sessionId: 'taken' }));
    expect(noTurn.code).toBe('BAD_USER_INPUT');
  });
});
