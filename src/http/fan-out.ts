/**
 * The subscribers of one operation share one stream of results, written to their sockets by one
 * loop. Every subscriber of the same operation (document, operation name, variables) gets the
 * same answer to an event (src/schema/shared-events.ts), yet each ran its own pipeline: a pubsub
 * listener, an iterator chain, graphql-ws's loop with its promises, a message serialised, a write.
 * At 1,000 subscribers that was some 90 µs of the event loop per subscriber per event (load 8),
 * and a burst of 10 events, which the mirror announces together when it commits a backlog,
 * reached its last subscriber 1.5 s later; a request arriving meanwhile waited a batch per step.
 *
 * Here the first subscriber's results become the group's stream (one pubsub listener per
 * operation); a later subscriber of the same operation joins the group and its own, unstarted
 * stream is returned. Each result is serialised once, and the group writes it to every member
 * as graphql-ws would have (`{"id":…,"type":"next","payload":…}`, a text frame), a few members
 * per event-loop turn (src/http/delivery-pace.ts). A round takes every result queued when it
 * starts (a burst's, settled together, go in one) and writes each member's in one write; results
 * that come while it is written go in the next. graphql-ws still owns each
 * subscription: what it iterates for a member yields nothing, ends (complete) when the group's
 * stream does, fails (error) when it fails, and leaves the group when graphql-ws returns it (the
 * client completed, the socket closed). The group's stream is returned when its last member
 * leaves. Writes go through the socket's `send`, so a member that falls behind is closed as any
 * other socket (src/http/send-buffer.ts).
 *
 * A member gets the results written after it joined: one that joins while a burst is queued may
 * get an event announced just before it subscribed.
 */
import type { ExecutionResult } from 'graphql';
import type WebSocket from 'ws';
import { inTurn } from './delivery-pace.js';

/** Results read ahead of the round being written, at most (the stream's own bound is behind it). */
const MAX_QUEUED = 64;

const CLOSE = Buffer.from('}');

interface Member {
  socket: WebSocket;
  /** `{"id":"…","type":"next","payload":` for this subscription. */
  head: Buffer;
  /** Settles what graphql-ws waits for: done when the group's stream ends, rejected when it fails. */
  end(outcome: { error: unknown } | undefined): void;
}

