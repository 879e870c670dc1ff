/**
 * What recordTurn costs the database: the same few statements at a session's
 * second turn and at its fortieth, none of them after the commit when the
 * result asks for the turn's own fields (the written row is the answer), and
 * a held turn (written once, already closed, its messages in one statement)
 * that keeps every rule of a turn written step by step: a fork from the viewed
 * turn, its counts, its foreign keys. Counted, not timed.
 */
import { describe, expect, it } from 'vitest';
import { onSqlStatement } from '../../src/db/index.js';
import { Checkout } from '../branching/operations.js';
import { holdLock } from '../helpers/locks.js';
import { onPostgres } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { CreateSession, RecordTurn } from './operations.js';

const SCALARS_ONLY = `mutation ($input: RecordTurnInput!) { recordTurn(input: $input) { number branch open mirrorState } }`;

function turn(sessionId: string, n: number) {
  return {
    sessionId,
    user: { content: `question ${n}` },
    assistant: { content: `answer ${n}` },
    toolResults: [{ content: `read ${n}`, toolName: 'read' }, { content: `grep ${n}`, toolName: 'grep' }],
    durationMs: 10,
  };
}

/** The statements of one recordTurn, its repo lock held meanwhile so the mirror's own reads are not among them. */
async function statementsOf(api: TestServer, sessionId: string, n: number): Promise<string[]> {
  const release = await holdLock(api.server.app.deps.repoLocks, sessionId);
  const sql: string[] = [];
  // Not the mirror's lease timers (PostgreSQL: the lease renewal and the takeover scan run every second).
  const off = onSqlStatement((event) => {
    if (!event.sql.includes('"SessionLease"')) sql.push(event.sql);
  });
  try {
    const result = await api.raw(SCALARS_ONLY, { input: turn(sessionId, n) });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ recordTurn: { number: n, branch: 'main', open: false, mirrorState: 'PENDING' } });
  } finally {
    off();
    await release();
  }
  return sql;
}

describe('recordTurn statements', () => {
  it('costs the same few statements at turn 2 and at turn 40, and reads nothing after its commit', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 'long' } });
    await api.ok(RecordTurn, { input: turn('long', 1) });
    const early = await statementsOf(api, 'long', 2);
    for (let n = 3; n < 40; n++) await api.ok(RecordTurn, { input: turn('long', n) });
    const late = await statementsOf(api, 'long', 40);

    expect(late.length).toBe(early.length);
    // On PostgreSQL one more: the session's row locked for the transaction (servers sharing the database).
    expect(late.length).toBeLessThanOrEqual(onPostgres ? 10 : 9);
    // The answer is the row the transaction wrote: the commit is the last statement.
    expect(late.at(-1)).toBe('COMMIT');
    await api.server.app.mirror.idle();
  });

  it('writes a held turn whole: a fork from the viewed turn, its messages counted, every foreign key kept', async () => {
    const api = await startTestServer();
    const { db } = api.server.app.deps;
    await api.ok(CreateSession, { input: { sessionId: 'view' } });
    await api.ok(RecordTurn, { input: turn('view', 1) });
    await api.ok(RecordTurn, { input: turn('view', 2) });
    await api.server.app.mirror.idle();
    const first = await db.turn.findFirstOrThrow({ where: { sessionId: 'view', number: 1 }, select: { id: true, commitSha: true } });
    await api.ok(Checkout, { input: { sessionId: 'view', sha: first.commitSha! } });

    const forked = await api.ok(RecordTurn, { input: { ...turn('view', 3), user: { content: 'from turn 1', messageId: 'u3' } } });
    expect(forked.recordTurn).toMatchObject({ number: 2, branch: 'fork-u3', open: false });

    const written = await db.turn.findFirstOrThrow({ where: { sessionId: 'view', branch: 'fork-u3' }, include: { messages: { orderBy: { seq: 'asc' } } } });
    expect(written.parentTurnId).toBe(first.id);
    // Turn 1's four messages, then this turn's four, all of them the turn's own.
    expect(written.messagesThrough).toBe(8);
    expect(written.messages.map((m) => m.role)).toEqual(['USER', 'ASSISTANT', 'TOOL', 'TOOL']);
    const tipOfFirst = await db.message.findFirstOrThrow({ where: { turnId: first.id }, orderBy: { seq: 'desc' } });
    expect(written.messages[0]!.predecessorId).toBe(tipOfFirst.id);
    expect(written.userMessageId).toBe(written.messages[0]!.id);
    const branch = await db.branch.findUniqueOrThrow({ where: { sessionId_name: { sessionId: 'view', name: 'fork-u3' } } });
    expect(branch.headTurnId).toBe(written.id);
    const session = await db.session.findUniqueOrThrow({ where: { sessionId: 'view' } });
    expect([session.currentBranch, session.viewTurnId, session.openTurnId]).toEqual(['fork-u3', null, null]);
    // Every row the held turn names exists (the keys were deferred to the commit; either database).
    const dangling = await db.$queryRawUnsafe<{ n: number | bigint }[]>(
      `SELECT (SELECT count(*) FROM "Turn" t WHERE NOT EXISTS (SELECT 1 FROM "Message" m WHERE m."id" = t."userMessageId"))
            + (SELECT count(*) FROM "Message" m WHERE m."turnId" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "Turn" t WHERE t."id" = m."turnId"))
            + (SELECT count(*) FROM "Message" m WHERE m."predecessorId" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "Message" p WHERE p."id" = m."predecessorId")) AS n`,
    );
    expect(Number(dangling[0]!.n)).toBe(0);
    await api.server.app.mirror.idle();
  });
});
