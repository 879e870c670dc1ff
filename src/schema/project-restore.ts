/**
 * Taking a skipped turn's edits later (applyTurnSnapshot, undone by
 * unapplyTurnSnapshot) and putting the agent's files back to an earlier turn
 * (restoreProjectFiles); RewindPath, one path of such a plan.
 */
import { ProjectFilesResultKind } from '../generated/prisma/enums.js';
import type { PlannedPath } from '../projects/restore.js';
import { applyTurnSnapshot, restoreProjectFiles, unapplyTurnSnapshot, type ProjectFilesResult } from '../services/projects/project-restore.js';
import { builder } from './builder.js';
import { Commit } from './commit.js';
import { GIT_PROCESS_COST, QUERY_COST } from './cost.js';

const ProjectFilesResultKindEnum = builder.enumType(ProjectFilesResultKind, {
  name: 'ProjectFilesResultKind',
  values: {
    APPLIED: {
      description:
        'The files were written into the working tree only, nothing staged or committed: applyTurnSnapshot and unapplyTurnSnapshot always; restoreProjectFiles when what it wrote is what HEAD holds (it undid uncommitted agent edits).',
    },
    COMMITTED: { description: 'restoreProjectFiles: the files were written and committed on the current branch by the agent.' },
    SNAPSHOT: {
      description:
        "restoreProjectFiles: the files were written into the working tree, but not committed (the user has other uncommitted changes, a git operation in progress, a detached HEAD, or auto-commit is off): the restore is kept as a commit on the private ref refs/entity-memory/snapshots/<session_id>/restore-<id>.",
    },
    NOTHING: { description: 'The working tree already held those states: nothing was written.' },
  } satisfies Record<ProjectFilesResultKind, { description: string }>,
});

const RewindPathAction = builder.enumType('RewindPathAction', {
  description: "What a rewind, a restore or a snapshot's apply does to a path of the agent.",
  values: {
    CREATE: { description: 'The file is written back: the agent had deleted it, or it was not there.' },
    MODIFY: { description: 'The file gets its content (or mode) of that turn back.' },
    DELETE: { description: 'The file is deleted: the agent made it after that turn.' },
  } as const,
});

export const RewindPath = builder.objectRef<PlannedPath>('RewindPath').implement({
  description: 'One path a rewind of the code, or a snapshot\'s apply (ProjectCommitOutcome.snapshotChanges), writes.',
  fields: (t) => ({
    path: t.exposeString('path'),
    action: t.field({
      type: RewindPathAction,
      resolve: (p) => (p.to.oid === null ? 'DELETE' : p.from.oid === null ? 'CREATE' : 'MODIFY'),
    }),
    fromOid: t.string({ nullable: true, description: 'The blob there before: what the agent (or the last restore) left (a rewind), what the working tree holds (a snapshot\'s apply); null: no file.', resolve: (p) => p.from.oid }),
    toOid: t.string({ nullable: true, description: 'The blob written; null for DELETE.', resolve: (p) => p.to.oid }),
    conflict: t.exposeBoolean('conflict', {
      description: 'The user changed the path since the agent left it (or since the snapshot was taken): the rewind, or the apply, is refused while any path says so.',
    }),
  }),
});

export const ProjectFilesResultRef = builder.objectRef<ProjectFilesResult>('ProjectFilesResult').implement({
  description: "What applyTurnSnapshot or restoreProjectFiles wrote into the project's working tree.",
  fields: (t) => ({
    paths: t.exposeStringList('paths', { description: 'The paths written into the working tree, sorted (none for NOTHING).' }),
    result: t.field({ type: ProjectFilesResultKindEnum, resolve: (r) => r.result }),
    commit: t.field({
      type: Commit,
      nullable: true,
      description:
        'COMMITTED: the restore commit; SNAPSHOT: the private snapshot commit; applyTurnSnapshot: the snapshot applied. Null otherwise. ' +
        "Git-backed: the project's folder is checked again (2 git processes) and the commit read.",
      complexity: 3 * GIT_PROCESS_COST,
      resolve: (r) => r.commit(),
    }),
    message: t.exposeString('message', { description: 'A sentence for the user: what was written, and whether and where it was recorded.' }),
  }),
});

