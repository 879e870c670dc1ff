/**
 * Opening the database: a PrismaClient over a driver adapter, migrated by
 * Prisma's schema engine before first use.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaClient } from '../generated/prisma/client.js';
import { readMigrations, SchemaEngineSession } from './schema-engine.js';

export type Db = PrismaClient;

/** The repository's `prisma/` folder (schema and migrations), found from this file. */
export const prismaDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'prisma');

export interface OpenDbOptions {
  /** Path of the SQLite file; its folder is created if missing. */
  file: string;
  /** How long a writer waits for SQLite's lock before failing. Default 10 000 ms. */
  busyTimeoutMs?: number;
}

function sqliteFactory(options: OpenDbOptions): PrismaBetterSqlite3 {
  return new PrismaBetterSqlite3({ url: options.file, timeout: options.busyTimeoutMs ?? 10_000 });
}

/**
 * Applies every migration in `prisma/migrations` that the database lacks, the
 * way `prisma migrate deploy` does (same `_prisma_migrations` table).
 * @returns the names of the migrations applied now.
 * @throws when a migration fails; the database is left as the engine left it.
 */
export async function migrate(options: OpenDbOptions): Promise<string[]> {
  mkdirSync(dirname(options.file), { recursive: true });
  const engine = await SchemaEngineSession.open(sqliteFactory(options));
  try {
    return await engine.applyMigrations(await readMigrations(join(prismaDir, 'migrations')));
  } finally {
    await engine.close();
  }
}

/**
 * Opens the database, migrated, in WAL mode with full fsync so an acknowledged
 * write survives a crash.
 */
export async function openDb(options: OpenDbOptions): Promise<Db> {
  await migrate(options);
  const db = new PrismaClient({ adapter: sqliteFactory(options) });
  // WAL lets readers (the API) run while the mirror worker writes.
  await db.$queryRawUnsafe('PRAGMA journal_mode = WAL');
  await db.$executeRawUnsafe('PRAGMA synchronous = FULL');
  await db.$executeRawUnsafe('PRAGMA foreign_keys = ON');
  return db;
}

export function readSchemaFile(): { path: string; content: string } {
  const path = join(prismaDir, 'schema.prisma');
  return { path, content: readFileSync(path, 'utf8') };
}
