/**
 * Opening the database: a PrismaClient over a driver adapter, migrated by
 * Prisma's schema engine before first use, or read-only for tools that run
 * beside a server (`entity-memory verify`). SQLite (a file) is the embedded
 * default; PostgreSQL (a `postgresql://` URL) is src/db/postgresql.ts.
 *
 * Only the data dir's lock holder (src/data-dir-lock.ts) may migrate: the schema
 * engine sets `locking_mode=EXCLUSIVE`, which fails with SQLITE_BUSY while any
 * other process has the database open. So the applied migrations are read
 * first, read-only, and the engine runs only when one is missing.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { Mutex } from 'async-mutex';
import Database from 'better-sqlite3';
import { PrismaClient } from '../generated/prisma/client.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { syncFileSync, syncFolderSync } from '../fs/durable.js';
import { readMigrations, SchemaEngineSession } from './schema-engine.js';
import { redactedUrl, type PostgresOptions } from './postgresql-url.js';

export { isPostgresUrl, redactedUrl } from './postgresql-url.js';

/**
 * The client the code is written against. On PostgreSQL it is Prisma's PostgreSQL client, made
 * from the same models (prisma/postgresql/schema.prisma is derived from prisma/schema.prisma):
 * the same methods and rows; the few statements written by hand ask src/db/dialect.ts.
 */
export type Db = PrismaClient;

/** The package's `prisma/` folder (SQLite's schema and migrations; PostgreSQL's in `postgresql/`). */
export const prismaDir = join(PACKAGE_ROOT, 'prisma');
/** PostgreSQL's migrations, in Prisma's standard layout. */
export const postgresMigrationsDir = join(prismaDir, 'postgresql', 'migrations');

/** A database that cannot be used as asked; the message is one line a person can act on. */
export class DatabaseError extends Error {}

/** Where the database is: a SQLite file (`file`) or a PostgreSQL URL (`url`). */
export type DatabaseTarget = { file: string } | { url: string };

export interface OpenDbOptions {
  /** Path of the SQLite file; its folder is created if missing (not when `readOnly`). */
  file: string;
  /** How long a connection waits for SQLite's lock before failing (busy_timeout). Default 10 000 ms. */
  busyTimeoutMs?: number;
  /**
   * Open read-only, never migrate: the file must exist and carry every migration of this code.
   * Default false (the caller must hold the data dir's lock).
   */
  readOnly?: boolean;
  /** Told before a migration that takes long (building the search index over the messages there). */
  onSlowMigration?: (note: string) => void;
}

const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/**
 * The migrations that build the search index over every message already stored, and how many it
 * indexes a second (bench/search: 250,000 in 8.6 s on SQLite, 109 s on PostgreSQL).
 */
const SEARCH_INDEX_MIGRATION = /_message_search(?:_role|_json)?$/;
const INDEXED_PER_SECOND = { sqlite: 25_000, postgresql: 2_300 };

/** The line said before building the search index over `messages` messages; none for a few. */
export function searchIndexNote(pending: readonly string[], messages: number, provider: 'sqlite' | 'postgresql'): string | undefined {
  if (messages < 10_000 || !pending.some((name) => SEARCH_INDEX_MIGRATION.test(name))) return undefined;
  const seconds = Math.max(1, Math.round(messages / INDEXED_PER_SECOND[provider]));
  return `building the full-text search index over the ${messages.toLocaleString('en-US')} messages stored (once, before the server answers): about ${seconds} s`;
}

/**
 * The adapter factory for `options.file`. `withReader`: its connections answer a read sent while
 * one of their transactions is open from a second, query-only connection (see `isolated`); only
 * for a database in WAL mode, which lets that connection read beside the writer.
 */
function sqliteFactory(options: OpenDbOptions, withReader = false): PrismaBetterSqlite3 {
  const timeout = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const connections = () =>
    counted(reusingStatements(
      new PrismaBetterSqlite3(
        options.readOnly ? { url: options.file, timeout, readonly: true, fileMustExist: true } : { url: options.file, timeout },
      ),
    ));
  return isolated(connections(), withReader && !options.readOnly ? connections() : undefined);
}

/** Prepared statements kept per SQLite connection, the least recently used dropped first. */
const STATEMENT_CACHE_SIZE = 512;

/** Statements better-sqlite3 prepared for the adapter since the process started (tests and benches). */
let statementsPrepared = 0;
export function sqliteStatementsPrepared(): number {
  return statementsPrepared;
}

/** The part of a better-sqlite3 statement the adapter uses. */
interface SqliteStatement {
  readonly reader: boolean;
  run(...args: unknown[]): unknown;
  columns(): unknown[];
  raw(on?: boolean): { all(...args: unknown[]): unknown[] };
}

