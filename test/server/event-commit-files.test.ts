/**
 * Issue 31: an event's size does not grow with the session. `Commit.files` in a subscription
 * (turnCommitted, timeline) lists the files the commit added or changed, equal to its diff, while
 * a query of the same commit lists its whole tree. Real server, real git, a real graphql-ws client.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { startTestServer } from '../helpers/server.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';

interface EventCommit {
  sha: string;
  files: { path: string; size: number }[];
  diff: { files: { path: string; status: string }[] };
}

const TurnCommitted = parse(
  'subscription ($sessionId: String) { turnCommitted(sessionId: $sessionId) { turn { number } commit { sha files { path size } diff { files { path status } } } } }',
) as TypedDocumentNode<{ turnCommitted: { turn: { number: number }; commit: EventCommit } }, { sessionId?: string }>;

const Timeline = parse(
  'subscription ($sessionId: String!) { timeline(sessionId: $sessionId) { kind commit { sha files { path size } diff { files { path status } } } } }',
) as TypedDocumentNode<{ timeline: { kind: string; commit: EventCommit | null } }, { sessionId: string }>;

describe('Commit.files in events', () => {
  it("lists the files the turn's commit changed, the same few at turn 2 and turn 40; a query lists the whole tree", async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'long' } });
    const client = wsClient(api.url);
    const committed = wsSubscribe(client, TurnCommitted, { sessionId: 'long' });
    const timeline = wsSubscribe(client, Timeline, { sessionId: 'long' });
    await Promise.all([committed.ready(), timeline.ready()]);

    const turns = 40;
    for (let n = 1; n <= turns; n++) {
      await api.ok(RecordTurn, { input: { sessionId: 'long', user: { content: `question ${n}` }, assistant: { content: `answer ${n}` }, toolResults: [{ content: `output ${n}`, toolName: 'run' }] } });
    }
    await committed.next(turns);

    const events = committed.events.map((event) => {
      expect(event.errors).toBeUndefined();
      return event.data!.turnCommitted;
    });
    expect(events.map((event) => event.turn.number)).toEqual(Array.from({ length: turns }, (_, i) => i + 1));
    for (const { commit } of events) {
      // Exactly what the commit changed: its diff's files (none deleted), with their sizes.
      expect(commit.files.map((file) => file.path).sort()).toEqual(commit.diff.files.filter((file) => file.status !== 'DELETED').map((file) => file.path).sort());
      for (const file of commit.files) expect(file.size).toBeGreaterThan(0);
    }
    // Three message files (and meta.json on the first): as many at turn 40 as at turn 2.
    expect(events[1]!.commit.files.length).toBe(events[turns - 1]!.commit.files.length);
    expect(events[turns - 1]!.commit.files.map((file) => file.path)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^messages\/000\/000118-u-/), expect.stringMatching(/^messages\/000\/000119-a-/), expect.stringMatching(/^messages\/000\/000120-t-/)]),
    );

    // The same commit read by a query: every file of the session so far.
    const last = events[turns - 1]!.commit;
    const queried = await api.raw('query ($sha: String!) { session(sessionId: "long") { commit(sha: $sha) { files { path size } } } }', { sha: last.sha });
    expect(queried.errors).toBeUndefined();
    const tree = (queried.data as { session: { commit: { files: { path: string; size: number }[] } } }).session.commit.files;
    expect(tree.length).toBe(3 * turns + 1);
    for (const file of last.files) expect(tree).toContainEqual(file);

    // The timeline's commits likewise.
    await timeline.next(turns);
    const timelineCommits = timeline.events.map((event) => event.data!.timeline.commit).filter((commit): commit is EventCommit => commit !== null);
    expect(timelineCommits.length).toBeGreaterThanOrEqual(turns);
    for (const commit of timelineCommits) {
      expect(commit.files.map((file) => file.path).sort()).toEqual(commit.diff.files.filter((file) => file.status !== 'DELETED').map((file) => file.path).sort());
    }
    expect(timelineCommits.at(-1)!.files.length).toBe(3);
  });
});
