/**
 * Commit.turn across a list: a timeline page's turns are read together (one query per
 * session, src/services/replay/read-commits.ts CommitTurnLoader), and each commit still gets
 * its own turn, also when one request lists two sessions' timelines.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../helpers/git.js';
import { startTestServer } from '../helpers/server.js';
import { CreateSession, RecordTurn } from './operations.js';

describe('Commit.turn in lists', () => {
  it("gives every commit of two sessions' timelines its own turn in one request", async () => {
    const api = await startTestServer();
    for (const [sessionId, turns] of [['left', 4], ['right', 3]] as const) {
      await api.ok(CreateSession, { input: { sessionId } });
      for (let n = 1; n <= turns; n++) {
        await api.ok(RecordTurn, { input: { sessionId, user: { content: `${sessionId} question ${n}` }, assistant: { content: `${sessionId} answer ${n}` } } });
      }
    }
    const query = `{
      left: session(sessionId: "left") { timeline(first: 10) { edges { node { headline turn { number session { sessionId } } } } } }
      right: session(sessionId: "right") { timeline(first: 10) { edges { node { headline turn { number session { sessionId } } } } } }
    }`;
    type Side = { timeline: { edges: { node: { headline: string; turn: { number: number; session: { sessionId: string } } | null } }[] } };
    const data = await eventually(async () => {
      const result = await api.raw(query);
      const sides = result.data as { left: Side; right: Side } | undefined;
      // A commit is listed once git has it; its turn once the mirror has recorded the sha too.
      const complete = (side: Side, turns: number) => side.timeline.edges.length === turns && side.timeline.edges.every((e) => e.node.turn !== null);
      return sides && complete(sides.left, 4) && complete(sides.right, 3) ? sides : undefined;
    });
    for (const [sessionId, side, turns] of [['left', data.left, 4], ['right', data.right, 3]] as const) {
      expect(side.timeline.edges.map((e) => e.node.turn?.number)).toEqual(Array.from({ length: turns }, (_, i) => turns - i));
      expect(side.timeline.edges.every((e) => e.node.turn?.session.sessionId === sessionId)).toBe(true);
      for (const { node } of side.timeline.edges) expect(node.headline).toContain(`${sessionId} question ${node.turn!.number}`);
    }
  });
});
