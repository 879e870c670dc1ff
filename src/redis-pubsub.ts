/**
 * The pubsub through Redis, for several server instances sharing one database: a subscriber on
 * any instance receives what every instance publishes.
 *
 * Each topic is one channel, `<prefix><topic>` (the prefix keeps deployments on one Redis apart).
 * `publish` only sends to Redis; every instance, the publisher too, delivers what arrives from
 * Redis to its own subscriptions through the same scoped routing as the in-process pubsub
 * (src/pubsub.ts). So an instance sees its own events once, and the events of one publisher in
 * the order Redis had them. A session's events reach every instance and are routed there, not
 * filtered by Redis: a channel per session would cost a SUBSCRIBE per subscription and lose the
 * order between a session's channel and the topic's.
 *
 * Transport: graphql-yoga's Redis event target over two ioredis connections (a subscribed
 * connection can send nothing else). Redis pubsub keeps nothing: what is published while an
 * instance is cut off is lost to it, as a WebSocket client misses what happens while it
 * reconnects; the database stays the source of truth.
 *
 * Nothing from Redis is taken on trust: whoever reaches Redis (another local user, when it has no
 * password) could publish on our channels. Each message is signed, an HMAC-SHA256 keyed by a
 * secret the instances share through the database (src/db/shared-secrets.ts) over the channel,
 * the send time and the payload; one that is not signed with it, is older than
 * MAX_EVENT_AGE_MS, or whose payload does not fit its topic's schema (EVENT_SCHEMAS) is dropped
 * and logged, never delivered.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis, type RedisOptions } from 'ioredis';
import { z } from 'zod';
import { redactRedisUrl } from './config.js';
import type { Logger } from './logger.js';
import { createLocalRouter, TIMELINE_KINDS, TOPICS, type Events, type PubSub } from './pubsub.js';

/** How long start-up waits for Redis before giving up. */
export const DEFAULT_REDIS_START_TIMEOUT_MS = 5_000;
/** How long the health probe waits for PONG. */
export const DEFAULT_REDIS_HEALTH_TIMEOUT_MS = 1_000;
/** How long close() waits for QUIT's answer before cutting the connection. */
const QUIT_TIMEOUT_MS = 1_000;

/**
 * How old a signed event may be when it arrives (clock differences between hosts included): a
 * message replayed later than this is dropped. Events are delivered within milliseconds.
 */
export const MAX_EVENT_AGE_MS = 60_000;

const id = z.string().min(1).max(200);
const sha = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);
const text = z.string().max(100_000);

/** Each topic's payload, exactly (no other keys): what arrives from Redis is checked against it. */
export const EVENT_SCHEMAS = {
  turnCommitted: z.strictObject({ sessionId: id, turnId: id, sha }),
  mirrorFailed: z.strictObject({ sessionId: id, turnId: id, turnNumber: z.int().nonnegative(), error: text, willRetry: z.boolean() }),
  timeline: z.strictObject({ kind: z.enum(TIMELINE_KINDS), sessionId: id, branch: z.string().min(1).max(1_000), sha: sha.nullable() }),
  turnUpdated: z.strictObject({ sessionId: id, turnId: id, messageIds: z.array(id).max(100_000), closed: z.boolean() }),
  projectCommitted: z.strictObject({ projectId: id, sessionId: id, turnNumber: z.int().nonnegative(), sha }),
  dirtyTreeWarning: z.strictObject({
    projectId: id,
    sessionId: id,
    turnNumber: z.int().nonnegative(),
    dirtyPaths: z.array(z.string().max(4_096)).max(100_000),
    message: text,
    reason: text.nullable(),
    at: z.iso.datetime(),
  }),
  mirrorWork: z.strictObject({ sessionId: id, instanceId: id }),
} satisfies { [K in keyof Events]: z.ZodType<Events[K]> };

/** What travels on a channel: the payload as JSON text, when it was sent (ms) and the HMAC of both with the channel. */
interface Envelope {
  body: string;
  sentAt: number;
  mac: string;
}

const ENVELOPE = z.strictObject({ body: z.string(), sentAt: z.number().int(), mac: z.string().regex(/^[0-9a-f]{64}$/) });

