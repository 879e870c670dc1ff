/**
 * Whose edits an end-of-turn commit takes: exactly the agent's, as they stood
 * when the turn closed. User edits made during the turn, before it, or after
 * its close never end up in an agent commit; a held index.lock is waited for;
 * a branch the user moved meanwhile is built on, or the turn skipped when the
 * user's commit changed the agent's paths.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeyedLocks } from '../../src/locks.js';
import { withProjectLock } from '../../src/projects/project-lock.js';
import { AppendMessage, EndTurn } from '../api/operations.js';
import { eventually, git } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import type { TestServer } from '../helpers/server.js';
import {
  agentCommits,
  expectSnapshot,
  expectUntouched,
  outcome,
  picture,
  projectServer,
  projectSession,
  recordTurn,
  results,
  userGit,
  userRepo,
} from './project-turns.js';

const head = (dir: string) => git(dir, 'rev-parse', 'HEAD').trim();
const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');

/** The session's queued project job: how often the committer has tried it (null when none is left). */
async function projectJob(api: TestServer): Promise<{ attempts: number } | null> {
  return api.server.app.db.outboxJob.findFirst({ where: { kind: 'PROJECT' }, select: { attempts: true } });
}

/**
 * Holds the working directory's commit lock the way another server process
 * would, so the committer cannot run until `release()`.
 */
async function holdProjectLock(dir: string): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let acquired!: () => void;
  const holding = new Promise<void>((resolve) => (acquired = resolve));
  const done = withProjectLock(new KeyedLocks(), dir, async () => {
    acquired();
    await released;
  });
  await Promise.race([holding, done]);
  const stop = async () => {
    release();
    await done;
  };
  onCleanup(stop);
  return stop;
}

