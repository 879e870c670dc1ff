/**
 * The real Redis the Redis tests run against (127.0.0.1:6379 unless TEST_REDIS_URL says
 * otherwise), a channel prefix of its own per test so test files running side by side never see
 * each other's events, and pubsubs and clients closed after the test.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { createLogger, type Logger } from '../../src/logger.js';
import { createRedisPubSub, type RedisPubSub } from '../../src/redis-pubsub.js';
import { onCleanup } from './leftovers.js';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A prefix no other test uses. */
export function redisPrefix(): string {
  return `em-test:${randomUUID()}:`;
}

/** The events secret of the tests' instances, as one database would hand it to each. */
export const TEST_EVENTS_SECRET = Buffer.alloc(32, 7);

/** A Redis pubsub on `prefix`, as one server instance would have it; closed after the test. */
export async function redisInstance(prefix: string, logger: Logger = createLogger('silent'), secret: Buffer = TEST_EVENTS_SECRET): Promise<RedisPubSub> {
  const pubsub = await createRedisPubSub({ url: TEST_REDIS_URL, prefix, logger, secret });
  onCleanup(() => pubsub.close());
  return pubsub;
}

/** A plain client, to look at Redis from outside (CLIENT LIST, PUBLISH); closed after the test. */
export function adminRedis(): Redis {
  const client = new Redis(TEST_REDIS_URL);
  onCleanup(() => client.quit());
  return client;
}

/**
 * Cuts the connections of `prefix`'s instances named `<prefix><link>` server-side, all in one
 * transaction, as a Redis restart or a network cut would. Returns how many were cut.
 */
export async function cutConnections(admin: Redis, prefix: string, links: ('publish' | 'subscribe')[]): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  const names = new Set(links.map((link) => `${prefix}${link}`));
  const ids = list
    .split('\n')
    .map((line) => Object.fromEntries(line.split(' ').map((field) => field.split('=') as [string, string])))
    .filter((fields) => names.has(fields.name ?? ''))
    .map((fields) => fields.id!);
  const multi = admin.multi();
  for (const id of ids) multi.client('KILL', 'ID', id);
  await multi.exec();
  return ids.length;
}

/** A port nothing listens on: one the system handed out and took back. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
