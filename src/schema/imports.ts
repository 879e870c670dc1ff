/**
 * Imports (issue 13): what a session says about where it came from, and the
 * two import mutations: importSession (one session's parsed messages, sent by
 * the command line to a running server) and importClaudeCode (transcripts on
 * the server's disk, for the UI).
 */
import type { ImportSummary as ImportSummaryShape, ImportFileError, SkippedCount } from '../importers/import-files.js';
import type { ImportProblem as ImportProblemShape } from '../importers/model.js';
import { IMPORT_SOURCES, isImportSource, type SessionImportOutcome } from '../importers/target.js';
import { BadUserInputError } from '../errors.js';
import { importClaudeCode } from '../services/imports/import-claude-code.js';
import { importSession } from '../services/imports/import-session.js';
import { builder } from './builder.js';
import { RoleEnum } from './enums.js';
import { Session } from './session.js';
import { QUERY_COST, listCost } from './cost.js';

// Not a GraphQL enum: its values ('claude-code') are not GraphQL names, so the schema says them in words.
const SOURCE_NAMES = IMPORT_SOURCES.map((source) => `'${source}'`);


builder.prismaObjectFields('Session', (t) => ({
  source: t.exposeString('source', {
    nullable: true,
    description: `The importer that wrote the session (${SOURCE_NAMES.join(', ')}); null for sessions made through the API. Imported sessions never make project commits.`,
  }),
  metadata: t.field({
    type: 'JSON',
    nullable: true,
    description: 'What the source said about the session (for Claude Code: cwd, gitBranch, version).',
    resolve: (s) => (s.metadata === null ? null : (JSON.parse(s.metadata) as unknown)),
  }),
  parentSession: t.field({
    type: Session,
    nullable: true,
    description: "For a sub-agent's session: the session that started it (null until that one is imported too).",
    complexity: QUERY_COST,
    resolve: (s, _args, ctx) => (s.parentSessionId === null ? null : ctx.deps.db.session.findUnique({ where: { sessionId: s.parentSessionId } })),
  }),
  subagentSessions: t.field({
    type: [Session],
    description: 'Sessions of the sub-agents this session started, oldest first.',
    complexity: listCost(QUERY_COST),
    resolve: (s, _args, ctx) =>
      ctx.deps.db.session.findMany({ where: { parentSessionId: s.sessionId }, orderBy: [{ createdAt: 'asc' }, { sessionId: 'asc' }], take: 1000 }),
  }),
}));

