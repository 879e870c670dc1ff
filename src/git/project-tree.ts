/**
 * The end-of-turn commit of a user's repo, built from captured blobs: its
 * tree is the parent's with the agent's states applied, never the user's
 * index, so the commit holds exactly what was captured at the close. The tree
 * is rebuilt along the changed paths only (`ls-tree` of the folders on the
 * way, one `mktree --batch`), or through a temporary index where that route
 * cannot be sure of a byte-exact result. The commands it shares with the rest
 * of the plumbing (`ProjectGitRun`, `indexInfo`) stay in project-plumbing.ts,
 * which imports nothing from here.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityEnv } from './commit-input.js';
import { parseTreeListing, type TreeEntry } from './parse.js';
import { indexInfo, type FileState, type ProjectGitRun } from './project-plumbing.js';

export interface BuiltCommit {
  sha: string;
  tree: string;
  /** The tree equals the parent's: nothing would change. */
  unchanged: boolean;
}

/**
 * Writes a commit whose tree is `parent`'s tree with `states` applied (as
 * `update-index --index-info` would apply them, in order, to an index read
 * from it); the user's index is not read or written.
 * Nothing moves any ref: the caller decides where the commit goes.
 *
 * Only the folders on the way to the states are rebuilt, from `ls-tree` of
 * them and one `mktree --batch`: a temporary index of a 10,000-file tree
 * costs a read-tree, an update-index and a write-tree of every entry
 * (~30 ms on bench/project-commit.ts), this a few hundred entries. Where that
 * route cannot be sure of a byte-exact result (a listed name git printed as
 * something other than UTF-8, a tree git wrote with another id than
 * computed), the tree is built through a temporary index instead, the same
 * content either way. When no state changes what the parent holds, the
 * commit gets the parent's own tree and `unchanged` is true (an index would
 * also re-encode a legacy tree's non-canonical modes as a change).
 */
export async function buildCommit(
  run: ProjectGitRun,
  opts: {
    parent: string | null;
    states: readonly FileState[];
    message: string;
    identity: { name: string; email: string };
    /** Where a temporary index goes, if one is needed: the repo's git directory (nothing of ours outside the project). Default: the system's temp folder. */
    scratchDir?: string;
  },
): Promise<BuiltCommit> {
  const built = (await treeFromFolders(run, opts.parent, opts.states)) ?? (await treeWithIndex(run, opts.parent, opts.states, opts.scratchDir));
  const sha = (
    await run(['commit-tree', built.tree, ...(opts.parent ? ['-p', opts.parent] : []), '-F', '-'], { input: opts.message, env: identityEnv(opts.identity) })
  ).stdout.trim();
  return { sha, ...built };
}

