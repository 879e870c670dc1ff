/**
 * Live updates over graphql-ws. The pubsub carries ids; each event is loaded
 * from the database (and the repo) when it is sent, once per event for all its
 * subscribers (src/schema/shared-events.ts): the rows and the commit behind an
 * event's fields are loaded by the first subscriber that asks and shared.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { assertValidId } from '../ids.js';
import { isFullSha } from '../git/index.js';
import { sessionCommit, shaCommitRef, type CommitRef } from '../services/replay/read-commits.js';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { TIMELINE_KINDS, type TurnUpdatedPayload, type DirtyTreeWarningPayload, type MirrorFailedPayload, type ProjectCommittedPayload, type TimelinePayload, type TurnCommittedPayload } from '../pubsub.js';
import { requireProject } from '../services/projects/manage-projects.js';
import { projectReader } from '../services/projects/read-projects.js';
import { Project } from './project.js';
import type { Context } from '../context.js';
import { builder } from './builder.js';
import { assertSubscriptionCost, GIT_PROCESS_COST, listCost, QUERY_COST } from './cost.js';
import { Commit } from './commit.js';
import { Session } from './session.js';
import { Turn } from './turn.js';
import { Message } from './message.js';
import { eventField } from './shared-events.js';
import { loaders, type TurnQuery } from './loaders.js';

interface TurnCommittedEvent {
  payload: TurnCommittedPayload;
}

/** An event's session row, read once for all its subscribers and fields (a burst's, by one statement). */
function eventSession(ctx: Context, payload: { sessionId: string }) {
  return eventField(payload, 'session', () => loaders(ctx).sessions.load(payload.sessionId));
}

/**
 * An event's turn with what the field's selection needs of its relations (its messages, its
 * user message), read once per selection for all its subscribers; the turns of a burst's events
 * by one findMany (src/schema/loaders.ts). Loaded bare, each relation was a batch of its own.
 */
function eventTurn(ctx: Context, payload: { turnId: string }, info: GraphQLResolveInfo) {
  const query = queryFromInfo({ context: ctx, info }) as TurnQuery;
  const key = JSON.stringify(query);
  return eventField(payload, `turn ${key}`, () => loaders(ctx).turns(key, query).load(payload.turnId));
}

/** An event's project row, read once for all its subscribers. */
function eventProject(ctx: Context, payload: { projectId: string }) {
  return eventField(payload, 'project', () => requireProject(ctx.deps, payload.projectId));
}

/**
 * An event's commit, once for all its subscribers. A full sha (what the mirror announces, after
 * its commit landed and was recorded) needs no git process: sha, shortSha and headline come from
 * it and the database, and a git-backed field (message, author, files...) is read when asked,
 * with the other commits asked for in the same tick (the events of a burst share one git
 * process). Reading the commit first cost every event a git process on the mirror's busy repo,
 * whatever its selection: a burst of 15 events waited 149 ms for it (bench/fanout.ts, 1
 * subscriber), 90 ms without.
 */
function eventCommit(ctx: Context, payload: { sessionId: string }, sha: string) {
  return eventField(payload, 'commit', async (): Promise<CommitRef | null> => {
    // eventScoped: Commit.files lists what the commit changed, not the session's whole tree.
    if (!isFullSha(sha)) {
      const read = await sessionCommit(ctx.deps, await eventSession(ctx, payload), sha);
      return read && { ...read, eventScoped: true };
    }
    return { ...shaCommitRef(ctx.deps, payload.sessionId, sha), eventScoped: true };
  });
}

const TurnCommittedEventRef = builder.objectRef<TurnCommittedEvent>('TurnCommittedEvent').implement({
  fields: (t) => ({
    session: t.field({ type: Session, resolve: (e, _a, ctx) => eventSession(ctx, e.payload) }),
    turn: t.field({
      type: Turn,
      resolve: (e, _a, ctx, info) => eventTurn(ctx, e.payload, info),
    }),
    commit: t.field({
      type: Commit,
      complexity: QUERY_COST + 2 * GIT_PROCESS_COST,
      resolve: async (e, _a, ctx) => {
        const commit = await eventCommit(ctx, e.payload, e.payload.sha);
        if (!commit) throw new Error(`commit ${e.payload.sha} is gone from session ${e.payload.sessionId}`);
        return commit;
      },
    }),
  }),
});

