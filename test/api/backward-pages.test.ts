/**
 * Issue 26 item 6: every connection that offers `last`/`before` pages backward as Relay's
 * connection spec says, and the cost limit prices `last:` as it prices `first:`; what is held in
 * the database (turn numbers, commit shas, a project commit's sha) is cheap, so a dashboard's
 * "latest turns" and a 100-turn page with their shas pass, while git-heavy bombs stay refused.
 */
import { describe, expect, it } from 'vitest';
import { MAX_COST } from '../../src/schema/cost.js';
import { eventually } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Conn = { edges: { cursor: string; node: Record<string, unknown> }[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null } };
const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

async function data<T>(api: TestServer, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const result = await api.raw(query, variables);
  expect(result.errors, query).toBeUndefined();
  return result.data as T;
}

/** A connection read backward to its start, `last` at a time: the nodes in list order, and each page's info. */
async function walkBackward(api: TestServer, read: (before: string | null) => string, pick: (data: never) => Conn, key: string) {
  const nodes: unknown[] = [];
  let before: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page: Conn = pick(await data<never>(api, read(before)));
    nodes.unshift(...page.edges.map((edge) => edge.node[key]));
    expect(page.pageInfo.hasNextPage).toBe(before !== null);
    expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
    if (!page.pageInfo.hasPreviousPage) return nodes;
    before = page.pageInfo.startCursor;
  }
  throw new Error('never reached the start');
}

async function sessionWithTurns(api: TestServer, sessionId: string, turns: number): Promise<void> {
  await data(api, `mutation($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }`, { id: sessionId });
  for (let n = 1; n <= turns; n++) {
    await data(api, `mutation($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`, {
      input: { sessionId, user: { content: `question ${n}` }, assistant: { content: `answer ${n}` } },
    });
  }
  await eventually(async () => (await data<{ session: { mirror: { inSync: boolean } } }>(api, `{ session(sessionId: "${sessionId}") { mirror { inSync } } }`)).session.mirror.inSync);
}

