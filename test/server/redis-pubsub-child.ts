/**
 * Run by redis-pubsub.test.ts in a process of its own: two Redis pubsubs exchange an event and
 * are closed, and a start against a closed port fails. The process must then exit by itself;
 * a handle left open (a socket, a timer) would keep it alive.
 */
import { createLogger } from '../../src/logger.js';
import { createRedisPubSub, RedisUnavailableError } from '../../src/redis-pubsub.js';

async function main(url: string, prefix: string, closedPort: string): Promise<void> {
  const logger = createLogger('silent');
  const secret = Buffer.alloc(32, 1);
  const a = await createRedisPubSub({ url, prefix, logger, secret });
  const b = await createRedisPubSub({ url, prefix, logger, secret });
  const subscription = b.subscribe('turnCommitted', 's1');
  const read = subscription.next();
  a.publish('turnCommitted', { sessionId: 's1', turnId: 't1', sha: 'a'.repeat(40) });
  console.log(`received ${JSON.stringify((await read).value)}`);
  // Still subscribed when closed, and an event on its way: neither may hold the process.
  a.publish('turnCommitted', { sessionId: 's1', turnId: 't2', sha: 'b'.repeat(40) });
  await Promise.all([a.close(), b.close()]);
  // A failed start must not leave ioredis reconnecting in the background.
  const failed = await createRedisPubSub({ url: `redis://127.0.0.1:${closedPort}`, prefix, logger, secret, startTimeoutMs: 200 }).catch((error: unknown) => error);
  console.log(failed instanceof RedisUnavailableError ? 'start refused' : `start not refused: ${String(failed)}`);
}

const [url, prefix, closedPort] = process.argv.slice(2);
await main(url!, prefix!, closedPort!);