describe('user edits around a turn', () => {
  it('a file the user had changed before the turn, which the agent then edits too, is never committed as the agent’s: SKIPPED_DIRTY naming it', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    const initial = head(dir);
    writeFileSync(join(dir, 'notes.txt'), 'v1\nthe user’s line\n');
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: 'add a line to notes.txt' } });
    writeFileSync(join(dir, 'notes.txt'), 'v1\nthe user’s line\nthe agent’s line\n');
    writeFileSync(join(dir, 'agent.txt'), 'agent\n');
    await api.ok(EndTurn, { input: { sessionId: 's', touchedPaths: ['notes.txt', 'agent.txt'] } });

    const result = await outcome(api, 's', 1);
    expect(result).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['notes.txt'], paths: ['agent.txt'], commit: null });
    expect(head(dir)).toBe(initial);
    expect(agentCommits(dir)).toEqual([]);
    expect(read(dir, 'notes.txt')).toBe('v1\nthe user’s line\nthe agent’s line\n');
    // Nor is its content hashed into the user's repo (the close hashes the turn's files while its
    // status runs, but not one that was dirty as the turn began): no such object there.
    const userBlob = git(dir, 'hash-object', 'notes.txt').trim();
    expect(() => git(dir, 'cat-file', '-e', userBlob)).toThrow();
    expect(git(dir, 'cat-file', '-t', git(dir, 'hash-object', 'agent.txt').trim()).trim()).toBe('blob');
  });

  it('after a skipped turn, the agent’s own uncommitted file is still the agent’s: the next warning names only the user’s, and their commit lets it through', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    writeFileSync(join(dir, 'notes.txt'), 'the user’s work in progress\n');
    const turn = async (file: string) => {
      await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: `write ${file}` } });
      writeFileSync(join(dir, file), `${file} by the agent\n`);
      await api.ok(EndTurn, { input: { sessionId: 's', touchedPaths: [file] } });
    };
    await turn('b.txt');
    expect(await outcome(api, 's', 1)).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['notes.txt'], paths: ['b.txt'] });
    await turn('c.txt');
    const second = await outcome(api, 's', 2);
    expect(second).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['notes.txt'] });
    expect(second.reason).not.toContain('b.txt');
    // The user commits their own work; the agent's next turn takes what it left in the two skipped turns too.
    userGit(dir, 'commit', '-qam', 'user: notes');
    await turn('d.txt');
    const third = await outcome(api, 's', 3);
    expect(third).toMatchObject({ result: 'COMMITTED', paths: ['b.txt', 'c.txt', 'd.txt'] });
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it('after a skipped turn, a file the agent left that the user then changed is the user’s', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    writeFileSync(join(dir, 'notes.txt'), 'the user’s work in progress\n');
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: 'write b.txt' } });
    writeFileSync(join(dir, 'b.txt'), 'agent\n');
    await api.ok(EndTurn, { input: { sessionId: 's', touchedPaths: ['b.txt'] } });
    expect(await outcome(api, 's', 1)).toMatchObject({ result: 'SKIPPED_DIRTY' });
    userGit(dir, 'commit', '-qm', 'user: notes', 'notes.txt');
    writeFileSync(join(dir, 'b.txt'), 'agent\nand the user’s change\n');
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: 'write c.txt' } });
    writeFileSync(join(dir, 'c.txt'), 'agent\n');
    await api.ok(EndTurn, { input: { sessionId: 's', touchedPaths: ['c.txt'] } });
    expect(await outcome(api, 's', 2)).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['b.txt'], paths: ['c.txt'] });
  });

  it('with touchedPaths, a user edit outside them during the turn: SKIPPED_DIRTY listing it, no commit, nothing touched', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    const initial = head(dir);
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: 'write agent.txt' } });
    writeFileSync(join(dir, 'agent.txt'), 'agent\n');
    writeFileSync(join(dir, 'notes.txt'), 'user edit during the turn\n');
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'ASSISTANT', content: 'done' } });
    const before = picture(dir);
    await api.ok(EndTurn, { input: { sessionId: 's', touchedPaths: ['agent.txt'] } });

    const result = await outcome(api, 's', 1);
    expect(result).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['notes.txt'], paths: ['agent.txt'], commit: null });
    expect(result.reason).toContain('notes.txt');
    expectUntouched(dir, before);
    expect(head(dir)).toBe(initial);
    expect(agentCommits(dir)).toEqual([]);
    expectSnapshot(dir, result, 's', 1, initial, { 'agent.txt': 'agent\n', 'notes.txt': 'v1\n' });
  });

  it("without touchedPaths, a user edit made before the turn's USER message is not committed: SKIPPED_DIRTY", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    const initial = head(dir);
    writeFileSync(join(dir, 'notes.txt'), 'user edit before the turn\n');
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: 'write agent.txt' } });
    writeFileSync(join(dir, 'agent.txt'), 'agent\n');
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'ASSISTANT', content: 'done' } });
    const before = picture(dir);
    await api.ok(EndTurn, { input: { sessionId: 's' } });

    const result = await outcome(api, 's', 1);
    expect(result).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['notes.txt'], paths: ['agent.txt'], commit: null });
    expectUntouched(dir, before);
    expect(agentCommits(dir)).toEqual([]);
    expectSnapshot(dir, result, 's', 1, initial, { 'agent.txt': 'agent\n', 'notes.txt': 'v1\n' });
  });

  /** Turn 1 closes clean; then the user edits notes.txt (3 s "ago") and the agent writes agent.txt; turn 2 is recorded. */
  async function editBetweenTurns(startedAt: boolean, optIn = false) {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    const projectId = await projectSession(api, dir);
    if (optIn) expect((await api.raw(`mutation { updateProject(input: { projectId: "${projectId}", attributeUnmarkedTurns: true }) { attributeUnmarkedTurns } }`)).errors).toBeUndefined();
    await recordTurn(api, { sessionId: 's', content: 'look around' });
    expect((await outcome(api, 's', 1)).result).toBe('NOTHING_TO_COMMIT');
    const now = Date.now();
    writeFileSync(join(dir, 'notes.txt'), 'user edit between turns\n');
    utimesSync(join(dir, 'notes.txt'), new Date(now - 3000), new Date(now - 3000));
    writeFileSync(join(dir, 'agent.txt'), 'agent\n');
    utimesSync(join(dir, 'agent.txt'), new Date(now), new Date(now));
    const before = picture(dir);
    await recordTurn(api, { sessionId: 's', content: 'write agent.txt', ...(startedAt ? { startedAt: new Date(now - 2000).toISOString() } : {}) });
    return { api, dir, before, result: await outcome(api, 's', 2) };
  }

  it('recordTurn with neither touchedPaths nor startedAt: whose the changes are cannot be told, so nothing is committed: SKIPPED_UNATTRIBUTED, a snapshot, a warning', async () => {
    const { api, dir, before, result } = await editBetweenTurns(false);
    expect(result).toMatchObject({ result: 'SKIPPED_UNATTRIBUTED', dirtyPaths: ['agent.txt', 'notes.txt'], paths: ['agent.txt', 'notes.txt'], commit: null });
    expect(result.message).toContain('touchedPaths');
    expectUntouched(dir, before);
    expect(agentCommits(dir)).toEqual([]);
    expect(git(dir, 'show', `${result.snapshot!.sha}:agent.txt`)).toBe('agent\n');
    // The next turn that says what it wrote commits exactly that; the user's edit stays theirs.
    await recordTurn(api, { sessionId: 's', content: 'again', touchedPaths: ['agent.txt'] });
    expect(await outcome(api, 's', 3)).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['notes.txt'] });
  });

  it('a project that opts in (attributeUnmarkedTurns) takes such changes as the agent’s, as before', async () => {
    const { dir, result } = await editBetweenTurns(false, true);
    expect(result).toMatchObject({ result: 'COMMITTED', paths: ['agent.txt', 'notes.txt'] });
    expect(git(dir, 'show', '--name-only', '--format=', result.commit!.sha).trim().split('\n')).toEqual(['agent.txt', 'notes.txt']);
  });

  it('recordTurn with startedAt: a file last changed before it (and after the previous close) is the user’s: SKIPPED_DIRTY', async () => {
    const { dir, before, result } = await editBetweenTurns(true);
    expect(result).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['notes.txt'], paths: ['agent.txt'], commit: null });
    expectUntouched(dir, before);
    expect(agentCommits(dir)).toEqual([]);
    expectSnapshot(dir, result, 's', 2, head(dir), { 'agent.txt': 'agent\n', 'notes.txt': 'v1\n' });
  });

  it("a user edit made after the close but before the commit runs is not in the agent's commit, and stays in the working tree", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    const initial = head(dir);
    // The user's git holds the index: the commit cannot run until it is released.
    const lock = join(dir, '.git', 'index.lock');
    writeFileSync(lock, '');
    writeFileSync(join(dir, 'notes.txt'), 'agent v2\n');
    const closed = await recordTurn(api, { sessionId: 's', touchedPaths: ['notes.txt'] });
    expect(closed.projectCommit).toEqual({ result: 'PENDING', paths: ['notes.txt'] });
    await eventually(async () => ((await projectJob(api))?.attempts ?? 0) >= 1);

    writeFileSync(join(dir, 'notes.txt'), 'user v3, after the close\n');
    rmSync(lock);
    const result = await outcome(api, 's', 1);
    expect(result).toMatchObject({ result: 'COMMITTED', paths: ['notes.txt'] });
    expect(git(dir, 'show', `${result.commit!.sha}:notes.txt`)).toBe('agent v2\n');
    expect(git(dir, 'rev-parse', `${result.commit!.sha}^`).trim()).toBe(initial);
    expect(read(dir, 'notes.txt')).toBe('user v3, after the close\n');
    // The index follows the agent's commit for its path; the user's edit shows as theirs, unstaged.
    expect(git(dir, 'show', ':notes.txt')).toBe('agent v2\n');
    expect(git(dir, 'status', '--porcelain')).toBe(' M notes.txt\n');
  });

  for (const touched of [true, false]) {
    it(`15 back-to-back turns editing the same file make 15 agent commits, each with its own turn’s content (${touched ? 'with' : 'without'} touchedPaths)`, async () => {
      const { api, root } = await projectServer();
      const dir = userRepo(root);
      await projectSession(api, dir);
      const turns = 15;
      for (let i = 1; i <= turns; i++) {
        // Without touchedPaths the runtime says when the turn began (a second early: file times are coarser than the clock).
        const startedAt = new Date(Date.now() - 1000).toISOString();
        writeFileSync(join(dir, 'counter.txt'), `turn ${i}\n`);
        await recordTurn(api, { sessionId: 's', content: `count to ${i}`, ...(touched ? { touchedPaths: ['counter.txt'] } : { startedAt }) });
      }
      await eventually(async () => [...(await results(api, 's')).values()].every((r) => r && r.result !== 'PENDING'), 60_000);
      const shas: string[] = [];
      for (let i = 1; i <= turns; i++) {
        const result = await outcome(api, 's', i);
        expect(result.result, `turn ${i}`).toBe('COMMITTED');
        expect(git(dir, 'show', `${result.commit!.sha}:counter.txt`), `turn ${i}`).toBe(`turn ${i}\n`);
        shas.push(result.commit!.sha);
      }
      expect(agentCommits(dir)).toEqual([...shas].reverse());
      expect(git(dir, 'rev-list', '--count', 'HEAD').trim()).toBe(String(turns + 1));
      expect(git(dir, 'status', '--porcelain')).toBe('');
    });
  }
});

