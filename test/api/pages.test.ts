import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrate, openDb, type Db } from '../../src/db/index.js';
import { BadUserInputError } from '../../src/errors.js';
import { listSessions } from '../../src/services/sessions/read-session.js';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';

async function tempDb(): Promise<Db> {
  const file = join(tempDir(), 'entity-memory.db');
  await migrate({ file });
  const db = await openDb({ file });
  onCleanup(() => db.$disconnect());
  return db;
}

describe('newest-first pages', () => {
  it('page through rows created in the same millisecond by their key, and a cursor outlives the row it names', async () => {
    const db = await tempDb();
    const older = new Date('2026-01-01T00:00:00.000Z');
    const same = new Date('2026-01-02T00:00:00.000Z');
    await db.session.create({ data: { sessionId: 'old', createdAt: older } });
    for (const sessionId of ['a', 'b', 'c', 'd']) await db.session.create({ data: { sessionId, createdAt: same } });

    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await listSessions(db, { first: 2, after });
      seen.push(...page.edges.map((e) => e.node.sessionId));
      expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
      expect(await page.totalCount()).toBe(5);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen).toEqual(['d', 'c', 'b', 'a', 'old']);

    const first = await listSessions(db, { first: 2 });
    await db.session.delete({ where: { sessionId: 'c' } });
    const next = await listSessions(db, { first: 2, after: first.pageInfo.endCursor });
    expect(next.edges.map((e) => e.node.sessionId)).toEqual(['b', 'a']);
  });

  it('refuses a cursor of another list, or not one of ours, with BadUserInputError on after', async () => {
    const db = await tempDb();
    const seqCursor = Buffer.from('seq:3').toString('base64url');
    for (const after of [seqCursor, 'garbage', Buffer.from('session:|x').toString('base64url')]) {
      await expect(listSessions(db, { after })).rejects.toSatisfy(
        (error: unknown) => error instanceof BadUserInputError && error.details?.field === 'after',
      );
    }
  });
});
