/**
 * An event's answer is serialised once, not once per subscriber. Subscribers of the same
 * operation get the same result object (src/schema/shared-events.ts); graphql-ws would still
 * turn it into JSON for each of them (1,000 × a turn's messages for 1,000 web UIs). Instead its
 * `onNext` hook swaps the result for a stand-in that remembers the JSON, made once per result;
 * when graphql-ws serialises its message, the stand-in writes a placeholder and hands its JSON
 * over, and the socket's `send` puts it in the placeholder's place. Only the message's frame
 * (`{"id":…,"type":"next","payload":…}`) is built per subscriber.
 *
 * graphql-ws serialises the message and calls `send` in one synchronous step, so the hand-over
 * is a single slot, never shared by two messages. A result with errors goes the ordinary way
 * (its errors are formatted per message by graphql-ws).
 */
import type { ExecutionResult } from 'graphql';
import type WebSocket from 'ws';

/** What the stand-in serialises to; a `next` message's payload is an object otherwise, so it cannot clash. */
const PLACEHOLDER = 'entity-memory:shared-payload';
const TAIL = `"payload":${JSON.stringify(PLACEHOLDER)}}`;
const CLOSE = Buffer.from('}');

/** result -> its payload's JSON, for as long as anyone holds the result. */
const serialised = new WeakMap<object, Buffer>();
/** The JSON of the stand-in serialised last, until `send` takes it. */
let handedOver: Buffer | undefined;

class SharedPayload {
  constructor(private readonly json: Buffer) {}
  toJSON(): string {
    handedOver = this.json;
    return PLACEHOLDER;
  }
}

/**
 * graphql-ws's `onNext`: the stand-in for `result`'s payload, or undefined (send it as it is)
 * when it has errors. The JSON is what graphql-ws would have sent: the result without `errors`.
 */
export function sharedPayload(result: ExecutionResult): object | undefined {
  if (result.errors !== undefined) return undefined;
  let json = serialised.get(result);
  if (!json) serialised.set(result, (json = Buffer.from(JSON.stringify(result))));
  return new SharedPayload(json);
}

/** Makes `socket.send` put a shared payload in its placeholder's place; other messages pass unchanged. */
export function sendSharedPayloads(socket: WebSocket): void {
  const send = socket.send.bind(socket) as (data: unknown, options?: unknown, cb?: unknown) => void;
  socket.send = ((data: unknown, options?: unknown, cb?: unknown) => {
    const json = handedOver;
    handedOver = undefined;
    if (json !== undefined && typeof data === 'string' && data.endsWith(TAIL)) {
      const head = Buffer.from(data.slice(0, data.length - TAIL.length + '"payload":'.length));
      // A text frame, as graphql-ws sends every message; the bytes are UTF-8 JSON.
      const message = Buffer.concat([head, json, CLOSE]);
      if (typeof options === 'function') send(message, { binary: false }, options);
      else send(message, { ...(options as object | undefined), binary: false }, cb);
      return;
    }
    send(data, options, cb);
  }) as typeof socket.send;
}
