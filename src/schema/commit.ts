import { queryFromInfo } from '@pothos/plugin-prisma';
import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import {
  BLOB_TEXT_MAX_BYTES,
  commitDiff,
  commitFile,
  commitFiles,
  commitMessages,
  commitInfoOf,
  commitParents,
  commitShaOf,
  gitCanRead,
  shaCommitRef,
  PATCH_MAX_BYTES,
  type CommitRef,
  type DiffView,
  type FileChangeView,
} from '../services/replay/read-commits.js';
import { DIFF_STATUSES, isFullSha, type CommitInfo } from '../git/index.js';
import { isValidId } from '../ids.js';
import type { Deps } from '../services/deps.js';
import { readProjectCommit } from '../services/projects/read-projects.js';
import { commitOf } from '../services/replay/read-branches.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../services/page.js';
import { loaders } from './loaders.js';
import { builder } from './builder.js';
import { pageTotalCount } from './connection.js';
import { connectionCost, GIT_PROCESS_COST, listCost, QUERY_COST, SHARED_GIT_COST } from './cost.js';
import { Message, MessageConnection } from './message.js';
import { Turn } from './turn.js';

/**
 * Commit fields answered without git (the sha from the database, the rest from it too; a session
 * commit's headline from its turn, CommitHeadlineLoader).
 */
const GIT_FREE_FIELDS = new Set(['sha', 'shortSha', 'headline', 'turn', 'messages', 'messagesConnection', '__typename']);

/**
 * Whether the selection of the field being resolved, at `path` inside it
 * (e.g. edges, node), asks for a Commit field only git knows.
 */
export function asksGitFields(info: GraphQLResolveInfo, path: string[] = []): boolean {
  // GraphQL hands every row of a list the same fieldNodes: decided once per list, not once per row.
  const key = path.join('.');
  let known = gitFieldsAsked.get(info.fieldNodes);
  if (!known) gitFieldsAsked.set(info.fieldNodes, (known = new Map()));
  let answer = known.get(key);
  if (answer === undefined) known.set(key, (answer = selectsGitFields(info, path)));
  return answer;
}

const gitFieldsAsked = new WeakMap<GraphQLResolveInfo['fieldNodes'], Map<string, boolean>>();

/** Whether a Commit.diff selection asks for its files' patches (then they come with the files, from one git process). */
function asksPatches(info: GraphQLResolveInfo): boolean {
  return fieldsAt(info, ['files']).some((f) => f.name.value === 'patch' || f.name.value === 'truncated');
}

function selectsGitFields(info: GraphQLResolveInfo, path: string[]): boolean {
  return fieldsAt(info, path).some((f) => !GIT_FREE_FIELDS.has(f.name.value));
}

/** The fields selected at `path` inside the field being resolved (fragments followed). */
function fieldsAt(info: GraphQLResolveInfo, path: string[]): FieldNode[] {
  const fieldsOf = (set: SelectionSetNode | undefined, out: FieldNode[] = []): FieldNode[] => {
    for (const sel of set?.selections ?? []) {
      if (sel.kind === Kind.FIELD) out.push(sel);
      else if (sel.kind === Kind.INLINE_FRAGMENT) fieldsOf(sel.selectionSet, out);
      else fieldsOf(info.fragments[sel.name.value]?.selectionSet, out);
    }
    return out;
  };
  let level: FieldNode[] = [...info.fieldNodes];
  for (const name of path) level = level.flatMap((f) => fieldsOf(f.selectionSet)).filter((f) => f.name.value === name);
  return level.flatMap((f) => fieldsOf(f.selectionSet));
}

interface Actor {
  name: string;
  email: string;
  date: Date;
}

const GitActor = builder.objectRef<Actor>('GitActor').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    date: t.expose('date', { type: 'DateTime' }),
  }),
});

const TreeEntry = builder.objectRef<{ path: string; size: number }>('TreeEntry').implement({
  fields: (t) => ({ path: t.exposeString('path'), size: t.exposeInt('size') }),
});

const Blob = builder
  .objectRef<{ path: string; size: number; text: string | null; isBinary: boolean; truncated: boolean }>('Blob')
  .implement({
    fields: (t) => ({
      path: t.exposeString('path'),
      size: t.exposeInt('size', { description: 'Size in bytes of the whole file.' }),
      text: t.exposeString('text', {
        nullable: true,
        description: `The file as UTF-8 text, its first ${BLOB_TEXT_MAX_BYTES} bytes at most (see truncated); null for a binary file.`,
      }),
      isBinary: t.exposeBoolean('isBinary'),
      truncated: t.exposeBoolean('truncated', {
        description: `True when text is only the first ${BLOB_TEXT_MAX_BYTES} bytes of the file (whole characters).`,
      }),
    }),
  });

