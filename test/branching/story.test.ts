import { describe, expect, it } from 'vitest';
import { AppendMessage, CreateSession, EndTurn, RecordTurn } from '../api/operations.js';
import { eventually, git } from '../helpers/git.js';
import { onlyError, startTestServer, type Result, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';
import { BranchView, Checkout, RetryTurn, SwitchBranch, TimelineEvents } from './operations.js';

async function settled(api: TestServer, sessionId: string, branch?: string) {
  const found = await eventually(async () => {
    const view = await api.ok(BranchView, { sessionId, branch });
    // head's git fields read empty for a moment when git cannot read the repo (a loaded machine's
    // failed process: the database stays the truth, src/services/replay/read-commits.ts
    // whileRepoMayBeRebuilt); a session with commits has one once git answers.
    return view.session?.mirror.inSync && (view.session.mirror.gitCommits === 0 || view.session.head) ? view.session : undefined;
  });
  // Its checkout follows a commit after the commit is recorded: wait for the pass to end.
  await api.repoSettled(sessionId);
  return found;
}

const ids = (edges: { node: { messageId: string } }[]) => edges.map((e) => e.node.messageId);

describe('branching and replay', () => {
  it('walks three turns, a retry, a switch back, a checkout of turn 1, a fork and a restart', async () => {
    const dataDir = tempDir();
    const api = await startTestServer({ dataDir });
    await api.ok(CreateSession, { input: { sessionId: 's' } });
    const events = wsSubscribe(wsClient(api.url), TimelineEvents, { sessionId: 's' });
    await events.ready();

    for (const n of [1, 2, 3]) {
      await api.ok(RecordTurn, {
        input: { sessionId: 's', user: { messageId: `u${n}`, content: `q${n}` }, assistant: { messageId: `a${n}`, content: `r${n}` } },
      });
    }
    let view = await settled(api, 's');
    const repo = view.repoPath;
    expect(git(repo, 'log', '--format=%s', 'main').trim().split('\n')).toEqual(['turn 3: q3', 'turn 2: q2', 'turn 1: q1']);
    const [c3, c2, c1] = git(repo, 'rev-list', 'main').trim().split('\n');
    await events.next(3);

    // Retry turn 2: a new branch from turn 1's commit, holding the new reply and not the old one.
    const retried = await api.ok(RetryTurn, {
      input: { sessionId: 's', userMessageId: 'u2', assistant: { messageId: 'a2b', content: 'better r2' }, toolResults: [{ messageId: 't2b', content: 'x', toolName: 'read' }] },
    });
    expect(retried.retryTurn).toMatchObject({
      number: 2,
      branch: 'retry-a2b',
      open: false,
      userMessage: { messageId: 'u2' },
      assistantMessage: { messageId: 'a2b' },
      toolResults: [{ messageId: 't2b', caller: { messageId: 'a2b' } }],
    });
    view = await settled(api, 's');
    expect(view.currentBranch).toBe('retry-a2b');
    expect(view.detached).toBe(false);
    expect(ids(view.messages.edges)).toEqual(['u1', 'a1', 'u2', 'a2b', 't2b']);
    expect(view.turns.edges.map((e) => [e.node.number, e.node.branch])).toEqual([
      [1, 'main'],
      [2, 'retry-a2b'],
    ]);
    expect(git(repo, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/retry-a2b');
    expect(git(repo, 'rev-parse', 'retry-a2b^').trim()).toBe(c1);
    const retryFiles = git(repo, 'ls-tree', '-r', '--name-only', 'retry-a2b').trim().split('\n');
    expect(retryFiles.filter((f) => f.startsWith('messages/'))).toEqual([
      'messages/000/000001-u-u1.json',
      'messages/000/000002-a-a1.json',
      'messages/000/000003-u-u2.json',
      'messages/000/000007-a-a2b.json',
      'messages/000/000008-t-t2b.json',
    ]);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(view.branches.map((b) => [b.name, b.kind, b.isCurrent, b.forkPoint?.turn?.number ?? null])).toEqual([
      ['main', 'MAIN', false, null],
      ['retry-a2b', 'RETRY', true, 1],
    ]);
    expect(view.mirror).toMatchObject({ dagTurns: 4, gitCommits: 4 });
    expect(view.all.totalCount).toBe(4);

    // Back to main: nothing was lost.
    const switched = await api.ok(SwitchBranch, { input: { sessionId: 's', branch: 'main' } });
    expect(switched.switchBranch).toMatchObject({ currentBranch: 'main', detached: false, head: { sha: c3 } });
    expect(git(repo, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    expect(git(repo, 'status', '--porcelain')).toBe('');

    // Replay turn 1: read-only, HEAD detached there, history kept.
    const checkedOut = await api.ok(Checkout, { input: { sessionId: 's', sha: c1!.slice(0, 7) } });
    expect(checkedOut.checkout).toMatchObject({ currentBranch: 'main', detached: true, head: { sha: c1, turn: { number: 1, branch: 'main' } } });
    expect(checkedOut.checkout.head?.messages.map((m) => m.messageId)).toEqual(['u1', 'a1']);
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(c1);
    expect(() => git(repo, 'symbolic-ref', '-q', 'HEAD')).toThrow();
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(c3);

    // The next user message forks from the viewed commit.
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: 'another way', messageId: 'u9' } });
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'ASSISTANT', content: 'sure', messageId: 'a9' } });
    const forkTurn = await api.ok(EndTurn, { input: { sessionId: 's' } });
    expect(forkTurn.endTurn).toMatchObject({ number: 2, branch: 'fork-u9' });
    view = await settled(api, 's');
    expect(view.currentBranch).toBe('fork-u9');
    expect(view.detached).toBe(false);
    expect(ids(view.messages.edges)).toEqual(['u1', 'a1', 'u9', 'a9']);
    expect(git(repo, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/fork-u9');
    expect(git(repo, 'rev-parse', 'fork-u9^').trim()).toBe(c1);
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(c3);
    expect(git(repo, 'rev-parse', 'retry-a2b^').trim()).toBe(c1);
    expect(git(repo, 'log', '-1', '--format=%s', 'fork-u9').trim()).toBe('turn 2: another way');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(view.mirror).toMatchObject({ dagTurns: 5, gitCommits: 5, inSync: true });
    expect(c2).toBeDefined();

    const received = await events.next(10);
    expect(received.map((e) => [e.data?.timeline.kind, e.data?.timeline.branch])).toEqual([
      ['COMMITTED', 'main'],
      ['COMMITTED', 'main'],
      ['COMMITTED', 'main'],
      ['BRANCH_CREATED', 'retry-a2b'],
      ['BRANCH_SWITCHED', 'retry-a2b'],
      ['COMMITTED', 'retry-a2b'],
      ['BRANCH_SWITCHED', 'main'],
      ['CHECKED_OUT', 'main'],
      ['BRANCH_CREATED', 'fork-u9'],
      ['BRANCH_SWITCHED', 'fork-u9'],
      ['COMMITTED', 'fork-u9'],
    ].slice(0, received.length));
    await events.next(11);
    expect(events.events.at(-1)?.data?.timeline).toMatchObject({ kind: 'COMMITTED', branch: 'fork-u9', commit: { headline: 'turn 2: another way' } });

    // A restart keeps branches, the current one and the repo's HEAD.
    await api.server.stop();
    const again = await startTestServer({ dataDir });
    const after = await settled(again, 's');
    expect(after.currentBranch).toBe('fork-u9');
    expect(after.branches.map((b) => b.name)).toEqual(['main', 'retry-a2b', 'fork-u9']);
    expect(git(repo, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/fork-u9');
    const mainView = await again.ok(BranchView, { sessionId: 's', branch: 'main' });
    expect(mainView.session?.timeline.edges.map((e) => e.node.headline)).toEqual(['turn 3: q3', 'turn 2: q2', 'turn 1: q1']);
  });

  it('appendMessage of an ASSISTANT reply to an answered user message opens a retry', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 's' } });
    await api.ok(RecordTurn, { input: { sessionId: 's', user: { messageId: 'u1', content: 'q' }, assistant: { messageId: 'a1', content: 'r' } } });
    const reply = await api.ok(AppendMessage, { input: { sessionId: 's', role: 'ASSISTANT', content: 'again', messageId: 'a1b', predecessorId: 'u1' } });
    expect(reply.appendMessage).toMatchObject({ predecessor: { messageId: 'u1' }, turn: { number: 1, open: true } });
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'TOOL', content: 'ran', messageId: 't1b' } });
    await api.ok(EndTurn, { input: { sessionId: 's' } });
    const view = await settled(api, 's');
    expect(view.currentBranch).toBe('retry-a1b');
    expect(ids(view.messages.edges)).toEqual(['u1', 'a1b', 't1b']);
    // A retry of the first turn is a new root: the branch shares no commit with main.
    expect(view.branches.find((b) => b.name === 'retry-a1b')?.forkPoint).toBeNull();
    expect(git(view.repoPath, 'rev-list', '--count', 'retry-a1b').trim()).toBe('1');
  });

  it('refuses bad input with the right code and changes nothing', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 's' } });
    await api.ok(RecordTurn, { input: { sessionId: 's', user: { messageId: 'u1', content: 'q' }, assistant: { messageId: 'a1', content: 'r' }, toolResults: [{ messageId: 't1', content: 'x' }] } });
    const before = await settled(api, 's');
    const sha = before.head!.sha;

    const code = async (p: Promise<Result<unknown>>) => onlyError(await p).extensions?.code;
    expect(await code(api.request(Checkout, { input: { sessionId: 's', sha: 'abc' } }))).toBe('BAD_USER_INPUT');
    expect(await code(api.request(Checkout, { input: { sessionId: 's', sha: 'HEAD~1' } }))).toBe('BAD_USER_INPUT');
    expect(await code(api.request(Checkout, { input: { sessionId: 's', sha: '--orphan' } }))).toBe('BAD_USER_INPUT');
    expect(await code(api.request(Checkout, { input: { sessionId: 's', sha: '0000000000000000000000000000000000000000' } }))).toBe('NOT_FOUND');
    expect(await code(api.request(Checkout, { input: { sessionId: 'nobody', sha } }))).toBe('NOT_FOUND');
    expect(await code(api.request(SwitchBranch, { input: { sessionId: 's', branch: 'retry-nope' } }))).toBe('NOT_FOUND');
    for (const branch of ['--force', 'main;rm', 'refs/heads/main', 'retry-../x', 'feature', '']) {
      expect(await code(api.request(SwitchBranch, { input: { sessionId: 's', branch } })), branch).toBe('BAD_USER_INPUT');
    }
    for (const userMessageId of ['a1', 't1']) {
      expect(await code(api.request(RetryTurn, { input: { sessionId: 's', userMessageId, assistant: { content: 'x' } } })), userMessageId).toBe('BAD_USER_INPUT');
    }
    expect(await code(api.request(RetryTurn, { input: { sessionId: 's', userMessageId: 'ghost', assistant: { content: 'x' } } }))).toBe('NOT_FOUND');
    // An open turn blocks retry, checkout and switch; its own unanswered user message cannot be retried either.
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: 'open', messageId: 'u2' } });
    expect(await code(api.request(RetryTurn, { input: { sessionId: 's', userMessageId: 'u1', assistant: { content: 'x' } } }))).toBe('CONFLICT');
    expect(await code(api.request(Checkout, { input: { sessionId: 's', sha } }))).toBe('CONFLICT');
    expect(await code(api.request(SwitchBranch, { input: { sessionId: 's', branch: 'main' } }))).toBe('CONFLICT');
    expect(await code(api.request(AppendMessage, { input: { sessionId: 's', role: 'ASSISTANT', content: 'x', predecessorId: 'u1' } }))).toBe('CONFLICT');

    const after = await api.ok(BranchView, { sessionId: 's' });
    expect(after.session?.branches.map((b) => b.name)).toEqual(['main']);
    expect(after.session?.currentBranch).toBe('main');
    expect(after.session?.detached).toBe(false);
  });
});
