/**
 * Whether the search index holds every message: what `verify` reports. SQLite's index is a table
 * of its own, kept by three triggers (a table rebuilt by a later migration would lose them);
 * PostgreSQL's is a generated column, so it only has to be there.
 */
import type { Db } from '../../db/index.js';
import { dialectOf } from '../../db/dialect.js';

export interface SearchIndexState {
  messages: number;
  indexed: number;
  /** Every message indexed, and the index kept up to date by the database. */
  ok: boolean;
  problem: string | null;
}

export async function checkSearchIndex(db: Db): Promise<SearchIndexState> {
  const count = async (sql: string) => Number((await db.$queryRawUnsafe<{ n: number | bigint }[]>(sql))[0]?.n ?? 0);
  const messages = await count('SELECT count(*) AS n FROM "Message"');
  if (dialectOf(db) === 'sqlite') {
    const indexed = await count('SELECT count(*) AS n FROM "MessageSearch"');
    const triggers = await count(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name IN ('Message_search_insert', 'Message_search_update', 'Message_search_delete')`);
    const problem =
      triggers !== 3 ? `${3 - triggers} of the 3 triggers that keep it are missing` : indexed !== messages ? `it holds ${indexed} entries for ${messages} messages` : null;
    return { messages, indexed, ok: problem === null, problem };
  }
  const column = await count(`SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'Message' AND column_name = 'searchVector'`);
  const problem = column === 1 ? null : 'the column "Message"."searchVector" is missing';
  return { messages, indexed: column === 1 ? messages : 0, ok: problem === null, problem };
}
