import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
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

  it('keeps pending outbox work across the MirrorJob -> OutboxJob rename', () => {
    const dir = join(prismaDir, 'migrations');
    const folders = readdirSync(dir).filter((name) => /^\d{14}_/.test(name)).sort();
    const rename = folders.findIndex((name) => name.endsWith('_outbox_job'));
    expect(rename).toBeGreaterThan(0);
    const db = new Database(':memory:');
    try {
      for (const name of folders.slice(0, rename)) db.exec(readFileSync(join(dir, name, 'migration.sql'), 'utf8'));
      db.pragma('foreign_keys = OFF');
      db.prepare(`INSERT INTO "MirrorJob" ("id", "sessionId", "turnId", "kind", "attempts", "lastError") VALUES (7, 's', 't', 'PROJECT', 2, 'index.lock')`).run();
      db.exec(readFileSync(join(dir, folders[rename]!, 'migration.sql'), 'utf8'));
      expect(db.prepare('SELECT "id", "sessionId", "turnId", "kind", "attempts", "lastError" FROM "OutboxJob"').all()).toEqual([
        { id: 7, sessionId: 's', turnId: 't', kind: 'PROJECT', attempts: 2, lastError: 'index.lock' },
      ]);
      // Ids go on from where they were, so new work still sorts after the old.
      db.prepare(`INSERT INTO "OutboxJob" ("sessionId", "turnId", "kind") VALUES ('s', 'u', 'SESSION')`).run();
      expect(db.prepare(`SELECT max("id") AS id FROM "OutboxJob"`).get()).toEqual({ id: 8 });
    } finally {
      db.close();
    }
  });
});