/**
 * The adapter factory, its connections preparing each SQL text once. The adapter prepares every
 * statement it runs (`client.prepare(sql).bind(args)`): SQLite parses and plans the same few dozen
 * statements again for every query, 7 % of the server's main thread under load
 * (bench/sustained.ts). Here its connection's database hands it a statement kept by SQL text,
 * with the arguments passed at each run instead of bound to it once. Everything runs
 * synchronously in better-sqlite3, so a statement is never in use twice at a time. A connection
 * that is not shaped as expected (another adapter version) is left as it is.
 */
function reusingStatements<T extends object>(factory: T): T {
  return wrappingConnections(factory, (connection) => {
    const holder = connection as { client?: { prepare?: unknown } };
    const database = holder.client;
    if (!database || typeof database.prepare !== 'function') return connection;
    const prepareOnce = (database.prepare as (sql: string) => SqliteStatement).bind(database);
    const cache = new Map<string, SqliteStatement>();
    const prepare = (sql: string) => {
      let statement = cache.get(sql);
      if (statement) cache.delete(sql);
      else {
        statement = prepareOnce(sql);
        statementsPrepared += 1;
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, statement);
      const kept = statement;
      const bound = (args: unknown[]) => ({
        reader: kept.reader,
        run: () => kept.run(args),
        columns: () => kept.columns(),
        raw: () => ({ all: () => kept.raw(true).all(args) }),
      });
      // What the adapter asks of a prepared statement: `bind(args)` for its queries, `run()` for BEGIN.
      return { bind: bound, run: () => kept.run() };
    };
    holder.client = new Proxy(database, {
      get(target, key) {
        if (key === 'prepare') return prepare;
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? (value as Original).bind(target) : value;
      },
    });
    return connection;
  });
}

/** What a statement observer is told: the SQL text sent to SQLite. */
export interface SqlStatementEvent {
  sql: string;
}

const statementListeners = new Set<(event: SqlStatementEvent) => void>();

/**
 * Registers a listener called before every SQL statement any open database
 * runs (Prisma's queries, raw queries, inside transactions too); returns the
 * function that removes it. For tests and benchmarks counting statements. A
 * listener that throws is ignored.
 */
export function onSqlStatement(listener: (event: SqlStatementEvent) => void): () => void {
  statementListeners.add(listener);
  return () => statementListeners.delete(listener);
}

function announce(query: { sql: string }): void {
  if (statementListeners.size === 0) return;
  for (const listener of statementListeners) {
    try {
      listener({ sql: query.sql });
    } catch {
      // Observers never break a query.
    }
  }
}

/** A method as taken off an adapter object, bound to it; and what may stand in for one. */
type Original = (...args: unknown[]) => unknown;
type Replacement = (...args: never[]) => unknown;

/**
 * `target` with the named methods replaced: each replacement is made from the
 * original, bound to `target`. Every other member passes through (methods
 * bound), so the wrapped adapter objects behave as the originals.
 */
function overriding<T extends object>(target: T, methods: Record<string, (original: Original) => Replacement>): T {
  return new Proxy(target, {
    get(obj, key, receiver) {
      const value: unknown = Reflect.get(obj, key, receiver);
      if (typeof value !== 'function') return value;
      const bound = (value as Original).bind(obj);
      return typeof key === 'string' && Object.hasOwn(methods, key) ? methods[key]!(bound) : bound;
    },
  });
}

/** The adapter factory with `wrap` applied to every connection it opens. */
function wrappingConnections<T extends object>(factory: T, wrap: (connection: object) => object): T {
  return overriding(factory, { connect: (connect) => async (...args: unknown[]) => wrap((await connect(...args)) as object) });
}

/** The adapter factory, its connections and their transactions reporting each statement to `onSqlStatement`. */
function counted<T extends object>(factory: T): T {
  const announcing = (original: Original) => (query: { sql: string }, ...rest: unknown[]) => {
    announce(query);
    return original(query, ...rest);
  };
  const reporting = (queryable: object): object =>
    overriding(queryable, {
      queryRaw: announcing,
      executeRaw: announcing,
      startTransaction: (start) => async (...args: unknown[]) => reporting((await start(...args)) as object),
    });
  return wrappingConnections(factory, reporting);
}

