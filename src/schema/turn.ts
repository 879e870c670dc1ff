import { encodeCursor } from '../services/page.js';
import { endTurn } from '../services/sessions/end-turn.js';
import { recordTurn } from '../services/sessions/record-turn.js';
import { retryTurn } from '../services/sessions/retry-turn.js';
import { builder } from './builder.js';
import { serviceRow } from './refetch.js';
import { pageTotalCount } from './connection.js';
import { MirrorStateEnum } from './enums.js';
import { Message, Redaction, redactionList } from './message.js';
import { parseRedactions } from '../redaction/message.js';
import { sumCounts } from '../redaction/secrets.js';

const bySeq = { orderBy: { seq: 'asc' } } as const;

export const Turn = builder.prismaNode('Turn', {
  description: "A turn: one user message, the assistant's reply, and the tool results in between.",
  id: { field: 'id' },
  fields: (t) => ({
    number: t.exposeInt('number', { description: '1-based position along its branch.' }),
    cursor: t.string({
      description:
        "This turn's cursor in Session.turns along any branch that holds it (the cursor its edge there has): `after:` it lists the turns after it, `before:` those before it.",
      resolve: (turn) => encodeCursor('turn', turn.number),
    }),
    session: t.relation('session'),
    branch: t.exposeString('branch'),
    userMessage: t.relation('userMessage'),
    assistantMessage: t.field({
      type: Message,
      nullable: true,
      description: "The turn's reply: its latest assistant message.",
      // The selection Pothos plans for the messages, so they load with the turn (and never their content).
      select: (_args, _ctx, nested) => ({ messages: nested(bySeq) }),
      resolve: (turn) => turn.messages.filter((m) => m.role === 'ASSISTANT').at(-1) ?? null,
    }),
    toolResults: t.field({
      type: [Message],
      select: (_args, _ctx, nested) => ({ messages: nested(bySeq) }),
      resolve: (turn) => turn.messages.filter((m) => m.role === 'TOOL'),
    }),
    messages: t.field({
      type: [Message],
      description: 'The user message, then everything recorded in the turn, in seq order.',
      select: (_args, _ctx, nested) => ({ userMessage: nested(true), messages: nested(bySeq) }),
      resolve: (turn) => [turn.userMessage, ...turn.messages.filter((m) => m.id !== turn.userMessage.id)],
    }),
    redactions: t.field({
      type: [Redaction],
      description: "What was taken out of the turn's messages before they were stored, by kind (summed over its messages).",
      select: { userMessage: { select: { id: true, redactions: true } }, messages: { select: { id: true, redactions: true } } },
      resolve: (turn) => {
        const counts = {};
        const seen = new Set<string>();
        for (const message of [turn.userMessage, ...turn.messages]) {
          if (seen.has(message.id)) continue;
          seen.add(message.id);
          sumCounts(counts, parseRedactions(message.redactions));
        }
        return redactionList(counts);
      },
    }),
    open: t.exposeBoolean('open'),
    durationMs: t.exposeInt('durationMs', { nullable: true }),
    tokens: t.exposeInt('tokens', { nullable: true }),
    mirrorState: t.expose('mirrorState', { type: MirrorStateEnum }),
  }),
});

export const TurnConnection = builder.connectionObject(
  {
    type: Turn,
    name: 'TurnConnection',
    fields: (t) => ({ totalCount: t.int({ resolve: pageTotalCount }) }),
  },
  { name: 'TurnEdge' },
);

const TOUCHED_PATHS_DESCRIPTION =
  "Paths (relative to the project workdir) the agent's tools wrote in this turn. Runtimes should send them: with them the " +
  "end-of-turn commit holds exactly those paths and any other uncommitted change is the user's (no commit, a warning); without " +
  'them only paths that became dirty during the turn are taken as the agent\'s, and a user edit made during the turn cannot be told apart.';

const EndTurnInput = builder.inputType('EndTurnInput', {
  fields: (t) => ({
    sessionId: t.string({ required: true }),
    durationMs: t.int(),
    tokens: t.int(),
    touchedPaths: t.stringList({ description: TOUCHED_PATHS_DESCRIPTION }),
  }),
});

const TurnMessageInput = builder.inputType('TurnMessageInput', {
  fields: (t) => ({
    messageId: t.string(),
    content: t.string({ required: true }),
    toolName: t.string(),
    toolCallId: t.string(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

const RecordTurnInput = builder.inputType('RecordTurnInput', {
  fields: (t) => ({
    sessionId: t.string({ required: true }),
    user: t.field({ type: TurnMessageInput, required: true }),
    assistant: t.field({ type: TurnMessageInput, required: true }),
    toolResults: t.field({
      type: [TurnMessageInput],
      description: 'Tool results, in order; their caller is the assistant message.',
    }),
    durationMs: t.int(),
    tokens: t.int(),
    touchedPaths: t.stringList({ description: TOUCHED_PATHS_DESCRIPTION }),
    startedAt: t.field({
      type: 'DateTime',
      description:
        'When the turn really began (the user message arrived), if the runtime knows. Without touchedPaths, a path last changed ' +
        "before it is the user's edit, not the agent's. At most now; default: the end of the session's previous turn.",
    }),
  }),
});

const RetryTurnInput = builder.inputType('RetryTurnInput', {
  fields: (t) => ({
    sessionId: t.string({ required: true }),
    userMessageId: t.string({ required: true, description: 'The user message whose reply is being retried.' }),
    assistant: t.field({ type: TurnMessageInput, required: true }),
    toolResults: t.field({ type: [TurnMessageInput] }),
    durationMs: t.int(),
    tokens: t.int(),
    touchedPaths: t.stringList({ description: TOUCHED_PATHS_DESCRIPTION }),
  }),
});

builder.mutationFields((t) => ({
  retryTurn: t.prismaField({
    type: 'Turn',
    description: 'Records a new reply to an earlier user message on a new branch retry-<assistant messageId>, which becomes current.',
    args: { input: t.arg({ type: RetryTurnInput, required: true }) },
    resolve: serviceRow('Turn', retryTurn),
  }),
  endTurn: t.prismaField({
    type: 'Turn',
    description: 'Closes the open turn: the session-git commit and the project commit follow in the background.',
    args: { input: t.arg({ type: EndTurnInput, required: true }) },
    resolve: serviceRow('Turn', endTurn),
  }),
  recordTurn: t.prismaField({
    type: 'Turn',
    description: 'appendMessage for user, assistant and tool results, then endTurn, in one atomic call.',
    args: { input: t.arg({ type: RecordTurnInput, required: true }) },
    resolve: serviceRow('Turn', recordTurn),
  }),
}));