/** The tree of `parent` with `states` applied, through a temporary index (every entry read and written). */
async function treeWithIndex(
  run: ProjectGitRun,
  parent: string | null,
  states: readonly FileState[],
  scratchDir: string | undefined,
): Promise<{ tree: string; unchanged: boolean }> {
  const dir = await mkdtemp(join(scratchDir ?? tmpdir(), scratchDir ? 'entity-memory-index-' : 'em-index-'));
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    await run(parent ? ['read-tree', '--end-of-options', parent] : ['read-tree', '--empty'], { env });
    if (states.length > 0) await run(['update-index', '-z', '--index-info'], { input: indexInfo(states), env });
    const tree = (await run(['write-tree'], { env })).stdout.trim();
    const parentTree = parent ? await treeOf(run, parent) : null;
    return { tree, unchanged: parentTree === tree };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function treeOf(run: ProjectGitRun, commit: string): Promise<string> {
  return (await run(['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`])).stdout.trim();
}

// --- the tree of a commit, rebuilt only along the changed paths ---

/** A folder being rebuilt: entries by name, the folders being rebuilt among them as nodes. */
interface FolderNode {
  entries: Map<string, TreeEntry | FolderNode>;
}

const isFolder = (e: TreeEntry | FolderNode | undefined): e is FolderNode => e !== undefined && 'entries' in e;
const isSubtree = (e: TreeEntry | FolderNode | undefined): boolean => isFolder(e) || e?.type === 'tree';

/** The mode an index gives an entry (`create_ce_mode`): a regular file is 644 or 755, a folder 40000. */
function canonicalMode(entry: TreeEntry): string {
  if (entry.type === 'tree') return '40000';
  if (entry.type === 'commit') return '160000';
  const mode = Number.parseInt(entry.mode, 8);
  if ((mode & 0o170000) === 0o120000) return '120000';
  return mode & 0o100 ? '100755' : '100644';
}

const typeOfMode = (mode: string): string => (mode === '160000' ? 'commit' : mode === '40000' || mode === '040000' ? 'tree' : 'blob');

/** Git's order of tree entries: bytes of the name, a folder's as if it ended in `/`. */
function compareEntries(a: [string, TreeEntry], b: [string, TreeEntry]): number {
  return Buffer.compare(Buffer.from(a[1].type === 'tree' ? `${a[0]}/` : a[0]), Buffer.from(b[1].type === 'tree' ? `${b[0]}/` : b[0]));
}

/** The id git gives a tree object with these entries (sorted, modes canonical). */
export function treeObjectId(entries: readonly [string, TreeEntry][], algorithm: 'sha1' | 'sha256'): string {
  const parts: Buffer[] = [];
  for (const [name, e] of entries) parts.push(Buffer.from(`${e.mode} ${name}\0`), Buffer.from(e.oid, 'hex'));
  const body = Buffer.concat(parts);
  return createHash(algorithm).update(`tree ${body.length}\0`).update(body).digest('hex');
}

const EMPTY_TREE: Record<'sha1' | 'sha256', string> = {
  sha1: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  sha256: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
};

/**
 * The tree of `parent` with `states` applied, writing only the folders on
 * their paths: 2 `ls-tree` (the root; the folders on the way, with `-t`),
 * then one `mktree -z --batch` of the new folders, deepest first, each
 * naming its subfolders by the ids computed here (and checked against what
 * git prints). Unchanged content is the parent's own tree, with nothing written.
 * @returns null when this route cannot be sure (the caller uses an index then).
 */
async function treeFromFolders(run: ProjectGitRun, parent: string | null, states: readonly FileState[]): Promise<{ tree: string; unchanged: boolean } | null> {
  const folders = new Set<string>();
  for (const state of states) {
    const parts = state.path.split('/');
    if (parts.some((p) => p === '' || p === '.' || p === '..')) return null;
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const literal = { env: { GIT_LITERAL_PATHSPECS: '1' } };
  const [rootListing, folderListing] = parent
    ? await Promise.all([
        run(['ls-tree', '-z', '--full-tree', '--end-of-options', parent]),
        folders.size > 0 ? run(['ls-tree', '-z', '-t', '--full-tree', '--end-of-options', parent, '--', ...[...folders].map((f) => `${f}/`)], literal) : null,
      ])
    : [null, null];
  // What the parent holds, folder by folder ('' is the root), for the root and the folders on the way.
  const listed = new Map<string, Map<string, TreeEntry>>([['', new Map()]]);
  for (const [output, root] of [
    [rootListing?.stdout ?? '', true],
    [folderListing?.stdout ?? '', false],
  ] as const) {
    for (const { path, entry } of parseTreeListing(output)) {
      // Names are read as UTF-8: one that is not would come back changed.
      if (path.includes('\uFFFD')) return null;
      const slash = path.lastIndexOf('/');
      const folder = slash < 0 ? '' : path.slice(0, slash);
      if (root ? folder !== '' : !folders.has(folder)) continue;
      let map = listed.get(folder);
      if (!map) listed.set(folder, (map = new Map()));
      map.set(path.slice(slash + 1), entry);
    }
  }
  const algorithm = (parent ?? states.find((s) => s.oid)?.oid ?? '').length === 64 ? 'sha256' : 'sha1';
  const open = (folder: string): FolderNode => ({ entries: new Map(listed.get(folder) ?? []) });
  const root = open('');

  /** The folder node holding `parts`' last one, opening (or, with `create`, making) folders on the way; null where there is none. */
  const folderOf = (parts: string[], create: boolean): FolderNode | null => {
    let node = root;
    for (let i = 0; i + 1 < parts.length; i++) {
      const name = parts[i]!;
      const e = node.entries.get(name);
      let next: FolderNode;
      if (isFolder(e)) next = e;
      else if (e?.type === 'tree') next = open(parts.slice(0, i + 1).join('/'));
      else if (create) next = { entries: new Map() }; // a file (or nothing) in the way: a folder replaces it, as update-index does
      else return null;
      node.entries.set(name, next);
      node = next;
    }
    return node;
  };
  for (const state of states) {
    const parts = state.path.split('/');
    const name = parts.at(-1)!;
    if (state.oid === null) {
      // Removes an entry of exactly that path (a file, link or submodule), never a folder.
      const node = folderOf(parts, false);
      if (node && !isSubtree(node.entries.get(name))) node.entries.delete(name);
    } else {
      folderOf(parts, true)!.entries.set(name, { mode: state.mode ?? '100644', type: typeOfMode(state.mode ?? ''), oid: state.oid });
    }
  }

  // Unchanged: every state's path holds what the parent held there.
  const before = (path: string): TreeEntry | undefined => {
    const slash = path.lastIndexOf('/');
    return listed.get(slash < 0 ? '' : path.slice(0, slash))?.get(path.slice(slash + 1));
  };
  const after = (path: string): TreeEntry | FolderNode | undefined => {
    const parts = path.split('/');
    let node: FolderNode = root;
    for (const part of parts.slice(0, -1)) {
      const e = node.entries.get(part);
      if (!isFolder(e)) return undefined;
      node = e;
    }
    return node.entries.get(parts.at(-1)!);
  };
  const same = states.every((s) => {
    const [was, now] = [before(s.path), after(s.path)];
    if (isFolder(now) || isFolder(was)) return false;
    return was === now || (was !== undefined && now !== undefined && was.mode === now.mode && was.oid === now.oid && was.type === now.type);
  });
  if (parent && same) return { tree: await treeOf(run, parent), unchanged: true };

  // The new folders, deepest first, with the ids they will have.
  const written: { id: string; input: string }[] = [];
  const write = (node: FolderNode, isRoot: boolean): string | null => {
    const entries: [string, TreeEntry][] = [];
    for (const [name, e] of node.entries) {
      if (isFolder(e)) {
        const id = write(e, false);
        if (id) entries.push([name, { mode: '40000', type: 'tree', oid: id }]);
      } else if (!(e.type === 'tree' && e.oid === EMPTY_TREE[algorithm])) {
        // An index holds no empty folder, so write-tree leaves it out of a folder it rewrites.
        entries.push([name, { mode: canonicalMode(e), type: e.type, oid: e.oid }]);
      }
    }
    if (entries.length === 0 && !isRoot) return null;
    entries.sort(compareEntries);
    const id = treeObjectId(entries, algorithm);
    written.push({ id, input: entries.map(([n, e]) => `${e.mode} ${e.type} ${e.oid}\t${n}\0`).join('') });
    return id;
  };
  const tree = write(root, true)!;
  const { stdout } = await run(['mktree', '-z', '--batch'], { input: written.map((w) => `${w.input}\0`).join('') });
  const ids = stdout.split('\n').filter((line) => line !== '');
  if (ids.length !== written.length || ids.some((id, i) => id !== written[i]!.id)) return null;
  return { tree, unchanged: false };
}