function sign(secret: Buffer, channel: string, sentAt: number, body: string): string {
  return createHmac('sha256', secret).update(`${channel}\n${sentAt}\n${body}`).digest('hex');
}

/** Redis could not be reached (or would not answer) at start; the message is one line saying where and why. */
export class RedisUnavailableError extends Error {}

/** What the health probe found: `ok` with the round trip of a PING, or why not. */
export interface RedisHealth {
  ok: boolean;
  error?: string;
  latencyMs?: number;
}

export interface RedisPubSub extends PubSub {
  /** PINGs Redis (both connections must be up). Never throws; answers within about `healthTimeoutMs`. */
  health(): Promise<RedisHealth>;
  /** Quits both connections (what was published before is sent first). Safe to call twice. */
  close(): Promise<void>;
}

export interface RedisPubSubOptions {
  /** redis:// or rediss://, as src/config.ts checked it. */
  url: string;
  /** Starts every channel name, e.g. `entity-memory:`. */
  prefix: string;
  /** Keys the HMAC of every event: the same on every instance (sharedSecret(db, 'events')). */
  secret: Buffer;
  logger: Logger;
  /** Default DEFAULT_REDIS_START_TIMEOUT_MS. */
  startTimeoutMs?: number;
  /** Default DEFAULT_REDIS_HEALTH_TIMEOUT_MS. */
  healthTimeoutMs?: number;
}

type Link = 'publish' | 'subscribe';

/**
 * Connects to Redis and subscribes to every topic; resolves once an event published anywhere
 * from then on reaches this instance. After start, a lost connection is logged (a warning once
 * per outage, a line when it is back) while ioredis reconnects and subscribes again; events
 * published meanwhile wait in ioredis' queue up to its retry limit (about 10 s), then are logged
 * as lost. `publish` never throws.
 * @throws RedisUnavailableError when both connections are not ready within `startTimeoutMs`;
 *   nothing is left open then.
 */
