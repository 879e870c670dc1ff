/**
 * The server side of imports (issue 13): one session's parsed messages
 * (src/importers/target.ts) written into the DAG under the same turn rules as
 * the API (src/services/sessions/turn-engine.ts, an import's source: a USER
 * message closes the open turn and opens the next, a second reply is a retry,
 * a record that cannot be placed is a problem, not stored, and what followed
 * it attaches to where it would have), many messages per transaction through
 * SessionWriter. Messages the session already has are skipped: importing
 * twice adds nothing.
 * Closed turns queue their session repo commit in the outbox as usual; an
 * imported session never makes project commits (SessionWriter, turn-close.ts).
 */
import type { Prisma, Role, Session } from '../../generated/prisma/client.js';
import { BadUserInputError } from '../../errors.js';
import { assertValidId, isValidId } from '../../ids.js';
import type { ImportedMessage, ImportProblem } from '../../importers/model.js';
import { IMPORT_SOURCES, type ImportSource, type ImportTarget, type SessionImport, type SessionImportOutcome } from '../../importers/target.js';
import { now, type Deps } from '../deps.js';
import { messageDraft } from '../sessions/message-draft.js';
import { SessionWriter, type MessageDraft } from '../sessions/session-writer.js';
import { redactDrafts, redactSessionFields, redactUpdate } from '../sessions/redact-drafts.js';
import { moveRepoToView, publishTimeline, publishWritten } from '../sessions/session-view.js';
import { classify, type Incoming, type PredecessorFacts, type TurnMember, type TurnState } from '../sessions/turn-engine.js';
import { assertContentSize, assertShortText, metadataText } from '../sessions/validate.js';

const SOURCES: readonly ImportSource[] = IMPORT_SOURCES;
/** Messages per transaction: big enough that a long transcript takes a few, small enough to keep each short. */
const CHUNK = 500;
const MAX_MESSAGES = 200_000;

/** What the import knows of each message of the session. */
interface Known {
  role: Role;
  /** The turn it was recorded in (a retry's user message: its original turn). */
  turnId: string | null;
}

interface Validated {
  message: ImportedMessage;
  draft: MessageDraft;
}

/** The in-process target: the command line without a running server, and importClaudeCode. */
export function serviceImportTarget(deps: Deps): ImportTarget {
  return { importSession: (input) => importSession(input, deps) };
}

/**
 * Imports one session's messages; see the module comment for the rules.
 * @throws BadUserInputError for a malformed input (ids, sizes, source), before anything is written.
 */