describe('locks and a moving branch', () => {
  it("a held index.lock is waited for and never removed; once released the turn is committed once", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    const initial = head(dir);
    const lock = join(dir, '.git', 'index.lock');
    writeFileSync(lock, 'held by the user\n');
    const inode = statSync(lock).ino;
    writeFileSync(join(dir, 'agent.txt'), 'agent\n');
    const closed = await recordTurn(api, { sessionId: 's', touchedPaths: ['agent.txt'] });
    expect(closed.projectCommit).toEqual({ result: 'PENDING', paths: ['agent.txt'] });

    await eventually(async () => ((await projectJob(api))?.attempts ?? 0) >= 3);
    expect(readFileSync(lock, 'utf8')).toBe('held by the user\n');
    expect(statSync(lock).ino).toBe(inode);
    expect((await results(api, 's')).get(1)?.result).toBe('PENDING');
    expect(head(dir)).toBe(initial);

    rmSync(lock);
    const result = await outcome(api, 's', 1);
    expect(result.result).toBe('COMMITTED');
    expect(await projectJob(api)).toBeNull();
    expect(agentCommits(dir)).toEqual([result.commit!.sha]);
    expect(git(dir, 'rev-parse', 'HEAD^').trim()).toBe(initial);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    expect(existsSync(lock)).toBe(false);
  });

  it("the user commits an unrelated file between the close and the commit: the agent's commit goes on top of theirs", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    const release = await holdProjectLock(dir);
    writeFileSync(join(dir, 'agent.txt'), 'agent\n');
    await recordTurn(api, { sessionId: 's', touchedPaths: ['agent.txt'] });
    writeFileSync(join(dir, 'other.txt'), 'the user’s own\n');
    userGit(dir, 'add', 'other.txt');
    userGit(dir, 'commit', '-q', '-m', 'user: other');
    const users = head(dir);
    await release();

    const result = await outcome(api, 's', 1);
    expect(result.result).toBe('COMMITTED');
    expect(head(dir)).toBe(result.commit!.sha);
    expect(git(dir, 'rev-parse', 'HEAD^').trim()).toBe(users);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('agent.txt');
    expect(git(dir, 'show', 'HEAD:other.txt')).toBe('the user’s own\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it("the user commits a change to the agent's path between the close and the commit: SKIPPED_BUSY, a snapshot, nothing touched", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    const release = await holdProjectLock(dir);
    writeFileSync(join(dir, 'agent.txt'), 'agent\n');
    await recordTurn(api, { sessionId: 's', touchedPaths: ['agent.txt'] });
    writeFileSync(join(dir, 'agent.txt'), 'the user’s version\n');
    userGit(dir, 'add', 'agent.txt');
    userGit(dir, 'commit', '-q', '-m', 'user: agent.txt my way');
    const users = head(dir);
    const before = picture(dir);
    await release();

    const result = await outcome(api, 's', 1);
    expect(result).toMatchObject({ result: 'SKIPPED_BUSY', paths: ['agent.txt'], commit: null });
    expect(result.reason).toMatch(/branch moved.*agent\.txt/);
    expectUntouched(dir, before);
    expect(agentCommits(dir)).toEqual([]);
    expectSnapshot(dir, result, 's', 1, users, { 'agent.txt': 'agent\n' });
  });
});

