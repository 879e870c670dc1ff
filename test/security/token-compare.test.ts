/**
 * The token comparison goes through crypto.timingSafeEqual over equal-length digests, so a
 * wrong token's length or first differing byte does not show in the response time.
 */
import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';

// A pass-through spy: the real comparison still runs, the test sees what it was given.
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return { ...real, timingSafeEqual: vi.fn(real.timingSafeEqual) };
});

const { bearerToken, connectionParamsToken, tokenMatches } = await import('../../src/http/token.js');

describe('tokenMatches', () => {
  it('compares 32-byte digests with timingSafeEqual, whatever the lengths presented', () => {
    const spy = vi.mocked(crypto.timingSafeEqual);
    const expected = 'right-token-0123456789';
    const cases: [string | undefined, boolean][] = [
      [expected, true],
      [`${expected}x`, false],
      ['r', false],
      ['', false],
      ['x'.repeat(10_000), false],
      [expected.toUpperCase(), false],
      [undefined, false],
    ];
    for (const [presented, result] of cases) {
      spy.mockClear();
      expect(tokenMatches(expected, presented), String(presented)).toBe(result);
      if (presented === undefined) {
        expect(spy).not.toHaveBeenCalled();
        continue;
      }
      expect(spy).toHaveBeenCalledTimes(1);
      const [a, b] = spy.mock.calls[0] as [Buffer, Buffer];
      expect([a.length, b.length]).toEqual([32, 32]);
    }
  });

  it('reads Bearer headers and graphql-ws connectionParams', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc  ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
    expect(connectionParamsToken({ token: 't' })).toBe('t');
    expect(connectionParamsToken({ authorization: 'Bearer t' })).toBe('t');
    expect(connectionParamsToken({ Authorization: 'Bearer t' })).toBe('t');
    expect(connectionParamsToken({ token: 1 })).toBeUndefined();
    expect(connectionParamsToken(undefined)).toBeUndefined();
  });
});
