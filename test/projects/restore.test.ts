/**
 * Taking a skipped turn's edits later (applyTurnSnapshot) and going back
 * (restoreProjectFiles), over a real server and real repos: what is written
 * is exactly the agent's, byte for byte; a path the user changed refuses the
 * whole request and nothing of theirs moves; a restore and its undo
 * round-trip to identical trees.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateSession } from '../api/operations.js';
import { CreateProject } from './operations.js';
import { git } from '../helpers/git.js';
import { onlyError, type TestServer } from '../helpers/server.js';
import { expectUntouched, outcome, picture, projectServer, projectSession, recordTurn, snapshotRefOf, userGit, userRepo, type RepoPicture } from './project-turns.js';

const APPLY = `
  mutation Apply($input: ApplyTurnSnapshotInput!) {
    applyTurnSnapshot(input: $input) { paths result message commit { sha headline } }
  }`;

const UNAPPLY = `
  mutation Unapply($input: ApplyTurnSnapshotInput!) {
    unapplyTurnSnapshot(input: $input) { paths result message commit { sha } }
  }`;

const RESTORE = `
  mutation Restore($input: RestoreProjectFilesInput!) {
    restoreProjectFiles(input: $input) { paths result message commit { sha headline } }
  }`;

interface FilesResult {
  paths: string[];
  result: string;
  message: string;
  commit: { sha: string; headline: string } | null;
}

async function apply(api: TestServer, sessionId: string, turn: number): Promise<FilesResult> {
  const result = await api.raw(APPLY, { input: { sessionId, turn } });
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return (result.data as { applyTurnSnapshot: FilesResult }).applyTurnSnapshot;
}

async function unapply(api: TestServer, sessionId: string, turn: number): Promise<FilesResult> {
  const result = await api.raw(UNAPPLY, { input: { sessionId, turn } });
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return (result.data as { unapplyTurnSnapshot: FilesResult }).unapplyTurnSnapshot;
}

async function restore(api: TestServer, sessionId: string, turn: number): Promise<FilesResult> {
  const result = await api.raw(RESTORE, { input: { sessionId, turn } });
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return (result.data as { restoreProjectFiles: FilesResult }).restoreProjectFiles;
}

/** Bytes that are not UTF-8, so a text round trip anywhere would show. */
const BINARY = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a, 0xc3, 0x28, 0x0d, 0x0a, 0x7f]);

/**
 * The agent writes `files` (null: deletes), runs `more` (a chmod, a symlink), and ends a turn whose
 * touchedPaths are those files and `morePaths`.
 */
async function agentTurn(
  api: TestServer,
  dir: string,
  sessionId: string,
  files: Record<string, string | Buffer | null>,
  more: { run: () => void; paths: string[] } = { run: () => {}, paths: [] },
): Promise<number> {
  for (const [path, content] of Object.entries(files)) {
    const file = join(dir, path);
    if (content === null) rmSync(file, { force: true });
    else writeFileSync(file, content);
  }
  more.run();
  const touched = [...Object.keys(files), ...more.paths];
  const { number } = await recordTurn(api, { sessionId, content: `turn writing ${touched.join(', ')}`, touchedPaths: touched });
  return number;
}

/** The working tree only (every path outside .git: mode and content hash, symlink targets). */
function worktree(dir: string): RepoPicture['worktree'] {
  return picture(dir).worktree;
}

function without(tree: RepoPicture['worktree'], paths: string[]): RepoPicture['worktree'] {
  return Object.fromEntries(Object.entries(tree).filter(([path]) => !paths.includes(path)));
}

/** No scratch folder or temporary index of ours is left in the git directory. */
function expectNoScratch(dir: string): void {
  expect(readdirSync(join(dir, '.git')).filter((n) => n.startsWith('entity-memory-files-') || n.startsWith('entity-memory-index-'))).toEqual([]);
}

const treeOf = (dir: string, rev: string) => git(dir, 'rev-parse', `${rev}^{tree}`).trim();

/** Session s's first turn's Project commit outcome's snapshotApplied (git-backed: the tree looked at now). */
async function snapshotApplied(api: TestServer): Promise<boolean | null> {
  const result = await api.raw('{ session(sessionId: "s") { turns(first: 1) { edges { node { projectCommit { snapshotApplied } } } } } }');
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
  return (result.data as { session: { turns: { edges: { node: { projectCommit: { snapshotApplied: boolean | null } } }[] } } }).session.turns.edges[0]!.node.projectCommit
    .snapshotApplied;
}