export async function importSession(input: SessionImport, deps: Deps): Promise<SessionImportOutcome> {
  const header = validateHeader(input);
  const sessionId = header.sessionId;
  const messages = importedDrafts(input, deps);
  const updates = input.updates.map((u, i) => {
    assertValidId(u.messageId, `updates[${i}].messageId`);
    assertContentSize(u.content, deps.config.maxContentBytes, `updates[${i}].content`);
    return { ...u, metadataText: u.metadata === undefined ? undefined : metadataText(u.metadata, `updates[${i}].metadata`), redactions: null as string | null };
  });
  // Secrets out before any comparison with what is stored (stored content is redacted) and any write.
  Object.assign(header, await redactSessionFields(deps, header.title, header.metadata));
  await redactDrafts(deps, messages.map((v) => v.draft));
  for (const update of updates) {
    const redacted = await redactUpdate(deps, update.content, update.metadataText ?? null);
    update.content = redacted.content;
    if (update.metadataText !== undefined) update.metadataText = redacted.metadata ?? undefined;
    update.redactions = redacted.redactions;
  }

  return deps.sessionLocks.run(sessionId, async () => {
    const problems: ImportProblem[] = [];
    const branchesCreated: string[] = [];
    let turnsAdded = 0;
    let messagesAdded = 0;
    let messagesUpdated = 0;

    // A session belongs to the way it came in: never merged into one made another way.
    const origin = await otherOrigin(deps, header);
    if (origin) {
      const untouched = { sessionId, created: false, messagesAdded: 0, messagesUpdated: 0, turnsAdded: 0, branchesCreated: [], problems: [] };
      if (origin === 'hooks') {
        deps.logger.info({ sessionId }, 'a transcript of a session recorded live through hooks was not imported into it');
        return { ...untouched, currentBranch: (await deps.db.session.findUniqueOrThrow({ where: { sessionId }, select: { currentBranch: true } })).currentBranch };
      }
      const session = await deps.db.session.findUniqueOrThrow({ where: { sessionId }, select: { currentBranch: true } });
      return {
        ...untouched,
        currentBranch: session.currentBranch,
        problems: [{ line: 0, message: `session ${sessionId} was made ${origin}; a transcript is never merged into it (nothing imported)` }],
      };
    }
    const { session, created } = await ensureSession(deps, header);

    // What the session holds already: roles, turns, each turn's last message, which prompts have a reply.
    const rows = await deps.db.message.findMany({
      where: { sessionId },
      select: { id: true, messageId: true, role: true, turnId: true, predecessorId: true, createdAt: true },
      orderBy: { seq: 'asc' },
    });
    const known = new Map<string, Known>();
    const byInternal = new Map<string, string>();
    const tipOfTurn = new Map<string, string>();
    const replied = new Set<string>();
    for (const row of rows) {
      known.set(row.messageId, { role: row.role, turnId: row.turnId });
      byInternal.set(row.id, row.messageId);
      if (row.turnId) tipOfTurn.set(row.turnId, row.messageId);
    }
    for (const row of rows) {
      if (row.role === 'ASSISTANT' && row.predecessorId) {
        const pred = byInternal.get(row.predecessorId);
        if (pred && known.get(pred)?.role === 'USER') replied.add(pred);
      }
    }
    const openTurn = session.openTurnId
      ? await deps.db.turn.findUnique({ where: { id: session.openTurnId }, select: { id: true, number: true, userMessageId: true } })
      : null;
    /**
     * The open turn: its id, its number, its user message, its messages (the user message first)
     * and the latest time the source gave one of them, the time its close (its commit) carries.
     */
    let open: { turnId: string; number: number; userMessageId: string; members: TurnMember[]; lastAt: Date | null } | null = null;
    if (openTurn) {
      const user = byInternal.get(openTurn.userMessageId) ?? '';
      const own = rows.filter((r) => r.turnId === openTurn.id);
      const members = own.filter((r) => r.messageId !== user).map((r) => ({ messageId: r.messageId, role: r.role }));
      open = {
        turnId: openTurn.id,
        number: openTurn.number,
        userMessageId: user,
        members: [{ messageId: user, role: known.get(user)?.role ?? 'USER' }, ...members],
        lastAt: latest(own.map((r) => r.createdAt)),
      };
    }

    // Updates to messages of this very import are folded into them; the rest apply at the end.
    const laterUpdates = new Map<string, (typeof updates)[number]>();
    for (const update of updates) laterUpdates.set(update.messageId, update);
    // A message of the open turn sent again (a grown file read whole) may have grown too: the
    // rest of a response read in two parts. It updates the stored one, so importing a file in
    // parts gives what importing it whole gives.
    if (open) {
      const members = new Set(open.members.map((member) => member.messageId));
      const stored = new Map(
        (await deps.db.message.findMany({ where: { sessionId, turnId: open.turnId }, select: { messageId: true, content: true, metadata: true } })).map((row) => [row.messageId, row]),
      );
      for (const { message, draft } of messages) {
        const row = stored.get(message.messageId);
        if (!members.has(message.messageId) || !row || laterUpdates.has(message.messageId)) continue;
        if (row.content === draft.content && row.metadata === draft.metadata) continue;
        laterUpdates.set(message.messageId, { messageId: message.messageId, content: draft.content, line: message.line, metadataText: draft.metadata ?? undefined, metadata: undefined, redactions: draft.redactions ?? null });
      }
    }
    const fresh = messages.filter((v) => !known.has(v.message.messageId));
    for (const v of fresh) {
      const update = laterUpdates.get(v.message.messageId);
      if (update) {
        v.draft.content = update.content;
        v.draft.redactions = update.redactions;
        if (update.metadataText !== undefined) v.draft.metadata = update.metadataText;
        laterUpdates.delete(v.message.messageId);
      }
    }
    // More of a message whose turn is closed (a response that went on after a follower's idle
    // rule closed its turn) is never dropped: it becomes a message of its own, `<id>-L<line>`,
    // holding the message as it is now, placed as a late record after it (the next turn).
    for (const update of [...laterUpdates.values()]) {
      const target = known.get(update.messageId);
      if (!target || open?.members.some((member) => member.messageId === update.messageId)) continue;
      laterUpdates.delete(update.messageId);
      const messageId = `${update.messageId}-L${update.line}`;
      if (known.has(messageId) || !isValidId(messageId)) continue;
      const metadata = { ...(update.metadata ?? {}), continues: update.messageId };
      const message: ImportedMessage = { messageId, role: target.role, content: update.content, predecessorId: update.messageId, metadata, createdAt: null, opensTurn: false, line: update.line };
      const draft: MessageDraft = { ...messageDraft(target.role, message, deps, `updates[${update.messageId}]`, { loneSurrogates: 'replace' }), callerId: null, createdAt: null };
      // Its content was redacted as the update's; its metadata (the update's, raw) is redacted here.
      await redactDrafts(deps, [draft]);
      draft.redactions ??= update.redactions;
      const at = fresh.findIndex((v) => v.message.line > update.line);
      fresh.splice(at < 0 ? fresh.length : at, 0, { message, draft });
    }

    /** Where a message not stored would have been: what follows it attaches there instead. */
    const redirect = new Map<string, string | null>();
    const resolve = (id: string | null | undefined): string | null => {
      let current = id ?? null;
      for (let hops = 0; current !== null && redirect.has(current) && hops < 1_000_000; hops++) current = redirect.get(current)!;
      return current;
    };
    const drop = (m: ImportedMessage, why: string): void => {
      problems.push({ line: m.line, message: `message ${m.messageId} (${m.role}): ${why}; not stored` });
      redirect.set(m.messageId, resolve(m.predecessorId));
    };

    const at = now(deps);
    // Turns close in order: a transcript whose clock went back dates a turn at the one before it,
    // never earlier (the mirror replays closed turns by closedAt), and never after now.
    let closedFloor = (await deps.db.turn.aggregate({ where: { sessionId, open: false }, _max: { closedAt: true } }))._max.closedAt;
    const closeTime = (lastAt: Date | null): Date | null => {
      if (lastAt === null) {
        closedFloor = at;
        return null;
      }
      let time = lastAt.getTime() > at.getTime() ? at : lastAt;
      if (closedFloor && time.getTime() < closedFloor.getTime()) time = closedFloor;
      closedFloor = time;
      return time;
    };
    for (let start = 0; start < fresh.length || start === 0; start += CHUNK) {
      const chunk = fresh.slice(start, start + CHUNK);
      const last = start + CHUNK >= fresh.length;
      const step = await deps.db.$transaction(async (tx) => {
        const writer = await SessionWriter.load(tx, sessionId, at);
        let closed = 0;
        let added = 0;
        let updated = 0;
        let pending: MessageDraft[] = [];
        const flushJoins = async (): Promise<void> => {
          if (pending.length === 0) return;
          await writer.appendJoining(pending);
          pending = [];
        };
        /** Later content of the open turn's messages stored before: written while the turn is open. */
        const applyOpenUpdates = async (): Promise<void> => {
          if (!open) return;
          for (const update of laterUpdates.values()) {
            if (!known.has(update.messageId) || !open.members.some((member) => member.messageId === update.messageId)) continue;
            const changed = await tx.message.update({
              where: { sessionId_messageId: { sessionId, messageId: update.messageId } },
              data: { content: update.content, redactions: update.redactions, ...(update.metadataText !== undefined ? { metadata: update.metadataText } : {}) },
              select: { id: true, turnId: true },
            });
            writer.noteChanged(changed);
            laterUpdates.delete(update.messageId);
            updated += 1;
          }
        };
        const closeOpen = async (): Promise<void> => {
          if (!open) return;
          await flushJoins();
          await applyOpenUpdates();
          await writer.closeTurn({ closedAt: closeTime(open.lastAt) });
          closed += 1;
          open = null;
        };

        for (const { message: m, draft } of chunk) {
          const pred = resolve(m.predecessorId);
          const predInfo = pred !== null ? known.get(pred) : undefined;
          const predecessor: PredecessorFacts | null = predInfo
            ? { ...predInfo, turnTip: predInfo.turnId ? (tipOfTurn.get(predInfo.turnId) ?? null) : null, replied: replied.has(pred!) }
            : null;
          const incoming: Incoming = {
            via: 'message',
            role: m.role,
            messageId: m.messageId,
            predecessorId: pred,
            callerId: m.callerId != null ? resolve(m.callerId) : null,
          };
          const state = (): TurnState => ({
            source: 'import',
            sessionId,
            branch: writer.branch,
            viewTurnId: writer.viewTurnIdNow,
            open: open && { number: open.number, members: open.members },
            predecessor,
          });
          let decision = classify(state(), incoming);
          // A prompt or a retry ends the turn before it: closed, the same record is placed again.
          while (decision.kind === 'close') {
            await closeOpen();
            decision = classify(state(), incoming);
          }
          if (decision.kind === 'drop') {
            drop(m, decision.reason);
            continue;
          }
          if (decision.kind === 'newTurn' || decision.kind === 'retryOf') {
            // Placed by the writer under the API's rules: where the turn grows from, whether the reply is a retry.
            const stored =
              decision.kind === 'newTurn'
                ? await writer.openWith({ ...draft, predecessorId: decision.predecessorId, callerId: null })
                : await writer.retry(decision.userMessageId, { ...draft, predecessorId: null, callerId: null });
            const user = decision.kind === 'newTurn' ? [] : [{ messageId: decision.userMessageId, role: 'USER' as const }];
            open = {
              turnId: stored.turnId!,
              number: writer.openTurnNumber!,
              userMessageId: decision.kind === 'newTurn' ? m.messageId : decision.userMessageId,
              members: [...user, { messageId: m.messageId, role: m.role }],
              lastAt: draft.createdAt ?? null,
            };
            known.set(m.messageId, { role: m.role, turnId: stored.turnId });
            tipOfTurn.set(stored.turnId!, m.messageId);
            added += 1;
            continue;
          }
          if (decision.kind !== 'joins' || !open) throw new Error(`The turn rules answered ${decision.kind} to an imported message.`);
          pending.push({ ...draft, predecessorId: decision.predecessorId, callerId: decision.callerId });
          open.members.push({ messageId: m.messageId, role: m.role });
          open.lastAt = latest([open.lastAt, draft.createdAt]);
          known.set(m.messageId, { role: m.role, turnId: open.turnId });
          tipOfTurn.set(open.turnId, m.messageId);
          if (m.role === 'ASSISTANT') {
            if (pred !== null && predInfo?.role === 'USER') replied.add(pred);
            else if (pred === null && open.userMessageId) replied.add(open.userMessageId);
          }
          added += 1;
        }
        await flushJoins();

        if (last) {
          // Later content of messages stored before: only the open turn may still change.
          await applyOpenUpdates();
          for (const update of laterUpdates.values()) {
            const target = known.get(update.messageId);
            if (!target) {
              problems.push({ line: update.line, message: `update of message ${update.messageId}, which the session does not have; ignored` });
            } else {
              problems.push({ line: update.line, message: `update of message ${update.messageId}, whose turn is closed; ignored` });
            }
          }
          if (input.closeLastTurn) await closeOpen();
        }
        const outcome = await writer.flush();
        return { closed, added, updated, branches: outcome.createdBranches, project: outcome.projectJobsQueued, outcome };
      }, { timeout: 60_000 });

      turnsAdded += step.closed;
      messagesAdded += step.added;
      messagesUpdated += step.updated;
      branchesCreated.push(...step.branches);
      await publishWritten(deps, sessionId, step.outcome);
      if (step.closed > 0) deps.onTurnClosed?.(sessionId, { project: step.project });
    }

    // The branch the source ended on becomes current (switchBranch semantics), unless a turn stays open.
    let currentBranch = (await deps.db.session.findUniqueOrThrow({ where: { sessionId }, select: { currentBranch: true } })).currentBranch;
    const leaf = resolve(input.newestLeafId);
    const leafTurn = leaf !== null ? known.get(leaf)?.turnId : null;
    if (leafTurn && !open) {
      const turn = await deps.db.turn.findUnique({ where: { id: leafTurn }, select: { branch: true } });
      // A retry's user message keeps its original turn: a leaf there is the original branch's.
      if (turn && turn.branch !== currentBranch) {
        await deps.db.session.update({ where: { sessionId }, data: { currentBranch: turn.branch, viewTurnId: null } });
        currentBranch = turn.branch;
        await moveRepoToView(deps, sessionId);
        await publishSwitch(deps, sessionId, turn.branch);
      }
    }

    return { sessionId, created, messagesAdded, messagesUpdated, turnsAdded, branchesCreated, currentBranch, problems };
  });
}

