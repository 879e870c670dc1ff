/**
 * One SQLite connection shared by every request: a statement sent outside a
 * transaction while an interactive transaction is open must not run inside
 * it (src/db/index.ts, isolated). Otherwise a write answered as done vanishes
 * when that transaction rolls back, and reads see rows never committed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/index.js';
import { freshDatabase, onPostgres } from '../helpers/database.js';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';

describe('statements outside a transaction', () => {
  it('neither join an open transaction nor see its writes, and outlive its rollback', async () => {
    const db = await openDb({ file: join(tempDir(), 'entity-memory.db') });
    onCleanup(() => db.$disconnect());

    // The transaction writes, then yields to the event loop several times before failing, while
    // reads and then a write are sent outside it.
    const rolledBack = db
      .$transaction(async (tx) => {
        await tx.session.create({ data: { sessionId: 'never-committed', createdAt: new Date() } });
        for (let i = 0; i < 20; i++) await tx.session.findMany({ take: 1 });
        throw new Error('rolled back on purpose');
      })
      .catch((error: Error) => error.message);
    const seen = new Set<string>();
    const outside = (async () => {
      for (let i = 0; i < 20; i++) for (const { sessionId } of await db.session.findMany({ select: { sessionId: true } })) seen.add(sessionId);
      await db.session.create({ data: { sessionId: 'written-outside', createdAt: new Date() } });
    })();

    expect(await rolledBack).toBe('rolled back on purpose');
    await outside;
    expect([...seen]).toEqual([]);
    const after = await db.session.findMany({ select: { sessionId: true } });
    expect(after.map((s) => s.sessionId)).toEqual(['written-outside']);
  });

  it('a batch transaction and statements around it all land', async () => {
    const db = await openDb({ file: join(tempDir(), 'entity-memory.db') });
    onCleanup(() => db.$disconnect());
    const at = new Date();
    await Promise.all([
      db.session.create({ data: { sessionId: 'a', createdAt: at } }),
      db.$transaction([db.session.create({ data: { sessionId: 'b', createdAt: at } }), db.session.create({ data: { sessionId: 'c', createdAt: at } })]),
      db.session.create({ data: { sessionId: 'd', createdAt: at } }),
    ]);
    expect((await db.session.findMany({ select: { sessionId: true }, orderBy: { sessionId: 'asc' } })).map((s) => s.sessionId)).toEqual(['a', 'b', 'c', 'd']);
  });

  // Issue 31: "reads during a long write transaction answered at once". On SQLite a second,
  // query-only connection answers them (src/db/index.ts, isolated); on PostgreSQL the pool does.
  it('a read sent while a write transaction is open is answered at once, from what was committed; a write waits', async () => {
    const db = await databaseOfThisPass();
    const at = new Date();
    await db.session.create({ data: { sessionId: 'committed', createdAt: at } });

    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    const transaction = db
      .$transaction(
        async (tx) => {
          await tx.session.create({ data: { sessionId: 'uncommitted', createdAt: at } });
          opened();
          await held;
        },
        { timeout: 120_000 },
      )
      .then(() => order.push('commit'));
    await isOpen;
    // Only a guard against a deadlock (the reads below would wait for this release): if it is what
    // ends the transaction, the reads came after the commit and the order below says so.
    const guard = setTimeout(release, 20_000);
    onCleanup(() => clearTimeout(guard));

    const rows = await db.session.findMany({ select: { sessionId: true, title: true }, orderBy: { sessionId: 'asc' } });
    order.push('read');
    const [counted] = await db.$queryRaw<{ n: bigint | number }[]>`SELECT count(*) AS n FROM "Session"`;
    order.push('raw read');
    const write = db.session.update({ where: { sessionId: 'committed' }, data: { title: 'written beside' } }).then(() => order.push('write'));
    // Let the write reach the database (or its lock) before the transaction ends.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    const beforeCommit = [...order];
    release();
    await Promise.all([transaction, write]);

    expect(order.filter((step) => step !== 'write')).toEqual(['read', 'raw read', 'commit']);
    // SQLite writes one transaction at a time: the write waits for the commit. (PostgreSQL's row
    // locks let a write of another row go ahead.)
    if (!onPostgres) expect(beforeCommit).toEqual(['read', 'raw read']);
    expect(rows).toEqual([{ sessionId: 'committed', title: null }]);
    expect(Number(counted?.n)).toBe(1);
    const after = await db.session.findMany({ select: { sessionId: true, title: true }, orderBy: { sessionId: 'asc' } });
    expect(after).toEqual([
      { sessionId: 'committed', title: 'written beside' },
      { sessionId: 'uncommitted', title: null },
    ]);
  });
});

/** The database of the pass: a SQLite file, or a fresh PostgreSQL database. */
async function databaseOfThisPass(): Promise<Db> {
  const db = await openDb(onPostgres ? { url: (await freshDatabase()).url } : { file: join(tempDir(), 'entity-memory.db') });
  onCleanup(() => db.$disconnect());
  return db;
}