/** Session s's first turn's Project commit outcome's snapshotConflicts: the paths that would refuse applyTurnSnapshot now. */
async function snapshotConflicts(api: TestServer): Promise<string[] | null> {
  const result = await api.raw('{ session(sessionId: "s") { turns(first: 1) { edges { node { projectCommit { snapshotConflicts } } } } } }');
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
  return (result.data as { session: { turns: { edges: { node: { projectCommit: { snapshotConflicts: string[] | null } } }[] } } }).session.turns.edges[0]!.node.projectCommit
    .snapshotConflicts;
}

interface SnapshotChange {
  path: string;
  action: string;
  fromOid: string | null;
  toOid: string | null;
  conflict: boolean;
}

/** Session s's first turn's snapshotChanges: what applyTurnSnapshot would write now. */
async function snapshotChanges(api: TestServer): Promise<SnapshotChange[] | null> {
  const result = await api.raw('{ session(sessionId: "s") { turns(first: 1) { edges { node { projectCommit { snapshotChanges { path action fromOid toOid conflict } } } } } } }');
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
  return (result.data as { session: { turns: { edges: { node: { projectCommit: { snapshotChanges: SnapshotChange[] | null } } }[] } } }).session.turns.edges[0]!.node
    .projectCommit.snapshotChanges;
}

const blobOf = (dir: string, content: string) => execFileSync('git', ['hash-object', '--stdin'], { cwd: dir, input: content, encoding: 'utf8' }).trim();

