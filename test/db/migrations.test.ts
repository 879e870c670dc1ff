import { join } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, openDb, prismaDir, readSchemaFile } from '../../src/db/index.js';
import { readMigrations, SchemaEngineSession } from '../../src/db/schema-engine.js';
import { tempDir } from '../helpers/temp.js';

describe('migrations', () => {
  it('prisma/migrations produce exactly prisma/schema.prisma (run `npm run db:migration -- <name>` when this fails)', async () => {
    const engine = await SchemaEngineSession.open(new PrismaBetterSqlite3({ url: ':memory:' }));
    try {
      const sql = await engine.diffFromMigrations(await readMigrations(join(prismaDir, 'migrations')), readSchemaFile());
      expect(sql.replace(/^--.*$/gm, '').trim()).toBe('');
    } finally {
      await engine.close();
    }
  });

  it('applies once, records them as prisma migrate deploy does, and opens in WAL mode', async () => {
    const file = join(tempDir(), 'db', 'entity-memory.db');
    const first = await migrate({ file });
    expect(first.length).toBeGreaterThan(0);
    expect(await migrate({ file })).toEqual([]);
    const db = await openDb({ file });
    try {
      const applied = await db.$queryRawUnsafe<{ migration_name: string }[]>(
        'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name',
      );
      expect(applied.map((row) => row.migration_name)).toEqual(first);
      const [mode] = await db.$queryRawUnsafe<{ journal_mode: string }[]>('PRAGMA journal_mode');
      expect(mode?.journal_mode).toBe('wal');
    } finally {
      await db.$disconnect();
    }
  });
});