const MirrorFailure = builder.objectRef<MirrorFailedPayload>('MirrorFailure').implement({
  fields: (t) => ({
    session: t.field({ type: Session, resolve: (e, _a, ctx) => eventSession(ctx, e) }),
    turnNumber: t.exposeInt('turnNumber'),
    error: t.exposeString('error'),
    willRetry: t.exposeBoolean('willRetry'),
  }),
});

const TurnUpdatedEvent = builder.objectRef<TurnUpdatedPayload>('TurnUpdatedEvent').implement({
  description: "A write to a session's turn before its commit: messages added to the open turn as they arrive, or the turn's close.",
  fields: (t) => ({
    session: t.field({ type: Session, resolve: (e, _a, ctx) => eventSession(ctx, e) }),
    turn: t.field({
      type: Turn,
      resolve: (e, _a, ctx, info) => eventTurn(ctx, e, info),
    }),
    messages: t.field({
      type: [Message],
      description: 'The messages this write added to the turn (or changed in it while open), in seq order; none when it only closed the turn.',
      complexity: listCost(QUERY_COST),
      resolve: (e, _a, ctx) =>
        eventField(e, 'messages', () =>
          e.messageIds.length === 0
            ? Promise.resolve([])
            : ctx.deps.db.message.findMany({ where: { id: { in: e.messageIds } }, orderBy: { seq: 'asc' }, omit: { content: true } }),
        ),
    }),
    closed: t.exposeBoolean('closed', { description: 'True when this write closed the turn; its commit follows (turnCommitted, timeline).' }),
  }),
});

function forSession<T extends { sessionId: string }>(
  ctx: Context,
  topic: 'turnCommitted' | 'mirrorFailed' | 'timeline' | 'turnUpdated',
  sessionId: string | null | undefined,
): AsyncIterable<T> {
  if (sessionId != null) assertValidId(sessionId, 'sessionId');
  return ctx.deps.pubsub.subscribe(topic, sessionId ?? undefined) as AsyncIterable<T>;
}

const TimelineEventKind = builder.enumType('TimelineEventKind', { values: TIMELINE_KINDS });

const TimelineEvent = builder.objectRef<TimelinePayload>('TimelineEvent').implement({
  fields: (t) => ({
    kind: t.field({ type: TimelineEventKind, resolve: (e) => e.kind }),
    session: t.field({ type: Session, resolve: (e, _a, ctx) => eventSession(ctx, e) }),
    branch: t.exposeString('branch'),
    commit: t.field({
      type: Commit,
      nullable: true,
      complexity: QUERY_COST + 2 * GIT_PROCESS_COST,
      resolve: (e, _a, ctx) => (e.sha ? eventCommit(ctx, e, e.sha) : null),
    }),
  }),
});

const ProjectCommittedEvent = builder.objectRef<ProjectCommittedPayload>('ProjectCommittedEvent').implement({
  fields: (t) => ({
    project: t.field({ type: Project, resolve: (e, _a, ctx) => eventProject(ctx, e) }),
    session: t.field({ type: Session, resolve: (e, _a, ctx) => eventSession(ctx, e) }),
    turnNumber: t.exposeInt('turnNumber'),
    commit: t.field({
      type: Commit,
      complexity: QUERY_COST + GIT_PROCESS_COST,
      resolve: (e, _a, ctx) =>
        eventField(e, 'commit', async () => {
          const repo = projectReader(await eventProject(ctx, e));
          const info = await repo.commitInfo(e.sha);
          if (!info) throw new Error(`commit ${e.sha} is gone from project ${e.projectId}`);
          return { repo, sessionId: null, projectId: e.projectId, info, eventScoped: true };
        }),
    }),
  }),
});

