/**
 * Adds to a session's DAG under the turn rules (turn-engine.ts decides, the
 * writer looks up what they ask and writes), inside one database
 * transaction. A writer loads the session once, keeps the open turn in memory,
 * and flushes the session row at the end, so recordTurn costs a handful of
 * statements however many tool results it carries: a turn opened with
 * `openHeld` is written only when it closes, already closed, its messages in
 * one statement.
 */
import type { Message, Prisma, Role, Session, Turn } from '../../generated/prisma/client.js';
import { BadUserInputError, ConflictError, NotFoundError } from '../../errors.js';
import { assertValidId, newId } from '../../ids.js';
import type { ProjectClose } from '../../projects/turn-close.js';
import { classify, type Incoming, type TurnDecision, type TurnState } from './turn-engine.js';
import {
  answeredMessage,
  branchHead,
  closedTurnEndingWith,
  growPoint,
  messageRole,
  turnTip,
  TURN_MESSAGE,
  type Answered,
  type GrowPoint,
  type TurnMessage,
  type TurnPoint,
} from './turn-lookups.js';
import { deferForeignKeysSql, dialectOf, lockSessionRowSql, placeholders } from '../../db/dialect.js';
import { escapeNul } from '../../db/nul-text.js';

type Tx = Prisma.TransactionClient;

/** Every column of Message (a column added to the model and missing here fails to compile), as `insertMessages` binds them. */
const MESSAGE_COLUMNS = Object.keys({
  id: true, sessionId: true, messageId: true, seq: true, role: true, content: true, predecessorId: true,
  callerId: true, toolName: true, toolCallId: true, metadata: true, redactions: true, createdAt: true, turnId: true,
} satisfies Record<keyof Message, true>) as (keyof Message)[];
/** Rows per INSERT: 14 bound values each, well under SQLite's 32,766. */
const MESSAGE_ROWS_PER_STATEMENT = 500;

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
  /** When the message was written, if its source says so (an import); otherwise the writer's time. */
  createdAt?: Date | null;
  /**
   * What redaction took out of content and metadata (JSON `{"<kind>": count}`, null for nothing),
   * set by redactDrafts (src/services/sessions/redact-drafts.ts); undefined until then, and the
   * writer refuses such a draft.
   */
  redactions?: string | null;
}

export interface TurnClose {
  durationMs?: number | null;
  tokens?: number | null;
  touchedPaths?: string[] | null;
  /** When the turn began, if the runtime says so (recordTurn). */
  startedAt?: Date | null;
  /**
   * When the turn ended, if the source says so (an import: its last message's time), so its
   * commit is dated as it happened; default: the writer's time.
   */
  closedAt?: Date | null;
}


/**
 * The agent's end-of-turn state in the project (src/projects/turn-close.ts), captured before the
 * close: stored on the turn for its commit; `baseline` is where the session's next turn recorded
 * without a visible start (recordTurn) begins.
 */
export type ProjectAtClose = Pick<ProjectClose, 'capture' | 'error' | 'baseline'> & Partial<Pick<ProjectClose, 'unattributed' | 'later'>>;

/** What a writer's callers do after its transaction commits. */
export interface WriterOutcome {
  /** Branches this writer created, for the timeline events sent after commit. */
  createdBranches: string[];
  /** Whether a closed turn queued a project commit (the project committer is told after commit). */
  projectJobsQueued: boolean;
  /** What this writer did to each turn it touched, in the order it first touched them, for the turnUpdated events sent after commit. */
  turnUpdates: TurnUpdate[];
}

/** Messages a writer added to one turn (or changed in it), in seq order, and whether it closed the turn. */
export interface TurnUpdate {
  turnId: string;
  /** Message row ids (Message.id). */
  messageIds: string[];
  closed: boolean;
}

type Decision = TurnDecision<GrowPoint, Answered>;

interface OpenTurn {
  turn: Pick<Turn, 'id' | 'number' | 'userMessageId' | 'messagesThrough'>;
  /** The user message and every message recorded in the turn, in seq order. */
  messages: TurnMessage[];
  /**
   * Messages joined since `turn.messagesThrough` was last written: the kept count is written
   * with the close (or by `flush` while the turn stays open), so recordTurn needs no statement for it.
   */
  unwritten: number;
  /**
   * A turn opened by `openHeld`, not written yet: its row and its messages' rows (the user
   * message first), written together by `closeTurn` or `flush`. Null once written.
   */
  held: { turn: Prisma.TurnUncheckedCreateInput; messages: Message[] } | null;
}

