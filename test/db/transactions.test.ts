/**
 * One SQLite connection shared by every request: a statement sent outside a
 * transaction while an interactive transaction is open must not run inside
 * it (src/db/index.ts, isolated). Otherwise a write answered as done vanishes
 * when that transaction rolls back, and reads see rows never committed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/index.js';
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
});