describe('applyTurnSnapshot', () => {
  it("keeps a SKIPPED_DIRTY turn on its snapshot ref and writes it onto clean paths, leaving HEAD, the index and refs byte for byte", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir, 's');
    const head = git(dir, 'rev-parse', 'HEAD').trim();

    // The user's own uncommitted file, outside the turn's touchedPaths: the turn is skipped.
    writeFileSync(join(dir, 'scratch.txt'), 'mine\n');
    writeFileSync(join(dir, 'README.md'), '# app, edited by the user\n');
    // The agent's edits, then its turn's close.
    writeFileSync(join(dir, 'notes.txt'), 'agent v2\n');
    writeFileSync(join(dir, 'logo.bin'), BINARY);
    writeFileSync(join(dir, 'tool.sh'), '#!/bin/sh\necho agent\n');
    chmodSync(join(dir, 'tool.sh'), 0o755);
    const before = picture(dir);
    const atClose = before.worktree;
    const { number: turn } = await recordTurn(api, { sessionId: 's', touchedPaths: ['notes.txt', 'logo.bin', 'tool.sh'] });
    const result = await outcome(api, 's', turn);
    expect(result.result).toBe('SKIPPED_DIRTY');
    expect(result.dirtyPaths).toEqual(['README.md', 'scratch.txt']);
    expect(git(dir, 'rev-parse', snapshotRefOf('s', turn)).trim()).toBe(result.snapshot?.sha);
    expect(git(dir, 'rev-parse', `${result.snapshot!.sha}^`).trim()).toBe(head);
    expect(git(dir, 'cat-file', 'blob', `${result.snapshot!.sha}:notes.txt`)).toBe('agent v2\n');
    expect(execBytes(dir, 'cat-file', 'blob', `${result.snapshot!.sha}:logo.bin`).equals(BINARY)).toBe(true);
    expect(git(dir, 'ls-tree', result.snapshot!.sha, 'tool.sh').split(' ')[0]).toBe('100755');
    // Nothing of the user's is in the snapshot, and nothing of theirs changed.
    expect(git(dir, 'cat-file', 'blob', `${result.snapshot!.sha}:README.md`)).toBe('# app\n');
    expect(git(dir, 'ls-tree', '--name-only', result.snapshot!.sha).split('\n').filter(Boolean)).toEqual(['README.md', 'logo.bin', 'notes.txt', 'tool.sh']);
    expectUntouched(dir, before);
    // The agent's edits are still in the tree, uncommitted: the snapshot is there already.
    expect(turn).toBe(1);
    expect(await snapshotApplied(api)).toBe(true);

    // The user puts the agent's paths back as HEAD has them, then takes the snapshot.
    userGit(dir, 'checkout', '--', 'notes.txt');
    unlinkSync(join(dir, 'logo.bin'));
    unlinkSync(join(dir, 'tool.sh'));
    expect(await snapshotApplied(api)).toBe(false);
    expect(await snapshotConflicts(api)).toEqual([]);
    const clean = picture(dir);
    const applied = await apply(api, 's', turn);
    expect(await snapshotApplied(api)).toBe(true);
    expect(applied).toMatchObject({ result: 'APPLIED', paths: ['logo.bin', 'notes.txt', 'tool.sh'], commit: { sha: result.snapshot!.sha } });
    expect(applied.message).toMatch(/3 paths .* nothing was committed/);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('agent v2\n');
    expect(readFileSync(join(dir, 'logo.bin')).equals(BINARY)).toBe(true);
    expect(readFileSync(join(dir, 'tool.sh'), 'utf8')).toBe('#!/bin/sh\necho agent\n');
    expect(worktree(dir)['tool.sh']).toMatch(/^755 /);
    const after = picture(dir);
    expect(after.gitDir, 'HEAD, index, logs').toEqual(clean.gitDir);
    expect(after.refs).toBe(clean.refs);
    expect(after.stash).toBe(clean.stash);
    expect(without(after.worktree, ['logo.bin', 'notes.txt', 'tool.sh'])).toEqual(without(clean.worktree, ['logo.bin', 'notes.txt', 'tool.sh']));
    // Exactly what the agent left at the close.
    expect(pick(after.worktree, ['logo.bin', 'notes.txt', 'tool.sh'])).toEqual(pick(atClose, ['logo.bin', 'notes.txt', 'tool.sh']));
    expectNoScratch(dir);

    // Applying it again writes nothing.
    expect(await apply(api, 's', turn)).toMatchObject({ result: 'NOTHING', paths: [] });
    expectUntouched(dir, after);
  });

  it('refuses with CONFLICT when a path of the snapshot changed since, or became a folder, and writes nothing', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir, 's');
    writeFileSync(join(dir, 'scratch.txt'), 'mine\n');
    const turn = await agentTurn(api, dir, 's', { 'notes.txt': 'agent v2\n', 'new.txt': 'agent new\n' });
    expect((await outcome(api, 's', turn)).result).toBe('SKIPPED_DIRTY');

    writeFileSync(join(dir, 'notes.txt'), 'the user rewrote it\n');
    unlinkSync(join(dir, 'new.txt'));
    mkdirSync(join(dir, 'new.txt'));
    writeFileSync(join(dir, 'new.txt', 'inside'), 'x\n');
    const before = picture(dir);
    // The preview names the same paths, and reads without writing.
    expect(await snapshotConflicts(api)).toEqual(['new.txt', 'notes.txt']);
    expectUntouched(dir, before);
    const error = onlyError(await api.raw(APPLY, { input: { sessionId: 's', turn } }));
    expect(error.extensions).toMatchObject({ code: 'CONFLICT', paths: ['new.txt', 'notes.txt'] });
    expect(error.message).toMatch(/new\.txt, notes\.txt/);
    expectUntouched(dir, before);
    expectNoScratch(dir);
  });

  it('previews the apply path by path, and unapplyTurnSnapshot takes it back out: the tree as before the apply, byte for byte', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir, 's');
    writeFileSync(join(dir, 'scratch.txt'), 'mine\n');
    const turn = await agentTurn(api, dir, 's', { 'notes.txt': 'agent v2\n', 'new.txt': 'agent new\n', 'README.md': null });
    expect((await outcome(api, 's', turn)).result).toBe('SKIPPED_DIRTY');
    // The tree holds the snapshot already: nothing to write.
    expect(await snapshotChanges(api)).toEqual([]);
    // Put the agent's paths back as HEAD has them: the preview says what the apply writes, from what to what.
    userGit(dir, 'checkout', '--', 'notes.txt', 'README.md');
    unlinkSync(join(dir, 'new.txt'));
    const beforeApply = picture(dir);
    expect(await snapshotChanges(api)).toEqual([
      { path: 'README.md', action: 'DELETE', fromOid: blobOf(dir, '# app\n'), toOid: null, conflict: false },
      { path: 'new.txt', action: 'CREATE', fromOid: null, toOid: blobOf(dir, 'agent new\n'), conflict: false },
      { path: 'notes.txt', action: 'MODIFY', fromOid: blobOf(dir, 'v1\n'), toOid: blobOf(dir, 'agent v2\n'), conflict: false },
    ]);
    expectUntouched(dir, beforeApply);
    // Nothing applied yet: nothing to undo.
    expect(await unapply(api, 's', turn)).toMatchObject({ result: 'NOTHING', paths: [] });
    expectUntouched(dir, beforeApply);

    expect(await apply(api, 's', turn)).toMatchObject({ result: 'APPLIED', paths: ['README.md', 'new.txt', 'notes.txt'] });
    const undone = await unapply(api, 's', turn);
    expect(undone).toMatchObject({ result: 'APPLIED', paths: ['README.md', 'new.txt', 'notes.txt'] });
    expect(undone.message).toMatch(/Took turn 1's snapshot out of the working tree: 3 paths back to what HEAD holds; nothing was committed/);
    expectUntouched(dir, beforeApply);
    expect(await snapshotApplied(api)).toBe(false);
    expectNoScratch(dir);

    // Applied again, then the user edits one path and commits another: both are theirs now, and the undo refuses, writing nothing.
    await apply(api, 's', turn);
    writeFileSync(join(dir, 'notes.txt'), 'the user went on\n');
    userGit(dir, 'add', 'new.txt');
    userGit(dir, 'commit', '-q', '-m', 'keep new.txt');
    const before = picture(dir);
    const error = onlyError(await api.raw(UNAPPLY, { input: { sessionId: 's', turn } }));
    expect(error.extensions).toMatchObject({ code: 'CONFLICT', paths: ['new.txt', 'notes.txt'] });
    expect(error.message).toMatch(/notes\.txt changed since the snapshot was applied .*new\.txt was committed since; nothing was written/);
    expectUntouched(dir, before);
    // The preview of the apply names the edited path as in the way.
    expect((await snapshotChanges(api))?.find((c) => c.path === 'notes.txt')).toMatchObject({ action: 'MODIFY', conflict: true });
  });

  it('answers every mistake with a code and changes nothing', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir, 's');
    await api.ok(CreateSession, { input: { sessionId: 'loose' } });
    const turn = await agentTurn(api, dir, 's', { 'notes.txt': 'agent v2\n' });
    expect((await outcome(api, 's', turn)).result).toBe('COMMITTED');
    // A session with a turn from before it joined the project, one turn in it, and one open.
    await api.ok(CreateSession, { input: { sessionId: 'joined' } });
    await recordTurn(api, { sessionId: 'joined', content: 'before joining' });
    const { createProject } = await api.ok(CreateProject, { input: { name: 'Other', workdir: userRepo(root, 'other') } });
    expect((await api.raw(`mutation { addSessionToProject(input: { projectId: "${createProject.projectId}", sessionId: "joined" }) { sessionId } }`)).errors).toBeUndefined();
    await recordTurn(api, { sessionId: 'joined', content: 'in the project', touchedPaths: [] });
    expect((await api.raw(`mutation { appendMessage(input: { sessionId: "joined", role: USER, content: "open" }) { seq } }`)).errors).toBeUndefined();
    const before = picture(dir);
    const cases: [string, { sessionId: string; turn: number }, string, RegExp][] = [
      [APPLY, { sessionId: 's', turn }, 'BAD_USER_INPUT', /no snapshot .*COMMITTED/],
      [APPLY, { sessionId: 's', turn: 7 }, 'NOT_FOUND', /no turn 7/],
      [APPLY, { sessionId: 'nobody', turn: 1 }, 'NOT_FOUND', /does not exist/],
      [APPLY, { sessionId: 'loose', turn: 1 }, 'BAD_USER_INPUT', /has no project/],
      [APPLY, { sessionId: '../x', turn: 1 }, 'BAD_USER_INPUT', /not a valid id/],
      [APPLY, { sessionId: 's', turn: -1 }, 'BAD_USER_INPUT', /turn must be/],
      [UNAPPLY, { sessionId: 's', turn }, 'BAD_USER_INPUT', /no snapshot .*COMMITTED/],
      [UNAPPLY, { sessionId: 's', turn: 7 }, 'NOT_FOUND', /no turn 7/],
      [UNAPPLY, { sessionId: 'loose', turn: 1 }, 'BAD_USER_INPUT', /has no project/],
      [UNAPPLY, { sessionId: '../x', turn: 1 }, 'BAD_USER_INPUT', /not a valid id/],
      [RESTORE, { sessionId: 's', turn: 7 }, 'NOT_FOUND', /no turn 7/],
      [RESTORE, { sessionId: 'loose', turn: 0 }, 'BAD_USER_INPUT', /has no project/],
      [RESTORE, { sessionId: 's', turn: -2 }, 'BAD_USER_INPUT', /turn must be/],
      [RESTORE, { sessionId: 'joined', turn: 1 }, 'BAD_USER_INPUT', /Turn 1 of session joined was recorded before the session joined project Other.*restore to turn 2 or later, or to 0/],
      [RESTORE, { sessionId: 'joined', turn: 3 }, 'BAD_USER_INPUT', /Turn 3 of session joined is still open/],
    ];
    for (const [document, input, code, message] of cases) {
      const error = onlyError(await api.raw(document, { input }));
      expect(error.extensions?.code, JSON.stringify(input)).toBe(code);
      expect(error.message).toMatch(message);
    }
    expectUntouched(dir, before);

    // A project folder that is refused now: its own error, nothing run there.
    rmSync(dir, { recursive: true });
    symlinkSync(root, dir);
    const refused = onlyError(await api.raw(RESTORE, { input: { sessionId: 's', turn: 0 } }));
    expect(refused.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('restoreProjectFiles', () => {
  /** Three committed turns: a text file edited twice, a binary file, a deletion, an executable and a symlink. */
  async function threeTurns(api: TestServer, dir: string) {
    const trees: string[] = [treeOf(dir, 'HEAD')];
    const worktrees = [worktree(dir)];
    const turns: [Record<string, string | Buffer | null>, { run: () => void; paths: string[] }?][] = [
      [{ 'a.txt': 'one\n', 'b.bin': BINARY }],
      [{ 'a.txt': 'two\n', 'c.txt': 'see\n', 'notes.txt': null }],
      [
        { 'b.bin': Buffer.concat([BINARY, BINARY]), 'c.txt': '#!/bin/sh\n' },
        {
          run: () => {
            chmodSync(join(dir, 'c.txt'), 0o755);
            symlinkSync('a.txt', join(dir, 'link'));
          },
          paths: ['link'],
        },
      ],
    ];
    for (const [files, more] of turns) {
      const number = await agentTurn(api, dir, 's', files, more);
      expect((await outcome(api, 's', number)).result, `turn ${number}`).toBe('COMMITTED');
      trees.push(treeOf(dir, 'HEAD'));
      worktrees.push(worktree(dir));
    }
    expect(git(dir, 'status', '--porcelain')).toBe('');
    return { trees, worktrees };
  }

  it('restores to turn 1 after three turns, and back to turn 3, to identical trees byte for byte; to turn 0 and back too', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir, 's', 'claude-test');
    const { trees, worktrees } = await threeTurns(api, dir);
    expect(worktrees[3]!['link']).toBe('link a.txt');
    expect(worktrees[3]!['c.txt']).toMatch(/^755 /);

    const back = await restore(api, 's', 1);
    expect(back).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'b.bin', 'c.txt', 'link', 'notes.txt'] });
    expect(back.commit?.sha).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    expect(git(dir, 'log', '-1', '--format=%B').trimEnd()).toBe('[agent s] restore to turn 1\n\nSession-Id: s\nRestore-To: 1');
    expect(git(dir, 'log', '-1', '--format=%an|%ae').trim()).toBe('agent (claude-test via OpenProgram)|agent@openprogram.invalid');
    expect(treeOf(dir, 'HEAD')).toBe(trees[1]);
    expect(worktree(dir)).toEqual(worktrees[1]);
    expect(readFileSync(join(dir, 'b.bin')).equals(BINARY)).toBe(true);
    expect(git(dir, 'status', '--porcelain')).toBe('');

    const undo = await restore(api, 's', 3);
    expect(undo).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'b.bin', 'c.txt', 'link', 'notes.txt'] });
    expect(treeOf(dir, 'HEAD')).toBe(trees[3]);
    expect(worktree(dir)).toEqual(worktrees[3]);
    expect(git(dir, 'status', '--porcelain')).toBe('');

    // Before the first turn: the user's own files as they were, the agent's gone; and back again.
    expect((await restore(api, 's', 0)).result).toBe('COMMITTED');
    expect(treeOf(dir, 'HEAD')).toBe(trees[0]);
    expect(worktree(dir)).toEqual(worktrees[0]);
    expect((await restore(api, 's', 3)).result).toBe('COMMITTED');
    expect(treeOf(dir, 'HEAD')).toBe(trees[3]);
    expect(worktree(dir)).toEqual(worktrees[3]);
    // Nothing left to do: recorded, nothing written.
    expect(await restore(api, 's', 3)).toMatchObject({ result: 'NOTHING', paths: [], commit: null });
    expect(git(dir, 'log', '--format=%s', '-5').trim().split('\n')).toEqual([
      '[agent s] restore to turn 3',
      '[agent s] restore to turn 0',
      '[agent s] restore to turn 3',
      '[agent s] restore to turn 1',
      expect.stringMatching(/^\[agent s\] turn 3:/),
    ]);
    expectNoScratch(dir);
  });

  it("refuses a restore over the user's edit of an agent path, changing nothing (worktree, index, HEAD, refs, stash)", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir, 's');
    await threeTurns(api, dir);
    // A stash of the user's, and then their edit of a file the agent wrote.
    writeFileSync(join(dir, 'README.md'), '# stashed\n');
    userGit(dir, 'stash', '-q');
    writeFileSync(join(dir, 'a.txt'), 'the user edited this\n');
    const before = picture(dir);
    expect(before.stash).not.toBe('');
    for (const turn of [0, 1, 2]) {
      const error = onlyError(await api.raw(RESTORE, { input: { sessionId: 's', turn } }));
      expect(error.extensions).toMatchObject({ code: 'CONFLICT', paths: ['a.txt'] });
      expect(error.message).toMatch(/a\.txt changed since the agent/);
      expectUntouched(dir, before);
    }
    expectNoScratch(dir);
  });

  it('writes the restore but keeps it on a private ref when the user has an unrelated uncommitted change, which stays as it is', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir, 's');
    const { worktrees } = await threeTurns(api, dir);
    writeFileSync(join(dir, 'README.md'), '# the user is writing here\n');
    writeFileSync(join(dir, 'draft.txt'), 'untracked draft\n');
    userGit(dir, 'add', 'draft.txt');
    const before = picture(dir);
    const head = git(dir, 'rev-parse', 'HEAD').trim();

    const back = await restore(api, 's', 1);
    expect(back).toMatchObject({ result: 'SNAPSHOT', paths: ['a.txt', 'b.bin', 'c.txt', 'link', 'notes.txt'] });
    expect(back.message).toMatch(/README\.md/);
    const ref = back.message.match(/refs\/entity-memory\/snapshots\/s\/restore-[0-9a-f]+/)?.[0];
    expect(ref).toBeTruthy();
    expect(git(dir, 'rev-parse', ref!).trim()).toBe(back.commit?.sha);
    expect(git(dir, 'rev-parse', `${ref!}^`).trim()).toBe(head);
    expect(git(dir, 'cat-file', 'blob', `${ref!}:a.txt`)).toBe('one\n');
    expect(git(dir, 'cat-file', 'blob', `${ref!}:README.md`)).toBe('# app\n');
    // HEAD, index, refs, stash and the user's files exactly as they were; the agent's paths at turn 1.
    const after = picture(dir);
    expect(after.gitDir).toEqual(before.gitDir);
    expect(after.refs).toBe(before.refs);
    expect(after.stash).toBe(before.stash);
    const agent = ['a.txt', 'b.bin', 'c.txt', 'link', 'notes.txt'];
    expect(without(after.worktree, agent)).toEqual(without(before.worktree, agent));
    expect(pick(after.worktree, agent)).toEqual(pick(worktrees[1]!, agent));

    // And undone the same way: the agent's paths back at turn 3, the user's change still there.
    expect((await restore(api, 's', 3)).result).toBe('SNAPSHOT');
    expectUntouched(dir, before);
    expect(pick(worktree(dir), agent)).toEqual(pick(worktrees[3]!, agent));
    expectNoScratch(dir);
  });
});

function pick(tree: RepoPicture['worktree'], paths: string[]): RepoPicture['worktree'] {
  return Object.fromEntries(Object.entries(tree).filter(([path]) => paths.includes(path)));
}

/** A git command's stdout as bytes (blobs). */
function execBytes(dir: string, ...args: string[]): Buffer {
  return execFileSync('git', args, { cwd: dir, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
}