export class SessionWriter {
  private nextSeq: number;
  private openTurnId: string | null;
  private currentBranch: string;
  private viewTurnId: string | null;
  /** The project's dirty paths as the last turn closed (`closeTurn`'s baseline), written by `flush`. */
  private projectDirtyAtClose: string[] | null = null;
  private readonly createdBranches: string[] = [];
  private projectJobsQueued = false;
  private readonly turnUpdates = new Map<string, TurnUpdate>();
  private open: OpenTurn | null = null;
  /**
   * The turn this writer closed last and its last message. Every turn is its branch's newest
   * when created, and only this writer adds turns to the session (it runs under the session's
   * lock), so while no other turn was opened this is its branch's head: the next turn opened
   * on that branch (an import's many turns in one transaction) needs no lookup.
   */
  private lastClosed: { turn: TurnPoint; tip: TurnMessage } | null = null;
  private readonly reserved = new Set<string>();

  private constructor(
    private readonly tx: Tx,
    readonly session: Session,
    private readonly at: Date,
    private readonly projectDirtyAtStart: string[] | null,
  ) {
    this.nextSeq = session.nextSeq;
    this.openTurnId = session.openTurnId;
    this.currentBranch = session.currentBranch;
    this.viewTurnId = session.viewTurnId;
  }

  /**
   * The session, locked for this transaction's writes. In one process the session's write lock
   * (deps.sessionLocks) keeps writers apart; servers sharing a PostgreSQL database lock its row
   * (src/db/dialect.ts, lockSessionRowSql), so a turn written through one server waits for one
   * written through another, and each numbers its turn and messages after the other's.
   * @param options.projectDirtyAtStart the project's dirty paths as seen when the turn opened here
   *   began (appendMessage sees the start); default null: the session's baseline is used.
   * @throws NotFoundError when the session does not exist.
   */
  static async load(tx: Tx, sessionId: string, at: Date, options: { projectDirtyAtStart?: string[] | null } = {}): Promise<SessionWriter> {
    const lock = lockSessionRowSql(tx);
    if (lock) await tx.$queryRawUnsafe(lock, sessionId);
    const session = await tx.session.findUnique({ where: { sessionId } });
    if (!session) throw new NotFoundError(`Session ${JSON.stringify(sessionId)} does not exist.`, { sessionId });
    return new SessionWriter(tx, session, at, options.projectDirtyAtStart ?? null);
  }

  get sessionId(): string {
    return this.session.sessionId;
  }

  /**
   * Adds one message under the turn rules (turn-engine.ts, as `message`) and returns it.
   * @throws the rules' refusal (BadUserInputError, ConflictError, NotFoundError); nothing is written then.
   */
  async append(draft: MessageDraft): Promise<Message> {
    const decision = await this.decide(draft, 'message');
    switch (decision.kind) {
      case 'newTurn':
        return this.openTurn(draft);
      case 'retryOf':
        return this.openRetry(decision.userMessageId, { ...draft, predecessorId: null });
      case 'joins':
        return this.joinOpenTurn(draft);
      default:
        throw unexpected(decision, 'message');
    }
  }

  /**
   * Opens a turn with `draft` whatever its role (an import: a SYSTEM record such as
   * a local command's output before any prompt is a turn of its own), under the rules of a USER message.
   */
  async openWith(draft: MessageDraft): Promise<Message> {
    return this.openTurn(draft);
  }

  /**
   * Opens a turn with `draft` (a USER message) under the same rules as `append`, but writes
   * neither the turn nor its messages yet: the messages joined next (`appendJoining`) are
   * held with them, and `closeTurn` writes them all, the turn already closed, in two statements
   * (`flush` writes a turn left open). The turn and its first message name each other, so from
   * here on this transaction's foreign keys are checked at its commit.
   */
  async openHeld(draft: MessageDraft): Promise<Message> {
    return this.openTurn(draft, true);
  }

  /** Opens a retry of the turn of `userMessageId` with `reply` as its new answer. */
  async retry(userMessageId: string, reply: MessageDraft): Promise<Message> {
    return this.openRetry(userMessageId, reply);
  }

  /** The branch the session is on after this writer's changes. */
  get branch(): string {
    return this.currentBranch;
  }

