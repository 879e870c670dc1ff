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
 */
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { Redis, type RedisOptions } from 'ioredis';
import { redactRedisUrl } from './config.js';
import type { Logger } from './logger.js';
import { createLocalRouter, TOPICS, type Events, type PubSub } from './pubsub.js';

/** How long start-up waits for Redis before giving up. */
export const DEFAULT_REDIS_START_TIMEOUT_MS = 5_000;
/** How long the health probe waits for PONG. */
export const DEFAULT_REDIS_HEALTH_TIMEOUT_MS = 1_000;
/** How long close() waits for QUIT's answer before cutting the connection. */
const QUIT_TIMEOUT_MS = 1_000;

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

  const target = createRedisEventTarget<CustomEvent>({
    publishClient: handledClient(clients.publish, logger),
    subscribeClient: handledClient(clients.subscribe, logger),
    serializer: {
      stringify: (payload) => JSON.stringify(payload),
      // Anything may be published on a channel; what is not JSON is dropped, not thrown into ioredis' parser.
      parse: (message) => {
        try {
          return JSON.parse(message) as unknown;
        } catch {
          logger.warn({ redis, message: message.slice(0, 200) }, 'dropped a message from Redis that is not JSON');
          return null;
        }
      },
    },
  });
  for (const topic of TOPICS) {
    target.addEventListener(prefix + topic, (event) => {
      const payload: unknown = event.detail;
      if (typeof payload !== 'object' || payload === null) {
        // null: not JSON, logged by parse.
        if (payload !== null) logger.warn({ redis, topic }, 'dropped a message from Redis that is not an event object');
        return;
      }
      router.deliver(topic, payload as Events[typeof topic]);
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
        target.dispatchEvent(new CustomEvent(prefix + topic, { detail: payload }));
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
