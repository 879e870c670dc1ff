/**
 * Reads from the database first: a page of sessions with their head, turns'
 * commits (sha), timeline (sha, turn) and mirror status starts no git process,
 * and `Session.mirror` for a page costs the same statements whatever its size
 * (src/services/replay/read-commits.ts MirrorStatusLoader). Git-only fields
 * (headline) still read git, one process per session. Counted, not timed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { onSqlStatement } from '../../src/db/index.js';
import { onGitSpawn } from '../../src/git/run.js';
import { eventually } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CreateSession, RecordTurn } from './operations.js';

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
  turns(first: 10) { totalCount edges { node { number mirrorState commit { sha turn { number } } } } }
  timeline(first: 10) { totalCount edges { node { sha turn { number } } } }
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
    // The shas are git's: a git-only field of the same commits reads the repo, once per session.
    const headlines = await counted(api, `{ sessions(first: 3) { edges { node { turns(first: 10) { edges { node { number commit { headline } } } } } } } }`);
    expect(headlines.git.length).toBe(3);
    type Headlines = { sessions: { edges: { node: { turns: { edges: { node: { number: number; commit: { headline: string } } }[] } } }[] } };
    for (const s of (headlines.data as Headlines).sessions.edges) {
      for (const t of s.node.turns.edges) expect(t.node.commit.headline).toContain(`question ${t.node.number}`);
    }
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
});