const ChangeStatus = builder.enumType('ChangeStatus', { values: DIFF_STATUSES });

// Every patch of a commit comes from one git process, shared by its files.
const patchCost = SHARED_GIT_COST;

const FileChange = builder.objectRef<FileChangeView>('FileChange').implement({
  fields: (t) => ({
    path: t.exposeString('path'),
    oldPath: t.exposeString('oldPath', { nullable: true }),
    status: t.field({ type: ChangeStatus, resolve: (c) => c.status }),
    additions: t.exposeInt('additions'),
    deletions: t.exposeInt('deletions'),
    patch: t.string({
      nullable: true,
      description: `Unified diff text; null for binary files. At most ${PATCH_MAX_BYTES} bytes, cut after a whole line (see truncated).`,
      complexity: patchCost,
      resolve: async (c) => (await c.patch())?.text ?? null,
    }),
    truncated: t.boolean({
      description: `True when patch was cut at ${PATCH_MAX_BYTES} bytes.`,
      complexity: patchCost,
      resolve: async (c) => (await c.patch())?.truncated ?? false,
    }),
  }),
});

export const Commit = builder.objectRef<CommitRef>('Commit');

/**
 * `read` of a commit's git fields: at once when the commit came with them (a project commit read
 * by a log or a blame), after its git read otherwise. A list of ranges (blame) resolves each of its
 * fields without a promise.
 */
function fromInfo<T>(c: CommitRef, read: (info: CommitInfo) => T): T | Promise<T> {
  const info = commitInfoOf(c);
  return info instanceof Promise ? info.then(read) : read(info);
}

function headlineOf(info: CommitInfo): string {
  return info.message.split('\n', 1)[0] ?? '';
}

const Diff = builder.objectRef<DiffView>('Diff').implement({
  fields: (t) => ({
    base: t.field({ type: Commit, nullable: true, complexity: SHARED_GIT_COST, resolve: (d) => d.base() }),
    files: t.field({ type: [FileChange], resolve: (d) => d.files }),
    additions: t.int({ resolve: (d) => d.files.reduce((sum, f) => sum + f.additions, 0) }),
    deletions: t.int({ resolve: (d) => d.files.reduce((sum, f) => sum + f.deletions, 0) }),
  }),
});

// What Commit.messages costs: the turn, its branches and fork points, then the page.
const commitMessagesCost = 4 * QUERY_COST;

/** The key of a commit's node id: its repo (a session's or a project's) and its sha. */
function commitKey(c: CommitRef): string {
  const owner = c.sessionId !== null ? `session:${c.sessionId}` : 'projectId' in c && c.projectId ? `project:${c.projectId}` : 'unknown:-';
  return `${owner}:${commitShaOf(c)}`;
}

/** The commit a node id's key names, or null when it names none (no such session, project or commit). */
async function commitByKey(key: string, deps: Deps): Promise<CommitRef | null> {
  const [kind, owner, sha] = key.split(':');
  if (!owner || !isFullSha(sha) || !isValidId(owner)) return null;
  if (kind === 'session') return (await deps.db.session.findUnique({ where: { sessionId: owner } })) ? commitOf(deps, owner, sha) : null;
  if (kind === 'project') return readProjectCommit(deps, owner, sha!);
  return null;
}

