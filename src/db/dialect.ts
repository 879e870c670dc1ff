/**
 * What differs between the databases in the few statements written as SQL by hand (the hot
 * paths, src/services/sessions): how a parameter is written, and how a transaction lets a row
 * name one written after it. Everything else goes through Prisma, which speaks both.
 *
 * SQLite takes `?` and infers nothing; PostgreSQL takes `$1`, `$2`… and must know each one's type
 * where the statement alone does not say it (a table of VALUES compared with columns), so a
 * parameter may carry its PostgreSQL type (`int`, `text`), which SQLite ignores.
 */
export type Dialect = 'sqlite' | 'postgresql';

/** A client or a transaction client: Prisma sets the provider on both. */
export function dialectOf(db: object): Dialect {
  const provider = (db as { _activeProvider?: string })._activeProvider;
  if (provider === 'postgresql' || provider === 'postgres') return 'postgresql';
  if (provider === 'sqlite') return 'sqlite';
  throw new Error(`unsupported database provider ${String(provider)}`);
}

/**
 * Numbered parameters for one statement: `p()` (or `p('int')`) returns the next placeholder,
 * `?` on SQLite, `$n` (cast when a type is given) on PostgreSQL. Values are passed in the same
 * order, as today.
 */
export function placeholders(db: object): (pgType?: 'int' | 'text' | 'bigint' | 'timestamp') => string {
  if (dialectOf(db) === 'sqlite') return () => '?';
  let n = 0;
  return (pgType) => {
    n += 1;
    return pgType ? `$${n}::${pgType === 'timestamp' ? 'timestamp(3)' : pgType}` : `$${n}`;
  };
}

/**
 * The statement that lets the rest of the transaction write rows that name rows written later
 * (a turn and its user message name each other): SQLite checks foreign keys at commit after
 * `defer_foreign_keys`; PostgreSQL's constraints between them are DEFERRABLE (its migrations
 * say so) and deferred for the transaction by `SET CONSTRAINTS`.
 */
export function deferForeignKeysSql(db: object): string {
  return dialectOf(db) === 'sqlite' ? 'PRAGMA defer_foreign_keys = ON' : 'SET CONSTRAINTS ALL DEFERRED';
}

/**
 * The statement that locks a session's row until the transaction ends (its one parameter is the
 * session id), or null where the database serialises writers already: SQLite has one writer at a
 * time, and one server per file.
 */
export function lockSessionRowSql(db: object): string | null {
  return dialectOf(db) === 'sqlite' ? null : 'SELECT 1 FROM "Session" WHERE "sessionId" = $1 FOR UPDATE';
}
