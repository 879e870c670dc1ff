/**
 * The pubsub routes an event to the subscriptions of its scope (its session, or its project)
 * and to the unscoped ones, never to another scope's; a subscription holds a listener only
 * while it is being read.
 */
import { describe, expect, it } from 'vitest';
import { createEventPubSub, type TurnCommittedPayload } from '../../src/pubsub.js';

const event = (sessionId: string, n: number): TurnCommittedPayload => ({ sessionId, turnId: `t${n}`, sha: `${n}`.repeat(40) });

describe('the event pubsub', () => {
  it("hands an event to its session's subscriptions and the unscoped ones only", async () => {
    const pubsub = createEventPubSub();
    const mine = pubsub.subscribe('turnCommitted', 's1');
    const other = pubsub.subscribe('turnCommitted', 's2');
    const all = pubsub.subscribe('turnCommitted');
    // A subscription listens from its first read.
    expect(pubsub.listenerCount('turnCommitted')).toBe(0);
    const reads = [mine.next(), other.next(), all.next()];
    expect(pubsub.listenerCount('turnCommitted')).toBe(3);

    pubsub.publish('turnCommitted', event('s1', 1));
    pubsub.publish('turnCommitted', event('s3', 2));
    pubsub.publish('turnCommitted', event('s2', 3));
    expect((await reads[0])!.value).toEqual(event('s1', 1));
    expect((await reads[1])!.value).toEqual(event('s2', 3));
    expect((await reads[2])!.value).toEqual(event('s1', 1));
    expect((await all.next()).value).toEqual(event('s3', 2));
    expect((await all.next()).value).toEqual(event('s2', 3));

    await Promise.all([mine.return(undefined), other.return(undefined), all.return(undefined)]);
    expect(pubsub.listenerCount('turnCommitted')).toBe(0);
  });

  it('scopes the project topics by project', async () => {
    const pubsub = createEventPubSub();
    const project = pubsub.subscribe('projectCommitted', 'p1');
    const read = project.next();
    pubsub.publish('projectCommitted', { projectId: 'p2', sessionId: 's1', turnNumber: 1, sha: 'a'.repeat(40) });
    pubsub.publish('projectCommitted', { projectId: 'p1', sessionId: 's1', turnNumber: 2, sha: 'b'.repeat(40) });
    expect((await read).value).toMatchObject({ projectId: 'p1', turnNumber: 2 });
    await project.return(undefined);
    expect(pubsub.listenerCount('projectCommitted')).toBe(0);
  });
});
