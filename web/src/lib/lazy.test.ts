import { describe, expect, it } from 'vitest';
import { loadedOr } from './lazy';

describe('loadedOr', () => {
  it('gives the loaded module, or the fallback when the load fails', async () => {
    const real = () => 'real';
    const stand = () => 'stand-in';
    expect((await loadedOr(async () => ({ default: real }), stand)).default).toBe(real);
    expect((await loadedOr(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module')), stand)).default).toBe(stand);
  });
});
