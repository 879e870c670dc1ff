/**
 * Secrets the server instances sharing one database hold in common (the SharedSecret table):
 * the first instance that asks for one makes it, every later one reads the same value. Whoever
 * can read the database can read them; they guard what travels outside it (events through Redis).
 */
import { randomBytes } from 'node:crypto';
import { Prisma } from '../generated/prisma/client.js';
import type { Db } from './index.js';

/** The names in use: `events` keys the HMAC of events sent through Redis (src/redis-pubsub.ts). */
export type SharedSecretName = 'events';

/** The secret `name` (32 bytes), made now when no instance has made it yet. */
export async function sharedSecret(db: Db, name: SharedSecretName): Promise<Buffer> {
  const existing = await db.sharedSecret.findUnique({ where: { name } });
  if (existing) return Buffer.from(existing.value, 'hex');
  try {
    const made = await db.sharedSecret.create({ data: { name, value: randomBytes(32).toString('hex') } });
    return Buffer.from(made.value, 'hex');
  } catch (error) {
    // Another instance made it between the read and the write: its value is the one.
    if (!(error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')) throw error;
    const theirs = await db.sharedSecret.findUniqueOrThrow({ where: { name } });
    return Buffer.from(theirs.value, 'hex');
  }
}