describe('a .git removed later', () => {
  it('is initialised again at the next turn, which commits', async () => {
    const { api, root } = await projectServer();
    const dir = join(root, 'fresh');
    mkdirSync(dir);
    const projectId = await projectSession(api, dir);
    // Turns recorded without touchedPaths, as a runtime that says nothing: the project takes what changed as the agent's.
    expect((await api.raw(`mutation { updateProject(input: { projectId: "${projectId}", attributeUnmarkedTurns: true }) { projectId } }`)).errors).toBeUndefined();
    writeFileSync(join(dir, 'a.txt'), 'a\n');
    await recordTurn(api, { sessionId: 's', content: 'write a' });
    expect((await outcome(api, 's', 1)).result).toBe('COMMITTED');

    rmSync(join(dir, '.git'), { recursive: true });
    writeFileSync(join(dir, 'b.txt'), 'b\n');
    await recordTurn(api, { sessionId: 's', content: 'write b' });
    const result = await outcome(api, 's', 2);
    expect(result).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'b.txt'] });
    expect(git(dir, 'rev-list', 'HEAD').trim()).toBe(result.commit!.sha);
    expect(git(dir, 'log', '-1', '--format=%ae|%s').trim()).toBe('agent@openprogram.invalid|[agent s] turn 2: write b');
    expect(git(dir, 'ls-tree', '--name-only', 'HEAD').trim().split('\n')).toEqual(['a.txt', 'b.txt']);
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it("is initialised again where the user's files are: the turn is skipped, and the warning says how to make the first commit", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    rmSync(join(dir, '.git'), { recursive: true });
    writeFileSync(join(dir, 'agent.txt'), 'agent\n');
    await recordTurn(api, { sessionId: 's', touchedPaths: ['agent.txt'] });
    const result = await outcome(api, 's', 1);
    expect(result).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['README.md', 'notes.txt'], paths: ['agent.txt'] });
    expect(result.message).toMatch(/no commit yet/);
    expect(git(dir, 'rev-parse', '--is-inside-work-tree').trim()).toBe('true');
    expect(git(dir, 'rev-list', '--all').trim()).toBe(result.snapshot ? git(dir, 'rev-parse', result.snapshot.sha).trim() : '');
    expect([read(dir, 'README.md'), read(dir, 'notes.txt'), read(dir, 'agent.txt')]).toEqual(['# app\n', 'v1\n', 'agent\n']);
  });

  it('takes a new session (createSession, addSessionToProject) while .git is gone, creating nothing until its first turn', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    const projectId = await projectSession(api, dir);
    rmSync(join(dir, '.git'), { recursive: true });
    const created = await api.raw(`mutation { createSession(input: { sessionId: "later", projectId: "${projectId}" }) { sessionId } }`);
    expect(created.errors).toBeUndefined();
    expect((await api.raw(`mutation { createSession(input: { sessionId: "loose" }) { sessionId } }`)).errors).toBeUndefined();
    const joined = await api.raw(`mutation { addSessionToProject(input: { projectId: "${projectId}", sessionId: "loose" }) { sessionId } }`);
    expect(joined.errors).toBeUndefined();
    expect(existsSync(join(dir, '.git'))).toBe(false);
    // Its first turn re-creates the repo, as any turn does: the user's files are in the way.
    writeFileSync(join(dir, 'agent.txt'), 'agent\n');
    await recordTurn(api, { sessionId: 'later', touchedPaths: ['agent.txt'] });
    expect(await outcome(api, 'later', 1)).toMatchObject({ result: 'SKIPPED_DIRTY', dirtyPaths: ['README.md', 'notes.txt'], paths: ['agent.txt'] });
    expect(existsSync(join(dir, '.git'))).toBe(true);
  });
});
