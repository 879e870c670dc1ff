import { ProjectCommitResult } from '../generated/prisma/enums.js';
import { assertValidId } from '../ids.js';
import { addSessionToProject, createProject, importProjects, listProjects, updateProject } from '../services/projects/manage-projects.js';
import { listSessions } from '../services/sessions/read-session.js';
import {
  projectAutoCommit,
  projectHistory,
  projectNeedsInitialCommit,
  turnProjectCommit,
  workingTree,
  type ProjectAutoCommit,
  type ProjectCommitOutcome,
} from '../services/projects/read-projects.js';
import { builder } from './builder.js';
import { serviceThenRow } from './refetch.js';
import { Commit, CommitConnection } from './commit.js';
import { pageTotalCount } from './connection.js';
import { connectionCost, FIRST_ARG_DESCRIPTION, GIT_PROCESS_COST, listCost } from './cost.js';
import { projectBlame, projectFileHistory, type BlameLines, type FileCommit } from '../services/projects/attribution.js';
import { ProjectAutoCommitStateEnum, ProjectStatusEnum } from './enums.js';
import { Session, SessionConnection } from './session.js';
import { RewindPath } from './project-restore.js';
import { Turn } from './turn.js';

const WorkingTreeStatus = builder
  .objectRef<{ isRepo: boolean; clean: boolean; branch: string | null; dirtyPaths: string[] }>('WorkingTreeStatus')
  .implement({
    fields: (t) => ({
      isRepo: t.exposeBoolean('isRepo'),
      clean: t.exposeBoolean('clean'),
      branch: t.exposeString('branch', { nullable: true }),
      dirtyPaths: t.exposeStringList('dirtyPaths'),
    }),
  });

const ProjectAutoCommitRef = builder.objectRef<ProjectAutoCommit>('ProjectAutoCommit').implement({
  description: "Whether the agent's edits are committed in this project, read from the repo and its config on every request.",
  fields: (t) => ({
    state: t.field({ type: ProjectAutoCommitStateEnum, resolve: (a) => a.state }),
    unsafeKeys: t.exposeStringList('unsafeKeys', {
      description: 'Config keys that make git run a program and cannot be switched off per call (filter drivers: filter.<name>.clean, .smudge, .process).',
    }),
    message: t.exposeString('message', {
      nullable: true,
      description: 'Why auto-commit is off, with the keys, where they are set and how to opt in; null when ENABLED or TRUSTED.',
    }),
  }),
});

