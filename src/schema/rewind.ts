/**
 * rewind: back to a turn for the code, the conversation or both, with a dry
 * run first (src/services/replay/rewind.ts).
 */
import { rewind, type RewindCode, type RewindConversation, type RewindResult } from '../services/replay/rewind.js';
import { builder } from './builder.js';
import { GIT_PROCESS_COST, QUERY_COST } from './cost.js';
import { ProjectFilesResultRef, RewindPath } from './project-restore.js';
import { Turn } from './turn.js';

const RewindCodeRef = builder.objectRef<RewindCode>('RewindCode').implement({
  fields: (t) => ({
    changes: t.field({ type: [RewindPath], description: 'Every path the rewind writes, sorted.', resolve: (c) => c.changes }),
    conflicts: t.exposeStringList('conflicts', {
      description:
        'Paths the user changed since the agent (or the last restore) left them, the ones a run would name in extensions.paths of its CONFLICT; the run is refused while there are any.',
    }),
    result: t.field({
      type: ProjectFilesResultRef,
      nullable: true,
      description: 'What was written and where it was recorded; null for a dry run.',
      resolve: (c) => c.done,
    }),
  }),
});

const RewindConversationRef = builder.objectRef<RewindConversation>('RewindConversation').implement({
  fields: (t) => ({
    fromTurn: t.field({ type: Turn, description: 'The turn the next user message forks from.', resolve: (c) => c.fromTurn }),
    branch: t.exposeString('branch', { description: 'The branch the later turns stay on.' }),
    laterTurns: t.exposeInt('laterTurns', { description: 'Turns after fromTurn on the branch: kept, never deleted.' }),
    moved: t.exposeBoolean('moved', { description: "Whether the session's view was moved to fromTurn (false for a dry run)." }),
  }),
});

const RewindResultRef = builder.objectRef<RewindResult>('RewindResult').implement({
  fields: (t) => ({
    turn: t.exposeInt('turn'),
    dryRun: t.exposeBoolean('dryRun'),
    code: t.field({ type: RewindCodeRef, nullable: true, description: 'Null when the code was not asked for.', resolve: (r) => r.code }),
    conversation: t.field({
      type: RewindConversationRef,
      nullable: true,
      description: 'Null when the conversation was not asked for.',
      resolve: (r) => r.conversation,
    }),
    undoTurn: t.int({
      nullable: true,
      description: "Rewind to this turn, with the same choices, to undo: the branch's newest turn. Null when that is the turn rewound to.",
      resolve: (r) => r.undoTurn,
    }),
    message: t.exposeString('message', { description: 'A sentence for the user: what it does (dry run) or did.' }),
  }),
});

const RewindInput = builder.inputType('RewindInput', {
  fields: (t) => ({
    sessionId: t.string({ required: true }),
    turn: t.int({ required: true, description: "A turn's number on the session's current branch; 0 (code only): before the first turn." }),
    code: t.boolean({ description: "Put the agent's project files back to their state after the turn. With neither code nor conversation given: both." }),
    conversation: t.boolean({ description: 'Make the next user message fork from the turn (later turns are kept on their branch).' }),
    dryRun: t.boolean({ description: 'Only say what it would do: each path and what it becomes, the conflicts, the fork.' }),
  }),
});

builder.mutationFields((t) => ({
  rewind: t.field({
    type: RewindResultRef,
    description:
      "Back to a turn: the agent's project files (as restoreProjectFiles: only the agent's paths, refused with CONFLICT and extensions.paths, writing nothing, where the user changed one), " +
      'the conversation (as checkout: the next user message forks from the turn), or both (the default). ' +
      'Refused with CONFLICT while a turn is open (the agent is at work). dryRun: true answers the plan and writes nothing. Undo by rewinding to undoTurn.',
    // A restore's cost, the plan's read of the working tree, and a checkout.
    complexity: 6 * QUERY_COST + 26 * GIT_PROCESS_COST,
    args: { input: t.arg({ type: RewindInput, required: true }) },
    resolve: (_root, { input }, ctx) => rewind(input, ctx.deps),
  }),
}));