export async function createRedisPubSub(options: RedisPubSubOptions): Promise<RedisPubSub> {
  const { url, prefix, logger } = options;
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_REDIS_START_TIMEOUT_MS;
  const healthTimeoutMs = options.healthTimeoutMs ?? DEFAULT_REDIS_HEALTH_TIMEOUT_MS;
  const redis = redactRedisUrl(url);
  const router = createLocalRouter();
  const base: RedisOptions = {
    lazyConnect: true,
    // A host that drops packets is given up on per attempt, not after the default 10 s.
    connectTimeout: startTimeoutMs,
    // How long a closed connection's socket may take to end; ioredis also waits this long on a
    // socket that is long gone (a start that failed), holding the process 2 s by default.
    disconnectTimeout: 500,
  };
  // Named, so `CLIENT LIST` tells which deployment and which side a connection is.
  const clients: Record<Link, Redis> = {
    publish: new Redis(url, { ...base, connectionName: `${prefix}publish` }),
    // It only ever sends SUBSCRIBE and PING, which may as well wait through an outage.
    // Subscriptions are sent again by us after a reconnection, not by ioredis: its own resubscribe
    // drops the SUBSCRIBE's promise, and a connection closed before Redis answers it (a close()
    // right after a reconnection) rejected it unhandled (seen once in the PostgreSQL pass).
    subscribe: new Redis(url, { ...base, connectionName: `${prefix}subscribe`, maxRetriesPerRequest: null, autoResubscribe: false }),
  };

  let started = false;
  let closing = false;
  let lastError: string | undefined;
  const down = new Set<Link>();
  let downSince = 0;
  for (const link of ['publish', 'subscribe'] as const) {
    const client = clients[link];
    // Without a listener ioredis prints every failed attempt to the console.
    client.on('error', (error: Error) => {
      lastError = error.message;
      if (started && !closing) logger.debug({ err: error, redis, link }, 'Redis connection error');
    });
    client.on('close', () => {
      if (!started || closing || down.has(link)) return;
      down.add(link);
      if (down.size > 1) return;
      downSince = Date.now();
      logger.warn(
        { redis, link, error: lastError },
        'lost the connection to Redis; reconnecting. Events published here wait (about 10 s, then each is logged as lost); events from other instances are missed meanwhile',
      );
    });
    client.on('ready', () => {
      if (!started || closing || !down.has(link)) return;
      // ioredis sends the SUBSCRIBEs again right after this event; a PING queued behind them is
      // answered once they are in force, so "back" means events arrive again.
      queueMicrotask(() => {
        if (link === 'subscribe') client.subscribe(...TOPICS.map((topic) => prefix + topic)).catch(() => {}); // a failure closes the connection: the next 'ready' sends them again
        client.ping().then(
          () => {
            if (!down.delete(link) || down.size > 0) return;
            lastError = undefined;
            logger.info({ redis, downMs: Date.now() - downSince }, 'the connection to Redis is back');
          },
          () => {}, // closed again meanwhile: the next 'ready' tries again
        );
      });
    });
  }

  const disconnectAll = () => {
    closing = true;
    for (const client of Object.values(clients)) client.disconnect();
  };
  try {
    await withTimeout(
      Promise.all(Object.values(clients).map((client) => ready(client))),
      startTimeoutMs,
      () => `no connection to Redis at ${redis} within ${startTimeoutMs / 1000} s${lastError ? ` (${lastError})` : ''}; start Redis or fix --redis-url`,
    );
  } catch (error) {
    disconnectAll();
    throw new RedisUnavailableError((error as Error).message);
  }

  const drops = dropLog(logger, redis);
  const target = createRedisEventTarget<CustomEvent>({
    publishClient: handledClient(clients.publish, logger),
    subscribeClient: handledClient(clients.subscribe, logger),
    serializer: {
      stringify: (envelope) => JSON.stringify(envelope),
      // Anything may be published on a channel; what is not JSON is dropped, not thrown into ioredis' parser.
      parse: (message) => {
        try {
          return JSON.parse(message) as unknown;
        } catch {
          drops('not JSON', { message: message.slice(0, 200) });
          return null;
        }
      },
    },
  });
  for (const topic of TOPICS) {
    const channel = prefix + topic;
    target.addEventListener(channel, (event) => {
      const payload = opened(options.secret, channel, topic, event.detail, drops);
      if (payload !== undefined) router.deliver(topic, payload);
    });
  }
  try {
    // Redis answers a connection's commands in order: once this PING is answered, every SUBSCRIBE before it is in force.
    await withTimeout(clients.subscribe.ping(), startTimeoutMs, () => `Redis at ${redis} did not confirm the subscriptions within ${startTimeoutMs / 1000} s`);
  } catch (error) {
    disconnectAll();
    throw new RedisUnavailableError((error as Error).message);
  }
  started = true;
  logger.info({ redis, prefix }, 'events go through Redis');

  let closed: Promise<void> | undefined;
  return {
    publish(topic, payload) {
      try {
        const channel = prefix + topic;
        const body = JSON.stringify(payload);
        const sentAt = Date.now();
        const envelope: Envelope = { body, sentAt, mac: sign(options.secret, channel, sentAt, body) };
        target.dispatchEvent(new CustomEvent(channel, { detail: envelope }));
      } catch (error) {
        logger.error({ err: error, topic }, 'an event could not be sent to Redis; no instance delivers it');
      }
    },
    subscribe: router.subscribe,
    listenerCount: router.listenerCount,
    async health() {
      if (closing) return { ok: false, error: 'closed' };
      const notReady = (['publish', 'subscribe'] as const).filter((link) => clients[link].status !== 'ready');
      if (notReady.length > 0) {
        const states = notReady.map((link) => `${link} connection ${clients[link].status}`).join(', ');
        return { ok: false, error: `${states}${lastError ? ` (${lastError})` : ''}` };
      }
      const start = performance.now();
      try {
        await withTimeout(clients.publish.ping(), healthTimeoutMs, () => `no PONG within ${healthTimeoutMs} ms`);
        return { ok: true, latencyMs: Math.round(performance.now() - start) };
      } catch (error) {
        return { ok: false, error: (error as Error).message };
      }
    },
    close() {
      closed ??= (async () => {
        closing = true;
        await Promise.all(
          Object.values(clients).map(async (client) => {
            if (client.status === 'ready') {
              try {
                await withTimeout(client.quit(), QUIT_TIMEOUT_MS, () => 'no answer to QUIT');
              } catch (error) {
                logger.debug({ err: error, redis }, 'Redis did not answer QUIT; closing the connection');
              }
            }
            client.disconnect();
          }),
        );
      })();
      return closed;
    },
  };
}