export const Project = builder.prismaNode('Project', {
  id: { field: 'projectId' },
  fields: (t) => ({
    projectId: t.exposeString('projectId'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    workdir: t.exposeString('workdir', { description: "Absolute path of the user's working directory." }),
    attributeUnmarkedTurns: t.exposeBoolean('attributeUnmarkedTurns', {
      description:
        "Opt-in, default false: a turn closed with neither touchedPaths nor a known start commits what changed since the session's previous turn as the agent's (an edit of the user's in that window would be taken too). False: such a turn is SKIPPED_UNATTRIBUTED.",
    }),
    status: t.expose('status', { type: ProjectStatusEnum }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    sessions: t.connection(
      { type: Session, resolve: (project, args, ctx) => listSessions(ctx.deps.db, { ...args, projectId: project.projectId }) },
      SessionConnection,
    ),
    history: t.connection(
      {
        type: Commit,
        description: "Commits of the project repo, newest first (the agent's and the user's).",
        // Checking the folder and reading its config (2 processes), the page, its count and HEAD.
        complexity: connectionCost(5 * GIT_PROCESS_COST),
        resolve: (project, args, ctx) => projectHistory(project, args, ctx.deps),
      },
      CommitConnection,
    ),
    blame: t.field({
      type: [BlameRangeRef],
      description:
        "Which commit last changed each line of a file, as ranges in line order, and who made it: AGENT for a commit a turn (or a restore) of a session recorded as its project commit, with the session and turn; USER for any other. " +
        'path: relative to the repo root; rev: HEAD (default) or a commit sha. Git-backed: the folder checked, git blame, the commits read (one process).',
      args: { path: t.arg.string({ required: true }), rev: t.arg.string() },
      complexity: listCost(6 * GIT_PROCESS_COST),
      resolve: (project, args, ctx) => projectBlame(project, args, ctx.deps),
    }),
    fileHistory: t.field({
      type: FileCommitConnection,
      description: "The commits of the current branch that changed a file, newest first, each with who made it (as blame). Git-backed: the folder checked, the page and its count.",
      args: { path: t.arg.string({ required: true }), first: t.arg.int({ description: FIRST_ARG_DESCRIPTION }), after: t.arg.string() },
      complexity: connectionCost(6 * GIT_PROCESS_COST),
      resolve: (project, args, ctx) => projectFileHistory(project, args, ctx.deps),
    }),
    workingTree: t.field({
      type: WorkingTreeStatus,
      description: 'Git-backed: the folder is checked and its config read (2 git processes), then git status.',
      complexity: 3 * GIT_PROCESS_COST,
      resolve: (project, _args, ctx) => workingTree(project, ctx.deps),
    }),
    autoCommit: t.field({
      type: ProjectAutoCommitRef,
      description:
        "Whether the agent's edits are committed here; off for a repo whose config defines filter drivers until the user trusts it. Git-backed: 2 git processes.",
      complexity: 2 * GIT_PROCESS_COST,
      resolve: (project, _args, ctx) => projectAutoCommit(project, ctx.deps),
    }),
    needsInitialCommit: t.boolean({
      description:
        "True while the repo has no commit yet (unborn HEAD) and non-ignored files are there: every file then counts as the user's uncommitted change, so no agent edit is committed (each turn is SKIPPED_DIRTY) until the user makes a first commit. False when the folder cannot be used now (see autoCommit). Git-backed: the folder is checked and its config read (2 git processes), then git status.",
      complexity: 3 * GIT_PROCESS_COST,
      resolve: (project, _args, ctx) => projectNeedsInitialCommit(project, ctx.deps),
    }),
  }),
});

export const ProjectConnection = builder.connectionObject(
  {
    type: Project,
    name: 'ProjectConnection',
    fields: (t) => ({ totalCount: t.int({ resolve: pageTotalCount }) }),
  },
  { name: 'ProjectEdge' },
);

const ProjectCommitResultEnum = builder.enumType(ProjectCommitResult, {
  name: 'ProjectCommitResult',
  values: {
    PENDING: { description: "The turn closed and its edits were captured; the commit has not run yet." },
    COMMITTED: { description: "The agent's edits were committed." },
    NOTHING_TO_COMMIT: { description: 'Nothing had changed.' },
    SKIPPED_DIRTY: {
      description:
        "The user had uncommitted changes (dirty when the turn began, or outside its touchedPaths): nothing of the user's was touched, a warning was sent, and the agent's edits are kept as a snapshot.",
    },
    SKIPPED_BUSY: {
      description:
        "The user is in the middle of a git operation (merge, cherry-pick, revert, rebase, am, bisect), HEAD is detached, or the branch moved over the agent's paths: nothing was touched, a warning was sent, and the agent's edits are kept as a snapshot.",
    },
    SKIPPED_UNATTRIBUTED: {
      description:
        "The turn closed with neither touchedPaths nor a known start (startedAt, or a USER message appended before the close), so the paths changed since the session's previous turn cannot be told from the user's: nothing was committed or touched, a warning was sent, and those paths are kept as a snapshot. Send touchedPaths (or startedAt) with recordTurn, or set Project.attributeUnmarkedTurns.",
    },
    FAILED: { description: 'The commit could not be made (see message and reason); transient failures are retried before this.' },
  } satisfies Record<ProjectCommitResult, { description: string }>,
});

const ProjectCommitOutcomeRef = builder.objectRef<ProjectCommitOutcome>('ProjectCommitOutcome').implement({
  description:
    "What the end of a turn did in the project's repo. The agent's paths are captured when the turn closes; the commit holds exactly " +
    'that state, built on HEAD without touching any other path, and is skipped (with a private snapshot) when the user has other ' +
    'uncommitted changes or a git operation in progress.',
  fields: (t) => ({
    result: t.field({ type: ProjectCommitResultEnum, resolve: (o) => o.result }),
    commit: t.field({
      type: Commit,
      nullable: true,
      description: "The agent's commit. Git-backed: the project's folder is checked again (2 git processes) and the commit read.",
      complexity: 3 * GIT_PROCESS_COST,
      resolve: (o) => o.commit(),
    }),
    commitSha: t.exposeString('commitSha', {
      nullable: true,
      description: "The agent's commit's sha as recorded when it was made: from the database, no git (a long list of turns can ask for it; commit reads the commit itself).",
    }),
    snapshotSha: t.exposeString('snapshotSha', {
      nullable: true,
      description: 'The snapshot commit\'s sha as recorded (SKIPPED_DIRTY, SKIPPED_BUSY, SKIPPED_UNATTRIBUTED): from the database, no git.',
    }),
    dirtyPaths: t.exposeStringList('dirtyPaths', { description: "SKIPPED_DIRTY: the user's uncommitted paths that were in the way." }),
    message: t.exposeString('message', { nullable: true, description: 'A sentence for the user: what happened and what to do.' }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'Why the turn was skipped or failed, in a few words: the operation in progress, the paths in the way, the error.',
    }),
    paths: t.exposeStringList('paths', { description: 'The paths the agent changed in this turn (captured at its close), sorted.' }),
    snapshot: t.field({
      type: Commit,
      nullable: true,
      description:
        "SKIPPED_DIRTY or SKIPPED_BUSY: the agent's end-of-turn state as a commit on HEAD at that moment, kept on the private ref " +
        'refs/entity-memory/snapshots/<session_id>/turn-<N> (on another branch than main: …/<branch>/turn-<N>); apply it with applyTurnSnapshot. Git-backed.',
      complexity: 3 * GIT_PROCESS_COST,
      resolve: (o) => o.snapshot(),
    }),
    snapshotApplied: t.boolean({
      nullable: true,
      description:
        "Whether the working tree holds the snapshot's files now, path for path (applied with applyTurnSnapshot or by hand); null without a snapshot or when the project's folder cannot be used. Git-backed: the folder is checked again and the paths hashed.",
      complexity: 3 * GIT_PROCESS_COST,
      resolve: (o) => o.snapshotApplied(),
    }),
    snapshotConflicts: t.stringList({
      nullable: true,
      description:
        "The paths that would refuse applyTurnSnapshot now (CONFLICT): each holds neither what HEAD held when the snapshot was taken nor the snapshot's content, or is a folder now; [] when it would apply. " +
        'Null without a snapshot or when the project\'s folder cannot be used. Git-backed, as snapshotApplied: a preview of the apply.',
      complexity: 3 * GIT_PROCESS_COST,
      resolve: (o) => o.snapshotConflicts(),
    }),
    snapshotChanges: t.field({
      type: [RewindPath],
      nullable: true,
      description:
        "What applyTurnSnapshot would write now, sorted: each path whose content it changes, from what the working tree holds to the snapshot's state, and whether it is in the way (snapshotConflicts). [] when the tree already holds the snapshot. " +
        "Null without a snapshot or when the project's folder cannot be used. Git-backed, as snapshotApplied: a preview of the apply.",
      complexity: 3 * GIT_PROCESS_COST,
      resolve: (o) => o.snapshotChanges(),
    }),
  }),
});

const LineOriginEnum = builder.enumType('LineOrigin', {
  values: {
    AGENT: { description: 'A commit a turn (or a restore) of a session recorded as its project commit.' },
    USER: { description: 'Any other commit: the user\'s, or another tool\'s.' },
  } as const,
});

/** Who made a commit: the same three fields on BlameRange and FileCommit. */
const ORIGIN_DESCRIPTIONS = {
  session: "The agent's session (AGENT).",
  turn: "The agent's turn (AGENT; null for a restore): its commit in the session repo opens the conversation there.",
  turnNumber: 'The turn whose project commit it is (AGENT; null for a restore).',
};

const BlameRangeRef = builder.objectRef<BlameLines>('BlameRange').implement({
  description: 'Lines [startLine, endLine] (1-based, inclusive) of a file last changed by one commit.',
  fields: (t) => ({
    startLine: t.exposeInt('startLine'),
    endLine: t.exposeInt('endLine'),
    lines: t.exposeStringList('lines', { description: "The lines' text at the rev blamed, without their line ends." }),
    commit: t.field({ type: Commit, resolve: (range) => range.commit }),
    origin: t.field({ type: LineOriginEnum, resolve: (range) => range.origin }),
    session: t.field({ type: Session, nullable: true, description: ORIGIN_DESCRIPTIONS.session, resolve: (range) => range.session }),
    turnNumber: t.exposeInt('turnNumber', { nullable: true, description: ORIGIN_DESCRIPTIONS.turnNumber }),
    turn: t.field({ type: Turn, nullable: true, description: ORIGIN_DESCRIPTIONS.turn, resolve: (range) => range.turn }),
  }),
});

const FileCommitRef = builder.objectRef<FileCommit>('FileCommit').implement({
  description: 'A commit that changed a file, and who made it.',
  fields: (t) => ({
    commit: t.field({ type: Commit, resolve: (entry) => entry.commit }),
    origin: t.field({ type: LineOriginEnum, resolve: (entry) => entry.origin }),
    session: t.field({ type: Session, nullable: true, description: ORIGIN_DESCRIPTIONS.session, resolve: (entry) => entry.session }),
    turnNumber: t.exposeInt('turnNumber', { nullable: true, description: ORIGIN_DESCRIPTIONS.turnNumber }),
    turn: t.field({ type: Turn, nullable: true, description: ORIGIN_DESCRIPTIONS.turn, resolve: (entry) => entry.turn }),
  }),
});

const FileCommitConnection = builder.connectionObject(
  { type: FileCommitRef, name: 'FileCommitConnection', fields: (t) => ({ totalCount: t.int({ resolve: pageTotalCount }) }) },
  { name: 'FileCommitEdge' },
);

builder.prismaObjectField(Turn, 'projectCommit', (t) =>
  t.field({
    type: ProjectCommitOutcomeRef,
    nullable: true,
    description:
      "What happened in the bound project's repo at the end of this turn: PENDING from the closing mutation until the commit has run; null if the session has no project.",
    // Read from the turn's row; only its commit field reaches git.
    complexity: 1,
    resolve: (turn, _args, ctx) => turnProjectCommit(ctx.deps, turn),
  }),
);

builder.queryFields((t) => ({
  project: t.prismaField({
    type: 'Project',
    nullable: true,
    args: { projectId: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      assertValidId(args.projectId, 'projectId');
      return ctx.deps.db.project.findUnique({ ...query, where: { projectId: args.projectId } });
    },
  }),
  projects: t.connection(
    {
      type: Project,
      args: { status: t.arg({ type: ProjectStatusEnum }) },
      resolve: (_root, args, ctx) => listProjects(ctx.deps, args),
    },
    ProjectConnection,
  ),
}));

const CreateProjectInput = builder.inputType('CreateProjectInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    workdir: t.string({
      required: true,
      description: "Absolute path of an existing directory inside the server's allowed roots; git init is run if it is not a repo (see initialCommit).",
    }),
    description: t.string(),
    status: t.field({ type: ProjectStatusEnum }),
    initialCommit: t.boolean({
      defaultValue: false,
      description:
        "Only when git init runs (the folder is not a repo yet) and the folder has files: true makes one first commit of its non-ignored files (.gitignore and your excludes hold), authored and committed by your git identity (user.name, user.email as git config gives them there), else entity-memory <setup@openprogram.invalid>; hooks and signing off. Refused with BAD_USER_INPUT, creating nothing, when git config defines filter drivers (filter.<name>.clean|smudge|process). No commit, and no error, for an empty folder or a folder that is already a repo. Default false: no commit, and Project.needsInitialCommit stays true until you make one, since until then every file counts as your uncommitted change and the agent's edits are not committed.",
    }),
  }),
});

