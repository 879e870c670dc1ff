/**
 * PostgreSQL, when a `postgresql://` URL is configured: the same models through Prisma's
 * PostgreSQL client (generated beside SQLite's, src/generated/prisma-postgresql) over
 * `@prisma/adapter-pg`, migrated at start-up from prisma/postgresql/migrations by the same
 * WebAssembly schema engine as SQLite.
 *
 * Several instances may start at once on one database: migrations are applied by one at a time,
 * under a session-level advisory lock (the others wait for it, then find nothing to apply).
 * Checking what is applied reads `_prisma_migrations` only, so an instance starting on a
 * migrated database takes no lock and starts no engine.
 */
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient as PostgresClient } from '../generated/prisma-postgresql/client.js';
import { nulSafeMessageText } from './nul-text.js';
import { readMigrations, SchemaEngineSession } from './schema-engine.js';
import type { PostgresOptions } from './postgresql-url.js';

export { isPostgresUrl, redactedUrl, type PostgresOptions } from './postgresql-url.js';

/** The advisory lock key migrations are applied under (any constant of ours; "entity-m" in ASCII). */
const MIGRATION_LOCK_KEY = 0x656e746974792dn;

export function postgresFactory(options: PostgresOptions): PrismaPg {
  return new PrismaPg({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    ...(options.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
}

/**
 * How long a transaction waits for a connection of the pool before it fails. Prisma's default, 2 s,
 * failed recordTurn with "Unable to start a transaction in the given time" (an internal error to
 * the client) when three instances on a loaded 2-core machine took 20 concurrent writers and their
 * mirrors (test/scale-out/instances.test.ts); 10 s is what a SQLite writer waits for the lock
 * (busy_timeout) before failing.
 */
export const TRANSACTION_MAX_WAIT_MS = 10_000;

/** The client, with message text that holds NUL stored escaped (src/db/nul-text.ts). */
export function newPostgresClient(adapter: PrismaPg): unknown {
  const client = new PostgresClient({ adapter, transactionOptions: { maxWait: TRANSACTION_MAX_WAIT_MS } });
  // Typed loosely: the extension's callbacks take every Message operation's arguments.
  return (client.$extends as (extension: object) => unknown)(nulSafeMessageText);
}

/** Runs `work` on one connection to `url` of its own, closed after whatever happens. */
export async function withPostgresClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The names of the migrations the database has applied (none when it has no `_prisma_migrations`). */
export async function appliedPostgresMigrations(url: string): Promise<Set<string>> {
  return withPostgresClient(url, async (client) => {
    const table = await client.query<{ exists: boolean }>("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists");
    if (!table.rows[0]?.exists) return new Set();
    const rows = await client.query<{ name: string }>(
      'SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    return new Set(rows.rows.map((row) => row.name));
  });
}

/**
 * Applies the migrations of `migrationsDir` the database lacks, holding the advisory lock so one
 * instance at a time does; `pending` is re-read under the lock (another instance may have applied
 * them meanwhile). Returns the names applied by this call.
 */
export async function migratePostgres(url: string, migrationsDir: string, beforeApplying?: (messages: number) => void): Promise<string[]> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    if (beforeApplying) {
      // How many messages are there (none before the table is made): what a slow migration is about to go over.
      const exists = await lock.query<{ found: string | null }>(`SELECT to_regclass('"Message"')::text AS found`);
      beforeApplying(exists.rows[0]?.found ? Number((await lock.query<{ n: string }>('SELECT count(*) AS n FROM "Message"')).rows[0]!.n) : 0);
    }
    const engine = await SchemaEngineSession.open(postgresFactory({ url, poolSize: 2 }));
    try {
      return await engine.applyMigrations(await readMigrations(migrationsDir));
    } finally {
      await engine.close();
    }
  } finally {
    // Ending the session releases the lock too; unlocking first lets a waiter go at once.
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]).catch(() => undefined);
    await lock.end().catch(() => undefined);
  }
}
