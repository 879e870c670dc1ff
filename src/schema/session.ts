import { queryFromInfo } from '@pothos/plugin-prisma';
import { BranchKind } from '../generated/prisma/enums.js';
import { createSession } from '../services/sessions/create-session.js';
import { getMessage, getSession, listBranchMessages, listBranchTurns, listSessions } from '../services/sessions/read-session.js';
import { gitCanRead, sessionCommit, shaCommitRef, timeline, type MirrorStatus as MirrorStatusShape } from '../services/replay/read-commits.js';
import { isFullSha } from '../git/index.js';
import { archiveOf, sessionRepoPath, type ArchiveManifest } from '../mirror/index.js';
import { unarchiveSession } from '../services/sessions/unarchive.js';
import { checkout } from '../services/replay/checkout.js';
import { sessionBranches, sessionHead, type BranchView } from '../services/replay/read-branches.js';
import { switchBranch } from '../services/replay/switch-branch.js';
import { isRecording, RECORDING_WINDOW_MS } from '../services/sessions/recording.js';
import { isValidId } from '../ids.js';
import { loaders } from './loaders.js';
import { builder } from './builder.js';
import { serviceThenRow } from './refetch.js';
import { asksGitFields, Commit, CommitConnection } from './commit.js';
import { asksForRows, pageTotalCount } from './connection.js';
import { Message, MessageConnection } from './message.js';
import { Turn, TurnConnection } from './turn.js';
import { connectionCost, GIT_PROCESS_COST, listCost, pageMultiplier, QUERY_COST, SHARED_GIT_COST } from './cost.js';

const MirrorStatus = builder.objectRef<MirrorStatusShape>('MirrorStatus').implement({
  fields: (t) => ({
    dagTurns: t.exposeInt('dagTurns', { description: 'Closed turns in the DAG, all branches.' }),
    gitCommits: t.exposeInt('gitCommits', { description: 'Turn commits in the session repo, all branches.' }),
    pending: t.exposeInt('pending'),
    inSync: t.exposeBoolean('inSync'),
    lastError: t.exposeString('lastError', { nullable: true }),
    lastCommittedAt: t.expose('lastCommittedAt', { type: 'DateTime', nullable: true }),
  }),
});

const SessionArchive = builder.objectRef<ArchiveManifest>('SessionArchive').implement({
  description: 'An archived session repo (entity-memory archive).',
  fields: (t) => ({
    archivedAt: t.field({ type: 'DateTime', resolve: (a) => new Date(a.archivedAt) }),
    repoBytes: t.float({ description: 'Bytes on disk the repo took before it was archived.', resolve: (a) => a.repoBytes }),
    bundleBytes: t.float({ description: 'Bytes of the bundle that holds it now.', resolve: (a) => a.bundleBytes }),
  }),
});

const BranchKindEnum = builder.enumType(BranchKind, { name: 'BranchKind' });

const Branch = builder.node(builder.objectRef<BranchView>('Branch'), {
  description: "A branch of a session: main, a retry's or a fork's.",
  // Its session and name: "<sessionId>:<name>".
  id: { resolve: (b) => `${b.sessionId}:${b.name}` },
  loadOne: async (key, ctx) => {
    const at = key.indexOf(':');
    const sessionId = key.slice(0, at);
    if (at < 1 || !isValidId(sessionId)) return null;
    const session = await ctx.deps.db.session.findUnique({ where: { sessionId } });
    return session ? ((await sessionBranches(ctx.deps, session)).find((b) => b.name === key.slice(at + 1)) ?? null) : null;
  },
  fields: (t) => ({
    name: t.exposeString('name'),
    kind: t.expose('kind', { type: BranchKindEnum }),
    isCurrent: t.exposeBoolean('isCurrent'),
    head: t.field({ type: Commit, nullable: true, complexity: SHARED_GIT_COST, resolve: (b) => b.head() }),
    forkPoint: t.field({
      type: Commit,
      nullable: true,
      description: 'The commit this branch grew from (null for main).',
      complexity: SHARED_GIT_COST,
      resolve: (b) => b.forkPoint(),
    }),
  }),
});

