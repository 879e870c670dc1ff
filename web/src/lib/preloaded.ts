/**
 * Answers read before the app ran (web/src/preload.ts, a small script the page runs first),
 * handed to the app's client once each: the client's fetch (lib/client.ts) asks here with its
 * request's body, and gets the preloaded answer to the same operation with the same variables,
 * or nothing. An answer is taken at most once, and only in the page's first PRELOAD_TTL_MS: after
 * that every read goes to the server as before (a page left open never shows an old answer).
 */
export const PRELOAD_TTL_MS = 10_000;

export interface Preloaded {
  /** The answers by preloadKey. */
  answers: Map<string, Promise<Response>>;
  /** Operations the script may still read ahead: it sends them once the page query answers. */
  later: ReadonlySet<string>;
  /** Settles once the script has sent all it will. */
  done: Promise<void>;
}

declare global {
  interface Window {
    /** What the preload script read; absent when it read nothing. */
    __entityMemoryPreloaded?: Preloaded;
  }
}

/** An operation and its variables as one string, the same whatever order the variables were written in. */
export function preloadKey(operationName: string, variables: Record<string, unknown> | undefined): string {
  const sorted = Object.keys(variables ?? {})
    .sort()
    .map((name) => [name, variables![name] ?? null]);
  return `${operationName} ${JSON.stringify(sorted)}`;
}

/**
 * The preloaded answer for the request with this JSON body, taken (once); null when there is
 * none. For an operation the script sends later, that is known once it has (the app asks those
 * after the page query's answer, as the script does, so the wait costs it nothing); for any other,
 * at once (undefined: nothing preloaded, ask the server).
 */
export function takePreloaded(body: unknown, now: number = performance.now()): Promise<Response | null> | undefined {
  const preloaded = window.__entityMemoryPreloaded;
  if (!preloaded || typeof body !== 'string') return undefined;
  if (now > PRELOAD_TTL_MS) {
    delete window.__entityMemoryPreloaded;
    return undefined;
  }
  let request: { operationName?: unknown; variables?: Record<string, unknown> };
  try {
    request = JSON.parse(body) as typeof request;
  } catch {
    return undefined;
  }
  if (typeof request.operationName !== 'string') return undefined;
  const key = preloadKey(request.operationName, request.variables);
  const take = (): Promise<Response> | undefined => {
    const answer = preloaded.answers.get(key);
    preloaded.answers.delete(key);
    return answer;
  };
  const answer = take();
  if (answer) return answer;
  if (!preloaded.later.has(request.operationName)) return undefined;
  return preloaded.done.then(() => take() ?? null);
}
