/**
 * The secrets instances share through the database (src/db/shared-secrets.ts): made once by
 * whichever asks first, the same for every client of that database, even when several ask at
 * once, and another database's is another.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/index.js';
import { sharedSecret } from '../../src/db/shared-secrets.js';
import { freshDatabase, onPostgres } from '../helpers/database.js';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';

/** `clients` clients of one new database (separate connections, as separate instances have). */
async function oneDatabase(clients: number): Promise<Db[]> {
  const target = onPostgres ? { url: (await freshDatabase()).url } : { file: join(tempDir(), 'entity-memory.db') };
  const dbs: Db[] = [];
  for (let i = 0; i < clients; i++) {
    const db = await openDb(target);
    onCleanup(() => db.$disconnect());
    dbs.push(db);
  }
  return dbs;
}

describe('shared secrets', () => {
  it('are made once, 32 random bytes, and every client of the database reads the same, however many ask at once', async () => {
    const dbs = await oneDatabase(4);
    const secrets = await Promise.all(dbs.flatMap((db) => [sharedSecret(db, 'events'), sharedSecret(db, 'events')]));
    expect(secrets[0]).toHaveLength(32);
    expect(new Set(secrets.map((secret) => secret.toString('hex'))).size).toBe(1);
    expect(await dbs[0]!.sharedSecret.count()).toBe(1);
    const [other] = await oneDatabase(1);
    expect((await sharedSecret(other!, 'events')).equals(secrets[0]!)).toBe(false);
  });
});
