import { commitFile, commitMessages, commitParents, commitTurn, type CommitRef } from '../resolvers/read-commits.js';
import { builder } from './builder.js';
import { pageTotalCount } from './connection.js';
import { Message } from './message.js';
import { Turn } from './turn.js';

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

const Blob = builder.objectRef<{ path: string; size: number; text: string | null; isBinary: boolean }>('Blob').implement({
  fields: (t) => ({
    path: t.exposeString('path'),
    size: t.exposeInt('size'),
    text: t.exposeString('text', { nullable: true }),
    isBinary: t.exposeBoolean('isBinary'),
  }),
});

const ChangeStatus = builder.enumType('ChangeStatus', { values: ['ADDED', 'MODIFIED', 'DELETED', 'RENAMED'] as const });

interface Change {
  path: string;
  oldPath: string | null;
  status: 'ADDED' | 'MODIFIED' | 'DELETED' | 'RENAMED';
  additions: number;
  deletions: number;
  patch: string | null;
}

const FileChange = builder.objectRef<Change>('FileChange').implement({
  fields: (t) => ({
    path: t.exposeString('path'),
    oldPath: t.exposeString('oldPath', { nullable: true }),
    status: t.field({ type: ChangeStatus, resolve: (c) => c.status }),
    additions: t.exposeInt('additions'),
    deletions: t.exposeInt('deletions'),
    patch: t.exposeString('patch', { nullable: true, description: 'Unified diff text; null for binary files.' }),
  }),
});

interface DiffShape {
  base: CommitRef | null;
  files: Change[];
}

export const Commit = builder.objectRef<CommitRef>('Commit');

const Diff = builder.objectRef<DiffShape>('Diff').implement({
  fields: (t) => ({
    base: t.field({ type: Commit, nullable: true, resolve: (d) => d.base }),
    files: t.field({ type: [FileChange], resolve: (d) => d.files }),
    additions: t.int({ resolve: (d) => d.files.reduce((sum, f) => sum + f.additions, 0) }),
    deletions: t.int({ resolve: (d) => d.files.reduce((sum, f) => sum + f.deletions, 0) }),
  }),
});

Commit.implement({
  fields: (t) => ({
    sha: t.string({ resolve: (c) => c.info.sha }),
    shortSha: t.string({ resolve: (c) => c.info.sha.slice(0, 7) }),
    message: t.string({ resolve: (c) => c.info.message }),
    headline: t.string({ resolve: (c) => c.info.message.split('\n', 1)[0] ?? '' }),
    author: t.field({ type: GitActor, resolve: (c) => c.info.author }),
    committer: t.field({ type: GitActor, resolve: (c) => c.info.committer }),
    parents: t.field({ type: [Commit], resolve: (c) => commitParents(c) }),
    turn: t.field({
      type: Turn,
      nullable: true,
      description: 'The turn this commit records (session repos only).',
      resolve: (c, _args, ctx) => commitTurn(ctx.deps.db, c),
    }),
    messages: t.field({
      type: [Message],
      description:
        'The conversation as it stood at this commit, in order (session repos only). All of it, or with first, one page (after: the seq cursor of Session.messages edges).',
      args: { first: t.arg.int(), after: t.arg.string() },
      resolve: (c, args, ctx) => commitMessages(ctx.deps.db, c, args),
    }),
    files: t.field({
      type: [TreeEntry],
      description: 'Files in the tree at this commit.',
      resolve: (c) => c.repo.listFiles(c.info.sha),
    }),
    diff: t.field({
      type: Diff,
      description: 'Changes against the first parent (against the empty tree for a root commit).',
      resolve: async (c) => {
        const diff = await c.repo.diff(c.info.sha);
        const base = diff.base ? await c.repo.commitInfo(diff.base) : null;
        return { base: base ? { ...c, info: base } : null, files: diff.files };
      },
    }),
    file: t.field({
      type: Blob,
      nullable: true,
      description: 'Content of one file at this commit; null if absent.',
      args: { path: t.arg.string({ required: true }) },
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
