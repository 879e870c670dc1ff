/**
 * The rules for adding to a session's DAG, applied inside one database
 * transaction. A writer loads the session once, keeps the open turn in memory,
 * and flushes the session row at the end, so recordTurn costs a handful of
 * statements however many tool results it carries.
 */
import type { Message, Prisma, Session, Turn } from '../generated/prisma/client.js';
import { BadUserInputError, ConflictError, NotFoundError } from '../errors.js';
import { assertValidId, newId } from '../ids.js';
import type { Role } from './validate.js';

type Tx = Prisma.TransactionClient;

/** A message as the caller describes it, already validated for shape and size. */
export interface MessageDraft {
  messageId?: string | null;
  role: Role;
  content: string;
  predecessorId?: string | null;
  callerId?: string | null;
  toolName?: string | null;
  toolCallId?: string | null;
  /** JSON text or null. */
  metadata: string | null;
}

export interface TurnClose {
  durationMs?: number | null;
  tokens?: number | null;
  touchedPaths?: string[] | null;
}

type TurnMessage = Pick<Message, 'id' | 'messageId' | 'role' | 'seq'>;

interface OpenTurn {
  turn: Turn;
  /** The user message and every message recorded in the turn, in seq order. */
  messages: TurnMessage[];
}

export class SessionWriter {
  private nextSeq: number;
  private openTurnId: string | null;
  private open: OpenTurn | null = null;
  private readonly reserved = new Set<string>();

  private constructor(
    private readonly tx: Tx,
    readonly session: Session,
    private readonly at: Date,
  ) {
    this.nextSeq = session.nextSeq;
    this.openTurnId = session.openTurnId;
  }

  /** @throws NotFoundError when the session does not exist. */
  static async load(tx: Tx, sessionId: string, at: Date): Promise<SessionWriter> {
    const session = await tx.session.findUnique({ where: { sessionId } });
    if (!session) throw new NotFoundError(`Session ${JSON.stringify(sessionId)} does not exist.`, { sessionId });
    return new SessionWriter(tx, session, at);
  }

  get sessionId(): string {
    return this.session.sessionId;
  }

  /** Adds one message under the turn rules and returns it. */
  async append(draft: MessageDraft): Promise<Message> {
    return draft.role === 'USER' ? this.openTurn(draft) : this.joinOpenTurn(draft);
  }

  /**
   * Closes the open turn and queues its mirror jobs in the same transaction
   * (the outbox), so a closed turn is never without its pending git commit.
   */
  async closeTurn(close: TurnClose): Promise<Turn> {
    const open = await this.requireOpenTurn('end a turn');
    const turn = await this.tx.turn.update({
      where: { id: open.turn.id },
      data: {
        open: false,
        closedAt: this.at,
        durationMs: close.durationMs ?? null,
        tokens: close.tokens ?? null,
        touchedPaths: close.touchedPaths ? JSON.stringify(close.touchedPaths) : null,
      },
    });
    const jobs: Prisma.MirrorJobCreateManyInput[] = [
      { sessionId: this.sessionId, turnId: turn.id, kind: 'SESSION', nextAttemptAt: this.at, createdAt: this.at },
    ];
    if (this.session.projectId) {
      jobs.push({ sessionId: this.sessionId, turnId: turn.id, kind: 'PROJECT', nextAttemptAt: this.at, createdAt: this.at });
    }
    await this.tx.mirrorJob.createMany({ data: jobs });
    this.openTurnId = null;
    this.open = null;
    return turn;
  }

  /** Writes the session's counters; call once, last. */
  async flush(): Promise<void> {
    const { count } = await this.tx.session.updateMany({
      // The guard turns a concurrent writer that slipped past the lock into a conflict, not a fork of seqs.
      where: { sessionId: this.sessionId, nextSeq: this.session.nextSeq },
      data: { nextSeq: this.nextSeq, openTurnId: this.openTurnId },
    });
    if (count !== 1) {
      throw new ConflictError(`Session ${this.sessionId} was changed by another request at the same time; try again.`);
    }
  }

  // ------------------------------------------------------------ internals

  private async openTurn(draft: MessageDraft): Promise<Message> {
    if (this.openTurnId) {
      const open = await this.requireOpenTurn('');
      throw new ConflictError(
        `Turn ${open.turn.number} of session ${this.sessionId} is still open: end it (endTurn) before sending the next user message.`,
      );
    }
    if (draft.callerId) throw new BadUserInputError('callerId is only for TOOL messages.', { field: 'callerId' });
    const branchName = this.session.currentBranch;
    const branch = await this.tx.branch.findUnique({
      where: { sessionId_name: { sessionId: this.sessionId, name: branchName } },
    });
    const headTurn = branch?.headTurnId ? await this.tx.turn.findUnique({ where: { id: branch.headTurnId } }) : null;
    const tip = headTurn ? await this.turnTip(headTurn) : null;
    if (draft.predecessorId != null && draft.predecessorId !== tip?.messageId) {
      throw new BadUserInputError(
        tip
          ? `predecessorId must be the last message of branch ${branchName} (${tip.messageId}); leave it out to continue from there.`
          : `This is the first message of branch ${branchName}: leave predecessorId out.`,
        { field: 'predecessorId' },
      );
    }
    const message = await this.insertMessage(draft, tip?.id ?? null, null, null);
    const turn = await this.tx.turn.create({
      data: {
        id: newId(),
        sessionId: this.sessionId,
        number: (headTurn?.number ?? 0) + 1,
        branch: branchName,
        parentTurnId: headTurn?.id ?? null,
        userMessageId: message.id,
        createdAt: this.at,
      },
    });
    await this.tx.message.update({ where: { id: message.id }, data: { turnId: turn.id } });
    await this.tx.branch.upsert({
      where: { sessionId_name: { sessionId: this.sessionId, name: branchName } },
      update: { headTurnId: turn.id },
      create: { sessionId: this.sessionId, name: branchName, kind: 'MAIN', headTurnId: turn.id, createdAt: this.at },
    });
    this.openTurnId = turn.id;
    this.open = { turn, messages: [pick(message)] };
    return { ...message, turnId: turn.id };
  }