  /** The open turn's id after this writer's changes, or null. */
  get openTurnIdNow(): string | null {
    return this.openTurnId;
  }

  /** The number of the turn this writer opened last, while it is open; otherwise null. */
  get openTurnNumber(): number | null {
    return this.open?.turn.id === this.openTurnId ? (this.open?.turn.number ?? null) : null;
  }

  /** The turn the session views during replay after this writer's changes, or null. */
  get viewTurnIdNow(): string | null {
    return this.viewTurnId;
  }

  /**
   * An imported session (its source set) is a record of work done elsewhere:
   * its turns never capture or commit anything in a project.
   */
  private get inProject(): boolean {
    return this.session.projectId !== null && this.session.source === null;
  }

  /** Whether closing a turn of this session records the agent's state in its project (src/projects/turn-close.ts). */
  get capturesProject(): boolean {
    return this.inProject;
  }

  /**
   * Closes the open turn and queues its outbox jobs in the same transaction
   * (the outbox), so a closed turn is never without its pending git commit.
   * @param project the project's state captured for this close (closeTurnWith); default null:
   *   a turn of a session in a project then records that the project was not looked at.
   */
  async closeTurn(close: TurnClose, project: ProjectAtClose | null = null): Promise<Turn> {
    const open = await this.requireOpenTurn('end a turn');
    const closing = {
      open: false,
      messagesThrough: open.turn.messagesThrough + open.unwritten,
      closedAt: close.closedAt ?? this.at,
      durationMs: close.durationMs ?? null,
      tokens: close.tokens ?? null,
      touchedPaths: close.touchedPaths ? JSON.stringify(close.touchedPaths) : null,
      startedAt: close.startedAt ?? null,
      ...(this.inProject ? projectCloseFields(project) : {}),
    };
    const turn = open.held
      ? await this.writeHeld(open.held, closing)
      : await this.tx.turn.update({ where: { id: open.turn.id }, data: closing });
    const jobs: Prisma.OutboxJobUncheckedCreateInput[] = [
      { sessionId: this.sessionId, turnId: turn.id, kind: 'SESSION', nextAttemptAt: this.at, createdAt: this.at },
    ];
    if (this.inProject) {
      jobs.push({ sessionId: this.sessionId, turnId: turn.id, kind: 'PROJECT', nextAttemptAt: this.at, createdAt: this.at });
    }
    // One create a job: createMany took 0.49 ms for one row here, create 0.29.
    for (const data of jobs) await this.tx.outboxJob.create({ data, select: { id: true } });
    this.projectJobsQueued ||= this.inProject;
    if (project?.baseline) this.projectDirtyAtClose = project.baseline;
    this.noteTurn(turn.id).closed = true;
    this.lastClosed = { turn, tip: open.messages[open.messages.length - 1]! };
    this.openTurnId = null;
    this.open = null;
    return turn;
  }

  /**
   * Writes the session's counters (and the open turn's kept message count); call once, last.
   * @throws ConflictError when another writer changed the session meanwhile.
   */
  async flush(): Promise<WriterOutcome> {
    if (this.open && (this.open.held || this.open.unwritten > 0)) {
      const messagesThrough = this.open.turn.messagesThrough + this.open.unwritten;
      if (this.open.held) await this.writeHeld(this.open.held, { messagesThrough });
      else await this.tx.turn.update({ where: { id: this.open.turn.id }, data: { messagesThrough }, select: { id: true } });
      this.open = { ...this.open, turn: { ...this.open.turn, messagesThrough }, unwritten: 0, held: null };
    }
    const { count } = await this.tx.session.updateMany({
      // The guard turns a concurrent writer that slipped past the lock into a conflict, not a fork of seqs.
      where: { sessionId: this.sessionId, nextSeq: this.session.nextSeq },
      data: {
        nextSeq: this.nextSeq,
        openTurnId: this.openTurnId,
        currentBranch: this.currentBranch,
        viewTurnId: this.viewTurnId,
        ...(this.projectDirtyAtClose ? { projectDirtyBaseline: JSON.stringify(this.projectDirtyAtClose) } : {}),
      },
    });
    if (count !== 1) {
      throw new ConflictError(`Session ${this.sessionId} was changed by another request at the same time; try again.`);
    }
    return { createdBranches: [...this.createdBranches], projectJobsQueued: this.projectJobsQueued, turnUpdates: [...this.turnUpdates.values()] };
  }

