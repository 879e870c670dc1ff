/**
 * The one pubsub of the server. Payloads carry ids and plain values only
 * (JSON-safe), so a Redis-backed pubsub can replace this one unchanged;
 * subscription resolvers load what they show from the database.
 */
import { getEventListeners, setMaxListeners } from 'node:events';
import { createPubSub } from 'graphql-yoga';

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

export type TimelineKind = 'COMMITTED' | 'BRANCH_CREATED' | 'BRANCH_SWITCHED' | 'CHECKED_OUT';

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

export interface Events {
  turnCommitted: TurnCommittedPayload;
  mirrorFailed: MirrorFailedPayload;
  timeline: TimelinePayload;
  projectCommitted: ProjectCommittedPayload;
  dirtyTreeWarning: DirtyTreeWarningPayload;
}

export type PubSub = ReturnType<typeof createEventPubSub>;

export function createEventPubSub() {
  // One listener per subscription: a thousand watchers are expected, not a leak to warn about.
  const eventTarget = new EventTarget();
  setMaxListeners(0, eventTarget);
  const pubsub = createPubSub<{ [K in keyof Events]: [Events[K]] }>({ eventTarget });
  return {
    ...pubsub,
    /** Subscriptions listening to `topic` now: each live one holds one listener until it ends. */
    listenerCount: (topic: keyof Events): number => getEventListeners(eventTarget, topic).length,
  };
}