/** The latest of some times, or null when none is given. */
function latest(times: readonly (Date | null | undefined)[]): Date | null {
  let best: Date | null = null;
  for (const time of times) if (time && (!best || time.getTime() > best.getTime())) best = time;
  return best;
}

interface Header {
  sessionId: string;
  source: ImportSource;
  title: string | null;
  agentId: string | null;
  model: string | null;
  metadata: string | null;
  parentSessionId: string | null;
}

function validateHeader(input: SessionImport): Header {
  if (!SOURCES.includes(input.source)) {
    throw new BadUserInputError(`source must be one of ${SOURCES.join(', ')}.`, { field: 'source' });
  }
  if (input.session.id == null) throw new BadUserInputError('session.id is required: which session to import into.', { field: 'session.id' });
  const sessionId = assertValidId(input.session.id, 'session.id');
  assertShortText(input.session.title, 'session.title');
  assertShortText(input.session.agentId, 'session.agentId');
  assertShortText(input.session.model, 'session.model');
  const parentSessionId = input.session.parentSessionId != null ? assertValidId(input.session.parentSessionId, 'session.parentSessionId') : null;
  if (parentSessionId === sessionId) {
    throw new BadUserInputError('session.parentSessionId names the session itself.', { field: 'session.parentSessionId' });
  }
  if (input.newestLeafId != null) assertValidId(input.newestLeafId, 'newestLeafId');
  return {
    sessionId,
    source: input.source,
    title: input.session.title ?? null,
    agentId: input.session.agentId || null,
    model: input.session.model ?? null,
    metadata: metadataText(input.session.metadata ?? null, 'session.metadata'),
    parentSessionId,
  };
}

