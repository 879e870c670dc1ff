/**
 * Which database the suite's servers use. `npm test` runs it on SQLite (a file in each server's
 * data dir, as users run it); `npm run test:postgresql` runs it again on PostgreSQL (and Redis for
 * events), as several instances would: each server started by startTestServer gets a database of
 * its own, copied from a migrated template (CREATE DATABASE … TEMPLATE, some 50 ms, against a
 * second or more to migrate one), and dropped after its test.
 *
 * ENTITY_MEMORY_TEST_DATABASE=postgresql selects it; ENTITY_MEMORY_TEST_POSTGRESQL_URL names the
 * server (default postgresql://postgres@127.0.0.1:5432/postgres, an administrative database the
 * copies are made from); ENTITY_MEMORY_TEST_REDIS_URL Redis (default redis://127.0.0.1:6379).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { withPostgresClient } from '../../src/db/postgresql.js';
import { onCleanup } from './leftovers.js';

export const onPostgres = process.env.ENTITY_MEMORY_TEST_DATABASE === 'postgresql';

const adminUrl = process.env.ENTITY_MEMORY_TEST_POSTGRESQL_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const testRedisUrl = process.env.ENTITY_MEMORY_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A database's URL on the test server. */
export function databaseUrl(name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The template's name: one per set of migrations, so a changed migration gets a new one. */
function templateName(): string {
  const dir = join(import.meta.dirname, '..', '..', 'prisma', 'postgresql', 'migrations');
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort()) {
    hash.update(name);
    if (!name.endsWith('.toml')) hash.update(readFileSync(join(dir, name, 'migration.sql')));
  }
  return `em_template_${hash.digest('hex').slice(0, 12)}`;
}

const admin = <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => withPostgresClient(adminUrl, work);

let template: Promise<string> | undefined;

/**
 * The migrated template, made once per set of migrations (under an advisory lock: the suite's
 * files run in parallel), by the server's own migration code.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = templateName();
    await admin(async (client) => {
      await client.query('SELECT pg_advisory_lock(7347)');
      try {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
        if (found.rowCount === 0) {
          const building = `${name}_building`;
          await client.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
          await client.query(`CREATE DATABASE "${building}"`);
          const { openDb } = await import('../../src/db/index.js');
          const db = await openDb({ url: databaseUrl(building) });
          await db.$disconnect();
          await client.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
        }
      } finally {
        await client.query('SELECT pg_advisory_unlock(7347)');
      }
    });
    return name;
  })();
  return template;
}

/** A new, migrated, empty database for one server, dropped after the test (after the server stops). */
export async function freshDatabase(): Promise<{ name: string; url: string }> {
  const source = await migratedTemplate();
  const name = `em_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${source}"`));
  onCleanup(() => admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)));
  return { name, url: databaseUrl(name) };
}

/**
 * For startTestServer: the embedded default whatever the pass (the data dir's SQLite file), for
 * tests of what only it does (one server per data dir, commands that write the file directly).
 */
export const EMBEDDED = { databaseUrl: undefined } as const;