const DirtyTreeWarning = builder.objectRef<DirtyTreeWarningPayload>('DirtyTreeWarning').implement({
  fields: (t) => ({
    project: t.field({ type: Project, resolve: (e, _a, ctx) => eventProject(ctx, e) }),
    session: t.field({ type: Session, resolve: (e, _a, ctx) => eventSession(ctx, e) }),
    turnNumber: t.exposeInt('turnNumber'),
    dirtyPaths: t.exposeStringList('dirtyPaths'),
    message: t.exposeString('message', {
      description: "For the UI banner, e.g. you have uncommitted changes, the agent's edits won't be auto-committed for now.",
    }),
    reason: t.exposeString('reason', {
      nullable: true,
      description: 'Why the turn was skipped, in a few words: the operation in progress (a merge, a rebase, …) or the paths in the way.',
    }),
    at: t.field({ type: 'DateTime', resolve: (e) => new Date(e.at) }),
  }),
});

function forProject<T extends { projectId: string }>(
  ctx: Context,
  topic: 'projectCommitted' | 'dirtyTreeWarning',
  projectId: string | null | undefined,
): AsyncIterable<T> {
  if (projectId != null) assertValidId(projectId, 'projectId');
  return ctx.deps.pubsub.subscribe(topic, projectId ?? undefined) as AsyncIterable<T>;
}

/** Sets a subscription up once its cost is checked: the cost plugin checks root fields as they resolve, which is at each event. */
function costChecked<T>(ctx: Context, info: GraphQLResolveInfo, subscribe: () => T): T {
  assertSubscriptionCost(ctx, info);
  return subscribe();
}

builder.subscriptionFields((t) => ({
  projectCommitted: t.field({
    type: ProjectCommittedEvent,
    args: { projectId: t.arg.string() },
    subscribe: (_root, args, ctx, info) => costChecked(ctx, info, () => forProject<ProjectCommittedPayload>(ctx, 'projectCommitted', args.projectId)),
    resolve: (payload: ProjectCommittedPayload) => payload,
  }),
  dirtyTreeWarning: t.field({
    type: DirtyTreeWarning,
    args: { projectId: t.arg.string() },
    subscribe: (_root, args, ctx, info) => costChecked(ctx, info, () => forProject<DirtyTreeWarningPayload>(ctx, 'dirtyTreeWarning', args.projectId)),
    resolve: (payload: DirtyTreeWarningPayload) => payload,
  }),
  timeline: t.field({
    type: TimelineEvent,
    description: "Everything that changes what a session's timeline shows.",
    args: { sessionId: t.arg.string({ required: true }) },
    subscribe: (_root, args, ctx, info) => costChecked(ctx, info, () => forSession<TimelinePayload>(ctx, 'timeline', args.sessionId)),
    resolve: (payload: TimelinePayload) => payload,
  }),
  turnCommitted: t.field({
    type: TurnCommittedEventRef,
    description: 'Every session-git turn commit (of one session, or of all).',
    args: { sessionId: t.arg.string() },
    subscribe: (_root, args, ctx, info) => costChecked(ctx, info, () => forSession<TurnCommittedPayload>(ctx, 'turnCommitted', args.sessionId)),
    resolve: (payload: TurnCommittedPayload) => ({ payload }),
  }),
  turnUpdated: t.field({
    type: TurnUpdatedEvent,
    description:
      "A session's turns as they are written, before their commits: the messages of the open turn as they arrive (a hooked agent's prompt, tool calls and results; an import's records), and each turn's close. Of one session, or of all.",
    args: { sessionId: t.arg.string() },
    subscribe: (_root, args, ctx, info) => costChecked(ctx, info, () => forSession<TurnUpdatedPayload>(ctx, 'turnUpdated', args.sessionId)),
    resolve: (payload: TurnUpdatedPayload) => payload,
  }),
  mirrorFailed: t.field({
    type: MirrorFailure,
    args: { sessionId: t.arg.string() },
    subscribe: (_root, args, ctx, info) => costChecked(ctx, info, () => forSession<MirrorFailedPayload>(ctx, 'mirrorFailed', args.sessionId)),
    resolve: (payload: MirrorFailedPayload) => payload,
  }),
}));
