/**
 * Upgrading a data dir that already holds many messages builds the search index over them once,
 * before the server answers (its migration): the server says so first, with how many and about
 * how long, instead of a silent pause; the messages are findable afterwards.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { searchIndexNote } from '../../src/db/index.js';
import { capturedLogger } from '../helpers/logger.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

describe('building the search index over the messages already stored', () => {
  it('says how many messages and about how long before the migration runs, and finds them after', async () => {
    // SQLite in both passes: the data dir's file is taken back to before the index's migration.
    const dataDir = tempDir('em-index-build-');
    const first = await startTestServer({ dataDir, databaseUrl: undefined });
    expect((await first.raw('mutation { createSession(input: { sessionId: "old" }) { sessionId } }')).errors).toBeUndefined();
    const db = first.server.app.deps.db;
    const total = 12_000;
    const rows = Array.from({ length: total }, (_, i) => ({
      id: `old-${i}`,
      sessionId: 'old',
      messageId: `m${i}`,
      seq: i + 1,
      role: 'USER' as const,
      content: i === 7 ? 'the zanzibar invoice' : `message ${i}`,
      createdAt: new Date(Date.UTC(2026, 0, 1) + i * 1000),
    }));
    for (let i = 0; i < rows.length; i += 1000) await db.message.createMany({ data: rows.slice(i, i + 1000) });
    await db.session.update({ where: { sessionId: 'old' }, data: { nextSeq: total + 1 } });
    await first.server.stop();

    const sqlite = new Database(join(dataDir, 'entity-memory.db'));
    for (const trigger of ['Message_search_insert', 'Message_search_update', 'Message_search_delete']) sqlite.exec(`DROP TRIGGER "${trigger}"`);
    sqlite.exec('DROP TABLE "MessageSearch"');
    // Both migrations that build it: the index, and the index made again with the messages' roles.
    sqlite.prepare(`DELETE FROM _prisma_migrations WHERE migration_name LIKE '%_message_search' OR migration_name LIKE '%_message_search_role'`).run();
    sqlite.close();

    const { logger, lines } = capturedLogger<{ level: number; msg: string }>();
    const again = await startTestServer({ dataDir, databaseUrl: undefined }, {}, { logger });
    const notes = lines.filter((line) => /search index/.test(line.msg));
    expect(notes.map((line) => line.msg)).toEqual([
      'building the full-text search index over the 12,000 messages stored (once, before the server answers): about 1 s',
    ]);
    const found = await again.raw('{ search(query: "zanzibar") { totalCount edges { node { message { messageId } } } } }');
    expect(found.data).toEqual({ search: { totalCount: 1, edges: [{ node: { message: { messageId: 'm7' } } }] } });
    // The roles of the messages stored before are in the index too (role: is asked of it).
    const byRole = await again.raw('{ user: search(query: "zanzibar role:user") { totalCount } tool: search(query: "zanzibar role:tool") { totalCount } }');
    expect(byRole.data).toEqual({ user: { totalCount: 1 }, tool: { totalCount: 0 } });
  }, 120_000);

  it('says nothing for a few messages or when the index is not among the migrations to run; PostgreSQL takes longer', () => {
    expect(searchIndexNote(['20261206094000_message_search'], 9_999, 'sqlite')).toBeUndefined();
    expect(searchIndexNote(['20261206120430_message_created_at'], 500_000, 'sqlite')).toBeUndefined();
    expect(searchIndexNote(['20261206094000_message_search'], 250_000, 'postgresql')).toMatch(/250,000 messages .* about 109 s$/);
    // The index made again with the messages' roles (SQLite only) builds it over them again too.
    expect(searchIndexNote(['20261207080000_message_search_role'], 250_000, 'sqlite')).toMatch(/250,000 messages .* about 10 s$/);
  });
});