const ProjectFilesInput = (name: string, turnDescription: string) =>
  builder.inputType(name, {
    fields: (t) => ({
      sessionId: t.string({ required: true }),
      turn: t.int({ required: true, description: turnDescription }),
    }),
  });

const ApplyTurnSnapshotInput = ProjectFilesInput(
  'ApplyTurnSnapshotInput',
  "The turn's number on the session's current branch (a SKIPPED_DIRTY or SKIPPED_BUSY turn, which keeps a snapshot).",
);

const RestoreProjectFilesInput = ProjectFilesInput(
  'RestoreProjectFilesInput',
  "The turn's number on the session's current branch whose end state to restore; 0 for before the first turn.",
);

// Git processes, as measured: the folder checked twice (before and under the lock: 4), the paths hashed (1, and one
// per symlink), the blobs checked and checked out (3).
const APPLY_COST = 3 * QUERY_COST + 8 * GIT_PROCESS_COST;
// As applying, plus HEAD (2), the operation, index-lock and status checks (3), HEAD's entries (1), the commit built (5),
// then the branch moved and the index brought up to date (4; a private ref instead: 1).
const RESTORE_COST = 4 * QUERY_COST + 23 * GIT_PROCESS_COST;

builder.mutationFields((t) => ({
  applyTurnSnapshot: t.field({
    type: ProjectFilesResultRef,
    description:
      "Writes a skipped turn's private snapshot (Turn.projectCommit.snapshot) into the project's working tree: HEAD, the index, branches and refs are not touched, and nothing is committed. " +
      'Refused with CONFLICT (extensions.paths), writing nothing, unless every path of the snapshot still holds what HEAD held when it was taken, or already the snapshot\'s content; ' +
      'BAD_USER_INPUT for a turn without a snapshot or a session without a project; NOT_FOUND for an unknown session or turn.',
    complexity: APPLY_COST,
    args: { input: t.arg({ type: ApplyTurnSnapshotInput, required: true }) },
    resolve: (_root, { input }, ctx) => applyTurnSnapshot(input, ctx.deps),
  }),
  unapplyTurnSnapshot: t.field({
    type: ProjectFilesResultRef,
    description:
      "Undoes applyTurnSnapshot: every path of the snapshot that holds its content gets back what HEAD held when the snapshot was taken; HEAD, the index, branches and refs are not touched, and nothing is committed. " +
      'Refused with CONFLICT (extensions.paths), writing nothing, when a path holds something else (you changed it since) or was committed since (it is your history now). NOTHING when the working tree does not hold the snapshot.',
    // As applying, plus HEAD and its entries (3).
    complexity: APPLY_COST + 3 * GIT_PROCESS_COST,
    args: { input: t.arg({ type: ApplyTurnSnapshotInput, required: true }) },
    resolve: (_root, { input }, ctx) => unapplyTurnSnapshot(input, ctx.deps),
  }),
  restoreProjectFiles: t.field({
    type: ProjectFilesResultRef,
    description:
      'Puts every path the agent touched in this session (along its current branch) back to its state after `turn` (0: before the first turn); never touches any other path. ' +
      'Refused with CONFLICT (extensions.paths), writing nothing, when any of those paths differs from what the agent, or the last restore, left there. ' +
      "Recorded: committed on the branch by the agent (`[agent <session_id>] restore to turn <N>`, trailers Session-Id and Restore-To) when the tree is otherwise clean, no git operation is in progress and HEAD is on a branch; " +
      'else written into the working tree and kept on a private ref (SNAPSHOT). Restoring to the later turn undoes it.',
    complexity: RESTORE_COST,
    args: { input: t.arg({ type: RestoreProjectFilesInput, required: true }) },
    resolve: (_root, { input }, ctx) => restoreProjectFiles(input, ctx.deps),
  }),
}));
