/**
 * exportContext: what the model saw for a turn's first call, written into the session repo on
 * request (src/services/replay/export-context.ts).
 */
import { exportContext, type ContextExport } from '../services/replay/export-context.js';
import { builder } from './builder.js';
import { GIT_PROCESS_COST, QUERY_COST } from './cost.js';
import { Message } from './message.js';

const ContextExportRef = builder.objectRef<ContextExport>('ContextExport').implement({
  description: "A turn's context written into its session repo: one JSON file in a commit of its own beside the branches.",
  fields: (t) => ({
    ref: t.exposeString('ref', { description: 'Where the commit is kept: refs/contexts/<branch>/<turn number>.' }),
    sha: t.exposeString('sha', { description: "The commit: the turn's tree plus the file; its parent the turn's commit." }),
    path: t.exposeString('path', { description: 'The file in it: commits/commit_<turn id>.json.' }),
    messages: t.field({ type: [Message], description: 'The messages written, oldest first.', resolve: (e) => e.messages }),
    compaction: t.field({ type: Message, nullable: true, description: 'The compact summary the context starts with, when the conversation was compacted before the turn.', resolve: (e) => e.compaction }),
  }),
});

const ExportContextInput = builder.inputType('ExportContextInput', {
  fields: (t) => ({
    sessionId: t.string({ required: true }),
    turn: t.int({ required: true, description: "The turn's number along the branch." }),
    branch: t.string({ description: "Default: the session's current branch." }),
  }),
});

builder.mutationFields((t) => ({
  exportContext: t.field({
    type: ContextExportRef,
    description:
      "Writes what the model saw for the turn's first call into the session repo (the seed's context commits; optional, never automatic): the turn's path up to its user message, from the last compaction on (the compact summary and what follows), as commits/commit_<turn id>.json in a commit whose parent is the turn's commit, kept on refs/contexts/<branch>/<number> so branches and turn counts are unchanged. Exporting again writes the same commit. CONFLICT while the turn's commit is not in the repo (the mirror behind, or the session archived).",
    complexity: 4 * QUERY_COST + 8 * GIT_PROCESS_COST,
    args: { input: t.arg({ type: ExportContextInput, required: true }) },
    resolve: (_root, { input }, ctx) => exportContext(input, ctx.deps),
  }),
}));
