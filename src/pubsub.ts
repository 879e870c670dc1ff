/**
 * The one pubsub of the server. Payloads carry ids and plain values only
 * (JSON-safe: times are ISO strings), so the Redis-backed pubsub
 * (src/redis-pubsub.ts) carries them unchanged; subscription resolvers load
 * what they show from the database.
 *
 * Events are routed by scope: a session's events (or a project's) reach the
 * subscriptions of that session and those of every session, never the
 * watchers of other sessions. With 1,000 web UIs each on its own session, a
 * turn wakes the few that show it, not all 1,000 to be filtered out one by one.
 */
import { Repeater } from 'graphql-yoga';

export interface TurnCommittedPayload {
  sessionId: string;
  turnId: string;
  sha: string;
}

export interface MirrorFailedPayload {
  sessionId: string;
  turnId: string;
  turnNumber: number;
  error: string;
  willRetry: boolean;
}

/**
 * A write to a turn before its commit: messages added to it (or changed, while it is open), and
 * its close. `messageIds` are Message row ids (Message.id), in seq order; empty when the write only
 * closed the turn.
 */
export interface TurnUpdatedPayload {
  sessionId: string;
  turnId: string;
  messageIds: string[];
  closed: boolean;
}

/** What moved a session's timeline: `Subscription.timeline`'s `TimelineEventKind`. */
export const TIMELINE_KINDS = ['COMMITTED', 'BRANCH_CREATED', 'BRANCH_SWITCHED', 'CHECKED_OUT'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

export interface TimelinePayload {
  kind: TimelineKind;
  sessionId: string;
  branch: string;
  sha: string | null;
}

export interface ProjectCommittedPayload {
  projectId: string;
  sessionId: string;
  turnNumber: number;
  sha: string;
}

export interface DirtyTreeWarningPayload {
  projectId: string;
  sessionId: string;
  turnNumber: number;
  dirtyPaths: string[];
  message: string;
  /** Why the turn was skipped, in a few words (the operation in progress, the paths in the way). */
  reason: string | null;
  /** ISO time. */
  at: string;
}

/** Internal, not in GraphQL: asks the instance that mirrors a session to look at its outbox now. */
export interface MirrorWorkPayload {
  sessionId: string;
  /** The instance meant to do the work (each instance's own id, chosen at start). */
  instanceId: string;
}

export interface Events {
  turnCommitted: TurnCommittedPayload;
  mirrorFailed: MirrorFailedPayload;
  timeline: TimelinePayload;
  turnUpdated: TurnUpdatedPayload;
  projectCommitted: ProjectCommittedPayload;
  dirtyTreeWarning: DirtyTreeWarningPayload;
  mirrorWork: MirrorWorkPayload;
}

/** Every topic, in one list (the Redis pubsub subscribes to each). */
export const TOPICS = ['turnCommitted', 'mirrorFailed', 'timeline', 'turnUpdated', 'projectCommitted', 'dirtyTreeWarning', 'mirrorWork'] as const satisfies readonly (keyof Events)[];

/** What scopes each topic's events: a subscription may ask for one session's, or one project's. */
const SCOPE = {
  turnCommitted: (event: TurnCommittedPayload) => event.sessionId,
  mirrorFailed: (event: MirrorFailedPayload) => event.sessionId,
  timeline: (event: TimelinePayload) => event.sessionId,
  turnUpdated: (event: TurnUpdatedPayload) => event.sessionId,
  projectCommitted: (event: ProjectCommittedPayload) => event.projectId,
  dirtyTreeWarning: (event: DirtyTreeWarningPayload) => event.projectId,
  mirrorWork: (event: MirrorWorkPayload) => event.sessionId,
} satisfies { [K in keyof Events]: (event: Events[K]) => string };

export interface PubSub {
  /** Hands `payload` to every subscription of `topic` unscoped or scoped to the event's session (or project). Never throws. */
  publish<K extends keyof Events>(topic: K, payload: Events[K]): void;
  /**
   * The events of `topic`, only those of `scope` (a session id, or a project id for the project
   * topics) when given. It listens from the first `next()` until `return()` (graphql-ws calls it
   * when the subscription or its socket ends), and then holds nothing.
   */
  subscribe<K extends keyof Events>(topic: K, scope?: string): AsyncGenerator<Events[K]>;
  /** Subscriptions listening to `topic` now, scoped or not: each live one holds one listener until it ends. */
  listenerCount(topic: keyof Events): number;
}

/** The in-process pubsub: an event published here reaches this process' subscriptions only. */
export function createEventPubSub(): PubSub {
  const router = createLocalRouter();
  return { publish: router.deliver, subscribe: router.subscribe, listenerCount: router.listenerCount };
}

/**
 * The subscriptions of this process and the scoped routing to them, whatever carries the events
 * here: createEventPubSub hands `deliver` what is published in-process, the Redis pubsub what
 * arrives from Redis.
 */
export interface LocalRouter {
  /** Hands `payload` to the subscriptions of `topic` unscoped or scoped to its session (or project). Never throws. */
  deliver<K extends keyof Events>(topic: K, payload: Events[K]): void;
  subscribe: PubSub['subscribe'];
  listenerCount: PubSub['listenerCount'];
}

export function createLocalRouter(): LocalRouter {
  /** `topic` or `topic:scope` -> the pushes of the subscriptions listening there. */
  const listeners = new Map<string, Set<(payload: never) => unknown>>();
  const counts = new Map<keyof Events, number>();
  const deliverTo = (key: string, payload: unknown) => {
    const set = listeners.get(key);
    if (!set) return;
    for (const push of set) {
      try {
        // Settles once the subscription took the event; nothing to wait for here.
        void (push as (payload: unknown) => Promise<unknown>)(payload).catch(() => {});
      } catch {
        // 1,024 events queued and none taken: that subscription is stuck (its socket is closed by the
        // send buffer's cap long before, src/http/send-buffer.ts); the others still get this one.
      }
    }
  };
  return {
    deliver(topic, payload) {
      deliverTo(topic, payload);
      deliverTo(`${topic}:${(SCOPE[topic] as (event: typeof payload) => string)(payload)}`, payload);
    },
    subscribe<K extends keyof Events>(topic: K, scope?: string) {
      const key = scope === undefined ? topic : `${topic}:${scope}`;
      return new Repeater<Events[K]>((push, stop) => {
        let set = listeners.get(key);
        if (!set) listeners.set(key, (set = new Set()));
        set.add(push);
        counts.set(topic, (counts.get(topic) ?? 0) + 1);
        void stop.then(() => {
          set.delete(push);
          if (set.size === 0 && listeners.get(key) === set) listeners.delete(key);
          counts.set(topic, (counts.get(topic) ?? 1) - 1);
        });
      });
    },
    listenerCount: (topic) => counts.get(topic) ?? 0,
  };
}
