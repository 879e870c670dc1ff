/** The live connection's reconnect backoff: doubling from 0.5 s, capped at 5 s, with bounded jitter. */
import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './client';

describe('retryDelayMs', () => {
  it('doubles from 500 ms and stops at 5 s', () => {
    const none = () => 0;
    expect([0, 1, 2, 3, 4, 5, 30, 1000].map((n) => retryDelayMs(n, none))).toEqual([500, 1000, 2000, 4000, 5000, 5000, 5000, 5000]);
  });

  it('adds at most a quarter of the wait at random', () => {
    const almostOne = () => 0.999999;
    expect(retryDelayMs(0, almostOne)).toBe(624);
    expect(retryDelayMs(100, almostOne)).toBe(6249);
  });
});