  /** Notes a message of the open turn changed by the caller in this transaction (an import's later content), for its turnUpdated event. */
  noteChanged(message: Pick<Message, 'id' | 'turnId'>): void {
    if (message.turnId !== null) this.noteTurn(message.turnId).messageIds.push(message.id);
  }

  // ------------------------------------------------------------ internals

  private noteTurn(turnId: string): TurnUpdate {
    let update = this.turnUpdates.get(turnId);
    if (!update) this.turnUpdates.set(turnId, (update = { turnId, messageIds: [], closed: false }));
    return update;
  }

  private async openTurn(draft: MessageDraft, held = false): Promise<Message> {
    const messageId = draft.messageId ?? newId();
    const decision = await this.decide({ ...draft, messageId }, 'turn');
    if (decision.kind !== 'open' && decision.kind !== 'continue' && decision.kind !== 'fork') throw unexpected(decision, 'turn');
    const branchName = this.currentBranch;
    const from = decision.kind === 'open' ? null : decision.from.turn;
    const fromTip = decision.kind === 'open' ? null : decision.from.tipMessage;
    const turnBranch = decision.kind === 'fork' ? decision.branch : branchName;
    const turnId = newId();
    const turnRow = (userMessageId: string) => ({
      id: turnId,
      sessionId: this.sessionId,
      number: (from?.number ?? 0) + 1,
      branch: turnBranch,
      parentTurnId: from?.id ?? null,
      userMessageId,
      messagesThrough: (from?.messagesThrough ?? 0) + 1,
      createdAt: this.at,
      ...this.projectStart(),
    });
    let message: Message;
    let turn: OpenTurn['turn'];
    if (held) {
      // The turn and its user message name each other, and the branch row names the turn.
      await this.tx.$executeRawUnsafe(deferForeignKeysSql(this.tx));
      message = this.messageRow({ ...draft, messageId }, fromTip?.id ?? null, null, turnId);
      const row = turnRow(message.id);
      turn = row;
      this.open = { turn, messages: [pick(message)], unwritten: 0, held: { turn: row, messages: [message] } };
    } else {
      const inserted = await this.insertMessage({ ...draft, messageId }, fromTip?.id ?? null, null, null);
      turn = await this.tx.turn.create({ data: turnRow(inserted.id) });
      await this.tx.message.update({ where: { id: inserted.id }, data: { turnId: turn.id } });
      message = { ...inserted, turnId: turn.id };
      this.open = { turn, messages: [pick(message)], unwritten: 0, held: null };
    }
    if (decision.kind === 'fork') {
      await this.createBranch(turnBranch, 'FORK', from?.id ?? null, turn.id);
    } else {
      const { count } = await this.tx.branch.updateMany({
        where: { sessionId: this.sessionId, name: branchName },
        data: { headTurnId: turn.id },
      });
      // Sessions written before branches were recorded have no row for main yet.
      if (count === 0) {
        await this.tx.branch.create({
          data: { sessionId: this.sessionId, name: branchName, kind: 'MAIN', headTurnId: turn.id, createdAt: this.at },
        });
      }
    }
    this.openTurnId = turn.id;
    this.viewTurnId = null;
    this.noteTurn(turn.id).messageIds.push(message.id);
    return message;
  }

  /**
   * A new reply to an earlier user message: a new turn with the same number,
   * on branch retry-<reply id> growing from the turn before, made current.
   * @throws BadUserInputError unless `userMessageId` is a USER message whose turn is closed and has a reply.
   */
  private async openRetry(userMessageId: string, draft: MessageDraft): Promise<Message> {
    const messageId = draft.messageId ?? newId();
    const decision = await this.decide({ ...draft, messageId, predecessorId: userMessageId, callerId: null }, 'retry');
    if (decision.kind !== 'retry') throw unexpected(decision, 'retry');
    const { user } = decision.answered;
    // A retried message's turn is closed and answered (the rules checked).
    const original = decision.answered.original!;
    const branchName = decision.branch;
    const parent = original.parentTurnId
      ? await this.tx.turn.findUniqueOrThrow({ where: { id: original.parentTurnId }, select: { messagesThrough: true } })
      : null;
    const turn = await this.tx.turn.create({
      data: {
        id: newId(),
        sessionId: this.sessionId,
        number: original.number,
        branch: branchName,
        parentTurnId: original.parentTurnId,
        userMessageId: user.id,
        // The path so far, the user message answered (it stays in the turn replaced) and the reply.
        messagesThrough: (parent?.messagesThrough ?? 0) + 2,
        createdAt: this.at,
        ...this.projectStart(),
      },
    });
    await this.createBranch(branchName, 'RETRY', original.parentTurnId, turn.id);
    const reply = await this.insertMessage({ ...draft, messageId }, user.id, null, turn.id);
    this.openTurnId = turn.id;
    this.viewTurnId = null;
    this.open = { turn, messages: [pick(user), pick(reply)], unwritten: 0, held: null };
    this.noteTurn(turn.id).messageIds.push(reply.id);
    return reply;
  }

