/** The live view's pure logic: the open turn from its read and its events, and the agent's name. */
import { describe, expect, it } from 'vitest';
import { agentName } from '../../lib/agents';
import { applyTurnUpdate, combineLive, mergeMessages, showsLive, type LiveTurn } from './live';

const m = (seq: number, text = `m${seq}`) => ({ id: `id${seq}`, seq, text });
type M = ReturnType<typeof m>;
const turn = (number: number, seqs: number[], closed = false): LiveTurn<M> => ({ number, messages: seqs.map((seq) => m(seq)), closed });
const seqs = (live: LiveTurn<M> | null | undefined) => live?.messages.map((message) => message.seq);

describe('the live turn', () => {
  it('merges messages by id in seq order, a changed message replacing the old', () => {
    expect(mergeMessages([m(1), m(3)], [m(2), m(3, 'changed')])).toEqual([m(1), m(2), m(3, 'changed')]);
  });

  it('grows with each event of its turn, closes with its close, and gives way to the next turn', () => {
    let live = applyTurnUpdate<M>(undefined, { turn: { number: 1 }, messages: [m(1)], closed: false });
    live = applyTurnUpdate(live, { turn: { number: 1 }, messages: [m(2), m(3)], closed: false });
    expect(live).toEqual(turn(1, [1, 2, 3]));
    live = applyTurnUpdate(live, { turn: { number: 1 }, messages: [], closed: true });
    expect(live).toEqual(turn(1, [1, 2, 3], true));
    live = applyTurnUpdate(live, { turn: { number: 2 }, messages: [m(4)], closed: false });
    expect(live).toEqual(turn(2, [4]));
    // A late event of an earlier turn changes nothing.
    expect(applyTurnUpdate(live, { turn: { number: 1 }, messages: [m(9)], closed: true })).toBe(live);
  });

  it('puts the read turn and the events heard together, or keeps the later turn', () => {
    expect(seqs(combineLive(turn(3, [7, 8]), turn(3, [8, 9])))).toEqual([7, 8, 9]);
    expect(combineLive(turn(3, [7]), turn(3, [8], true))?.closed).toBe(true);
    expect(combineLive(turn(3, [7]), turn(4, [9]))?.number).toBe(4);
    expect(combineLive(turn(4, [9]), turn(3, [7]))?.number).toBe(4);
    expect(combineLive(null, undefined)).toBeNull();
  });

  it('shows until the latest commit is the turn’s own', () => {
    expect(showsLive(turn(2, [3]), 1)).toBe(true);
    expect(showsLive(turn(2, [3], true), 1)).toBe(true);
    expect(showsLive(turn(2, [3], true), 2)).toBe(false);
    expect(showsLive(null, 0)).toBe(false);
  });
});

describe('agentName', () => {
  it('names the agents, falls back to the source, then to the id itself', () => {
    expect(agentName({ agentId: 'claude-code', source: null })).toBe('Claude Code');
    expect(agentName({ agentId: 'codex' })).toBe('Codex');
    expect(agentName({ agentId: 'gemini' })).toBe('Gemini CLI');
    expect(agentName({ agentId: null, source: 'claude-code' })).toBe('Claude Code');
    expect(agentName({ agentId: 'my-runtime' })).toBe('my-runtime');
    expect(agentName({ agentId: null, source: null })).toBeNull();
  });
});
