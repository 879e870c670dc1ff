import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, openDb, prismaDir, readSchemaFile, sqliteDriverError } from '../../src/db/index.js';
import { readMigrations, SchemaEngineSession } from '../../src/db/schema-engine.js';
import { tempDir } from '../helpers/temp.js';

/**
 * An in-memory database with every migration before the one whose folder ends
 * in `suffix` (which must not be the first), foreign keys off for rows written
 * as older code left them; `next` is that migration's SQL.
 */
function migratedUpTo(suffix: string): { db: Database.Database; next: string } {
  const dir = join(prismaDir, 'migrations');
  const folders = readdirSync(dir).filter((name) => /^\d{14}_/.test(name)).sort();
  const at = folders.findIndex((name) => name.endsWith(suffix));
  expect(at).toBeGreaterThan(0);
  const sql = (name: string) => readFileSync(join(dir, name, 'migration.sql'), 'utf8');
  const db = new Database(':memory:');
  for (const name of folders.slice(0, at)) db.exec(sql(name));
  db.pragma('foreign_keys = OFF');
  return { db, next: sql(folders[at]!) };
}

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

  it("names a SQLite driver whose native module is missing or broken, and what to run, instead of the engine's \"External error\"", () => {
    expect(sqliteDriverError()).toBeUndefined();
    const dir = tempDir();
    const broken = join(dir, 'better_sqlite3.node');
    writeFileSync(broken, 'not a shared object');
    for (const binding of [broken, join(dir, 'missing', 'better_sqlite3.node')]) {
      const error = sqliteDriverError(binding);
      expect(error?.message).toMatch(/^SQLite's driver \(better-sqlite3\) cannot load its native module \(.+\): its install script did not run or failed\. Run `npm rebuild better-sqlite3` where entity-memory is installed/);
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

  it('builds a new database beside its place and renames it in; a leftover from a killed start is replaced, and nothing else is left', async () => {
    const dir = join(tempDir(), 'db');
    const file = join(dir, 'entity-memory.db');
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${file}.migrating`, 'half a database from a killed start');
    writeFileSync(`${file}.migrating-journal`, 'its journal');
    const applied = await migrate({ file });
    expect(applied.length).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual(['entity-memory.db']);
    const sqlite = new Database(file, { readonly: true, fileMustExist: true });
    try {
      expect(sqlite.prepare('SELECT count(*) AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL').get()).toEqual({ n: applied.length });
      expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      sqlite.close();
    }
  });

  it('keeps pending outbox work across the MirrorJob -> OutboxJob rename', () => {
    const { db, next } = migratedUpTo('_outbox_job');
    try {
      db.prepare(`INSERT INTO "MirrorJob" ("id", "sessionId", "turnId", "kind", "attempts", "lastError") VALUES (7, 's', 't', 'PROJECT', 2, 'index.lock')`).run();
      db.exec(next);
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

  it('fills Turn.messagesThrough for turns written before it was kept, retries and forks included', () => {
    const { db, next } = migratedUpTo('_turn_messages_through');
    try {
      db.prepare(`INSERT INTO "Session" ("sessionId") VALUES ('s')`).run();
      const message = db.prepare(
        `INSERT INTO "Message" ("id", "sessionId", "messageId", "seq", "role", "content", "createdAt", "turnId") VALUES (?, 's', ?, ?, 'USER', '', 0, ?)`,
      );
      const turn = db.prepare(`INSERT INTO "Turn" ("id", "sessionId", "number", "branch", "parentTurnId", "userMessageId") VALUES (?, 's', ?, ?, ?, ?)`);
      // main: t1 (u1 a1), t2 (u2 a2 x2); retry-r answers u2 from t1: t2r (a2r), t3r (u3 a3); fork-f from t1: tf (uf).
      const rows: [string, string][] = [['u1', 't1'], ['a1', 't1'], ['u2', 't2'], ['a2', 't2'], ['x2', 't2'], ['a2r', 't2r'], ['u3', 't3r'], ['a3', 't3r'], ['uf', 'tf']];
      for (const [i, [id, turnId]] of rows.entries()) message.run(id, id, i + 1, turnId);
      turn.run('t1', 1, 'main', null, 'u1');
      turn.run('t2', 2, 'main', 't1', 'u2');
      turn.run('t2r', 2, 'retry-r', 't1', 'u2');
      turn.run('t3r', 3, 'retry-r', 't2r', 'u3');
      turn.run('tf', 2, 'fork-f', 't1', 'uf');
      db.exec(next);
      expect(db.prepare(`SELECT "id", "messagesThrough" FROM "Turn" ORDER BY "id"`).all()).toEqual([
        { id: 't1', messagesThrough: 2 },
        { id: 't2', messagesThrough: 5 },
        { id: 't2r', messagesThrough: 4 },
        { id: 't3r', messagesThrough: 6 },
        { id: 'tf', messagesThrough: 3 },
      ]);
      // The walk's index is gone again.
      expect(db.prepare(`SELECT "name" FROM sqlite_master WHERE "name" LIKE '%backfill%'`).all()).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('the enum columns hold their values as the same text the String columns held, both ways', async () => {
    const file = join(tempDir(), 'db', 'entity-memory.db');
    await migrate({ file });
    // Rows as a server before the Prisma enums wrote them: plain text.
    const raw = new Database(file);
    try {
      raw.prepare(`INSERT INTO "Project" ("projectId", "name", "workdir", "status") VALUES ('p', 'P', '/nowhere', 'PAUSED')`).run();
      raw.prepare(`INSERT INTO "Session" ("sessionId", "projectId") VALUES ('s', 'p')`).run();
      raw.prepare(`INSERT INTO "Branch" ("sessionId", "name", "kind") VALUES ('s', 'retry-x', 'RETRY')`).run();
      raw
        .prepare(`INSERT INTO "Message" ("id", "sessionId", "messageId", "seq", "role", "content", "createdAt") VALUES ('m1', 's', 'm1', 1, 'SYSTEM', '', 0)`)
        .run();
      raw
        .prepare(
          `INSERT INTO "Turn" ("id", "sessionId", "number", "branch", "userMessageId", "mirrorState", "projectResult") VALUES ('t1', 's', 1, 'main', 'm1', 'FAILED', 'SKIPPED_BUSY')`,
        )
        .run();
    } finally {
      raw.close();
    }
    const db = await openDb({ file });
    try {
      expect(await db.project.findUniqueOrThrow({ where: { projectId: 'p' }, select: { status: true } })).toEqual({ status: 'PAUSED' });
      expect(await db.branch.findMany({ select: { kind: true } })).toEqual([{ kind: 'RETRY' }]);
      expect(await db.message.findMany({ select: { role: true } })).toEqual([{ role: 'SYSTEM' }]);
      expect(await db.turn.findMany({ select: { mirrorState: true, projectResult: true } })).toEqual([
        { mirrorState: 'FAILED', projectResult: 'SKIPPED_BUSY' },
      ]);
      await db.outboxJob.create({ data: { sessionId: 's', turnId: 't1', kind: 'PROJECT' } });
      await db.projectRestore.create({
        data: { id: 'r', sessionId: 's', projectId: 'p', toTurn: 0, branch: 'main', files: '[]', result: 'SNAPSHOT' },
      });
      expect(await db.$queryRawUnsafe('SELECT "kind" FROM "OutboxJob"')).toEqual([{ kind: 'PROJECT' }]);
      expect(await db.$queryRawUnsafe('SELECT "result" FROM "ProjectRestore"')).toEqual([{ result: 'SNAPSHOT' }]);
    } finally {
      await db.$disconnect();
    }
  });
});