/**
 * The adapter factory, its connections serialising their statements outside a
 * transaction with their transactions. better-sqlite3 is one connection, and
 * the adapter locks only transactions against each other: a statement sent
 * while an interactive transaction is open (between two of its awaits) runs
 * inside it, so a write that was answered as done vanished when that
 * transaction rolled back, and a read saw rows that were never committed.
 * Here such a statement waits until the transaction has committed or rolled
 * back. A transaction's own statements go through its own object and never
 * wait; code inside `$transaction(async (tx) => ...)` must use `tx`, never
 * the client (it would wait for its own transaction).
 *
 * With `readers` (a factory for the same file), a read does not wait: a SELECT sent while a
 * transaction is open runs on a second connection, query-only, which sees what was committed
 * before it (WAL: readers never wait for the writer). So a page, a subscription's event or a
 * hook's lookup is answered at once while a long write (an import, a turn's close) is open, as
 * PostgreSQL's pool answers it. Such a read sees the database as if it had run just before that
 * transaction, which it could have. Writes still wait, one at a time as SQLite allows.
 */
function isolated<T extends object>(factory: T, readers?: { connect(): Promise<unknown> }): T {
  return wrappingConnections(factory, (connection) => {
    const lock = new Mutex();
    const exclusive = (original: Original) => (...args: unknown[]) => lock.runExclusive(() => original(...args));
    let reader: Promise<Queryable | undefined> | undefined;
    // Opened at the first read that would wait; one that cannot be opened leaves reads waiting, as without it.
    const readerConnection = (): Promise<Queryable | undefined> =>
      (reader ??= (async () => {
        const opened = (await readers!.connect()) as Queryable;
        await opened.executeScript('PRAGMA query_only = ON');
        return opened;
      })().catch(() => undefined));
    return overriding(connection, {
      queryRaw: (original) => async (query: { sql: string }, ...rest: unknown[]) => {
        if (readers && lock.isLocked() && PLAIN_READ.test(query.sql)) {
          const opened = await readerConnection();
          if (opened) return opened.queryRaw(query, ...rest);
        }
        return lock.runExclusive(() => original(query, ...rest));
      },
      executeRaw: exclusive,
      executeScript: exclusive,
      startTransaction: (start) => async (...args: unknown[]) => {
        const release = await lock.acquire();
        try {
          return endsWith((await start(...args)) as object, release);
        } catch (error) {
          release();
          throw error;
        }
      },
      dispose: (dispose) => async () => {
        await dispose();
        const opened = reader;
        reader = undefined;
        await (await opened)?.dispose();
      },
    });
  });
}

/** What `isolated` asks of the reading connection. */
interface Queryable {
  queryRaw(query: unknown, ...rest: unknown[]): Promise<unknown>;
  executeScript(script: string): Promise<void>;
  dispose(): Promise<void>;
}

/** A statement that only reads: one SELECT (Prisma's reads, and ours by hand; a write with RETURNING starts otherwise). */
const PLAIN_READ = /^\s*SELECT\b[^;]*;?\s*$/i;

/** The transaction, calling `release` once after its commit or rollback (whether that succeeded or not). */
function endsWith(transaction: object, release: () => void): object {
  let released = false;
  const releasing = (end: Original) => async (...args: unknown[]) => {
    try {
      return await end(...args);
    } finally {
      if (!released) {
        released = true;
        release();
      }
    }
  };
  return overriding(transaction, { commit: releasing, rollback: releasing });
}

export interface MigrationStatus {
  /** Migrations of `prisma/migrations` the database lacks (or whose run failed), oldest first. */
  pending: string[];
  /** Migrations the database has that this code does not: a newer entity-memory wrote it. */
  unknown: string[];
}

/**
 * Compares the database's `_prisma_migrations` with `prisma/migrations`, read-only: safe while
 * another process has the database open. A missing file lacks every migration.
 * @throws DatabaseError when the file cannot be read (locked for longer than the busy timeout,
 *   not a database).
 */
export async function migrationStatus(options: Pick<OpenDbOptions, 'file' | 'busyTimeoutMs'>): Promise<MigrationStatus> {
  const expected = (await readMigrations(join(prismaDir, 'migrations'))).folders.map((folder) => folder.name);
  const applied = existsSync(options.file) ? readAppliedMigrations(options) : new Set<string>();
  return {
    pending: expected.filter((name) => !applied.has(name)),
    unknown: [...applied].filter((name) => !expected.includes(name)).sort(),
  };
}