const ImportedSessionInput = builder.inputType('ImportedSessionInput', {
  fields: (t) => ({
    id: t.string({ required: true }),
    title: t.string(),
    agentId: t.string({ required: true }),
    model: t.string(),
    parentSessionId: t.string(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

const ImportedMessageInput = builder.inputType('ImportedMessageInput', {
  fields: (t) => ({
    messageId: t.string({ required: true }),
    role: t.field({ type: RoleEnum, required: true }),
    content: t.string({ required: true }),
    predecessorId: t.string(),
    callerId: t.string(),
    toolCallId: t.string(),
    toolName: t.string(),
    metadata: t.field({ type: 'JSON' }),
    createdAt: t.string({ description: 'ISO 8601 time the source gave the message.' }),
    opensTurn: t.boolean({ required: true }),
    line: t.int({ required: true }),
  }),
});

const ImportedUpdateInput = builder.inputType('ImportedUpdateInput', {
  fields: (t) => ({
    messageId: t.string({ required: true }),
    content: t.string({ required: true }),
    metadata: t.field({ type: 'JSON' }),
    line: t.int({ required: true }),
  }),
});

const ImportSessionInput = builder.inputType('ImportSessionInput', {
  description: "One session's parsed messages (src/importers/target.ts SessionImport).",
  fields: (t) => ({
    source: t.string({ required: true, description: `${SOURCE_NAMES.join(' or ')}.` }),
    session: t.field({ type: ImportedSessionInput, required: true }),
    messages: t.field({ type: [ImportedMessageInput], required: true }),
    updates: t.field({ type: [ImportedUpdateInput], required: true }),
    newestLeafId: t.string(),
    closeLastTurn: t.boolean({ required: true }),
  }),
});

const ImportProblem = builder.objectRef<ImportProblemShape>('ImportProblem').implement({
  fields: (t) => ({ line: t.exposeInt('line'), message: t.exposeString('message') }),
});

const ImportSessionResult = builder.objectRef<SessionImportOutcome>('ImportSessionResult').implement({
  fields: (t) => ({
    sessionId: t.exposeString('sessionId'),
    session: t.field({ type: Session, resolve: (o, _args, ctx) => ctx.deps.db.session.findUniqueOrThrow({ where: { sessionId: o.sessionId } }) }),
    created: t.exposeBoolean('created'),
    messagesAdded: t.exposeInt('messagesAdded'),
    messagesUpdated: t.exposeInt('messagesUpdated'),
    turnsAdded: t.exposeInt('turnsAdded'),
    branchesCreated: t.exposeStringList('branchesCreated'),
    currentBranch: t.exposeString('currentBranch'),
    problems: t.field({ type: [ImportProblem], resolve: (o) => o.problems }),
  }),
});

const SkippedRecords = builder.objectRef<SkippedCount>('SkippedRecords').implement({
  fields: (t) => ({ type: t.exposeString('type'), count: t.exposeInt('count') }),
});

const ImportError = builder.objectRef<ImportFileError>('ImportError').implement({
  fields: (t) => ({
    file: t.exposeString('file'),
    line: t.exposeInt('line', { description: '1-based line of the file; 0 for the file as a whole.' }),
    message: t.exposeString('message'),
  }),
});

const ImportSummary = builder.objectRef<ImportSummaryShape>('ImportSummary').implement({
  fields: (t) => ({
    files: t.exposeInt('files'),
    sessions: t.exposeInt('sessions'),
    turns: t.exposeInt('turns'),
    messages: t.exposeInt('messages'),
    branches: t.exposeInt('branches'),
    skipped: t.field({ type: [SkippedRecords], description: 'Records that became no message, by type.', resolve: (s) => s.skipped }),
    errors: t.field({ type: [ImportError], description: 'Malformed lines and files that could not be imported; the others were.', resolve: (s) => s.errors }),
  }),
});

const ImportClaudeCodeInput = builder.inputType('ImportClaudeCodeInput', {
  fields: (t) => ({
    paths: t.stringList({
      required: true,
      description: 'Transcript files or folders searched for *.jsonl, on the server, inside its allowed roots.',
    }),
  }),
});

builder.mutationFields((t) => ({
  importSession: t.field({
    type: ImportSessionResult,
    description: "Adds one session's parsed messages (idempotent: messages the session has are skipped). Used by the command line's import when a server holds the data.",
    args: { input: t.arg({ type: ImportSessionInput, required: true }) },
    resolve: (_root, { input }, ctx) => {
      if (!isImportSource(input.source)) {
        throw new BadUserInputError(`source must be ${SOURCE_NAMES.join(' or ')}.`, { field: 'source' });
      }
      return importSession(
        {
          source: input.source,
          session: {
            id: input.session.id,
            title: input.session.title ?? null,
            agentId: input.session.agentId,
            model: input.session.model ?? null,
            ...(input.session.parentSessionId != null ? { parentSessionId: input.session.parentSessionId } : {}),
            metadata: asMetadata(input.session.metadata, 'session.metadata') ?? {},
          },
          messages: input.messages.map((m, i) => ({
            messageId: m.messageId,
            role: m.role,
            content: m.content,
            predecessorId: m.predecessorId ?? null,
            ...(m.callerId != null ? { callerId: m.callerId } : {}),
            ...(m.toolCallId != null ? { toolCallId: m.toolCallId } : {}),
            ...(m.toolName != null ? { toolName: m.toolName } : {}),
            ...(m.metadata != null ? { metadata: asMetadata(m.metadata, `messages[${i}].metadata`)! } : {}),
            createdAt: m.createdAt ?? null,
            opensTurn: m.opensTurn,
            line: m.line,
          })),
          updates: input.updates.map((u, i) => ({
            messageId: u.messageId,
            content: u.content,
            ...(u.metadata != null ? { metadata: asMetadata(u.metadata, `updates[${i}].metadata`)! } : {}),
            line: u.line,
          })),
          newestLeafId: input.newestLeafId ?? null,
          closeLastTurn: input.closeLastTurn,
        },
        ctx.deps,
      );
    },
  }),
  importClaudeCode: t.field({
    type: ImportSummary,
    description: "Imports Claude Code transcripts from the server's disk (paths inside its allowed roots); one bad file never stops the others.",
    args: { input: t.arg({ type: ImportClaudeCodeInput, required: true }) },
    resolve: (_root, { input }, ctx) => importClaudeCode({ paths: input.paths }, ctx.deps),
  }),
}));

/** A JSON object, or a clear error; null/undefined stay absent. */
function asMetadata(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value == null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new BadUserInputError(`${field} must be a JSON object.`, { field });
  return value as Record<string, unknown>;
}