/** A net.Socket's cork, reached through ws (which has no public one): several frames, one write. */
function underlying(socket: WebSocket): { cork(): void; uncork(): void } | undefined {
  return (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
}

/** What graphql-ws sends as a `next` message's payload: the result, its errors formatted. */
function serialise(result: ExecutionResult): Buffer {
  const { errors, ...rest } = result;
  return Buffer.from(JSON.stringify(errors ? { ...rest, errors: errors.map((e) => e.toJSON()) } : rest));
}

class Group {
  readonly members = new Set<Member>();
  private readonly queue: ExecutionResult[] = [];
  private reading = false;
  private writing = false;
  /** Set once the stream ended or failed; the members are ended when the queue is written. */
  private outcome: { error: unknown } | undefined | 'open' = 'open';
  private closed = false;

  constructor(
    private readonly source: AsyncIterator<ExecutionResult>,
    private readonly onClosed: () => void,
  ) {}

  add(member: Member): void {
    this.members.add(member);
    this.read();
  }

  remove(member: Member): void {
    this.members.delete(member);
    if (this.members.size === 0) this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.onClosed();
    void Promise.resolve(this.source.return?.()).catch(() => {});
  }

  private read(): void {
    if (this.reading || this.closed || this.outcome !== 'open' || this.queue.length >= MAX_QUEUED) return;
    this.reading = true;
    this.source.next().then(
      (step) => {
        this.reading = false;
        if (this.closed) return;
        if (step.done) this.outcome = undefined;
        else this.queue.push(step.value);
        this.read();
        this.write();
      },
      (error: unknown) => {
        this.reading = false;
        if (this.closed) return;
        this.outcome = { error };
        this.write();
      },
    );
  }

  /** Writes what is queued to every member, a few per turn, then the next round or the end. */
  private write(): void {
    if (this.writing || this.closed) return;
    if (this.queue.length === 0) {
      if (this.outcome !== 'open') this.end(this.outcome);
      return;
    }
    this.writing = true;
    // The round takes what is queued when its turn comes, not when its first result came: the
    // results of a burst settle a few promise jobs apart (their commits are read by one git
    // process), and the first one alone made a round of its own, the others a second one.
    inTurn(() => this.round());
  }

  private round(): void {
    if (this.closed) return;
    const payloads = this.queue.splice(0).map(serialise);
    this.read();
    const members = [...this.members];
    let left = members.length;
    const roundDone = () => {
      this.writing = false;
      this.write();
    };
    if (left === 0) return roundDone();
    for (const member of members) {
      inTurn(() => {
        try {
          // Left the group while its turn came: nothing more for it.
          if (this.members.has(member)) writeFrames(member, payloads);
        } finally {
          if (--left === 0) roundDone();
        }
      });
    }
  }

  private end(outcome: { error: unknown } | undefined): void {
    const members = [...this.members];
    this.members.clear();
    this.close();
    for (const member of members) member.end(outcome);
  }
}

/**
 * Each result as one graphql-ws message in three fragments (RFC 6455 5.4): the member's head, the
 * shared payload, the closing brace. ws frames a server's buffer without copying it, so the
 * payload is written from the one buffer every member shares; joined into one buffer per member,
 * the copies were half the fan-out's time (bench/fanout.ts, 1,000 subscribers: 61 of 132 ms of a
 * burst's writes, and the garbage they made). The client reassembles the message as it would any
 * fragmented one.
 */
function writeFrames(member: Member, payloads: readonly Buffer[]): void {
  const socket = underlying(member.socket);
  socket?.cork();
  try {
    for (const payload of payloads) {
      member.socket.send(member.head, { binary: false, fin: false });
      member.socket.send(payload, { binary: false, fin: false });
      member.socket.send(CLOSE, { binary: false, fin: true });
    }
  } finally {
    socket?.uncork();
  }
}

/** The groups of one server, by operation. */
export class FanOut {
  private readonly groups = new Map<string, Group>();

  /** Groups with at least one member now. */
  get size(): number {
    return this.groups.size;
  }

  /**
   * graphql-ws's `onOperation` for a subscription: makes subscription `id` of `socket` a member
   * of the group of `key` (the operation and its variables), whose stream is `results` when the
   * group is new; otherwise `results` is returned unstarted. Returns what graphql-ws iterates for
   * the subscription in place of `results`. Never throws.
   */
  join(key: string, socket: WebSocket, id: string, results: AsyncIterator<ExecutionResult>): AsyncGenerator<ExecutionResult, undefined> {
    let group = this.groups.get(key);
    if (group) {
      void Promise.resolve(results.return?.()).catch(() => {});
    } else {
      const created = new Group(results, () => {
        if (this.groups.get(key) === created) this.groups.delete(key);
      });
      this.groups.set(key, (group = created));
    }
    const joined = group;

    let waiting: { resolve: (step: IteratorResult<ExecutionResult, undefined>) => void; reject: (error: unknown) => void } | undefined;
    let ended: { error: unknown } | undefined | 'no' = 'no';
    const done = { value: undefined, done: true } as const;
    const member: Member = {
      socket,
      head: Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`),
      end(outcome) {
        ended = outcome;
        const w = waiting;
        waiting = undefined;
        if (!w) return;
        if (outcome) w.reject(outcome.error);
        else w.resolve(done);
      },
    };
    const iterator: AsyncGenerator<ExecutionResult, undefined> = {
      next() {
        if (ended !== 'no') {
          const outcome = ended;
          ended = undefined;
          return outcome ? Promise.reject(outcome.error) : Promise.resolve(done);
        }
        return new Promise((resolve, reject) => (waiting = { resolve, reject }));
      },
      return() {
        if (ended === 'no') ended = undefined;
        joined.remove(member);
        waiting?.resolve(done);
        waiting = undefined;
        return Promise.resolve(done);
      },
      async throw(error: unknown) {
        await iterator.return(undefined);
        throw error;
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    joined.add(member);
    return iterator;
  }
}
