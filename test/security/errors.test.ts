/**
 * User mistakes answered as such against a real server: a path that is not a
 * file path of the repository and an undecodable node id are BAD_USER_INPUT
 * saying what a valid one is; a path or a node that simply is not there is
 * null, as the schema says. None of them is INTERNAL_SERVER_ERROR.
 */
import { describe, expect, it } from 'vitest';
import { startTestServer, type Result, type TestServer } from '../helpers/server.js';

async function sessionWithCommit(api: TestServer): Promise<{ messagePath: string }> {
  await api.raw(`mutation { createSession(input: { sessionId: "s1" }) { sessionId } }`);
  const turn = await api.raw(
    `mutation { recordTurn(input: { sessionId: "s1", user: { content: "hi" }, assistant: { content: "hello" } }) { userMessage { path } } }`,
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const view = await api.raw(`{ session(sessionId: "s1") { mirror { inSync } } }`);
    if ((view.data as { session: { mirror: { inSync: boolean } } }).session.mirror.inSync) break;
    if (Date.now() > deadline) throw new Error('the session never got in sync');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { messagePath: (turn.data as { recordTurn: { userMessage: { path: string } } }).recordTurn.userMessage.path };
}

function onlyCode(result: Result<unknown>): string | undefined {
  expect(result.errors, JSON.stringify(result.data)).toHaveLength(1);
  return result.errors![0]!.extensions?.code;
}

const nodeId = (text: string) => Buffer.from(text, 'utf8').toString('base64');

describe('Commit.file(path:)', () => {
  it('answers a path that is not a file path of the repository with BAD_USER_INPUT saying what one is, and an absent one with null', async () => {
    const api = await startTestServer();
    const { messagePath } = await sessionWithCommit(api);
    const file = (path: string) =>
      api.raw(`query F($path: String!) { session(sessionId: "s1") { head { file(path: $path) { path size text } } } }`, { path });

    const found = await file(messagePath);
    expect(found.errors).toBeUndefined();
    expect((found.data as { session: { head: { file: { text: string } } } }).session.head.file.text).toContain('"hi"');

    const bad = [
      '.git/config',
      '.GIT/config',
      'messages/../.git/config',
      './meta.json',
      '../outside',
      'a/./b',
      'a//b',
      'messages/',
      '"x',
      'a\\b',
      '/etc/passwd',
      'C:\\Windows',
      '',
      'a\u0000b',
      'x'.repeat(5000),
    ];
    for (const path of bad) {
      const result = await file(path);
      expect(onlyCode(result), path).toBe('BAD_USER_INPUT');
      expect(result.errors![0]!.message, path).toMatch(/is not a file path in the repository \(.+\): give it relative to the repository root with \/ between folders/);
      expect(result.errors![0]!.extensions?.field, path).toBe('path');
    }

    for (const path of ['nope.json', 'nope/file.txt', 'messages', 'messages/000/none.json']) {
      const result = await file(path);
      expect(result.errors, path).toBeUndefined();
      expect((result.data as { session: { head: { file: unknown } } }).session.head.file, path).toBeNull();
    }
  });
});

describe('node(id:)', () => {
  it('answers an id that is not a node id with BAD_USER_INPUT, and a well-formed id of nothing with null', async () => {
    const api = await startTestServer();
    const created = await api.raw(`mutation { createSession(input: { sessionId: "s1" }) { id sessionId } }`);
    const sessionNodeId = (created.data as { createSession: { id: string } }).createSession.id;
    const node = (id: string) => api.raw(`query N($id: ID!) { node(id: $id) { id ... on Session { sessionId } } }`, { id });

    const known = await node(sessionNodeId);
    expect(known.errors).toBeUndefined();
    expect(known.data).toEqual({ node: { id: sessionNodeId, sessionId: 's1' } });

    const garbage = ['garbage', '%%%', '', 'a b', nodeId('nocolon'), nodeId(':1'), nodeId('Session:'), nodeId('1x:2'), 'x'.repeat(3000)];
    for (const id of garbage) {
      const result = await node(id);
      expect(onlyCode(result), id).toBe('BAD_USER_INPUT');
      expect(result.errors![0]!.message, id).toMatch(/is not a node id: pass the id field of a Session, Message, Project, Turn, Commit or Branch/);
      expect(result.data, id).toEqual({ node: null });
    }

    const nothing = [
      nodeId('Nope:1'),
      nodeId('Turn:1'),
      nodeId('Commit:abc'),
      nodeId('Query:x'),
      nodeId('Session:nope'),
      nodeId('Session:../../etc'),
      nodeId('Message:nope'),
      nodeId('Project:nope'),
    ];
    for (const id of nothing) {
      const result = await node(id);
      expect(result.errors, Buffer.from(id, 'base64').toString()).toBeUndefined();
      expect(result.data, id).toEqual({ node: null });
    }
  });
});

describe('page arguments', () => {
  it('answers a first: out of range or a foreign cursor with BAD_USER_INPUT, on lists and on Commit.messages', async () => {
    const api = await startTestServer();
    await sessionWithCommit(api);
    const queries = [
      `{ session(sessionId: "s1") { messages(first: -1) { totalCount } } }`,
      `{ session(sessionId: "s1") { messages(first: 501) { totalCount } } }`,
      `{ session(sessionId: "s1") { turns(after: "bm9wZQ") { totalCount } } }`,
      `{ session(sessionId: "s1") { head { messages(first: 501) { seq } } } }`,
      `{ session(sessionId: "s1") { head { messages(after: "garbage") { seq } } } }`,
      `{ session(sessionId: "s1") { head { messagesConnection(first: 1, last: 2) { totalCount } } } }`,
      `{ sessions(first: 100000) { totalCount } }`,
    ];
    for (const query of queries) {
      const result = await api.raw(query);
      expect(result.errors?.map((e) => e.extensions?.code), query).toEqual(['BAD_USER_INPUT']);
    }
    const page = await api.raw(`{ session(sessionId: "s1") { head { messages(first: 1) { seq } messagesConnection(first: 1) { totalCount pageInfo { hasNextPage } } } } }`);
    expect(page.errors).toBeUndefined();
    expect(page.data).toEqual({
      session: { head: { messages: [{ seq: 1 }], messagesConnection: { totalCount: 2, pageInfo: { hasNextPage: true } } } },
    });
  });
});
