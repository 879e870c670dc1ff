// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { currentToken, takeTokenFromLocation } from './token';

afterEach(() => {
  sessionStorage.clear();
  window.history.replaceState(null, '', '/');
});

describe('the token from the URL fragment (ui.md)', () => {
  it('is kept in sessionStorage and removed from the address bar', () => {
    window.history.replaceState(null, '', '/sessions/s1?x=1#token=abc%2Fdef');
    takeTokenFromLocation();
    expect(currentToken()).toBe('abc/def');
    expect(window.location.pathname + window.location.search + window.location.hash).toBe('/sessions/s1?x=1');
  });

  it('keeps the rest of the fragment', () => {
    window.history.replaceState(null, '', '/#token=t1&turn=3');
    takeTokenFromLocation();
    expect(currentToken()).toBe('t1');
    expect(window.location.hash).toBe('#turn=3');
  });

  it('leaves a stored token alone when the fragment has none', () => {
    sessionStorage.setItem('entity-memory.token', 'kept');
    window.history.replaceState(null, '', '/#other');
    takeTokenFromLocation();
    expect(currentToken()).toBe('kept');
    expect(window.location.hash).toBe('#other');
  });
});
