// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { peekArrived, PRELOAD_TTL_MS, preloadKey, takeArrived, takePreloaded } from './preloaded';

afterEach(() => {
  delete window.__entityMemoryPreloaded;
});

const body = (operationName: string, variables: Record<string, unknown>) => JSON.stringify({ query: 'query { x }', operationName, variables });

/** What the preload script leaves: `answers` now, `later` once `finish` is called. */
function preloaded(answers: Record<string, Response>, later: string[] = [], arrivedData: Record<string, unknown> = {}) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const map = new Map(Object.entries(answers).map(([key, response]) => [key, Promise.resolve(response)]));
  window.__entityMemoryPreloaded = { answers: map, arrived: new Map(Object.entries(arrivedData)), later: new Set(later), done };
  return { map, finish };
}

describe('answers read ahead by the preload script (lib/preloaded.ts)', () => {
  it('hands an answer to the request of the same operation and variables, in any order, once', async () => {
    const answer = new Response('{"data":{}}');
    preloaded({ [preloadKey('SessionPage', { sessionId: 's1', last: 10 })]: answer });
    expect(takePreloaded(body('SessionPage', { sessionId: 's2', last: 10 }), 5)).toBeUndefined();
    expect(takePreloaded(body('SessionMirror', { sessionId: 's1', last: 10 }), 5)).toBeUndefined();
    expect(await takePreloaded(body('SessionPage', { last: 10, sessionId: 's1' }), 5)).toBe(answer);
    // Taken: the next such request goes to the server.
    expect(takePreloaded(body('SessionPage', { sessionId: 's1', last: 10 }), 5)).toBeUndefined();
  });

  it('takes a missing variable and null as the same', () => {
    expect(preloadKey('ReplayConversation', { before: null, branch: 'main' })).toBe(preloadKey('ReplayConversation', { branch: 'main', before: undefined }));
  });

  it('waits for an operation the script sends later, and says null when it sent none', async () => {
    const { map, finish } = preloaded({}, ['ReplayCodeChanges']);
    const asked = takePreloaded(body('ReplayCodeChanges', { sessionId: 's1', sha: 'a'.repeat(40) }), 5);
    const other = takePreloaded(body('ReplayCodeChanges', { sessionId: 's1', sha: 'b'.repeat(40) }), 5);
    expect(asked).toBeInstanceOf(Promise);
    const answer = new Response('{"data":{}}');
    map.set(preloadKey('ReplayCodeChanges', { sessionId: 's1', sha: 'a'.repeat(40) }), Promise.resolve(answer));
    finish();
    expect(await asked).toBe(answer);
    expect(await other).toBeNull();
  });

  it('gives nothing once the page has been open longer than PRELOAD_TTL_MS, and forgets it all', () => {
    preloaded({ [preloadKey('SessionPage', { sessionId: 's1' })]: new Response('{}') });
    expect(takePreloaded(body('SessionPage', { sessionId: 's1' }), PRELOAD_TTL_MS + 1)).toBeUndefined();
    expect(window.__entityMemoryPreloaded).toBeUndefined();
  });

  it('gives nothing for a body it cannot read', () => {
    preloaded({});
    expect(takePreloaded('not json', 5)).toBeUndefined();
    expect(takePreloaded(undefined, 5)).toBeUndefined();
    expect(takePreloaded(JSON.stringify({ query: '{ x }' }), 5)).toBeUndefined();
  });

  it("gives an answer's data at once when it has arrived: taken once, with its answer; peeked, the answer stays for the client", async () => {
    const page = preloadKey('SessionPage', { sessionId: 's1' });
    const code = preloadKey('ReplayCodeChanges', { sessionId: 's1', sha: 'a'.repeat(40) });
    const answer = new Response('{"data":{"session":null}}');
    preloaded({ [page]: answer, [code]: new Response('{}') }, [], { [page]: { session: { id: 'S1' } }, [code]: { session: null } });
    expect(takeArrived('ReplayCodeChanges', { sessionId: 's2', sha: 'a'.repeat(40) }, 5)).toBeUndefined();
    expect(takeArrived('ReplayCodeChanges', { sha: 'a'.repeat(40), sessionId: 's1' }, 5)).toEqual({ session: null });
    expect(takeArrived('ReplayCodeChanges', { sessionId: 's1', sha: 'a'.repeat(40) }, 5)).toBeUndefined();
    expect(takePreloaded(body('ReplayCodeChanges', { sessionId: 's1', sha: 'a'.repeat(40) }), 5)).toBeUndefined();
    expect(peekArrived('SessionPage', { sessionId: 's1' }, 5)).toEqual({ session: { id: 'S1' } });
    expect(await takePreloaded(body('SessionPage', { sessionId: 's1' }), 5)).toBe(answer);
    // Taken by the client's request: its data is gone too.
    expect(peekArrived('SessionPage', { sessionId: 's1' }, 5)).toBeUndefined();
  });

  it('gives no arrived data once the page has been open longer than PRELOAD_TTL_MS', () => {
    const page = preloadKey('SessionPage', { sessionId: 's1' });
    preloaded({ [page]: new Response('{}') }, [], { [page]: { session: null } });
    expect(takeArrived('SessionPage', { sessionId: 's1' }, PRELOAD_TTL_MS + 1)).toBeUndefined();
    expect(peekArrived('SessionPage', { sessionId: 's1' }, PRELOAD_TTL_MS + 1)).toBeUndefined();
  });
});