  /** What a new turn records about its project: which, and what was dirty as it began. */
  private projectStart(): { projectId: string | null; dirtyAtStart: string | null } {
    if (!this.inProject) return { projectId: null, dirtyAtStart: null };
    const dirty = this.projectDirtyAtStart ?? (JSON.parse(this.session.projectDirtyBaseline ?? '[]') as string[]);
    return { projectId: this.session.projectId!, dirtyAtStart: JSON.stringify(dirty) };
  }

  private async createBranch(name: string, kind: 'FORK' | 'RETRY', forkTurnId: string | null, headTurnId: string): Promise<void> {
    const existing = await this.tx.branch.findUnique({ where: { sessionId_name: { sessionId: this.sessionId, name } } });
    if (existing) throw new ConflictError(`Session ${this.sessionId} already has a branch ${name}.`, { branch: name });
    await this.tx.branch.create({
      data: { sessionId: this.sessionId, name, kind, forkTurnId, headTurnId, createdAt: this.at },
    });
    this.currentBranch = name;
    this.createdBranches.push(name);
  }

  /**
   * Asks the turn rules (turn-engine.ts) what `draft` does, `via` the entry point it came by,
   * looking up what they ask for (the open turn is read first when there is one).
   * @throws the rules' refusal, as they word it.
   */
  private async decide(draft: MessageDraft, via: Incoming['via']): Promise<Decision> {
    const incoming: Incoming = {
      via,
      role: draft.role,
      messageId: draft.messageId ?? '',
      predecessorId: draft.predecessorId ?? null,
      callerId: draft.callerId ?? null,
    };
    const open = this.openTurnId ? await this.requireOpenTurn('') : null;
    const state: TurnState<GrowPoint, Answered> = {
      source: 'api',
      sessionId: this.sessionId,
      branch: this.currentBranch,
      viewTurnId: this.viewTurnId,
      open: open && { number: open.turn.number, members: open.messages },
    };
    for (;;) {
      const decision = classify(state, incoming);
      if (decision.kind === 'refuse') throw decision.error;
      if (decision.kind !== 'need') return decision;
      const named = incoming.predecessorId!;
      switch (decision.fact) {
        case 'head': {
          // A branch's head is its highest-numbered turn (the unique index on session, branch, number finds it).
          const head = (this.lastClosed?.turn.branch === this.currentBranch ? this.lastClosed : null) ?? (await branchHead(this.tx, this.sessionId, this.currentBranch));
          state.head = head && growPoint(head.turn, head.tip);
          break;
        }
        case 'viewed': {
          const viewed = await this.tx.turn.findUniqueOrThrow({ where: { id: this.viewTurnId! } });
          state.viewed = growPoint(viewed, await turnTip(this.tx, viewed));
          break;
        }
        case 'point':
          state.point = await closedTurnEndingWith(this.tx, this.sessionId, named);
          break;
        case 'answered':
          state.answered = await answeredMessage(this.tx, this.sessionId, named);
          break;
        case 'predecessorRole':
          state.predecessorRole = await messageRole(this.tx, this.sessionId, named);
          break;
        case 'predecessor':
          throw unexpected(decision, via);
      }
    }
  }

  /**
   * Where a message joining the open turn attaches, by the turn rules: the open turn, and its
   * predecessor's and its caller's row ids.
   */
  private async resolveJoin(draft: MessageDraft): Promise<{ open: OpenTurn; predecessorId: string | null; callerId: string | null }> {
    const decision = await this.decide(draft, 'join');
    // The rules refuse a join without an open turn, which `decide` has read.
    const open = this.openTurnId !== null && this.open?.turn.id === this.openTurnId ? this.open : null;
    if (decision.kind !== 'join' || !open) throw unexpected(decision, 'join');
    const rowOf = (messageId: string | null) => (messageId === null ? null : open.messages.find((m) => m.messageId === messageId)!.id);
    return { open, predecessorId: rowOf(decision.predecessorId), callerId: rowOf(decision.callerId) };
  }

