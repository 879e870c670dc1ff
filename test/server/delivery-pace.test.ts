/**
 * Subscription messages are written a batch per event-loop turn, in order, so a request waiting
 * meanwhile is served between two batches (src/http/delivery-pace.ts).
 */
import { describe, expect, it } from 'vitest';
import { inTurn, JOBS_PER_TURN, TURN_BUDGET_MS } from '../../src/http/delivery-pace.js';

describe('delivery pace', () => {
  it('runs one batch per event-loop turn, in the order asked, and lets other work run between batches', async () => {
    const ran: number[] = [];
    const total = 3 * JOBS_PER_TURN + 5;
    const all = new Promise<void>((resolve) => {
      for (let i = 0; i < total; i++) inTurn(() => (ran.push(i), i === total - 1 && resolve()));
    });
    // Work that arrives meanwhile: it runs after the first batch (at most JOBS_PER_TURN, fewer when they
    // take longer than the turn's budget) and before the others.
    const between = new Promise<number>((resolve) => setImmediate(() => resolve(ran.length)));
    expect(ran).toEqual([]);
    const first = await between;
    expect(first).toBeGreaterThanOrEqual(1);
    expect(first).toBeLessThanOrEqual(JOBS_PER_TURN);
    await all;
    expect(ran).toEqual(Array.from({ length: total }, (_, i) => i));
  });

  it('ends a turn early once its jobs took the budget, and runs the rest in the next', async () => {
    const ran: string[] = [];
    const done = new Promise<void>((resolve) => {
      inTurn(() => {
        // A job as long as the whole budget.
        const until = performance.now() + TURN_BUDGET_MS;
        while (performance.now() < until);
        ran.push('long');
      });
      inTurn(() => (ran.push('next'), resolve()));
    });
    const between = new Promise<string[]>((resolve) => setImmediate(() => resolve([...ran])));
    expect(await between).toEqual(['long']);
    await done;
    expect(ran).toEqual(['long', 'next']);
  });

  it('runs the other jobs when one throws', async () => {
    const ran: string[] = [];
    await new Promise<void>((resolve) => {
      inTurn(() => ran.push('a'));
      inTurn(() => {
        throw new Error('a socket that failed');
      });
      inTurn(() => (ran.push('c'), resolve()));
    });
    expect(ran).toEqual(['a', 'c']);
  });
});
