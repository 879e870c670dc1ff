/**
 * Reads from the database first: a page of sessions with their head, turns'
 * commits (sha), timeline (sha, turn) and mirror status starts no git process,
 * and costs the same statements whatever its size (the request's batched reads,
 * src/schema/loaders.ts). A turn commit's headline comes from the database too
 * (its turn's number and user message), the same as git's; git-only fields
 * (message, author) still read git, one process per session. Counts are the kept ones, equal to the lists they count
 * on every branch. Counted, not timed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { onSqlStatement } from '../../src/db/index.js';
import { onGitSpawn } from '../../src/git/run.js';
import { eventually } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { Checkout, RetryTurn } from '../branching/operations.js';
import { AppendMessage, CreateSession, EndTurn, RecordTurn } from './operations.js';
import { clearShaCache } from '../../src/git/sha-cache.js';

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** The fewest SQL statements and git processes of three runs of `query` (the mirror may run beside one). */
async function counted(api: TestServer, query: string): Promise<{ statements: number; git: string[]; data: Record<string, unknown> }> {
  let best: { statements: number; git: string[]; data: Record<string, unknown> } | null = null;
  for (let run = 0; run < 3; run++) {
    let statements = 0;
    const git: string[] = [];
    const off = [onSqlStatement(() => statements++), onGitSpawn((e) => git.push(e.argv.join(' ')))];
    stops.push(...off);
    const result = await api.raw(query);
    for (const stop of off) stop();
    expect(result.errors).toBeUndefined();
    if (!best || statements + git.length < best.statements + best.git.length) best = { statements, git, data: result.data! };
  }
  return best!;
}

async function sessionsWithTurns(api: TestServer, sessions: number, turns: number): Promise<void> {
  for (let s = 0; s < sessions; s++) {
    const sessionId = `reads-${s}`;
    await api.ok(CreateSession, { input: { sessionId } });
    for (let n = 1; n <= turns; n++) {
      await api.ok(RecordTurn, { input: { sessionId, user: { content: `${sessionId} question ${n}` }, assistant: { content: `answer ${n}` } } });
    }
  }
  await eventually(async () => {
    const result = await api.raw(`{ sessions(first: 50) { edges { node { mirror { inSync } } } } }`);
    const edges = (result.data as { sessions: { edges: { node: { mirror: { inSync: boolean } } }[] } } | undefined)?.sessions.edges ?? [];
    return edges.length === sessions && edges.every((e) => e.node.mirror.inSync) ? true : undefined;
  });
}

const page = (first: number) => `{ sessions(first: ${first}) { totalCount edges { node { sessionId
  head { sha shortSha turn { number } }
  turns(first: 10) { totalCount edges { node { number mirrorState commit { sha headline turn { number } } } } }
  timeline(first: 10) { totalCount edges { node { sha headline turn { number } } } }
  mirror { dagTurns gitCommits pending inSync lastError lastCommittedAt } } } } }`;

type PageData = {
  sessions: {
    edges: {
      node: {
        sessionId: string;
        head: { sha: string; turn: { number: number } } | null;
        turns: { totalCount: number; edges: { node: { number: number; commit: { sha: string; turn: { number: number } } | null } }[] };
        timeline: { totalCount: number; edges: { node: { sha: string; turn: { number: number } } }[] };
        mirror: { dagTurns: number; gitCommits: number; pending: number; inSync: boolean };
      };
    }[];
  };
};

