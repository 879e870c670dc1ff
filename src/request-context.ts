/**
 * The request id of whatever is running now, for logs and masked errors. HTTP
 * requests and WebSocket operations run inside `withRequest`, so code deep in
 * a resolver (or the error masker, which sees no context) can find it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

interface RequestStore {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestStore>();

export function withRequest<T>(requestId: string | null | undefined, work: () => T): T {
  const id = requestId && /^[A-Za-z0-9._-]{1,64}$/.test(requestId) ? requestId : randomUUID();
  return storage.run({ requestId: id }, work);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