  private async joinOpenTurn(draft: MessageDraft): Promise<Message> {
    const open = await this.requireOpenTurn(`add a ${draft.role} message`);
    let predecessor = open.messages[open.messages.length - 1];
    if (draft.predecessorId != null) {
      predecessor = open.messages.find((m) => m.messageId === draft.predecessorId);
      if (!predecessor) {
        throw new BadUserInputError(
          `predecessorId ${JSON.stringify(draft.predecessorId)} is not a message of the open turn ${open.turn.number}; leave it out to follow the turn's last message.`,
          { field: 'predecessorId' },
        );
      }
    }
    let callerId: string | null = null;
    if (draft.role === 'TOOL') {
      const assistants = open.messages.filter((m) => m.role === 'ASSISTANT' && m.id !== open.turn.userMessageId);
      const caller =
        draft.callerId != null
          ? assistants.find((m) => m.messageId === draft.callerId)
          : assistants[assistants.length - 1];
      if (!caller) {
        throw new BadUserInputError(
          draft.callerId != null
            ? `callerId ${JSON.stringify(draft.callerId)} is not an ASSISTANT message of the open turn ${open.turn.number}.`
            : `A TOOL message needs an ASSISTANT message in the open turn to be its caller; append the assistant message first.`,
          { field: 'callerId' },
        );
      }
      callerId = caller.id;
    } else if (draft.callerId != null) {
      throw new BadUserInputError('callerId is only for TOOL messages.', { field: 'callerId' });
    }
    const message = await this.insertMessage(draft, predecessor?.id ?? null, callerId, open.turn.id);
    open.messages.push(pick(message));
    return message;
  }

  private async requireOpenTurn(action: string): Promise<OpenTurn> {
    if (!this.openTurnId) {
      throw new BadUserInputError(
        `Session ${this.sessionId} has no open turn to ${action}: a USER message opens one.`,
      );
    }
    if (this.open?.turn.id === this.openTurnId) return this.open;
    const turn = await this.tx.turn.findUniqueOrThrow({ where: { id: this.openTurnId } });
    const own = await this.tx.message.findMany({
      where: { turnId: turn.id },
      select: { id: true, messageId: true, role: true, seq: true },
      orderBy: { seq: 'asc' },
    });
    const messages = own.some((m) => m.id === turn.userMessageId)
      ? own
      : [
          await this.tx.message.findUniqueOrThrow({
            where: { id: turn.userMessageId },
            select: { id: true, messageId: true, role: true, seq: true },
          }),
          ...own,
        ];
    this.open = { turn, messages };
    return this.open;
  }

  /** The last message of a turn (what the next turn's user message follows). */
  private async turnTip(turn: Turn): Promise<TurnMessage> {
    const last = await this.tx.message.findFirst({
      where: { turnId: turn.id },
      select: { id: true, messageId: true, role: true, seq: true },
      orderBy: { seq: 'desc' },
    });
    return (
      last ??
      (await this.tx.message.findUniqueOrThrow({
        where: { id: turn.userMessageId },
        select: { id: true, messageId: true, role: true, seq: true },
      }))
    );
  }

  private async insertMessage(
    draft: MessageDraft,
    predecessorId: string | null,
    callerId: string | null,
    turnId: string | null,
  ): Promise<Message> {
    const messageId = draft.messageId != null ? assertValidId(draft.messageId, 'messageId') : newId();
    if (this.reserved.has(messageId)) {
      throw new ConflictError(`messageId ${messageId} is used twice in this request.`, { messageId });
    }
    const existing = await this.tx.message.findUnique({
      where: { sessionId_messageId: { sessionId: this.sessionId, messageId } },
      select: { id: true },
    });
    if (existing) {
      throw new ConflictError(`Session ${this.sessionId} already has a message ${messageId}; message ids are unique within a session.`, {
        messageId,
      });
    }
    this.reserved.add(messageId);
    const seq = this.nextSeq;
    this.nextSeq += 1;
    return this.tx.message.create({
      data: {
        id: newId(),
        sessionId: this.sessionId,
        messageId,
        seq,
        role: draft.role,
        content: draft.content,
        predecessorId,
        callerId,
        toolName: draft.toolName ?? null,
        toolCallId: draft.toolCallId ?? null,
        metadata: draft.metadata,
        createdAt: this.at,
        turnId,
      },
    });
  }
}

function pick(message: Message): TurnMessage {
  return { id: message.id, messageId: message.messageId, role: message.role, seq: message.seq };
}
