import { describe, expect, it } from 'vitest';
import { onlyError, startTestServer } from '../helpers/server.js';
import { eventually } from '../helpers/git.js';
import { AppendMessage, CreateSession, NodeById, RecordTurn, SessionView, Sessions } from './operations.js';

describe('sessions', () => {
  it('creates a session with a chosen id, and one with a generated id', async () => {
    const api = await startTestServer();
    const chosen = await api.ok(CreateSession, {
      input: { sessionId: 'chat-1.a_b', title: 'First', agentId: 'agent-7', model: 'claude' },
    });
    expect(chosen.createSession).toMatchObject({
      sessionId: 'chat-1.a_b',
      title: 'First',
      agentId: 'agent-7',
      model: 'claude',
      currentBranch: 'main',
      project: null,
    });
    expect(Date.parse(chosen.createSession.createdAt)).toBeGreaterThan(Date.now() - 60_000);

    const generated = await api.ok(CreateSession, { input: {} });
    expect(generated.createSession.sessionId).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/);
    expect(generated.createSession.sessionId).not.toBe('chat-1.a_b');

    const view = await api.ok(SessionView, { sessionId: 'chat-1.a_b' });
    expect(view.session).toMatchObject({ sessionId: 'chat-1.a_b', title: 'First' });
    expect(view.session?.messages.totalCount).toBe(0);
    expect((await api.ok(SessionView, { sessionId: 'nope' })).session).toBeNull();
  });

  it('refuses a duplicate id with CONFLICT and an id outside the rule with BAD_USER_INPUT', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 's1' } });
    const duplicate = onlyError(await api.request(CreateSession, { input: { sessionId: 's1', title: 'again' } }));
    expect(duplicate.extensions?.code).toBe('CONFLICT');
    expect(duplicate.message).toContain('already exists');

    for (const bad of ['', '../etc', '.hidden', '-rf', 'a/b', 'a b', 'x'.repeat(129), 'ünï', 'a\nb']) {
      const error = onlyError(await api.request(CreateSession, { input: { sessionId: bad } }));
      expect(error.extensions?.code, bad).toBe('BAD_USER_INPUT');
      expect(error.message).toContain('sessionId');
    }
    const all = await api.ok(Sessions, {});
    expect(all.sessions.totalCount).toBe(1);
  });

  it('refuses an unknown project with NOT_FOUND and writes nothing', async () => {
    const api = await startTestServer();
    const error = onlyError(await api.request(CreateSession, { input: { sessionId: 's1', projectId: 'proj-x' } }));
    expect(error.extensions?.code).toBe('NOT_FOUND');
    expect((await api.ok(Sessions, {})).sessions.totalCount).toBe(0);
  });

  it('lists sessions newest first, page by page, with totalCount', async () => {
    const api = await startTestServer();
    for (const id of ['a', 'b', 'c', 'd', 'e']) await api.ok(CreateSession, { input: { sessionId: id } });
    const first = await api.ok(Sessions, { first: 2 });
    expect(first.sessions.totalCount).toBe(5);
    expect(first.sessions.edges.map((e) => e.node.sessionId)).toEqual(['e', 'd']);
    expect(first.sessions.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = await api.ok(Sessions, { first: 2, after: first.sessions.pageInfo.endCursor });
    expect(second.sessions.edges.map((e) => e.node.sessionId)).toEqual(['c', 'b']);
    const third = await api.ok(Sessions, { first: 2, after: second.sessions.pageInfo.endCursor });
    expect(third.sessions.edges.map((e) => e.node.sessionId)).toEqual(['a']);
    expect(third.sessions.pageInfo.hasNextPage).toBe(false);

    expect(onlyError(await api.request(Sessions, { first: -1 })).extensions?.code).toBe('BAD_USER_INPUT');
    expect(onlyError(await api.request(Sessions, { after: 'garbage' })).extensions?.code).toBe('BAD_USER_INPUT');
    expect((await api.ok(Sessions, { projectId: 'nobody' })).sessions.totalCount).toBe(0);
  });

  it('narrows the list by agent (an import by its source) and start time, and says when each session was last active', async () => {
    const api = await startTestServer();
    const LIST = `query($agent: String, $after: DateTime, $before: DateTime) {
      sessions(first: 10, agent: $agent, startedAfter: $after, startedBefore: $before) { totalCount edges { node { sessionId createdAt lastActivityAt } } }
    }`;
    type Listed = { sessions: { totalCount: number; edges: { node: { sessionId: string; createdAt: string; lastActivityAt: string } }[] } };
    const list = async (variables: Record<string, unknown>) => {
      const result = await api.raw(LIST, variables);
      expect(result.errors).toBeUndefined();
      return (result.data as Listed).sessions;
    };
    const ids = (page: Listed['sessions']) => page.edges.map((e) => e.node.sessionId);
    for (const [sessionId, agentId] of [['c1', 'claude-code'], ['g1', 'gemini'], ['c2', 'claude-code'], ['x1', null]] as const) {
      await api.ok(CreateSession, { input: { sessionId, ...(agentId && { agentId }) } });
      // Each starts in a millisecond of its own, so the time filters have a boundary between them.
      const created = Date.now();
      while (Date.now() <= created) await new Promise((resolve) => setImmediate(resolve));
    }
    const appended = await api.ok(AppendMessage, { input: { sessionId: 'c1', role: 'USER', content: 'later' } });

    const all = await list({});
    expect(ids(all)).toEqual(['x1', 'c2', 'g1', 'c1']);
    const byId = new Map(all.edges.map((e) => [e.node.sessionId, e.node]));
    expect(byId.get('c1')!.lastActivityAt).toBe(appended.appendMessage.createdAt);
    expect(byId.get('g1')!.lastActivityAt).toBe(byId.get('g1')!.createdAt);

    expect(ids(await list({ agent: 'claude-code' }))).toEqual(['c2', 'c1']);
    expect(await list({ agent: 'codex' })).toEqual({ totalCount: 0, edges: [] });
    const g1 = byId.get('g1')!.createdAt;
    expect(ids(await list({ after: g1 }))).toEqual(['x1', 'c2', 'g1']);
    expect(ids(await list({ before: g1 }))).toEqual(['c1']);
    expect(ids(await list({ agent: 'claude-code', after: g1 }))).toEqual(['c2']);

    const bad = onlyError(await api.raw(LIST, { agent: '../x' }));
    expect(bad.extensions?.code).toBe('BAD_USER_INPUT');
    expect(bad.message).toContain('agent');
    expect(onlyError(await api.raw(LIST, { after: 'yesterday' })).extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('resolves Relay global ids of sessions and messages with node(id:)', async () => {
    const api = await startTestServer();
    const { createSession } = await api.ok(CreateSession, { input: { sessionId: 's1' } });
    const { appendMessage } = await api.ok(AppendMessage, {
      input: { sessionId: 's1', role: 'USER', content: 'hello', messageId: 'u1' },
    });
    const session = await api.ok(NodeById, { id: createSession.id });
    expect(session.node).toMatchObject({ __typename: 'Session', sessionId: 's1' });
    const message = await api.ok(NodeById, { id: appendMessage.id });
    expect(message.node).toMatchObject({ __typename: 'Message', messageId: 'u1', content: 'hello' });
    expect(appendMessage.id).not.toBe('u1');
  });

  it('pages through a long conversation by seq', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 's1' } });
    for (let i = 1; i <= 4; i++) {
      await api.ok(RecordTurn, {
        input: { sessionId: 's1', user: { content: `q${i}` }, assistant: { content: `a${i}` } },
      });
    }
    const page1 = await api.ok(SessionView, { sessionId: 's1', first: 3 });
    expect(page1.session?.messages.totalCount).toBe(8);
    expect(page1.session?.messages.edges.map((e) => e.node.seq)).toEqual([1, 2, 3]);
    expect(page1.session?.turns.totalCount).toBe(4);
    const page2 = await api.ok(SessionView, {
      sessionId: 's1',
      first: 10,
      after: page1.session?.messages.pageInfo.endCursor,
    });
    expect(page2.session?.messages.edges.map((e) => e.node.content)).toEqual(['a2', 'q3', 'a3', 'q4', 'a4']);
    expect(page2.session?.messages.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(page1.session?.messages.edges[1]?.node.successors.map((s) => s.messageId)).toHaveLength(1);
  });
});