const UpdateProjectInput = builder.inputType('UpdateProjectInput', {
  fields: (t) => ({
    projectId: t.string({ required: true }),
    name: t.string(),
    description: t.string(),
    status: t.field({ type: ProjectStatusEnum }),
    trustRepoConfig: t.boolean({
      description:
        "true: let the agent's commit run the filter drivers the repo's config defines now (Project.autoCommit.unsafeKeys); a later change to them turns auto-commit off again. false: withdraw the trust.",
    }),
    attributeUnmarkedTurns: t.boolean({ description: 'See Project.attributeUnmarkedTurns.' }),
  }),
});

const AddSessionToProjectInput = builder.inputType('AddSessionToProjectInput', {
  fields: (t) => ({
    sessionId: t.string({ required: true }),
    projectId: t.string({ required: true }),
  }),
});

const ImportProjectsInput = builder.inputType('ImportProjectsInput', {
  fields: (t) => ({
    root: t.string({ required: true, description: 'A directory inside the allowed roots, scanned for existing git repos.' }),
    maxDepth: t.int(),
  }),
});

builder.mutationFields((t) => ({
  createProject: t.prismaField({
    type: 'Project',
    args: { input: t.arg({ type: CreateProjectInput, required: true }) },
    resolve: serviceThenRow('Project', createProject),
  }),
  updateProject: t.prismaField({
    type: 'Project',
    args: { input: t.arg({ type: UpdateProjectInput, required: true }) },
    resolve: serviceThenRow('Project', updateProject),
  }),
  addSessionToProject: t.prismaField({
    type: 'Session',
    args: { input: t.arg({ type: AddSessionToProjectInput, required: true }) },
    resolve: serviceThenRow('Session', addSessionToProject),
  }),
  importProjects: t.field({
    type: [Project],
    args: { input: t.arg({ type: ImportProjectsInput, required: true }) },
    resolve: (_root, { input }, ctx) => importProjects(input, ctx.deps),
  }),
}));