/** Each message checked as the API checks one (messageDraft), plus what an import adds: a messageId each, sent once, a role. */
function importedDrafts(input: SessionImport, deps: Deps): Validated[] {
  if (input.messages.length > MAX_MESSAGES) {
    throw new BadUserInputError(`messages has ${input.messages.length} entries; send at most ${MAX_MESSAGES} per import.`, { field: 'messages' });
  }
  const seen = new Set<string>();
  return input.messages.map((m, i) => {
    const field = `messages[${i}]`;
    assertValidId(m.messageId, `${field}.messageId`);
    if (seen.has(m.messageId)) throw new BadUserInputError(`messageId ${m.messageId} is sent twice.`, { field: `${field}.messageId` });
    seen.add(m.messageId);
    if (!['USER', 'ASSISTANT', 'TOOL', 'SYSTEM'].includes(m.role)) throw new BadUserInputError(`${field}.role is not a role.`, { field: `${field}.role` });
    const createdAt = m.createdAt != null ? new Date(m.createdAt) : null;
    // The caller is the import's to place (turn-engine.ts): none until then.
    const draft: MessageDraft = {
      ...messageDraft(m.role, m, deps, field, { loneSurrogates: 'replace' }),
      callerId: null,
      createdAt: createdAt && !Number.isNaN(createdAt.getTime()) ? createdAt : null,
    };
    return { message: m, draft };
  });
}