builder.node(Commit, {
  description: 'A commit of a session repo or a project repo. Fields marked git-backed start a git process each time they are resolved.',
  id: { resolve: (c) => commitKey(c) },
  loadOne: (key, ctx) => commitByKey(key, ctx.deps),
  fields: (t) => ({
    sha: t.string({ resolve: (c) => commitShaOf(c) }),
    shortSha: t.string({ resolve: (c) => commitShaOf(c).slice(0, 7) }),
    message: t.string({ resolve: (c) => fromInfo(c, (info) => info.message) }),
    headline: t.string({
      description: "The message's first line. A session's turn commit's comes from the database (no git process).",
      resolve: async (c, _args, ctx) => (c.info ? headlineOf(c.info) : ((await loaders(ctx).headlines.load(c)) ?? fromInfo(c, headlineOf))),
    }),
    author: t.field({ type: GitActor, resolve: (c) => fromInfo(c, (info) => info.author) }),
    committer: t.field({ type: GitActor, resolve: (c) => fromInfo(c, (info) => info.committer) }),
    parentShas: t.stringList({
      description: 'The parents\' shas, first parent first; unlike parents, no git process is started.',
      resolve: (c) => fromInfo(c, (info) => info.parents),
    }),
    parents: t.field({
      type: [Commit],
      description: 'Git-backed: the parents of the commits asked for together are read by one git process (parentShas needs none).',
      complexity: listCost(SHARED_GIT_COST, 2),
      resolve: (c) => commitParents(c),
    }),
    turn: t.field({
      type: Turn,
      nullable: true,
      description: 'The turn this commit records (session repos only).',
      complexity: QUERY_COST,
      resolve: (c, _args, ctx) => loaders(ctx).commitTurns.load(c),
    }),
    messages: t.field({
      type: [Message],
      description:
        `The conversation as it stood at this commit, in order (session repos only): its first ${DEFAULT_PAGE_SIZE} messages unless first says (at most ${MAX_PAGE_SIZE}); ` +
        'after: the seq cursor of Session.messages edges (or messagesConnection, which gives cursors). The cost counts the selection first: times.',
      args: { first: t.arg.int(), after: t.arg.string() },
      complexity: connectionCost(commitMessagesCost),
      resolve: async (c, args, ctx, info) =>
        (await commitMessages(ctx.deps.db, c, args, queryFromInfo({ context: ctx, info }))).edges.map((edge) => edge.node),
    }),
    messagesConnection: t.connection(
      {
        type: Message,
        description: 'Commit.messages as a connection: the conversation as it stood at this commit, page by page (session repos only).',
        complexity: connectionCost(commitMessagesCost + QUERY_COST),
        resolve: (c, args, ctx, info) =>
          commitMessages(ctx.deps.db, c, args, queryFromInfo({ context: ctx, info, path: ['edges', 'node'] })),
      },
      MessageConnection,
    ),
    files: t.field({
      type: [TreeEntry],
      description:
        'Files in the tree at this commit. Git-backed. In a subscription event (turnCommitted, timeline): only the files this commit added or changed ' +
        'against its first parent (a turn commit: its message files and meta.json), so an event stays the same size however long the session; ' +
        "the whole tree is the same commit's files read by a query (session(sessionId).commit(sha)).",
      complexity: listCost(GIT_PROCESS_COST),
      resolve: (c) => commitFiles(c),
    }),
    diff: t.field({
      type: Diff,
      description: 'Changes against the first parent (against the empty tree for a root commit). Git-backed: one process, one more for patches.',
      complexity: GIT_PROCESS_COST,
      resolve: (c, _args, _ctx, info) => commitDiff(c, { withPatches: asksPatches(info) }),
    }),
    file: t.field({
      type: Blob,
      nullable: true,
      description:
        'Content of one file at this commit; null if absent. Git-backed. path is relative to the repository root, with / between folders, and has no ., .. or .git segment.',
      args: { path: t.arg.string({ required: true }) },
      complexity: GIT_PROCESS_COST,
      resolve: (c, args) => commitFile(c, args.path),
    }),
  }),
});

export const CommitConnection = builder.connectionObject(
  {
    type: Commit,
    name: 'CommitConnection',
    fields: (t) => ({ totalCount: t.int({ resolve: pageTotalCount }) }),
  },
  { name: 'CommitEdge' },
);

// Turn.commit is defined here, where Commit and Turn both are: turn.ts importing
// commit.ts while commit.ts imports turn.ts (for Commit.turn) was an import cycle.
builder.prismaObjectField(Turn, 'commit', (t) =>
  t.field({
    type: Commit,
    nullable: true,
    description:
      'The session-git commit of this turn, once mirrored. Its sha (and turn) come from the database, no git process; ' +
      'its git fields (message, author, parents...) of the turns asked for together are read by one git process per session.',
    select: { commitSha: true, sessionId: true },
    // No git for the sha; git-only fields are read lazily, one process per session repo for a whole page.
    complexity: 1,
    resolve: async (turn, _args, ctx, info) => {
      if (!turn.commitSha) return null;
      const ref = shaCommitRef(ctx.deps, turn.sessionId, turn.commitSha);
      // Null while the repo cannot give the git fields asked for (being rebuilt), as before.
      return asksGitFields(info) && !(await gitCanRead([ref])) ? null : ref;
    },
  }),
);
