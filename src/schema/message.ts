import { appendMessage } from '../services/sessions/append-message.js';
import { updateMessage } from '../services/sessions/update-message.js';
import { messagePath } from '../mirror/index.js';
import { loaders } from './loaders.js';
import { builder } from './builder.js';
import { serviceThenRow } from './refetch.js';
import { pageTotalCount } from './connection.js';
import { RoleEnum } from './enums.js';
import { parseRedactions } from '../redaction/message.js';
import type { RedactionCounts } from '../redaction/secrets.js';

/** One kind of secret taken out before storing, and how many times (never the value). */
export const Redaction = builder.objectRef<{ kind: string; count: number }>('Redaction').implement({
  description: 'A kind of secret replaced by a `[redacted:<kind>]` marker before the text was stored, and how many of them.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'The detector\'s name for it, as in the marker: aws-access-key, github-token, secret…' }),
    count: t.exposeInt('count'),
  }),
});

/** Counts as a list, by kind. */
export function redactionList(counts: RedactionCounts): { kind: string; count: number }[] {
  return Object.entries(counts)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([kind, count]) => ({ kind, count }));
}

export const Message = builder.prismaNode('Message', {
  description: 'One DAG node: a message of a session, the source of truth for everything in git.',
  id: { field: 'id' },
  // Every column but the content, which is loaded on its own (see content).
  select: {
    id: true,
    sessionId: true,
    messageId: true,
    seq: true,
    role: true,
    predecessorId: true,
    callerId: true,
    toolName: true,
    toolCallId: true,
    metadata: true,
    createdAt: true,
    turnId: true,
    redactions: true,
  },
  fields: (t) => ({
    messageId: t.exposeString('messageId'),
    session: t.relation('session'),
    seq: t.exposeInt('seq', { description: 'Per-session sequence number, 1-based, never reused.' }),
    role: t.expose('role', { type: RoleEnum }),
    content: t.string({
      description:
        'The full text. Counted, with patches and files, against the 16 MiB of text one request may read: page long lists with first:.',
      resolve: (m, _args, ctx) => loaders(ctx).content.load(m.id),
    }),
    predecessor: t.relation('predecessor', {
      nullable: true,
      description: 'The conversation parent (null for the first message).',
    }),
    caller: t.relation('caller', {
      nullable: true,
      description: 'For a tool result: the assistant message whose tool call produced it.',
    }),
    successors: t.relation('successors', {
      description: 'Messages whose predecessor is this one; more than one means a retry or a fork.',
      query: { orderBy: { seq: 'asc' } },
    }),
    toolName: t.exposeString('toolName', { nullable: true }),
    toolCallId: t.exposeString('toolCallId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    metadata: t.field({
      type: 'JSON',
      nullable: true,
      resolve: (m) => (m.metadata === null ? null : (JSON.parse(m.metadata) as unknown)),
    }),
    turn: t.relation('turn', { nullable: true }),
    redactions: t.field({
      type: [Redaction],
      description: 'What was taken out of this message (content and metadata) before it was stored, by kind; empty for none or with redaction off.',
      resolve: (m) => redactionList(parseRedactions(m.redactions)),
    }),
    path: t.string({
      description: "Path of this message's file in the session repo, e.g. messages/000/000001-u-abc123.json.",
      resolve: (m) => messagePath(m.seq, m.role, m.messageId),
    }),
  }),
});

export const MessageConnection = builder.connectionObject(
  {
    type: Message,
    name: 'MessageConnection',
    fields: (t) => ({ totalCount: t.int({ resolve: pageTotalCount }) }),
  },
  { name: 'MessageEdge' },
);

const AppendMessageInput = builder.inputType('AppendMessageInput', {
  fields: (t) => ({
    sessionId: t.string({ required: true }),
    messageId: t.string({
      description:
        "Chosen by the caller (e.g. the runtime's own node id) or generated; same rule as sessionId; unique within the session.",
    }),
    role: t.field({ type: RoleEnum, required: true }),
    content: t.string({ required: true }),
    predecessorId: t.string({
      description:
        'Defaults to the head of the current branch. A USER message after a checkout of an older commit forks a new branch; an ASSISTANT message for a user message that already has a reply is a retry and opens a retry branch.',
    }),
    callerId: t.string(),
    toolName: t.string(),
    toolCallId: t.string(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

const UpdateMessageInput = builder.inputType('UpdateMessageInput', {
  fields: (t) => ({
    sessionId: t.string({ required: true }),
    messageId: t.string({ required: true }),
    content: t.string({
      description: 'Only messages of an open turn can change (the assistant placeholder being filled).',
    }),
    metadata: t.field({ type: 'JSON' }),
  }),
});

builder.mutationFields((t) => ({
  appendMessage: t.prismaField({
    type: 'Message',
    args: { input: t.arg({ type: AppendMessageInput, required: true }) },
    resolve: serviceThenRow('Message', appendMessage),
  }),
  updateMessage: t.prismaField({
    type: 'Message',
    args: { input: t.arg({ type: UpdateMessageInput, required: true }) },
    resolve: serviceThenRow('Message', updateMessage),
  }),
}));