/** Creates the session (with its main branch) or brings its header up to date. */
/**
 * How an existing session of this id came in, when not through this importer: `hooks` (recorded
 * live by the agent's hooks: its transcript adds nothing they did not record, and its project
 * commits must go on), else a phrase for the report. Undefined when the session is new or this
 * source's.
 */
async function otherOrigin(deps: Deps, header: Header): Promise<'hooks' | string | undefined> {
  const existing = await deps.db.session.findUnique({ where: { sessionId: header.sessionId }, select: { source: true, metadata: true } });
  if (!existing || existing.source === header.source) return undefined;
  if (existing.source !== null) return `by another import (${existing.source})`;
  let capture: unknown;
  try {
    capture = (JSON.parse(existing.metadata ?? 'null') as { capture?: unknown } | null)?.capture;
  } catch {
    capture = undefined;
  }
  return capture === 'hooks' ? 'hooks' : 'through the API';
}

async function ensureSession(deps: Deps, header: Header): Promise<{ session: Session; created: boolean }> {
  return deps.db.$transaction(async (tx) => {
    const existing = await tx.session.findUnique({ where: { sessionId: header.sessionId } });
    if (!existing) {
      const at = now(deps);
      const session = await tx.session.create({
        data: {
          sessionId: header.sessionId,
          title: header.title,
          agentId: header.agentId,
          model: header.model,
          source: header.source,
          metadata: header.metadata,
          parentSessionId: header.parentSessionId,
          createdAt: at,
        },
      });
      await tx.branch.create({ data: { sessionId: header.sessionId, name: 'main', kind: 'MAIN', createdAt: at } });
      return { session, created: true };
    }
    const data: Prisma.SessionUpdateInput = {};
    if (header.title !== null && header.title !== existing.title) data.title = header.title;
    if (header.model !== null && header.model !== existing.model) data.model = header.model;
    if (header.metadata !== null && header.metadata !== existing.metadata) data.metadata = header.metadata;
    if (header.agentId !== null && existing.agentId === null) data.agentId = header.agentId;
    if (header.parentSessionId !== null && header.parentSessionId !== existing.parentSessionId) data.parentSessionId = header.parentSessionId;
    if (Object.keys(data).length === 0) return { session: existing, created: false };
    return { session: await tx.session.update({ where: { sessionId: header.sessionId }, data }), created: false };
  });
}

async function publishSwitch(deps: Deps, sessionId: string, name: string): Promise<void> {
  const branch = await deps.db.branch.findUnique({ where: { sessionId_name: { sessionId, name } }, select: { headTurnId: true } });
  const head = branch?.headTurnId ? await deps.db.turn.findUnique({ where: { id: branch.headTurnId }, select: { commitSha: true } }) : null;
  await publishTimeline(deps, sessionId, 'BRANCH_SWITCHED', name, head?.commitSha ?? null);
}