describe('node(id:) for what a search hit or a blame range points to', () => {
  it('fetches a Turn, a Commit (of a session repo) and a Branch by the id they were returned with; a made-up one is null', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'n1' } });
    await api.ok(RecordTurn, { input: { sessionId: 'n1', user: { content: 'q' }, assistant: { content: 'a' } } });
    const ids = await eventually(async () => {
      const result = await api.raw('{ session(sessionId: "n1") { turns(first: 1) { edges { node { id number commit { id sha } } } } branches { id name } } }');
      const session = (result.data as { session: { turns: { edges: { node: { id: string; number: number; commit: { id: string; sha: string } | null } }[] }; branches: { id: string; name: string }[] } })
        .session;
      const turn = session.turns.edges[0]!.node;
      return turn.commit ? { turn: turn.id, commit: turn.commit.id, sha: turn.commit.sha, branch: session.branches[0]!.id } : false;
    });
    const node = async (id: string) => {
      const result = await api.raw(
        'query ($id: ID!) { node(id: $id) { __typename id ... on Turn { number } ... on Commit { sha } ... on Branch { name isCurrent } } }',
        { id },
      );
      expect(result.errors).toBeUndefined();
      return (result.data as { node: Record<string, unknown> | null }).node;
    };
    expect(await node(ids.turn)).toEqual({ __typename: 'Turn', id: ids.turn, number: 1 });
    expect(await node(ids.commit)).toEqual({ __typename: 'Commit', id: ids.commit, sha: ids.sha });
    expect(await node(ids.branch)).toEqual({ __typename: 'Branch', id: ids.branch, name: 'main', isCurrent: true });
    // Well-formed ids of nothing: no node.
    const id = (text: string) => Buffer.from(text).toString('base64');
    for (const made of [`Commit:session:n1:${'0'.repeat(40)}`, `Commit:session:nobody:${ids.sha}`, `Commit:project:nope:${ids.sha}`, 'Commit:session:n1:HEAD', 'Branch:n1:nope', 'Branch:../x:main', 'Turn:nope']) {
      expect(await node(id(made)), made).toBeNull();
    }
  });
});