export const Session = builder.prismaNode('Session', {
  id: { field: 'sessionId' },
  fields: (t) => ({
    sessionId: t.exposeString('sessionId'),
    title: t.exposeString('title', { nullable: true }),
    agentId: t.exposeString('agentId', { nullable: true }),
    model: t.exposeString('model', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    lastActivityAt: t.field({
      type: 'DateTime',
      description:
        "When the session last had something written: its newest message's time (for an import or a hook event, the agent's own time), or createdAt when it has none. The sessions of a page are read together.",
      complexity: 1,
      resolve: (session, _args, ctx) => loaders(ctx).lastActivity.load(session),
    }),
    project: t.relation('project', { nullable: true }),
    currentBranch: t.exposeString('currentBranch', {
      description: 'The branch new messages go to (main, retry-<assistant_id>, fork-<message_id>).',
    }),
    archive: t.field({
      type: SessionArchive,
      nullable: true,
      description:
        'Set while the session repo is archived (entity-memory archive): kept as one git bundle, its rows here as ever, its git-backed fields (timeline, commits, diffs) empty until unarchiveSession, a checkout or a new turn brings the repo back. Null otherwise.',
      resolve: (session, _args, ctx) => archiveOf(ctx.deps.config, session.sessionId),
    }),
    repoPath: t.string({
      description: 'Absolute path of the session repo on the server\'s disk.',
      resolve: (session, _args, ctx) => sessionRepoPath(ctx.deps.config, session.sessionId),
    }),
    timeline: t.connection(
      {
        type: Commit,
        description: 'Commits newest first; of currentBranch unless branch is given, of every branch if all is true.',
        args: { branch: t.arg.string(), all: t.arg.boolean() },
        // A branch's: from the database (the branch, its tip, its path, the page, its count), its git fields read
        // lazily, one process per session. all: git for the tips, the page and its count.
        complexity: (args: { first?: number | null; last?: number | null; all?: boolean | null }) => ({
          // Backward along every branch, the page's position comes from a count of them all.
          field: args.all ? QUERY_COST + (args.last != null ? 4 : 3) * GIT_PROCESS_COST : 6 * QUERY_COST,
          multiplier: pageMultiplier(args.first, args.last),
        }),
        resolve: async (session, args, ctx, info) => {
          const page = await timeline(ctx.deps, session, { ...args, countOnly: !asksForRows(info) }, loaders(ctx).reads);
          // Empty while the repo cannot give the git fields asked for (being rebuilt), as before.
          if (page.edges.length > 0 && asksGitFields(info, ['edges', 'node']) && !(await gitCanRead(page.edges.map((e) => e.node)))) {
            return { ...page, edges: [], pageInfo: { ...page.pageInfo, hasNextPage: false, startCursor: null, endCursor: null }, totalCount: async () => 0 };
          }
          return page;
        },
      },
      CommitConnection,
    ),
    commit: t.field({
      type: Commit,
      nullable: true,
      args: { sha: t.arg.string({ required: true }) },
      complexity: 2 * GIT_PROCESS_COST,
      resolve: async (session, args, ctx, info) => {
        // A turn's commit asked only for what the database holds (sha, turn): no git process, as Turn.commit.
        if (isFullSha(args.sha) && !asksGitFields(info)) {
          const turn = await ctx.deps.db.turn.findFirst({ where: { sessionId: session.sessionId, commitSha: args.sha }, select: { id: true } });
          if (turn) return shaCommitRef(ctx.deps, session.sessionId, args.sha);
        }
        return sessionCommit(ctx.deps, session, args.sha);
      },
    }),
    mirror: t.field({
      type: MirrorStatus,
      // From the database only, the sessions of a page together: a few statements for all of them.
      complexity: 1,
      resolve: (session, _args, ctx) => loaders(ctx).mirror.load(session),
    }),
    head: t.field({
      type: Commit,
      nullable: true,
      description: 'The commit being viewed: the tip of currentBranch, or an older commit after checkout.',
      // From the database; its git fields read lazily.
      complexity: QUERY_COST,
      resolve: async (session, _args, ctx, info) => {
        const head = await sessionHead(ctx.deps, session, loaders(ctx).reads);
        return head && asksGitFields(info) && !(await gitCanRead([head])) ? null : head;
      },
    }),
    detached: t.boolean({
      description: 'True when head is an older commit (replay); the next user message forks from it.',
      resolve: (session) => session.viewTurnId !== null,
    }),
    branches: t.field({
      type: [Branch],
      description: 'Every branch, oldest first. Git-backed: one process for the tips, one more for the heads and fork points asked for.',
      complexity: listCost(2 * QUERY_COST + GIT_PROCESS_COST),
      resolve: (session, _args, ctx) => sessionBranches(ctx.deps, session),
    }),
    messages: t.connection(
      {
        type: Message,
        description:
          'Messages on the path from the first message to the tip of branch (currentBranch by default), in seq order.',
        args: { branch: t.arg.string() },
        // The branch path (branches, fork points), then the page and its count.
        complexity: connectionCost(4 * QUERY_COST),
        resolve: (session, args, ctx, info) =>
          listBranchMessages(ctx.deps.db, session, { ...args, countOnly: !asksForRows(info) }, queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }), loaders(ctx).reads),
      },
      MessageConnection,
    ),
    message: t.prismaField({
      type: 'Message',
      nullable: true,
      description:
        'One message of this session by its messageId, on any branch; null when there is none. A runtime whose write got no answer looks here for what it stored.',
      args: { messageId: t.arg.string({ required: true }) },
      complexity: QUERY_COST,
      resolve: (query, session, args, ctx) => getMessage(ctx.deps.db, session.sessionId, args.messageId, query),
    }),
    openTurn: t.prismaField({
      type: 'Turn',
      nullable: true,
      description:
        'The turn messages are being added to now (its messages arrive live on Subscription.turnUpdated); null when no turn is open. It has no commit until it closes.',
      complexity: QUERY_COST,
      resolve: (query, session, _args, ctx) => (session.openTurnId === null ? null : ctx.deps.db.turn.findUnique({ ...query, where: { id: session.openTurnId } })),
    }),
    recording: t.boolean({
      description: `True while the session's agent is live: a turn is open and its newest message is less than ${RECORDING_WINDOW_MS / 60_000} minutes old. False between turns, and for an open turn nothing has reached for longer (an agent that stopped without closing it, an import that ended mid-turn).`,
      complexity: QUERY_COST,
      resolve: (session, _args, ctx) => isRecording(ctx.deps, session),
    }),
    turns: t.connection(
      {
        type: Turn,
        description: 'Turns along branch (currentBranch by default), oldest first.',
        args: { branch: t.arg.string() },
        complexity: connectionCost(4 * QUERY_COST),
        resolve: (session, args, ctx, info) =>
          listBranchTurns(ctx.deps.db, session, { ...args, countOnly: !asksForRows(info) }, queryFromInfo({ context: ctx, info, path: ['edges', 'node'] }), loaders(ctx).reads),
      },
      TurnConnection,
    ),
  }),
});

