/**
 * Subscription messages go to their sockets a batch per event-loop turn, in order, so a
 * request waiting meanwhile is served between two batches (src/http/delivery-pace.ts).
 */
import { describe, expect, it } from 'vitest';
import { inTurn, MESSAGES_PER_TURN } from '../../src/http/delivery-pace.js';

describe('delivery pace', () => {
  it('hands over one batch per event-loop turn, in the order asked, and lets other work run between batches', async () => {
    const delivered: number[] = [];
    const all = Array.from({ length: 3 * MESSAGES_PER_TURN + 5 }, (_, i) => inTurn(i).then((value) => delivered.push(value)));
    // Work that arrives meanwhile: it runs after the first batch and before the second.
    const between = new Promise<number>((resolve) => setImmediate(() => resolve(delivered.length)));
    expect(delivered).toEqual([]);
    expect(await between).toBe(MESSAGES_PER_TURN);
    await Promise.all(all);
    expect(delivered).toEqual(Array.from({ length: 3 * MESSAGES_PER_TURN + 5 }, (_, i) => i));
  });
});
