/**
 * A subscription's events are executed as they arrive, and their results still come out in
 * order (src/schema/execute-ahead.ts). Driven by hand: a source whose events are pushed by the
 * test and runs that settle when the test says.
 */
import { Repeater } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { AHEAD, executeAhead } from '../../src/schema/execute-ahead.js';

/** A source the test pushes events into, and knows whether it was returned. */
function source() {
  let push!: (value: number) => Promise<unknown>;
  let returned = false;
  const events = new Repeater<number>((p, stop) => {
    push = p;
    void stop.then(() => (returned = true));
  });
  const iterator = events[Symbol.asyncIterator]();
  return { iterator, push: (value: number) => void push(value), returned: () => returned };
}

/** Runs that settle when the test resolves them, in any order. */
function runs() {
  const started: number[] = [];
  const settle = new Map<number, { resolve: (v: string) => void; reject: (e: unknown) => void }>();
  const run = (event: unknown) =>
    new Promise<string>((resolve, reject) => {
      started.push(event as number);
      settle.set(event as number, { resolve, reject });
    });
  return { run, started, settle };
}

/** Lets the promise jobs queued so far run (a macrotask: every microtask before it has run). */
const drain = () => new Promise((resolve) => setImmediate(resolve));

describe('executeAhead', () => {
  it('starts every arrived event at once and yields the results in event order, whatever order they settle in', async () => {
    const events = source();
    const { run, started, settle } = runs();
    const results = executeAhead(events.iterator, run);
    const first = results.next();
    for (const n of [1, 2, 3]) events.push(n);
    await drain();
    expect(started).toEqual([1, 2, 3]);

    settle.get(3)!.resolve('three');
    settle.get(2)!.resolve('two');
    settle.get(1)!.resolve('one');
    expect(await first).toEqual({ value: 'one', done: false });
    expect(await results.next()).toEqual({ value: 'two', done: false });
    expect(await results.next()).toEqual({ value: 'three', done: false });
    await results.return(undefined);
    expect(events.returned()).toBe(true);
  });

  it('ends a next() that waits for an event when returned, and returns the source', async () => {
    const events = source();
    const results = executeAhead(events.iterator, runs().run);
    const waiting = results.next();
    await drain();
    expect(await results.return(undefined)).toEqual({ value: undefined, done: true });
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(events.returned()).toBe(true);
    expect(await results.next()).toEqual({ value: undefined, done: true });
  });

  it('rejects the next() of a failed run with its error, after the results before it, and ends', async () => {
    const events = source();
    const { run, settle } = runs();
    const results = executeAhead(events.iterator, run);
    const first = results.next();
    events.push(1);
    events.push(2);
    await drain();
    settle.get(2)!.reject(new Error('event 2 failed'));
    settle.get(1)!.resolve('one');
    expect(await first).toEqual({ value: 'one', done: false });
    await expect(results.next()).rejects.toThrow('event 2 failed');
    expect(events.returned()).toBe(true);
    expect(await results.next()).toEqual({ value: undefined, done: true });
  });

  it(`runs at most ${AHEAD} events ahead of the subscriber, and the rest as results are taken`, async () => {
    const events = source();
    const { run, started, settle } = runs();
    const results = executeAhead(events.iterator, run);
    const first = results.next();
    for (let n = 1; n <= AHEAD + 5; n++) events.push(n);
    await drain();
    // The first is taken by the waiting next(); AHEAD more wait to be taken.
    expect(started).toHaveLength(AHEAD + 1);
    for (const n of started) settle.get(n)!.resolve(`r${n}`);
    expect(await first).toEqual({ value: 'r1', done: false });
    expect(await results.next()).toEqual({ value: 'r2', done: false });
    await drain();
    expect(started).toHaveLength(AHEAD + 2);
    await results.return(undefined);
  });
});