export const SessionConnection = builder.connectionObject(
  {
    type: Session,
    name: 'SessionConnection',
    fields: (t) => ({ totalCount: t.int({ resolve: pageTotalCount }) }),
  },
  { name: 'SessionEdge' },
);

builder.queryFields((t) => ({
  session: t.prismaField({
    type: 'Session',
    nullable: true,
    args: { sessionId: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => getSession(ctx.deps.db, args.sessionId, query),
  }),
  sessions: t.connection(
    {
      type: Session,
      description: 'Sessions newest first (by when they started); each filter given narrows the list.',
      args: {
        projectId: t.arg.string({ description: 'Only the sessions of this project.' }),
        agent: t.arg.string({
          description: "Only the sessions of this agent: its agentId, or for an import without one its source (claude-code, codex, gemini, chat).",
        }),
        startedAfter: t.arg({ type: 'DateTime', description: 'Only the sessions started at or after this time.' }),
        startedBefore: t.arg({ type: 'DateTime', description: 'Only the sessions started before this time.' }),
      },
      resolve: (_root, args, ctx) => listSessions(ctx.deps.db, args),
    },
    SessionConnection,
  ),
}));

const CreateSessionInput = builder.inputType('CreateSessionInput', {
  fields: (t) => ({
    sessionId: t.string({
      description:
        "Chosen by the caller or generated: 1 to 128 of letters, digits, '.', '_' and '-', starting with a letter or digit; no '..', and not ending in '.' or '.lock' (ids become parts of git branch names).",
    }),
    title: t.string(),
    agentId: t.string(),
    model: t.string(),
    projectId: t.string(),
  }),
});

const CheckoutInput = builder.inputType('CheckoutInput', {
  fields: (t) => ({
    sessionId: t.string({ required: true }),
    sha: t.string({ required: true, description: 'A full or abbreviated (at least 7 hex digits) commit sha of the session repo.' }),
  }),
});

const UnarchiveSessionInput = builder.inputType('UnarchiveSessionInput', {
  fields: (t) => ({ sessionId: t.string({ required: true }) }),
});

const SwitchBranchInput = builder.inputType('SwitchBranchInput', {
  fields: (t) => ({
    sessionId: t.string({ required: true }),
    branch: t.string({ required: true }),
  }),
});

builder.mutationFields((t) => ({
  checkout: t.prismaField({
    type: 'Session',
    description: "Moves the session's view to an older commit (read-only replay); history after it is kept.",
    args: { input: t.arg({ type: CheckoutInput, required: true }) },
    resolve: serviceThenRow('Session', checkout),
  }),
  unarchiveSession: t.prismaField({
    type: 'Session',
    description:
      'Brings an archived session repo back from its bundle, as it was (the same refs and commits, HEAD where it was); a session that is not archived is answered as it is. CONFLICT (extensions.archive "damaged") when the archive cannot give it back.',
    args: { input: t.arg({ type: UnarchiveSessionInput, required: true }) },
    resolve: serviceThenRow('Session', unarchiveSession),
  }),
  switchBranch: t.prismaField({
    type: 'Session',
    args: { input: t.arg({ type: SwitchBranchInput, required: true }) },
    resolve: serviceThenRow('Session', switchBranch),
  }),
}));

builder.mutationFields((t) => ({
  createSession: t.prismaField({
    type: 'Session',
    args: { input: t.arg({ type: CreateSessionInput, required: true }) },
    resolve: serviceThenRow('Session', createSession),
  }),
}));