  private async joinOpenTurn(draft: MessageDraft): Promise<Message> {
    const { open, predecessorId, callerId } = await this.resolveJoin(draft);
    const message = open.held
      ? this.messageRow(draft, predecessorId, callerId, open.turn.id)
      : await this.insertMessage(draft, predecessorId, callerId, open.turn.id);
    open.held?.messages.push(message);
    open.messages.push(pick(message));
    open.unwritten += 1;
    this.noteTurn(open.turn.id).messageIds.push(message.id);
    return message;
  }

  /**
   * Tool results (or any messages joining the open turn) in one statement:
   * each is checked as `append` would, then all are inserted together.
   */
  async appendJoining(drafts: MessageDraft[]): Promise<void> {
    const rows: Message[] = [];
    let open: OpenTurn | null = null;
    for (const draft of drafts) {
      const join = await this.resolveJoin(draft);
      open = join.open;
      const row = this.messageRow(draft, join.predecessorId, join.callerId, open.turn.id);
      rows.push(row);
      open.messages.push(pick(row));
    }
    if (!open) return;
    if (open.held) open.held.messages.push(...rows);
    else await this.insertMessages(rows);
    open.unwritten += rows.length;
    this.noteTurn(open.turn.id).messageIds.push(...rows.map((row) => row.id));
  }

  private async requireOpenTurn(action: string): Promise<OpenTurn> {
    if (!this.openTurnId) {
      throw new BadUserInputError(
        `Session ${this.sessionId} has no open turn to ${action}: a USER message opens one.`,
      );
    }
    if (this.open?.turn.id === this.openTurnId) return this.open;
    const turn = await this.tx.turn.findUniqueOrThrow({
      where: { id: this.openTurnId },
      select: { id: true, number: true, userMessageId: true, messagesThrough: true },
    });
    const own = await this.tx.message.findMany({
      where: { turnId: turn.id },
      select: TURN_MESSAGE,
      orderBy: { seq: 'asc' },
    });
    const messages = own.some((m) => m.id === turn.userMessageId)
      ? own
      : [
          await this.tx.message.findUniqueOrThrow({
            where: { id: turn.userMessageId },
            select: TURN_MESSAGE,
          }),
          ...own,
        ];
    this.open = { turn, messages, unwritten: 0, held: null };
    return this.open;
  }

  /**
   * Writes a held turn (see `openHeld`) with `fields` over its row (its close, or its count
   * while it stays open), then its messages in one statement.
   * @throws ConflictError when the session has one of the messages' ids already.
   */
  private async writeHeld(held: NonNullable<OpenTurn['held']>, fields: Partial<Prisma.TurnUncheckedCreateInput>): Promise<Turn> {
    const turn = await this.tx.turn.create({ data: { ...held.turn, ...fields } });
    await this.insertMessages(held.messages);
    return turn;
  }