/**
 * The payload of a message that arrived on `channel`, or undefined (the reason handed to `drop`)
 * when it is not an envelope, not signed with `secret`, too old or too far ahead, or not a
 * `topic` event. null: the serializer found no JSON and said so already.
 */
function opened<K extends keyof Events>(
  secret: Buffer,
  channel: string,
  topic: K,
  detail: unknown,
  drop: (reason: string, fields?: Record<string, unknown>) => void,
): Events[K] | undefined {
  if (detail === null) return undefined;
  const envelope = ENVELOPE.safeParse(detail);
  if (!envelope.success) return drop('not a signed event', { topic }), undefined;
  const { body, sentAt, mac } = envelope.data;
  if (!timingSafeEqual(Buffer.from(sign(secret, channel, sentAt, body), 'hex'), Buffer.from(mac, 'hex'))) {
    return drop('signed with another secret (not an instance of this database)', { topic }), undefined;
  }
  const age = Date.now() - sentAt;
  if (age > MAX_EVENT_AGE_MS || age < -MAX_EVENT_AGE_MS) return drop('sent too long ago (replayed?) or with a clock far off', { topic, ageMs: age }), undefined;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return drop('signed but not JSON', { topic }), undefined;
  }
  const payload = EVENT_SCHEMAS[topic].safeParse(json);
  if (!payload.success) return drop(`not a ${topic} event`, { topic, issue: payload.error.issues[0]?.message }), undefined;
  return payload.data as Events[K];
}

/**
 * Logs a dropped message: the first of each reason at once, then at most one line a minute per
 * reason with how many were dropped since, so a flood of junk cannot flood the log.
 */
function dropLog(logger: Logger, redis: string): (reason: string, fields?: Record<string, unknown>) => void {
  const last = new Map<string, { at: number; since: number }>();
  return (reason, fields = {}) => {
    const now = Date.now();
    const seen = last.get(reason);
    if (seen && now - seen.at < 60_000) {
      seen.since += 1;
      return;
    }
    last.set(reason, { at: now, since: 0 });
    logger.warn({ redis, ...fields, ...(seen?.since ? { droppedSinceLastLine: seen.since } : {}) }, `dropped a message from Redis: ${reason}`);
  };
}

/** Starts connecting and resolves on the first 'ready': a failed attempt is retried by ioredis until the caller's timeout. */
function ready(client: Redis): Promise<void> {
  return new Promise((resolve) => {
    client.once('ready', () => resolve());
    // Rejects on the first failed attempt; the attempts after it are ioredis' own, seen as 'ready' or 'error'.
    client.connect().catch(() => {});
  });
}

/**
 * The commands the event target sends, each failure logged. It drops the promises of
 * `publish`, `subscribe` and `unsubscribe`, and a rejection nobody handles ends the process: a
 * publish ioredis gives up on (Redis gone past its retries) would. The event target calls
 * nothing else than these and `on('message')`, hence the cast.
 */
function handledClient(client: Redis, logger: Logger): Redis {
  const failed = (message: string, channel: string) => (error: unknown) => {
    logger.warn({ err: error, channel }, message);
    return 0;
  };
  const handled = {
    on: (event: 'message', listener: (channel: string, message: string) => void) => {
      client.on(event, listener);
      return handled;
    },
    publish: (channel: string, message: string) =>
      client.publish(channel, message).catch(failed('an event could not be sent to Redis; no instance delivers it', channel)),
    subscribe: (channel: string) => client.subscribe(channel).catch(failed('subscribing to a Redis channel failed', channel)),
    unsubscribe: (channel: string) => client.unsubscribe(channel).catch(failed('unsubscribing from a Redis channel failed', channel)),
  };
  return handled as unknown as Redis;
}

/** `promise`, or a rejection with `message()` after `ms`; the timer never outlives it. */
async function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message())), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
