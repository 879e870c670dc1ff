/**
 * Prisma's own schema engine, compiled to WebAssembly and shipped on npm.
 *
 * The native engine binary is downloaded by Prisma's CLI at install time, which
 * fails on machines that reach only the package registries; the WASM build does
 * the same work (diff, apply migrations, `_prisma_migrations` bookkeeping) over a
 * driver adapter. We instantiate it ourselves rather than importing its entry
 * module, which imports a `.wasm` file and needs `--experimental-wasm-modules`
 * on Node 20.
 */
import { readFile, readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type * as EngineModule from '@prisma/schema-engine-wasm';

type Engine = EngineModule.SchemaEngine;

const require = createRequire(import.meta.url);

/** The slice of the WebAssembly global we use (Node has it; @types/node does not declare it). */
const wasmRuntime = (
  globalThis as unknown as {
    WebAssembly: {
      instantiate(
        bytes: Uint8Array,
        imports: Record<string, unknown>,
      ): Promise<{ instance: { exports: Record<string, unknown> } }>;
    };
  }
).WebAssembly;

let loaded: Promise<typeof EngineModule> | undefined;

async function loadEngineModule(): Promise<typeof EngineModule> {
  const entry = require.resolve('@prisma/schema-engine-wasm');
  const glue = (await import(
    new URL(`file://${join(dirname(entry), 'schema_engine_bg.js')}`).href
  )) as typeof EngineModule & {
    __wbg_set_wasm(exports: Record<string, unknown>): void;
  };
  const bytes = await readFile(join(dirname(entry), 'schema_engine_bg.wasm'));
  const { instance } = await wasmRuntime.instantiate(bytes, { './schema_engine_bg.js': glue });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return glue;
}

/**
 * Tables the schema does not describe, which diffs leave alone: SQLite's full-text index of
 * messages (an FTS5 virtual table and the tables FTS5 keeps for it), made and kept by its
 * migration's SQL (prisma/migrations/*_message_search), not by Prisma.
 */
export const SEARCH_INDEX_TABLES = ['MessageSearch', 'MessageSearch_config', 'MessageSearch_data', 'MessageSearch_docsize', 'MessageSearch_idx'];

const noFilters = { externalTables: [], externalEnums: [] };
const diffFilters = { externalTables: SEARCH_INDEX_TABLES, externalEnums: [] };

export interface MigrationFolder {
  name: string;
  sql: string;
}

export interface Migrations {
  baseDir: string;
  lockfile: string | undefined;
  folders: MigrationFolder[];
}

/** Reads Prisma's standard layout: `<dir>/<timestamp>_<name>/migration.sql` + `migration_lock.toml`. */
export async function readMigrations(baseDir: string): Promise<Migrations> {
  let names: string[] = [];
  try {
    names = (await readdir(baseDir, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const folders = await Promise.all(
    names.map(async (name) => ({ name, sql: await readFile(join(baseDir, name, 'migration.sql'), 'utf8') })),
  );
  const lockfile = await readFile(join(baseDir, 'migration_lock.toml'), 'utf8').catch(() => undefined);
  return { baseDir, lockfile, folders };
}

function migrationList(migrations: Migrations): EngineModule.MigrationList {
  return {
    baseDir: migrations.baseDir,
    lockfile:
      migrations.lockfile === undefined
        ? { path: 'migration_lock.toml', content: null }
        : { path: 'migration_lock.toml', content: migrations.lockfile },
    shadowDbInitScript: '',
    migrationDirectories: migrations.folders.map((folder) => ({
      path: folder.name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: folder.sql } },
    })),
  } as EngineModule.MigrationList;
}

/**
 * The WASM engine replays whole migration files on the shadow database through
 * `executeRaw`, which better-sqlite3 refuses for more than one statement; send
 * parameterless SQL through `executeScript` there instead.
 */
function withScriptExecuteRaw(connection: SqlDriverAdapter): SqlDriverAdapter {
  const executeRaw = connection.executeRaw.bind(connection);
  connection.executeRaw = async (query) => {
    if (query.args.length > 0) return executeRaw(query);
    await connection.executeScript(query.sql);
    return 0;
  };
  return connection;
}

export class SchemaEngineSession {
  private constructor(
    private readonly engine: Engine,
    private readonly connections: SqlDriverAdapter[],
  ) {}

  /**
   * Opens the engine over a driver adapter factory.
   * @param logs receives the engine's log lines; defaults to dropping them.
   */
  static async open(
    adapterFactory: SqlMigrationAwareDriverAdapterFactory,
    datamodel?: { path: string; content: string },
    logs: (line: string) => void = () => {},
  ): Promise<SchemaEngineSession> {
    loaded ??= loadEngineModule();
    const module = await loaded;
    // The engine never closes the connections it opens; track them so close() can.
    const connections: SqlDriverAdapter[] = [];
    const tracked: SqlMigrationAwareDriverAdapterFactory = {
      provider: adapterFactory.provider,
      adapterName: adapterFactory.adapterName,
      connect: async () => {
        const connection = await adapterFactory.connect();
        connections.push(connection);
        return connection;
      },
      connectToShadowDb: async () => {
        const connection = withScriptExecuteRaw(await adapterFactory.connectToShadowDb());
        connections.push(connection);
        return connection;
      },
    };
    const engine = await module.SchemaEngine.new(
      { datamodels: datamodel ? [[datamodel.path, datamodel.content]] : undefined },
      logs,
      bindMigrationAwareSqlAdapterFactory(tracked),
    );
    return new SchemaEngineSession(engine, connections);
  }

  /** Applies the migrations not yet recorded in `_prisma_migrations`; returns their names. */
  async applyMigrations(migrations: Migrations): Promise<string[]> {
    const output = await this.engine.applyMigrations({ migrationsList: migrationList(migrations), filters: noFilters });
    return output.appliedMigrationNames;
  }

  /** The SQL that takes a database from the state after `migrations` to `schema` (empty when none). */
  async diffFromMigrations(migrations: Migrations, schema: { path: string; content: string }): Promise<string> {
    const from: EngineModule.DiffTarget =
      migrations.folders.length === 0 ? { tag: 'empty' } : ({ tag: 'migrations', ...migrationList(migrations) } as EngineModule.DiffTarget);
    const result = await this.engine.diff({
      from,
      to: { tag: 'schemaDatamodel', files: [schema] } as EngineModule.DiffTarget,
      script: true,
      exitCode: null,
      filters: diffFilters,
    });
    return result.stdout ?? '';
  }

  /** The SQL that takes a database from schema `from` (null: empty) to `to`; no database is read. */
  async diffSchemas(from: { path: string; content: string } | null, to: { path: string; content: string }): Promise<string> {
    const result = await this.engine.diff({
      from: from === null ? { tag: 'empty' } : ({ tag: 'schemaDatamodel', files: [from] } as EngineModule.DiffTarget),
      to: { tag: 'schemaDatamodel', files: [to] } as EngineModule.DiffTarget,
      script: true,
      exitCode: null,
      filters: noFilters,
    });
    return result.stdout ?? '';
  }

  async close(): Promise<void> {
    this.engine.free();
    await Promise.all(this.connections.splice(0).map((connection) => connection.dispose()));
  }
}
