/**
 * Issue 31, "prepared-statement reuse": the SQLite connection prepares each SQL text once and runs
 * it again with each query's own arguments (src/db/index.ts, reusingStatements). What must hold:
 * the statements are reused, every run sees its own arguments (never the first run's), and a run
 * that fails leaves the statement usable.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb, sqliteStatementsPrepared } from '../../src/db/index.js';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';

describe('SQLite statements', () => {
  it('are prepared once per SQL text and run with each query’s own arguments', async () => {
    const db = await openDb({ file: join(tempDir(), 'entity-memory.db') });
    onCleanup(() => db.$disconnect());
    const at = new Date();
    const start = sqliteStatementsPrepared();
    for (let i = 0; i < 3; i++) await db.session.create({ data: { sessionId: `s${i}`, title: `title ${i}`, createdAt: at } });
    // The connection's statements go through the cache (an adapter of another shape would be left as it is).
    expect(sqliteStatementsPrepared()).toBeGreaterThan(start);

    const before = sqliteStatementsPrepared();
    const titles: (string | null)[] = [];
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 3; i++) titles.push((await db.session.findUnique({ where: { sessionId: `s${i}` }, select: { title: true } }))?.title ?? null);
    }
    expect(titles).toEqual(Array.from({ length: 30 }, () => ['title 0', 'title 1', 'title 2']).flat());
    // 90 queries of one shape: one statement (a second for SQLite's own bookkeeping at most).
    expect(sqliteStatementsPrepared() - before).toBeLessThanOrEqual(2);
  });

  it('stay usable after a run that fails', async () => {
    const db = await openDb({ file: join(tempDir(), 'entity-memory.db') });
    onCleanup(() => db.$disconnect());
    const at = new Date();
    await db.session.create({ data: { sessionId: 'taken', createdAt: at } });
    const prepared = sqliteStatementsPrepared();
    // The same insert statement: refused for a duplicate key, then run again with new arguments.
    await expect(db.session.create({ data: { sessionId: 'taken', createdAt: at } })).rejects.toThrow(/Unique constraint/);
    await db.session.create({ data: { sessionId: 'free', createdAt: at } });
    expect(sqliteStatementsPrepared() - prepared).toBe(0);
    const ids = (await db.session.findMany({ select: { sessionId: true }, orderBy: { sessionId: 'asc' } })).map((s) => s.sessionId);
    expect(ids).toEqual(['free', 'taken']);
    // Inside transactions too (the transaction's statements go through the same connection).
    await db.$transaction(async (tx) => {
      await tx.session.update({ where: { sessionId: 'free' }, data: { title: 'in a transaction' } });
      await tx.session.update({ where: { sessionId: 'taken' }, data: { title: 'also' } });
    });
    expect((await db.session.findMany({ select: { title: true }, orderBy: { sessionId: 'asc' } })).map((s) => s.title)).toEqual(['in a transaction', 'also']);
  });
});