  /**
   * Inserts whole message rows, one statement per 500. Raw SQL: Prisma's createMany took
   * 1.6 ms for a turn's five messages here, this 0.36 ms (same values; dates go through
   * the adapter as Prisma writes them).
   * @throws ConflictError naming the first message whose id the session has already.
   */
  private async insertMessages(rows: readonly Message[]): Promise<void> {
    for (let start = 0; start < rows.length; start += MESSAGE_ROWS_PER_STATEMENT) {
      const chunk = rows.slice(start, start + MESSAGE_ROWS_PER_STATEMENT);
      const p = placeholders(this.tx);
      const values = chunk.map(() => `(${MESSAGE_COLUMNS.map(() => p()).join(', ')})`).join(', ');
      const insert = `INSERT INTO "Message" (${MESSAGE_COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES ${values}`;
      const postgres = dialectOf(this.tx) === 'postgresql';
      // PostgreSQL's text cannot hold NUL: the content is stored escaped there (src/db/nul-text.ts).
      const args = chunk.flatMap((row) => MESSAGE_COLUMNS.map((c) => (postgres && c === 'content' ? escapeNul(row.content) : row[c])));
      if (postgres) {
        // A failed statement aborts a PostgreSQL transaction, so the id taken is found without failing:
        // the rows whose id the session has are skipped, and the first of them named.
        const written = await this.tx.$queryRawUnsafe<{ messageId: string }[]>(
          `${insert} ON CONFLICT ("sessionId", "messageId") DO NOTHING RETURNING "messageId"`,
          ...args,
        );
        if (written.length < chunk.length) {
          const kept = new Set(written.map((row) => row.messageId));
          const first = chunk.find((m) => !kept.has(m.messageId))!.messageId;
          throw new ConflictError(`Session ${this.sessionId} already has a message ${first}; message ids are unique within a session.`, { messageId: first });
        }
        continue;
      }
      try {
        await this.tx.$executeRawUnsafe(insert, ...args);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Which one, as a message written alone would say (SQLite undid the failed statement only).
        const ids = chunk.map((m) => m.messageId);
        const taken = await this.tx.message.findMany({ where: { sessionId: this.sessionId, messageId: { in: ids } }, select: { messageId: true } });
        const first = ids.find((id) => taken.some((t) => t.messageId === id));
        throw new ConflictError(
          first !== undefined
            ? `Session ${this.sessionId} already has a message ${first}; message ids are unique within a session.`
            : `Session ${this.sessionId} already has a message with one of these ids; message ids are unique within a session.`,
          first !== undefined ? { messageId: first } : undefined,
        );
      }
    }
  }

  /** The row of a new message: its id checked, its seq taken. */
  private messageRow(
    draft: MessageDraft,
    predecessorId: string | null,
    callerId: string | null,
    turnId: string | null,
  ): Message {
    if (draft.redactions === undefined) throw new Error('a message draft reached the writer without going through redactDrafts');
    const messageId = draft.messageId != null ? assertValidId(draft.messageId, 'messageId') : newId();
    if (this.reserved.has(messageId)) {
      throw new ConflictError(`messageId ${messageId} is used twice in this request.`, { messageId });
    }
    this.reserved.add(messageId);
    const seq = this.nextSeq;
    this.nextSeq += 1;
    return {
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
      redactions: draft.redactions,
      createdAt: draft.createdAt ?? this.at,
      turnId,
    };
  }

  private async insertMessage(
    draft: MessageDraft,
    predecessorId: string | null,
    callerId: string | null,
    turnId: string | null,
  ): Promise<Message> {
    const data = this.messageRow(draft, predecessorId, callerId, turnId);
    // The unique index on (session, messageId) is the check: no lookup first.
    try {
      return await this.tx.message.create({ data });
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ConflictError(
          `Session ${this.sessionId} already has a message ${data.messageId}; message ids are unique within a session.`,
          { messageId: data.messageId },
        );
      }
      throw error;
    }
  }
}

/** A unique-constraint failure, as Prisma reports it through any driver adapter: from a model query (P2002) or raw SQL (P2010). */
function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, meta } = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown } } } };
  return code === 'P2002' || (code === 'P2010' && meta?.driverAdapterError?.cause?.kind === 'UniqueConstraintViolation');
}

function pick(message: Message): TurnMessage {
  return { id: message.id, messageId: message.messageId, role: message.role, seq: message.seq };
}

/** What a closing turn records about its project: PENDING until the commit runs, and the capture. */
function projectCloseFields(
  project: ProjectAtClose | null,
): Pick<Turn, 'projectResult' | 'projectHeadAtClose' | 'projectFiles' | 'projectSuspects' | 'projectCaptureError' | 'projectCaptureLater' | 'projectUnattributed'> {
  const captured = project?.capture ?? null;
  return {
    projectResult: 'PENDING',
    projectHeadAtClose: captured?.headAtClose ?? null,
    projectFiles: captured ? JSON.stringify(captured.files) : null,
    projectSuspects: captured ? JSON.stringify(captured.suspects) : null,
    projectCaptureError: captured ? null : (project?.error ?? 'The project was not looked at when the turn closed.'),
    projectCaptureLater: !captured && project?.later ? JSON.stringify(project.later) : null,
    projectUnattributed: project?.unattributed ?? false,
  };
}

/** A decision the entry point `via` cannot take: a bug in the writer or the rules, not the caller's input. */
function unexpected(decision: Decision, via: Incoming['via']): Error {
  return new Error(`The turn rules answered ${JSON.stringify(decision)} to a message via ${via}.`);
}