function readAppliedMigrations(options: Pick<OpenDbOptions, 'file' | 'busyTimeoutMs'>): Set<string> {
  let sqlite: Database.Database | undefined;
  try {
    sqlite = new Database(options.file, { readonly: true, fileMustExist: true, timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
    const table = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get();
    if (!table) return new Set();
    const rows = sqlite
      .prepare('SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL')
      .all() as { name: string }[];
    return new Set(rows.map((row) => row.name));
  } catch (error) {
    throw databaseError(error, options.file, 'reading');
  } finally {
    sqlite?.close();
  }
}

/**
 * Applies every migration in `prisma/migrations` that the database lacks, the
 * way `prisma migrate deploy` does (same `_prisma_migrations` table). Starts the
 * schema engine only when one is missing. The caller holds the data dir's lock.
 *
 * A database that does not exist yet is built beside its place (`<file>.migrating`) without
 * waiting for the disk at each of the engine's commits, then synced once and renamed into place:
 * a crash leaves no database or a fully migrated one, never a half-migrated one, and a new data
 * dir answers sooner (8 migrations into a new file: 84-89 ms, against 242-418 ms with a sync at
 * each of the engine's commits, in one run at load 5-6).
 * @returns the names of the migrations applied now.
 * @throws DatabaseError when the database is newer than this code, is locked by another
 *   process for longer than the busy timeout, or a migration fails (an existing database is
 *   left as the engine left it; a new one is not created).
 */
export async function migrate(options: OpenDbOptions): Promise<string[]> {
  const status = await migrationStatus(options);
  if (status.unknown.length > 0) throw newerDatabase(options.file, status.unknown);
  if (status.pending.length === 0) return [];
  mkdirSync(dirname(options.file), { recursive: true });
  const building = existsSync(options.file) ? undefined : `${options.file}.migrating`;
  if (!building && options.onSlowMigration) {
    const note = searchIndexNote(status.pending, countSqliteMessages(options.file), 'sqlite');
    if (note) options.onSlowMigration(note);
  }
  // Left by a start that was killed while building (the data dir's lock holder is the only one building).
  if (building) removeDatabaseFiles(building);
  try {
    const factory = sqliteFactory({ ...options, file: building ?? options.file, readOnly: false });
    const engine = await SchemaEngineSession.open(building ? withoutSync(factory) : factory);
    let applied: string[];
    try {
      applied = await engine.applyMigrations(await readMigrations(join(prismaDir, 'migrations')));
    } finally {
      await engine.close();
    }
    if (building) {
      // Private to the user, as the rest of the data dir (src/private-files.ts); SQLite gives its WAL and shm files the same mode.
      chmodSync(building, 0o600);
      syncFileSync(building);
      renameSync(building, options.file);
      syncFolderSync(dirname(options.file));
    }
    return applied;
  } catch (error) {
    if (building) removeDatabaseFiles(building);
    throw databaseError(error, options.file, 'migrating');
  }
}

/** The messages of an existing database file (0 before its tables exist), read-only. */
function countSqliteMessages(file: string): number {
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const table = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'Message'").get();
    return table ? Number((sqlite.prepare('SELECT count(*) AS n FROM "Message"').get() as { n: number }).n) : 0;
  } finally {
    sqlite.close();
  }
}

/** The factory, its connections committing without syncing: for a database that is not in its place yet. */
function withoutSync(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const connection = await factory.connect();
      await connection.executeScript('PRAGMA synchronous = OFF');
      return connection;
    },
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}

