/**
 * What is running now: the request id, for logs and masked errors, and the
 * request's budgets. HTTP requests and WebSocket operations run inside
 * `withRequest`, so code deep in a resolver (or the git runner, or the error
 * masker, which sees no context) can find them. Background work (the mirror
 * worker, the project committer) runs `outsideRequest` and has no budget;
 * so do the events of a subscription, which are answered where they were
 * published (their cost was checked when the subscription was set up).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { BadUserInputError } from './errors.js';

/**
 * Git processes one request may start: 64. The cost limit already refuses
 * queries that would need more (src/schema/cost.ts); this catches what the
 * query's shape cannot tell (many branches, a page of merge commits).
 */
export const REQUEST_GIT_PROCESSES = 64;

/**
 * Bytes of text one request may read: 16 MiB, counting git's output (patches,
 * files, logs) and message content loaded from the database. With the
 * response built from them, a request stays within about 50 MB.
 */
export const REQUEST_TEXT_BYTES = 16 * 1024 * 1024;

interface RequestStore {
  requestId: string;
  gitProcesses: number;
  textBytes: number;
}

const storage = new AsyncLocalStorage<RequestStore>();

export function withRequest<T>(requestId: string | null | undefined, work: () => T): T {
  const id = requestId && /^[A-Za-z0-9._-]{1,64}$/.test(requestId) ? requestId : randomUUID();
  return storage.run({ requestId: id, gitProcesses: 0, textBytes: 0 }, work);
}

/**
 * Runs `work` (and everything it starts later) outside any request: for
 * background work a request only sets going, which must neither spend nor be
 * stopped by that request's budgets.
 */
export function outsideRequest<T>(work: () => T): T {
  return storage.exit(work);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** The error a request gets when it would need more git processes than `REQUEST_GIT_PROCESSES`. */
export class GitBudgetError extends BadUserInputError {
  constructor() {
    super(
      `This request needs more git work than one request may do (at most ${REQUEST_GIT_PROCESSES} git processes): ` +
        'ask for fewer commits with first: (for example timeline(first: 10)) and page with after:, ' +
        'or leave out diff, files, file, head and branches on long lists.',
      { gitProcessLimit: REQUEST_GIT_PROCESSES },
    );
  }
}

/** The error a request gets when it would read more than `REQUEST_TEXT_BYTES`. */
export class TextBudgetError extends BadUserInputError {
  constructor() {
    super(
      `This request reads more text than one request may (at most ${REQUEST_TEXT_BYTES} bytes of message content, patches and files): ` +
        'ask for fewer items with first: and page with after:, or leave out content, patch and text on long lists.',
      { byteLimit: REQUEST_TEXT_BYTES },
    );
  }
}

/**
 * Called by the git runner before every spawn. Inside a request it counts the
 * process and returns a meter for its output, which answers a `TextBudgetError`
 * once the request has read too much (the runner then kills git); outside a
 * request it returns null and nothing is limited.
 * @throws GitBudgetError when the request has started `REQUEST_GIT_PROCESSES` already.
 */
export function meterGitProcess(): ((bytes: number) => TextBudgetError | null) | null {
  const store = storage.getStore();
  if (!store) return null;
  if (store.gitProcesses >= REQUEST_GIT_PROCESSES) throw new GitBudgetError();
  store.gitProcesses += 1;
  return (bytes) => (spend(store, bytes) ? null : new TextBudgetError());
}

/**
 * Counts `bytes` of text read for the running request (nothing outside one).
 * @throws TextBudgetError when that takes the request over `REQUEST_TEXT_BYTES`.
 */
export function spendTextBytes(bytes: number): void {
  const store = storage.getStore();
  if (store && !spend(store, bytes)) throw new TextBudgetError();
}

function spend(store: RequestStore, bytes: number): boolean {
  store.textBytes += bytes;
  return store.textBytes <= REQUEST_TEXT_BYTES;
}
