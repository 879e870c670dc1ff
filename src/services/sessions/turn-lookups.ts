/**
 * The reads the turn rules (turn-engine.ts) ask SessionWriter for: a branch's head, a turn's
 * last message, the closed turn a message ends, the message a retry answers. Each is one or a
 * few statements inside the writer's transaction, run only when the rules ask.
 */
import type { Message, Prisma, Role, Turn } from '../../generated/prisma/client.js';
import { placeholders } from '../../db/dialect.js';
import type { AnsweredFacts, TurnEnd } from './turn-engine.js';

type Tx = Prisma.TransactionClient;

/** What the writer keeps of each message of the open turn. */
export type TurnMessage = Pick<Message, 'id' | 'messageId' | 'role' | 'seq'>;
/** The columns of a TurnMessage, as every lookup of one selects them. */
export const TURN_MESSAGE = { id: true, messageId: true, role: true, seq: true } as const satisfies Record<keyof TurnMessage, true>;

/** What a new turn needs of the turn it grows from. */
export type TurnPoint = Pick<Turn, 'id' | 'number' | 'branch' | 'messagesThrough'>;

/** A turn a new turn can grow from, as the turn rules see it and as the writer needs it. */
export interface GrowPoint extends TurnEnd {
  turn: TurnPoint;
  tipMessage: TurnMessage;
}

/** A user message to retry, as the turn rules see it and as the writer needs it. */
export interface Answered extends AnsweredFacts {
  user: Message;
  original: Turn | null;
}

export function growPoint(turn: TurnPoint, tip: TurnMessage): GrowPoint {
  return { turnId: turn.id, tip: tip.messageId, turn, tipMessage: tip };
}

/** The closed turn whose last message is `messageId`, if any. */
export async function closedTurnEndingWith(tx: Tx, sessionId: string, messageId: string): Promise<GrowPoint | null> {
  const message = await tx.message.findUnique({
    where: { sessionId_messageId: { sessionId, messageId } },
    select: { ...TURN_MESSAGE, turnId: true },
  });
  if (!message?.turnId) return null;
  const turn = await tx.turn.findUnique({ where: { id: message.turnId } });
  if (!turn || turn.open) return null;
  const tip = await turnTip(tx, turn);
  return tip.id === message.id ? growPoint(turn, tip) : null;
}

/** The message `userMessageId` with its turn, and whether that turn is closed with a reply; null when the session has no such message. */
export async function answeredMessage(tx: Tx, sessionId: string, userMessageId: string): Promise<Answered | null> {
  const user = await tx.message.findUnique({
    where: { sessionId_messageId: { sessionId, messageId: userMessageId } },
    include: { turn: true },
  });
  if (!user) return null;
  const { turn: original, ...message } = user;
  const replied =
    original !== null &&
    !original.open &&
    (await tx.message.count({ where: { turnId: original.id, role: 'ASSISTANT' } })) > 0;
  return { role: user.role, replied, user: message, original };
}

/** The role of the session's message `messageId`, or null when it has none. */
export async function messageRole(tx: Tx, sessionId: string, messageId: string): Promise<Role | null> {
  const message = await tx.message.findUnique({ where: { sessionId_messageId: { sessionId, messageId } }, select: { role: true } });
  return message?.role ?? null;
}

/** The last message of a turn (what the next turn's user message follows). */
export async function turnTip(tx: Tx, turn: Pick<Turn, 'id' | 'userMessageId'>): Promise<TurnMessage> {
  const last = await tx.message.findFirst({
    where: { turnId: turn.id },
    select: TURN_MESSAGE,
    orderBy: { seq: 'desc' },
  });
  return (
    last ??
    (await tx.message.findUniqueOrThrow({
      where: { id: turn.userMessageId },
      select: TURN_MESSAGE,
    }))
  );
}

/**
 * A branch's head (its highest-numbered turn, found by the unique index on session, branch,
 * number) and that turn's last message, in one statement; null for a branch without turns.
 */
export async function branchHead(tx: Tx, sessionId: string, branch: string): Promise<{ turn: TurnPoint; tip: TurnMessage } | null> {
  const p = placeholders(tx);
  const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT t."id" AS "id", t."number" AS "number", t."messagesThrough" AS "messagesThrough",
       m."id" AS "tipId", m."messageId" AS "tipMessageId", m."role" AS "tipRole", m."seq" AS "tipSeq"
     FROM "Turn" t JOIN "Message" m ON m."id" = COALESCE(
       (SELECT l."id" FROM "Message" l WHERE l."turnId" = t."id" ORDER BY l."seq" DESC LIMIT 1), t."userMessageId")
     WHERE t."sessionId" = ${p()} AND t."branch" = ${p()} ORDER BY t."number" DESC LIMIT 1`,
    sessionId,
    branch,
  );
  const row = rows[0];
  if (!row) return null;
  return {
    turn: { id: String(row.id), number: Number(row.number), branch, messagesThrough: Number(row.messagesThrough) },
    tip: { id: String(row.tipId), messageId: String(row.tipMessageId), role: String(row.tipRole) as Role, seq: Number(row.tipSeq) },
  };
}