/** A SQLite file and the journal, WAL and shared-memory files beside it. */
function removeDatabaseFiles(file: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

/**
 * Opens the database. Read-write (the default): migrated first, in WAL mode with full fsync so
 * an acknowledged write survives a crash. Read-only: checked, never written.
 * @throws DatabaseError as `migrate` does; read-only, also when the file is missing or lacks a
 *   migration of this code.
 */
export async function openDb(options: OpenDbOptions | PostgresOptions): Promise<Db> {
  if ('url' in options) return openPostgres(options);
  assertSqliteDriver();
  if (options.readOnly) {
    if (!existsSync(options.file)) throw new DatabaseError(`no entity-memory database at ${options.file}`);
    const status = await migrationStatus(options);
    if (status.unknown.length > 0) throw newerDatabase(options.file, status.unknown);
    if (status.pending.length > 0) {
      throw new DatabaseError(
        `the database at ${options.file} lacks ${status.pending.length} migration(s) of this entity-memory (from ${status.pending[0]}); start \`entity-memory serve\` or run \`entity-memory backfill\` on it once to apply them`,
      );
    }
    return new PrismaClient({ adapter: sqliteFactory(options) });
  }
  await migrate(options);
  const db = new PrismaClient({ adapter: sqliteFactory(options, true) });
  // WAL lets readers (the API, `verify`) run while the mirror worker writes.
  await db.$queryRawUnsafe('PRAGMA journal_mode = WAL');
  await db.$executeRawUnsafe('PRAGMA synchronous = FULL');
  await db.$executeRawUnsafe('PRAGMA foreign_keys = ON');
  return db;
}

let sqliteDriverLoads = false;

/**
 * Why better-sqlite3 cannot load its native module (which its install script fetches or builds),
 * or undefined when it can. An install that did not run that script (npm 12 runs no unapproved
 * install script) or a build that failed leaves the package without it, and the schema engine
 * then reported only "External error id#0". `nativeBinding`: the module's path, as
 * better-sqlite3 takes it (default: where its install puts it).
 */
export function sqliteDriverError(nativeBinding?: string): DatabaseError | undefined {
  try {
    new Database(':memory:', nativeBinding === undefined ? {} : { nativeBinding }).close();
    return undefined;
  } catch (error) {
    return new DatabaseError(
      `SQLite's driver (better-sqlite3) cannot load its native module (${firstLine(error).replace(/\s*Tried:$/, '')}): its install script did not run or failed. ` +
        'Run `npm rebuild better-sqlite3` where entity-memory is installed (`npm install -g --allow-scripts=better-sqlite3 ...` for a global install), then start again.',
    );
  }
}

function assertSqliteDriver(): void {
  if (sqliteDriverLoads) return;
  const error = sqliteDriverError();
  if (error) throw error;
  sqliteDriverLoads = true;
}

/** The same as `openDb` on SQLite: migrated under the advisory lock unless `readOnly`, which only checks. */
async function openPostgres(options: PostgresOptions): Promise<Db> {
  // Loaded here, not with this module: a server on SQLite (the embedded default) starts without it.
  const { appliedPostgresMigrations, migratePostgres, newPostgresClient, postgresFactory } = await import('./postgresql.js');
  const where = redactedUrl(options.url);
  const expected = (await readMigrations(postgresMigrationsDir)).folders.map((folder) => folder.name);
  let applied: Set<string>;
  try {
    applied = await appliedPostgresMigrations(options.url);
  } catch (error) {
    throw new DatabaseError(`cannot reach the PostgreSQL database at ${where}: ${firstLine(error)}`);
  }
  const unknown = [...applied].filter((name) => !expected.includes(name)).sort();
  if (unknown.length > 0) throw newerDatabase(where, unknown);
  const pending = expected.filter((name) => !applied.has(name));
  if (pending.length > 0) {
    if (options.readOnly) {
      throw new DatabaseError(
        `the database at ${where} lacks ${pending.length} migration(s) of this entity-memory (from ${pending[0]}); start \`entity-memory serve\` on it once to apply them`,
      );
    }
    try {
      await migratePostgres(options.url, postgresMigrationsDir, (messages) => {
        const note = searchIndexNote(pending, messages, 'postgresql');
        if (note) options.onSlowMigration?.(note);
      });
    } catch (error) {
      throw new DatabaseError(`migrating the database at ${where} failed: ${firstLine(error)}`);
    }
  }
  return newPostgresClient(counted(postgresFactory(options))) as unknown as Db;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? '';
}

/** prisma/postgresql/schema.prisma (derived from prisma/schema.prisma by scripts/prisma-schemas.mjs). */
export function readPostgresSchemaFile(): { path: string; content: string } {
  const path = join(prismaDir, 'postgresql', 'schema.prisma');
  return { path, content: readFileSync(path, 'utf8') };
}

export function readSchemaFile(): { path: string; content: string } {
  const path = join(prismaDir, 'schema.prisma');
  return { path, content: readFileSync(path, 'utf8') };
}

function newerDatabase(file: string, unknown: string[]): DatabaseError {
  return new DatabaseError(
    `the database at ${file} was migrated by a newer entity-memory (${unknown.at(-1)}); run that version, or a copy of the data dir`,
  );
}

/**
 * One line for a failure of SQLite or the schema engine. The engine reports SQLITE_BUSY as
 * `unknown variant "SocketTimeout"` followed by a Rust backtrace.
 */
function databaseError(error: unknown, file: string, doing: 'reading' | 'migrating'): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const text = error instanceof Error ? `${error.message} ${String((error as { code?: unknown }).code ?? '')}` : String(error);
  if (/SocketTimeout|SQLITE_BUSY|database is locked/.test(text)) {
    return new DatabaseError(
      `the database at ${file} is locked by another process (${doing === 'migrating' ? 'migrating needs it alone' : 'still locked after the busy timeout'}): stop other programs using it (another entity-memory, a sqlite3 shell) and try again`,
    );
  }
  const firstLine = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.trim() ?? '';
  return new DatabaseError(`${doing} the database at ${file} failed: ${firstLine}`);
}
