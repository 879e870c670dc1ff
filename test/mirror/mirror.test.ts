import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppendMessage, CreateSession, EndTurn, RecordTurn } from '../api/operations.js';
import { eventually, git } from '../helpers/git.js';
import { onlyError, startTestServer, type TestServer } from '../helpers/server.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';
import { CommitDetail, MirrorView, Timeline, TurnCommitted } from './operations.js';

async function inSync(api: TestServer, sessionId: string) {
  const found = await eventually(async () => {
    const view = await api.ok(MirrorView, { sessionId });
    return view.session?.mirror.inSync ? view.session : undefined;
  });
  // Its checkout follows a commit after the commit is recorded: wait for the pass to end.
  await api.repoSettled(sessionId);
  return found;
}

describe('session-git mirror', () => {
  it('commits each closed turn once, in the documented format, byte for byte', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'chat', title: 'Demo', agentId: 'ag', model: 'm1' } });
    await api.ok(RecordTurn, {
      input: {
        sessionId: 'chat',
        user: { messageId: 'abc123', content: '你好\nsecond line that is long enough to be cut somewhere after sixty characters' },
        assistant: { messageId: 'def456', content: 'Hello!\nHow can I help?' },
        toolResults: [
          { messageId: 'fc_1', content: 'r1', toolName: 'read', toolCallId: 'call_1', metadata: { exit: 0, nested: { a: [1, 2] } } },
          { messageId: 'fc_2', content: 'r2', toolName: 'grep' },
          { messageId: 'fc_3', content: 'r3', toolName: 'grep' },
          { messageId: 'fc_4', content: 'r4', toolName: 'grep' },
          { messageId: 'fc_5', content: 'r5', toolName: 'list' },
        ],
        durationMs: 12_300,
        tokens: 4521,
      },
    });
    await api.ok(AppendMessage, { input: { sessionId: 'chat', role: 'USER', content: 'no tools', messageId: 'u2' } });
    await api.ok(EndTurn, { input: { sessionId: 'chat' } });

    const session = await inSync(api, 'chat');
    expect(session.mirror).toMatchObject({ dagTurns: 2, gitCommits: 2, pending: 0, lastError: null });
    expect(session.turns.edges.map((e) => e.node.mirrorState)).toEqual(['COMMITTED', 'COMMITTED']);
    const repo = session.repoPath;
    expect(repo).toBe(join(api.dataDir, 'sessions', 'chat'));

    // One commit per turn, on main, HEAD there, and a clean working tree.
    expect(git(repo, 'rev-list', '--count', 'main').trim()).toBe('2');
    expect(git(repo, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'fsck', '--strict').trim()).toBe('');

    const first = git(repo, 'log', '-1', '--format=%B', 'main~1');
    expect(first).toBe(
      [
        'turn 1: 你好 second line that is long enough to be cut somewhere after',
        '',
        'assistant: Hello! How can I help?',
        'tools: read, grep × 3, list',
        '',
        '[meta: turn took 12.3s, 5 tools, 4521 tokens]',
        '',
        'Session-Id: chat',
        'Turn: 1',
        'Message-Ids: abc123,def456,fc_1,fc_2,fc_3,fc_4,fc_5',
        '',
        '',
      ].join('\n'),
    );
    expect(git(repo, 'log', '-1', '--format=%B', 'main')).toBe('turn 2: no tools\n\nSession-Id: chat\nTurn: 2\nMessage-Ids: u2\n\n');

    const files = git(repo, 'ls-tree', '-r', '--name-only', 'main').trim().split('\n');
    expect(files).toEqual([
      'messages/000/000001-u-abc123.json',
      'messages/000/000002-a-def456.json',
      'messages/000/000003-t-fc_1.json',
      'messages/000/000004-t-fc_2.json',
      'messages/000/000005-t-fc_3.json',
      'messages/000/000006-t-fc_4.json',
      'messages/000/000007-t-fc_5.json',
      'messages/000/000008-u-u2.json',
      'meta.json',
    ]);
    const user = readFileSync(join(repo, 'messages/000/000001-u-abc123.json'), 'utf8');
    expect(user).toMatch(
      /^\{\n {2}"id": "abc123",\n {2}"role": "user",\n {2}"content": "你好\\nsecond line that is long enough to be cut somewhere after sixty characters",\n {2}"predecessor": null,\n {2}"caller": null,\n {2}"created_at": \d{10}\.\d+,\n {2}"metadata": \{\}\n\}\n$/,
    );
    const tool = git(repo, 'show', 'main:messages/000/000003-t-fc_1.json');
    expect(tool).toMatch(
      /^\{\n {2}"id": "fc_1",\n {2}"role": "tool",\n {2}"content": "r1",\n {2}"predecessor": "def456",\n {2}"caller": "def456",\n {2}"tool_name": "read",\n {2}"tool_call_id": "call_1",\n {2}"created_at": \d{10}\.\d+,\n {2}"metadata": \{\n {4}"exit": 0,\n {4}"nested": \{\n {6}"a": \[\n {8}1,\n {8}2\n {6}\]\n {4}\}\n {2}\}\n\}\n$/,
    );
    const meta = JSON.parse(git(repo, 'show', 'main:meta.json')) as Record<string, unknown>;
    expect(Object.keys(meta)).toEqual(['session_id', 'title', 'agent_id', 'model', 'project_id', 'created_at']);
    expect(meta).toMatchObject({ session_id: 'chat', title: 'Demo', agent_id: 'ag', model: 'm1', project_id: null });

    // The API shows the same history.
    const timeline = await api.ok(Timeline, { sessionId: 'chat', first: 1 });
    expect(timeline.session?.timeline.totalCount).toBe(2);
    const newest = timeline.session!.timeline.edges[0]!.node;
    expect(newest).toMatchObject({ headline: 'turn 2: no tools', turn: { number: 2 }, author: { name: 'entity-memory' } });
    expect(newest.sha).toBe(git(repo, 'rev-parse', 'main').trim());
    const older = await api.ok(Timeline, { sessionId: 'chat', first: 5, after: timeline.session?.timeline.pageInfo.endCursor });
    expect(older.session?.timeline.edges.map((e) => e.node.turn?.number)).toEqual([1]);
    expect(newest.parents.map((p) => p.sha)).toEqual([older.session!.timeline.edges[0]!.node.sha]);

    const detail = await api.ok(CommitDetail, { sessionId: 'chat', sha: newest.shortSha, path: 'messages/000/000008-u-u2.json' });
    const commit = detail.session!.commit!;
    expect(commit.sha).toBe(newest.sha);
    expect(commit.messages.map((m) => m.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(commit.diff.files.map((f) => [f.path, f.status])).toEqual([['messages/000/000008-u-u2.json', 'ADDED']]);
    expect(commit.diff.files[0]?.patch).toContain('+  "id": "u2",');
    expect(commit.file?.text).toBe(git(repo, 'show', 'main:messages/000/000008-u-u2.json'));
    expect(commit.files).toHaveLength(9);
    const missing = await api.ok(CommitDetail, { sessionId: 'chat', sha: newest.sha, path: 'nope.json' });
    expect(missing.session?.commit?.file).toBeNull();
  });

  it('refuses hostile shas and paths, and returns null for unknown commits', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 's' } });
    await api.ok(RecordTurn, { input: { sessionId: 's', user: { content: 'q' }, assistant: { content: 'a' } } });
    await inSync(api, 's');
    for (const sha of ['--all', 'HEAD', 'main', 'abc12', 'xyz1234', '-p', '1234567; rm -rf /', 'a'.repeat(41)]) {
      const error = onlyError(await api.request(CommitDetail, { sessionId: 's', sha, path: 'meta.json' }));
      expect(error.extensions?.code, sha).toBe('BAD_USER_INPUT');
    }
    expect((await api.ok(CommitDetail, { sessionId: 's', sha: 'deadbeefdeadbeef', path: 'meta.json' })).session?.commit).toBeNull();
    const head = (await api.ok(Timeline, { sessionId: 's' })).session!.timeline.edges[0]!.node.sha;
    for (const path of ['../../etc/passwd', '/etc/passwd', '']) {
      const error = onlyError(await api.request(CommitDetail, { sessionId: 's', sha: head, path }));
      expect(error.extensions?.code, path).toBe('BAD_USER_INPUT');
    }
  });

  it('publishes turnCommitted over graphql-ws for each mirrored turn', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'live' } });
    await api.ok(CreateSession, { input: { sessionId: 'other' } });
    const events = wsSubscribe(wsClient(api.url), TurnCommitted, { sessionId: 'live' });
    // The subscription has reached the server before the turns close.
    await events.ready();
    await api.ok(RecordTurn, { input: { sessionId: 'other', user: { content: 'x' }, assistant: { content: 'y' } } });
    for (const n of [1, 2, 3]) {
      await api.ok(RecordTurn, { input: { sessionId: 'live', user: { content: `q${n}` }, assistant: { content: `a${n}` } } });
    }
    const received = await events.next(3);
    expect(received.map((e) => e.data?.turnCommitted.turn.number)).toEqual([1, 2, 3]);
    expect(received.every((e) => e.data?.turnCommitted.session.sessionId === 'live')).toBe(true);
    expect(received[2]?.data?.turnCommitted.commit.headline).toBe('turn 3: q3');
    expect(received[2]?.data?.turnCommitted.turn.mirrorState).toBe('COMMITTED');
  });
});