describe('connections page backward', () => {
  it('gives the last items of turns, messages, timelines and sessions, and walks back to the start in the order a forward walk gives', async () => {
    const api = await startTestServer();
    await sessionWithTurns(api, 's', 7);
    for (const id of ['t1', 't2', 't3']) await data(api, `mutation { createSession(input: { sessionId: "${id}" }) { sessionId } }`);

    // The latest 3 turns, oldest first, as a dashboard asks.
    const latest = await data<{ session: { turns: Conn } }>(api, `{ session(sessionId: "s") { turns(last: 3) { edges { cursor node { number } } ${PAGE_INFO} totalCount } } }`);
    expect(latest.session.turns.edges.map((e) => e.node.number)).toEqual([5, 6, 7]);
    expect(latest.session.turns.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    // A backward page's cursors work forward too: after turn 5 come 6 and 7.
    const onward = await data<{ session: { turns: Conn } }>(api, `query($after: String) { session(sessionId: "s") { turns(first: 5, after: $after) { edges { node { number } } } } }`, {
      after: latest.session.turns.edges[0]!.cursor,
    });
    expect(onward.session.turns.edges.map((e) => e.node.number)).toEqual([6, 7]);

    const turns = await walkBackward(
      api,
      (before) => `{ session(sessionId: "s") { turns(last: 3${before ? `, before: "${before}"` : ''}) { edges { cursor node { number } } ${PAGE_INFO} } } }`,
      (d: { session: { turns: Conn } }) => d.session.turns,
      'number',
    );
    expect(turns).toEqual([1, 2, 3, 4, 5, 6, 7]);

    const messages = await walkBackward(
      api,
      (before) => `{ session(sessionId: "s") { messages(last: 4${before ? `, before: "${before}"` : ''}) { edges { cursor node { seq } } ${PAGE_INFO} } } }`,
      (d: { session: { messages: Conn } }) => d.session.messages,
      'seq',
    );
    expect(messages).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));

    const atHead = await walkBackward(
      api,
      (before) => `{ session(sessionId: "s") { head { messagesConnection(last: 5${before ? `, before: "${before}"` : ''}) { edges { cursor node { seq } } ${PAGE_INFO} } } } }`,
      (d: { session: { head: { messagesConnection: Conn } } }) => d.session.head.messagesConnection,
      'seq',
    );
    expect(atHead).toEqual(messages);

    // Timelines are newest first: their last items are the oldest commits.
    const forward = await data<{ session: { timeline: Conn } }>(api, `{ session(sessionId: "s") { timeline(first: 100) { edges { cursor node { sha } } ${PAGE_INFO} } } }`);
    const shas = forward.session.timeline.edges.map((e) => e.node.sha);
    expect(shas).toHaveLength(7);
    for (const all of [false, true]) {
      const timeline = await walkBackward(
        api,
        (before) => `{ session(sessionId: "s") { timeline(all: ${all}, last: 2${before ? `, before: "${before}"` : ''}) { edges { cursor node { sha } } ${PAGE_INFO} } } }`,
        (d: { session: { timeline: Conn } }) => d.session.timeline,
        'sha',
      );
      expect(timeline, `all: ${all}`).toEqual(shas);
    }

    const sessions = await walkBackward(
      api,
      (before) => `{ sessions(last: 3${before ? `, before: "${before}"` : ''}) { edges { cursor node { sessionId } } ${PAGE_INFO} } }`,
      (d: { sessions: Conn }) => d.sessions,
      'sessionId',
    );
    const newestFirst = await data<{ sessions: Conn }>(api, `{ sessions(first: 10) { edges { node { sessionId } } } }`);
    expect(sessions).toEqual(newestFirst.sessions.edges.map((e) => e.node.sessionId));
    expect(sessions).toHaveLength(4);
  });

  it('refuses forward and backward arguments mixed, a last: out of range and a foreign before:, with BAD_USER_INPUT naming the argument', async () => {
    const api = await startTestServer();
    await sessionWithTurns(api, 's', 1);
    for (const [query, field] of [
      [`{ session(sessionId: "s") { turns(first: 2, last: 2) { totalCount } } }`, 'last'],
      [`{ session(sessionId: "s") { turns(after: "dHVybjox", before: "dHVybjox") { totalCount } } }`, 'before'],
      [`{ session(sessionId: "s") { turns(last: 501) { edges { node { number } } } } }`, 'last'],
      [`{ session(sessionId: "s") { messages(last: -1) { edges { node { seq } } } } }`, 'last'],
      [`{ session(sessionId: "s") { messages(last: 2, before: "garbage") { edges { node { seq } } } } }`, 'before'],
      [`{ sessions(last: 2, before: "garbage") { edges { node { sessionId } } } }`, 'before'],
    ] as const) {
      const result = await api.raw(query);
      expect(result.errors?.map((e) => [e.extensions?.code, e.extensions?.field]), query).toEqual([['BAD_USER_INPUT', field]]);
    }
  });
});

describe('the cost of a page', () => {
  const costOf = async (api: TestServer, query: string) => {
    const result = await api.raw(query);
    return result.errors ? (result.errors[0]!.extensions?.cost as number | undefined) ?? result.errors[0]!.message : 'ok';
  };

  it('counts last: like first:, lets a dashboard read 100 turns with their shas, and still refuses a git-heavy page', async () => {
    const api = await startTestServer();
    await sessionWithTurns(api, 's', 3);
    // Each turn's files cost a git process: 3 of them pass; the default 50 would not.
    const files = (page: string) => `{ session(sessionId: "s") { turns(${page}) { edges { node { number commit { files { path } } } } } } }`;
    expect(await costOf(api, files('last: 3'))).toBe('ok');
    expect(await costOf(api, files('first: 3'))).toBe('ok');
    expect(await costOf(api, files('last: 200'))).toBeGreaterThan(MAX_COST);

    // A dashboard's page: 100 turns, their numbers, commit shas and project commit outcome from the database.
    expect(
      await costOf(api, `{ session(sessionId: "s") { turns(first: 100) { totalCount edges { node { number open commit { sha } projectCommit { result commitSha snapshotSha paths } } } } } }`),
    ).toBe('ok');
    expect(await costOf(api, `{ session(sessionId: "s") { turns(last: 100) { edges { node { number commit { sha shortSha } redactions { kind count } } } } } }`)).toBe('ok');
    // Reading each project commit itself re-checks the folder with git: refused in a long list.
    expect(await costOf(api, `{ session(sessionId: "s") { turns(first: 100) { edges { node { projectCommit { commit { sha } } } } } } }`)).toBeGreaterThan(MAX_COST);
  });
});