describe('reads from the database first', () => {
  it('lists sessions with head, turn commits, timeline and mirror without a git process, the shas those of the repo', async () => {
    const api = await startTestServer();
    await sessionsWithTurns(api, 3, 3);
    const { git, data } = await counted(api, page(3));
    expect(git).toEqual([]);
    for (const { node } of (data as PageData).sessions.edges) {
      expect(node.mirror).toMatchObject({ dagTurns: 3, gitCommits: 3, pending: 0, inSync: true });
      expect(node.turns.totalCount).toBe(3);
      expect(node.timeline.totalCount).toBe(3);
      expect(node.timeline.edges.map((e) => e.node.turn.number)).toEqual([3, 2, 1]);
      // The commits the turns name are the timeline's, newest first, and head is the newest.
      const bySha = new Map(node.turns.edges.map((e) => [e.node.commit!.sha, e.node.number]));
      expect(node.timeline.edges.map((e) => bySha.get(e.node.sha))).toEqual([3, 2, 1]);
      expect(node.head).toMatchObject({ sha: node.timeline.edges[0]!.node.sha, turn: { number: 3 } });
      for (const e of node.turns.edges) expect(e.node.commit!.turn.number).toBe(e.node.number);
    }
    // The shas are git's: a git-only field of the same commits reads the repo, once per session
    // (nothing kept of them yet: src/git/sha-cache.ts), then never again for those commits. The
    // headlines the database gave are the first lines of git's messages.
    clearShaCache();
    const messagesQuery = `{ sessions(first: 3) { edges { node { turns(first: 10) { edges { node { number commit { headline message } } } } } } } }`;
    const firstGit: string[] = [];
    const stop = onGitSpawn((e) => firstGit.push(e.argv.join(' ')));
    stops.push(stop);
    const first = await api.raw(messagesQuery);
    stop();
    expect(first.errors).toBeUndefined();
    expect(firstGit.filter((argv) => / log /.test(argv))).toHaveLength(3);
    const messages = await counted(api, messagesQuery);
    expect(messages.git).toEqual([]);
    expect(messages.data).toEqual(first.data);
    type Messages = { sessions: { edges: { node: { turns: { edges: { node: { number: number; commit: { headline: string; message: string } } }[] } } }[] } };
    for (const s of (messages.data as Messages).sessions.edges) {
      for (const t of s.node.turns.edges) {
        expect(t.node.commit.headline).toBe(t.node.commit.message.split('\n')[0]);
        expect(t.node.commit.headline).toContain(`question ${t.node.number}`);
      }
    }
  });

  it("gives a turn commit's headline from the database, the same as git's first line, whatever the user message", async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'heads' } });
    const contents = [
      '  leading spaces\r\nthen a CRLF, and a line long enough to be cut at sixty characters of it',
      `${'é'.repeat(300)} accents past the characters read`,
      `${'😀'.repeat(70)} astral characters, two UTF-16 units each`,
      `${'\n'.repeat(100)}after a hundred newlines`,
      `tab\tand a control \u0007 character ${' '.repeat(80)}trailing`,
      'short',
      `nul \u0000 in it, 100% sure, ${'%'.repeat(200)}\u0000 more`,
    ];
    for (const content of contents) await api.ok(RecordTurn, { input: { sessionId: 'heads', user: { content }, assistant: { content: 'ok' } } });
    await eventually(async () => {
      const result = await api.raw(`{ session(sessionId: "heads") { mirror { inSync } } }`);
      return (result.data as { session: { mirror: { inSync: boolean } } } | undefined)?.session.mirror.inSync ? true : undefined;
    });
    const query = `{ session(sessionId: "heads") { timeline(first: 10) { edges { node { headline } } } } }`;
    const fromDatabase = await counted(api, query);
    expect(fromDatabase.git).toEqual([]);
    const fromGit = await api.raw(`{ session(sessionId: "heads") { timeline(first: 10) { edges { node { headline message } } } } }`);
    type Timeline = { session: { timeline: { edges: { node: { headline: string; message: string } }[] } } };
    const edges = (fromGit.data as Timeline).session.timeline.edges;
    expect(edges).toHaveLength(contents.length);
    for (const { node } of edges) expect(node.headline).toBe(node.message.split('\n')[0]);
    expect((fromDatabase.data as unknown as Timeline).session.timeline.edges.map((e) => e.node.headline)).toEqual(edges.map((e) => e.node.headline));
  });

  it('reads Session.mirror for a page of sessions in the same statements whatever its size', async () => {
    const api = await startTestServer();
    await sessionsWithTurns(api, 6, 2);
    const mirrors = (first: number) => `{ sessions(first: ${first}) { edges { node { mirror { dagTurns gitCommits pending inSync lastError } } } } }`;
    const two = await counted(api, mirrors(2));
    const six = await counted(api, mirrors(6));
    expect(six.statements).toBe(two.statements);
    expect([two.git, six.git]).toEqual([[], []]);
    expect((six.data as { sessions: { edges: unknown[] } }).sessions.edges).toHaveLength(6);
  });

  it('costs the same statements for a page of 2 sessions as for 6, head, turns, commits, timeline and mirror included', async () => {
    const api = await startTestServer();
    await sessionsWithTurns(api, 6, 2);
    const two = await counted(api, page(2));
    const six = await counted(api, page(6));
    expect((six.data as PageData).sessions.edges).toHaveLength(6);
    for (const { node } of (six.data as PageData).sessions.edges) {
      expect(node.timeline.edges.map((e) => e.node.turn.number)).toEqual([2, 1]);
      expect(node.turns.edges.map((e) => e.node.commit!.turn.number)).toEqual([1, 2]);
    }
    expect([two.git, six.git]).toEqual([[], []]);
    expect(six.statements).toBe(two.statements);
    expect(six.statements).toBeLessThanOrEqual(20);
  });

  it('keeps every count equal to the list it counts, on main, a retry and a fork, with a turn open', async () => {
    const api = await startTestServer();
    const sessionId = 'kept';
    await api.ok(CreateSession, { input: { sessionId } });
    for (const n of [1, 2, 3]) {
      await api.ok(RecordTurn, {
        input: {
          sessionId,
          user: { messageId: `u${n}`, content: `q${n}` },
          assistant: { messageId: `a${n}`, content: `r${n}` },
          toolResults: n === 2 ? [{ messageId: 't2', content: 'x', toolName: 'read' }] : [],
        },
      });
    }
    await api.ok(RetryTurn, { input: { sessionId, userMessageId: 'u2', assistant: { messageId: 'a2b', content: 'again' } } });
    await api.ok(RecordTurn, { input: { sessionId, user: { messageId: 'u3b', content: 'q3b' }, assistant: { messageId: 'a3b', content: 'r3b' } } });
    const c1 = await eventually(async () => {
      const r = await api.raw(`{ session(sessionId: "${sessionId}") { mirror { inSync } timeline(branch: "main") { edges { node { sha } } } } }`);
      const data = r.data as { session: { mirror: { inSync: boolean }; timeline: { edges: { node: { sha: string } }[] } } };
      return data.session.mirror.inSync ? data.session.timeline.edges.at(-1)?.node.sha : undefined;
    });
    await api.ok(Checkout, { input: { sessionId, sha: c1 } });
    // Messages appended one by one (the count kept while the turn is open), then a fork.
    await api.ok(AppendMessage, { input: { sessionId, role: 'USER', content: 'other', messageId: 'u9' } });
    await api.ok(AppendMessage, { input: { sessionId, role: 'ASSISTANT', content: 'sure', messageId: 'a9' } });

    type Counted = { totalCount: number; edges: unknown[] };
    type View = {
      branches: { name: string }[];
      messages: Counted;
      turns: Counted;
      timeline: Counted & { edges: { node: { messagesConnection: Counted } }[] };
    };
    const view = async (branch: string) => {
      const result = await api.raw(
        `query ($branch: String) { session(sessionId: "${sessionId}") { branches { name }
          messages(first: 50, branch: $branch) { totalCount edges { cursor } }
          turns(first: 50, branch: $branch) { totalCount edges { cursor } }
          timeline(first: 10, branch: $branch) { totalCount edges { node { messagesConnection(first: 20) { totalCount edges { cursor } } } } } } }`,
        { branch },
      );
      expect(result.errors).toBeUndefined();
      return (result.data as { session: View }).session;
    };

    // The open turn's messages are on the fork's path already.
    const open = await view('fork-u9');
    expect([open.messages.totalCount, open.messages.edges.length]).toEqual([4, 4]);
    expect([open.turns.totalCount, open.turns.edges.length]).toEqual([2, 2]);
    await api.ok(EndTurn, { input: { sessionId } });
    await eventually(async () => ((await api.raw(`{ session(sessionId: "${sessionId}") { mirror { inSync } } }`)).data as { session: { mirror: { inSync: boolean } } }).session.mirror.inSync || undefined);

    const expected = { main: [7, 3, 3], 'retry-a2b': [6, 3, 3], 'fork-u9': [4, 2, 2] } as Record<string, number[]>;
    const branches = (await view('main')).branches.map((b) => b.name);
    expect(branches.sort()).toEqual(Object.keys(expected).sort());
    for (const branch of branches) {
      const v = await view(branch);
      const counts = [v.messages, v.turns, v.timeline].map((list) => [list.totalCount, list.edges.length]);
      expect({ branch, counts }).toEqual({ branch, counts: expected[branch]!.map((n) => [n, n]) });
      for (const { node } of v.timeline.edges) expect(node.messagesConnection.totalCount).toBe(node.messagesConnection.edges.length);
    }
  });
});