describe('session repo housekeeping', () => {
  it('consolidates a session\'s packs after packEvery commits, and the repo stays whole', async () => {
    const api = await startTestServer({}, { mirror: { packEvery: 5 } });
    await api.ok(CreateSession, { input: { sessionId: 'p' } });
    // One at a time: each turn is its own pass, its own fast-import, its own pack.
    for (let n = 1; n <= 12; n++) {
      await api.ok(RecordTurn, { input: { sessionId: 'p', user: { content: `q${n}` }, assistant: { content: `a${n}` } } });
      await inSync(api, 'p');
    }
    const repo = (await inSync(api, 'p')).repoPath;
    const counts = () => Object.fromEntries(git(repo, 'count-objects', '-v').trim().split('\n').map((l) => l.split(': ')).map(([k, v]) => [k, Number(v)]));
    // Twelve packs unless they are rolled up: the repacks after the 5th and 10th commits leave at most a
    // few, then turns 11 and 12 add one each.
    const packed = await eventually(async () => (counts().packs! <= 6 ? counts() : undefined));
    expect(packed.packs).toBeGreaterThan(0);
    expect(packed.count).toBe(0);
    expect(git(repo, 'fsck', '--strict').trim()).toBe('');
    expect(git(repo, 'rev-list', '--count', 'main').trim()).toBe('12');
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});
