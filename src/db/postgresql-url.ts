/**
 * What the rest of the server asks about a PostgreSQL URL without loading the PostgreSQL client
 * (src/db/postgresql.ts: pg, its Prisma client and adapter), which an embedded server on SQLite
 * never needs and so never loads.
 */

export interface PostgresOptions {
  /** `postgresql://user@host:port/database?…` (or `postgres://`). */
  url: string;
  /** Check only: never migrate, and every transaction read-only. Default false. */
  readOnly?: boolean;
  /** Connections in the pool. Default 10 (pg's). */
  poolSize?: number;
  /** Told before a migration that takes long (building the search index over the messages there). */
  onSlowMigration?: (note: string) => void;
}

/** Whether `url` names a PostgreSQL database (what --database-url accepts besides a SQLite file). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The URL with its password replaced, for messages and logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgresql://…';
  }
}
