/**
 * A long session's rows loaded straight through Prisma, as recordTurn leaves
 * them, for benchmarks that need thousands of closed turns without a server
 * recording each one (bench/replay.ts, bench/rebuild.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../src/db/index.js';
import type { Prisma } from '../src/generated/prisma/client.js';
import { newId } from '../src/ids.js';

const TURNS_PER_TX = 2_500;
const ROWS_PER_INSERT = 500;

const text = (n: number) => randomBytes(n).toString('base64').slice(0, n);

/**
 * Creates the session and `turns` closed turns on main, each a user message
 * (predecessor: the previous reply) and a reply (predecessor: the user
 * message) of `contentBytes` random characters.
 * @returns the newest turn's id (main's head).
 * @throws Error when the rows break a foreign key.
 */
export async function fillClosedTurns(db: Db, options: { sessionId: string; title: string; turns: number; contentBytes: number }): Promise<{ tipTurnId: string }> {
  const { sessionId, turns: count, contentBytes } = options;
  const base = new Date(Date.UTC(2026, 0, 1));
  await db.session.create({
    data: {
      sessionId,
      title: options.title,
      agentId: 'bench-agent',
      model: 'bench-model-1',
      createdAt: base,
      branches: { create: { name: 'main', kind: 'MAIN', createdAt: base } },
    },
  });
  const chunks: { messages: Prisma.MessageCreateManyInput[]; turns: Prisma.TurnCreateManyInput[] }[] = [];
  let previousTurnId: string | null = null;
  let previousAssistantId: string | null = null;
  let seq = 1;
  for (let n = 1; n <= count; n++) {
    if ((n - 1) % TURNS_PER_TX === 0) chunks.push({ messages: [], turns: [] });
    const chunk = chunks.at(-1)!;
    const at = new Date(base.getTime() + n * 60_000);
    const turnId = newId();
    const userId = newId();
    const assistantId = newId();
    chunk.messages.push(
      { id: userId, sessionId, messageId: newId(), seq: seq++, role: 'USER', content: text(contentBytes), predecessorId: previousAssistantId, createdAt: at, turnId },
      { id: assistantId, sessionId, messageId: newId(), seq: seq++, role: 'ASSISTANT', content: text(contentBytes), predecessorId: userId, createdAt: at, turnId },
    );
    chunk.turns.push({
      id: turnId,
      sessionId,
      number: n,
      branch: 'main',
      parentTurnId: previousTurnId,
      userMessageId: userId,
      open: false,
      // As the session writer keeps it: the messages on the path through this turn.
      messagesThrough: 2 * n,
      durationMs: 1200,
      tokens: 400,
      createdAt: at,
      closedAt: at,
    });
    previousTurnId = turnId;
    previousAssistantId = assistantId;
  }
  const tipTurnId = previousTurnId!;
  // Message.turnId and Turn.userMessageId point at each other, and deferred checks of the unindexed
  // keys (Turn.userMessageId, Message.callerId) would scan whole tables per row: checks are off while
  // loading (the pragma is per connection, and the adapter has one), then one full check.
  await db.$executeRawUnsafe('PRAGMA foreign_keys = OFF');
  try {
    for (const [k, { messages, turns }] of chunks.entries()) {
      await db.$transaction(
        async (tx) => {
          for (let i = 0; i < messages.length; i += ROWS_PER_INSERT) await tx.message.createMany({ data: messages.slice(i, i + ROWS_PER_INSERT) });
          for (let i = 0; i < turns.length; i += ROWS_PER_INSERT) await tx.turn.createMany({ data: turns.slice(i, i + ROWS_PER_INSERT) });
          if (k === chunks.length - 1) {
            await tx.branch.update({ where: { sessionId_name: { sessionId, name: 'main' } }, data: { headTurnId: tipTurnId } });
            await tx.session.update({ where: { sessionId }, data: { nextSeq: seq } });
          }
        },
        { timeout: 120_000, maxWait: 10_000 },
      );
    }
  } finally {
    await db.$executeRawUnsafe('PRAGMA foreign_keys = ON');
  }
  const violations = await db.$queryRawUnsafe<unknown[]>('PRAGMA foreign_key_check');
  if (violations.length > 0) throw new Error(`${violations.length} foreign key violations after loading, e.g. ${JSON.stringify(violations[0])}`);
  return { tipTurnId };
}
