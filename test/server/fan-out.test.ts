/**
 * The subscribers of one operation share one stream, written to their sockets by one loop
 * (src/http/fan-out.ts). Driven by hand: a stream the test pushes results into, and sockets that
 * keep what they are sent (the real-socket path is test/server/event-fanout.test.ts and
 * subscription-release.test.ts).
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import { Repeater } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { FanOut } from '../../src/http/fan-out.js';

/** A stream of results the test pushes, and whether it was returned or ever read. */
function stream() {
  let push!: (result: ExecutionResult) => Promise<unknown>;
  let fail!: (error: unknown) => void;
  let end!: () => void;
  const state = { read: false, returned: false };
  const results = new Repeater<ExecutionResult>((p, stop) => {
    state.read = true;
    push = p;
    fail = (error) => stop(error);
    end = () => stop();
  });
  const iterator = results[Symbol.asyncIterator]();
  const giveBack = iterator.return.bind(iterator);
  iterator.return = (value) => ((state.returned = true), giveBack(value));
  return { iterator, push: (r: ExecutionResult) => void push(r), fail: (e: unknown) => fail(e), end: () => end(), state };
}

/**
 * A socket that keeps the text of the messages it is sent (fragments joined, as ws's receiver
 * joins them: a message ends with its `fin` fragment), and counts the writes its frames went out
 * in (corked).
 */
function socket() {
  const sent: string[] = [];
  const writes = { count: 0 };
  let fragments: Buffer[] = [];
  const fake = {
    readyState: 1,
    send: (data: Buffer, options?: { fin?: boolean }) => {
      fragments.push(data);
      if (options?.fin === false) return;
      sent.push(Buffer.concat(fragments).toString('utf8'));
      fragments = [];
    },
    _socket: { cork: () => {}, uncork: () => (writes.count += 1) },
  };
  return { socket: fake as unknown as WebSocket, sent, writes, parsed: () => sent.map((s) => JSON.parse(s) as unknown) };
}

/** Lets the queued jobs run: the writes go a batch per event-loop turn. */
const turns = async (n = 3) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

const result = (n: number): ExecutionResult => ({ data: { turnCommitted: { turn: { number: n } } } });

describe('fan-out of a shared operation', () => {
  it('writes every result to every member as graphql-ws would, in order, from the first stream only', async () => {
    const fanOut = new FanOut();
    const [a, b] = [socket(), socket()];
    const first = stream();
    const second = stream();
    const memberA = fanOut.join('op', a.socket, 'sub-a', first.iterator);
    const memberB = fanOut.join('op', b.socket, 'sub-b', second.iterator);
    const ended = [memberA.next(), memberB.next()];
    await turns();
    // The second subscriber's own stream is returned without being read.
    expect(second.state).toEqual({ read: false, returned: true });
    expect(fanOut.size).toBe(1);

    first.push(result(1));
    first.push(result(2));
    first.push({ data: null, errors: [new GraphQLError('Commit x is not in the session repo now', { extensions: { code: 'NOT_FOUND' } })] });
    await turns(6);
    expect(a.parsed()).toEqual([
      { id: 'sub-a', type: 'next', payload: result(1) },
      { id: 'sub-a', type: 'next', payload: result(2) },
      { id: 'sub-a', type: 'next', payload: { data: null, errors: [{ message: 'Commit x is not in the session repo now', extensions: { code: 'NOT_FOUND' } }] } },
    ]);
    expect(b.parsed()).toEqual(a.parsed().map((m) => ({ ...(m as object), id: 'sub-b' })));

    // The stream ends: each member's iteration ends (graphql-ws then sends complete).
    first.end();
    expect(await Promise.all(ended)).toEqual([
      { value: undefined, done: true },
      { value: undefined, done: true },
    ]);
    expect(fanOut.size).toBe(0);
  });

  it('keeps the stream while a member remains, and returns it when the last one leaves', async () => {
    const fanOut = new FanOut();
    const [a, b] = [socket(), socket()];
    const first = stream();
    const memberA = fanOut.join('op', a.socket, '1', first.iterator);
    const memberB = fanOut.join('op', b.socket, '1', stream().iterator);
    const waitingA = memberA.next();
    void memberB.next();

    // The member whose stream the group reads leaves: the other one still gets the results.
    await memberA.return(undefined);
    expect(await waitingA).toEqual({ value: undefined, done: true });
    first.push(result(1));
    await turns();
    expect(a.sent).toEqual([]);
    expect(b.parsed()).toEqual([{ id: '1', type: 'next', payload: result(1) }]);
    expect(first.state.returned).toBe(false);

    await memberB.return(undefined);
    await turns();
    expect(first.state.returned).toBe(true);
    expect(fanOut.size).toBe(0);

    // A new subscriber of the operation starts a new group on its own stream.
    const again = stream();
    void fanOut.join('op', a.socket, '2', again.iterator).next();
    again.push(result(2));
    await turns();
    expect(a.parsed()).toEqual([{ id: '2', type: 'next', payload: result(2) }]);
  });

  it("fails every member's iteration with the stream's error, after the results before it", async () => {
    const fanOut = new FanOut();
    const a = socket();
    const first = stream();
    const member = fanOut.join('op', a.socket, '1', first.iterator);
    const failed = member.next();
    first.push(result(1));
    first.fail(new Error('the execution failed'));
    await expect(failed).rejects.toThrow('the execution failed');
    expect(a.parsed()).toEqual([{ id: '1', type: 'next', payload: result(1) }]);
    expect(fanOut.size).toBe(0);
  });

  it('writes the results of a burst in one round, each member in one write', async () => {
    const fanOut = new FanOut();
    const members = Array.from({ length: 3 }, (_, i) => ({ ...socket(), id: String(i) }));
    const first = stream();
    for (const [i, m] of members.entries()) void fanOut.join('op', m.socket, m.id, i === 0 ? first.iterator : stream().iterator).next();
    for (const n of [1, 2, 3]) first.push(result(n));
    const payloads = () => members.map((m) => m.parsed().map((x) => (x as { payload: ExecutionResult }).payload));
    await expect.poll(payloads).toEqual(members.map(() => [result(1), result(2), result(3)]));
    expect(members.map((m) => m.writes.count)).toEqual([1, 1, 1]);
  });

  it('writes the results that came during a round in the next one, in order, to every member', async () => {
    const fanOut = new FanOut();
    const members = Array.from({ length: 200 }, (_, i) => ({ ...socket(), id: String(i) }));
    const first = stream();
    for (const [i, m] of members.entries()) void fanOut.join('op', m.socket, m.id, i === 0 ? first.iterator : stream().iterator).next();
    first.push(result(1));
    await turns(1);
    // The first round is being written (200 members, a batch per turn); 2 and 3 come meanwhile.
    first.push(result(2));
    first.push(result(3));
    const payloads = () => members.map((m) => m.parsed().map((x) => (x as { payload: ExecutionResult }).payload));
    await expect.poll(payloads).toEqual(members.map(() => [result(1), result(2), result(3)]));
  });
});
