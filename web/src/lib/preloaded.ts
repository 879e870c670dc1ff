/**
 * Answers read before the app ran (web/src/preload.ts, a small script the page runs first),
 * handed to the app's client once each: the client's fetch (lib/client.ts) asks here with its
 * request's body, and gets the preloaded answer to the same operation with the same variables,
 * or nothing. An answer that has already arrived is also there as data (takeArrived,
 * peekArrived), so the session page, its conversation, timeline and code changes render it in
 * their first render instead of one render each as the answers come in. An answer is taken at most once, and only in the page's first PRELOAD_TTL_MS: after
 * that every read goes to the server as before (a page left open never shows an old answer).
 */
export const PRELOAD_TTL_MS = 10_000;

export interface Preloaded {
  /** The answers by preloadKey. */
  answers: Map<string, Promise<Response>>;
  /** The data of the answers that have arrived whole and without errors, by preloadKey. */
  arrived: Map<string, unknown>;
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
    preloaded.arrived.delete(key);
    return answer;
  };
  const answer = take();
  if (answer) return answer;
  if (!preloaded.later.has(request.operationName)) return undefined;
  return preloaded.done.then(() => take() ?? null);
}

/**
 * The data of the preloaded answer to `operationName` with `variables`, if it has already
 * arrived whole and without errors, taken (with its answer: nothing else gets it); undefined
 * otherwise. For a component's first render: it shows the data at once instead of asking for it
 * and rendering again when it comes.
 */
export function takeArrived<Data>(operationName: string, variables: Record<string, unknown>, now: number = performance.now()): Data | undefined {
  const data = peekArrived<Data>(operationName, variables, now);
  if (data !== undefined) {
    const key = preloadKey(operationName, variables);
    window.__entityMemoryPreloaded!.arrived.delete(key);
    window.__entityMemoryPreloaded!.answers.delete(key);
  }
  return data;
}

/**
 * As takeArrived, but the answer stays for the client's own request (useQuery's, which then
 * gets it without going to the server): for a first render while that request is under way.
 */
export function peekArrived<Data>(operationName: string, variables: Record<string, unknown>, now: number = performance.now()): Data | undefined {
  const preloaded = window.__entityMemoryPreloaded;
  if (!preloaded || now > PRELOAD_TTL_MS) return undefined;
  return preloaded.arrived.get(preloadKey(operationName, variables)) as Data | undefined;
}
