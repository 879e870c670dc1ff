/**
 * Self-healing while running: a session repo deleted, corrupted or rewritten
 * behind the server's back is noticed (by the worker when it next touches it,
 * or by the periodic check), moved aside (never deleted) and rebuilt from the
 * database, without a restart; and while git fails, the reads answer.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { onGitSpawn } from '../../src/git/index.js';
import { clearShaCache } from '../../src/git/sha-cache.js';
import { RepoHealthMonitor, type RepoFault } from '../../src/mirror/health.js';
import { capturedLogger } from '../helpers/logger.js';
import { eventually, git } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const READ = `
  query Read($sessionId: String!) {
    session(sessionId: $sessionId) {
      repoPath
      mirror { dagTurns gitCommits pending inSync lastError }
      head { sha headline parents { sha } }
      branches { name isCurrent head { sha } }
      timeline(first: 10) { totalCount edges { node { sha headline turn { number } } } }
      turns(first: 50) { edges { node { number mirrorState commit { sha } } } }
    }
  }
`;

interface ReadResult {
  repoPath: string;
  mirror: { dagTurns: number; gitCommits: number; pending: number; inSync: boolean; lastError: string | null };
  head: { sha: string; headline: string; parents: { sha: string }[] } | null;
  branches: { name: string; isCurrent: boolean; head: { sha: string } | null }[];
  timeline: { totalCount: number; edges: { node: { sha: string; headline: string; turn: { number: number } | null } }[] };
  turns: { edges: { node: { number: number; mirrorState: string; commit: { sha: string } | null } }[] };
}

/** The whole read; fails the test on any GraphQL error, so every call checks that the reads answer. */
async function read(api: TestServer, sessionId: string): Promise<ReadResult> {
  const result = await api.raw(READ, { sessionId });
  if (result.errors?.length) throw new Error(`GraphQL errors while reading ${sessionId}: ${JSON.stringify(result.errors)}`);
  return (result.data as { session: ReadResult }).session;
}

async function turns(api: TestServer, sessionId: string, count: number, from = 1): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await api.ok(RecordTurn, { input: { sessionId, user: { content: `question ${n}` }, assistant: { content: `answer ${n}` } } });
  }
}

/** Polls the whole read (each poll must answer without errors) until the mirror is in sync at `dagTurns`. */
async function healed(api: TestServer, sessionId: string, dagTurns: number, ms = 45_000): Promise<ReadResult> {
  const found = await eventually(async () => {
    const view = await read(api, sessionId);
    // The database says in sync from before the rebuild (rebuilt commits are the same commits), and
    // a read in the moment the rebuilt repo is renamed into place answers head empty: both must agree.
    return view.mirror.inSync && view.mirror.dagTurns === dagTurns && (view.mirror.gitCommits === 0 || view.head) ? view : undefined;
  }, ms);
  // Its checkout follows a commit after the commit is recorded: wait for the pass to end.
  await api.repoSettled(sessionId);
  return found;
}

async function userMessageOfTurn(api: TestServer, sessionId: string, number: number): Promise<string> {
  const result = await api.raw(
    `query ($sessionId: String!) { session(sessionId: $sessionId) { turns(first: 50) { edges { node { number userMessage { messageId } } } } } }`,
    { sessionId },
  );
  const edges = (result.data as { session: { turns: { edges: { node: { number: number; userMessage: { messageId: string } } }[] } } }).session.turns.edges;
  return edges.find((e) => e.node.number === number)!.node.userMessage.messageId;
}

function subjects(repo: string): string[] {
  return git(repo, 'log', '--format=%s', 'main').trim().split('\n');
}

function expected(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `turn ${count - i}: question ${count - i}`);
}

/** A server with one session of `count` turns, in sync. */
async function sessionWithTurns(count: number, repoHealthMs: number, logger?: ReturnType<typeof capturedLogger>['logger']) {
  const api = await startTestServer({}, { repoHealth: { intervalMs: repoHealthMs } }, logger ? { logger } : {});
  await api.ok(CreateSession, { input: { sessionId: 's' } });
  await turns(api, 's', count);
  const view = await healed(api, 's', count);
  return { api, repo: view.repoPath, tip: git(view.repoPath, 'rev-parse', 'main').trim() };
}

describe('self-healing while running', () => {
  it('rebuilds a repo deleted while the server runs when the next turn is mirrored, with every turn committed', async () => {
    // No periodic check: the worker notices when it next touches the repo.
    const { api, repo, tip } = await sessionWithTurns(3, 0);
    rmSync(repo, { recursive: true, force: true });

    // Meanwhile the reads answer from the database, and say what is wrong.
    const broken = await read(api, 's');
    expect(broken.mirror).toMatchObject({ dagTurns: 3, inSync: false });
    expect(broken.mirror.lastError).toMatch(/missing/);
    expect(broken.head).toBeNull();
    expect(broken.timeline).toEqual({ totalCount: 0, edges: [] });
    expect(broken.branches).toEqual([{ name: 'main', isCurrent: true, head: null }]);

    await turns(api, 's', 2, 4);
    const view = await healed(api, 's', 5);
    expect(view.mirror).toMatchObject({ gitCommits: 5, pending: 0, lastError: null });
    expect(view.turns.edges.map((e) => e.node.mirrorState)).toEqual(Array(5).fill('COMMITTED'));
    expect(subjects(repo)).toEqual(expected(5));
    // Rebuilt commits are the same commits.
    expect(git(repo, 'rev-parse', 'main~2').trim()).toBe(tip);
    expect(view.head?.sha).toBe(git(repo, 'rev-parse', 'main').trim());
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'fsck', '--strict').trim()).toBe('');
  });

  it('notices a repo deleted while nothing touches it within the periodic check, and rebuilds it', async () => {
    const { api, repo, tip } = await sessionWithTurns(3, 200);
    rmSync(repo, { recursive: true, force: true });
    const view = await eventually(async () => {
      const current = await read(api, 's');
      return existsSync(join(repo, '.git', 'HEAD')) && current.mirror.inSync ? current : undefined;
    }, 45_000);
    expect(view.mirror).toMatchObject({ dagTurns: 3, gitCommits: 3, lastError: null });
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(tip);
    expect(subjects(repo)).toEqual(expected(3));
    expect(existsSync(join(api.dataDir, 'moved-aside'))).toBe(false);
  });

  it('heals a corrupted .git/HEAD while running: the broken repo is moved aside, never deleted, and said so in the log', async () => {
    const { logger, lines } = capturedLogger();
    const { api, repo, tip } = await sessionWithTurns(3, 200, logger);
    writeFileSync(join(repo, '.git', 'HEAD'), 'garbage that is not a ref\n');

    // Every poll reads the whole session without an error until it is healed.
    const view = await healed(api, 's', 3);
    expect(view.mirror).toMatchObject({ gitCommits: 3, lastError: null });
    expect(view.head?.sha).toBe(tip);
    expect(git(repo, 'symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(tip);
    expect(git(repo, 'status', '--porcelain')).toBe('');

    const aside = readdirSync(join(api.dataDir, 'moved-aside'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(api.dataDir, 'moved-aside', aside[0]!, '.git', 'HEAD'), 'utf8')).toBe('garbage that is not a ref\n');
    const moved = lines.find((l) => l.sessionId === 's' && /moved a session repo aside/.test(String(l.msg)));
    expect(moved?.msg).toMatch(/never deleted/);
    expect(moved?.movedTo).toBe(join(api.dataDir, 'moved-aside', aside[0]!));

    // And it goes on mirroring.
    await turns(api, 's', 1, 4);
    await healed(api, 's', 4);
    expect(subjects(repo)).toEqual(expected(4));
  });

  it('rebuilds a repo whose branch was moved behind the server\'s back (diverged from the database)', async () => {
    const { api, repo, tip } = await sessionWithTurns(3, 200);
    git(repo, '-c', 'user.name=x', '-c', 'user.email=x@y', 'commit', '-q', '--allow-empty', '-m', 'not a turn');
    const view = await eventually(async () => {
      const current = await read(api, 's');
      return current.mirror.inSync && git(repo, 'rev-parse', 'main').trim() === tip ? current : undefined;
    }, 45_000);
    expect(view.mirror).toMatchObject({ dagTurns: 3, gitCommits: 3 });
    expect(subjects(repo)).toEqual(expected(3));
    const aside = readdirSync(join(api.dataDir, 'moved-aside'));
    expect(aside).toHaveLength(1);
    expect(git(join(api.dataDir, 'moved-aside', aside[0]!), 'log', '-1', '--format=%s', 'main').trim()).toBe('not a turn');
  });

  it('answers Session.mirror and degrades the git-backed fields while git cannot run, and moves nothing aside', async () => {
    const { api, repo, tip } = await sessionWithTurns(2, 100);
    const saved = process.env.ENTITY_MEMORY_GIT_BINARY;
    process.env.ENTITY_MEMORY_GIT_BINARY = join(tempDir(), 'no-such-git');
    onCleanup(() => {
      if (saved === undefined) delete process.env.ENTITY_MEMORY_GIT_BINARY;
      else process.env.ENTITY_MEMORY_GIT_BINARY = saved;
    });
    // What git said of the commits so far is kept (src/git/sha-cache.ts), and would answer without
    // git: forgotten, so each git-backed field has to ask git, and degrades.
    clearShaCache();

    await turns(api, 's', 1, 3);
    const failing = await eventually(async () => {
      const view = await read(api, 's');
      return view.mirror.lastError ? view : undefined;
    });
    expect(failing.mirror).toMatchObject({ dagTurns: 3, gitCommits: 2, pending: 1, inSync: false });
    expect(failing.mirror.lastError).toMatch(/git/i);
    expect(failing.head).toBeNull();
    expect(failing.branches).toEqual([{ name: 'main', isCurrent: true, head: null }]);
    // The timeline of the branch is the database's (shas, turns, headlines): it still answers.
    expect(failing.timeline.totalCount).toBe(2);
    expect(failing.timeline.edges.map((e) => [e.node.sha, e.node.headline, e.node.turn?.number])).toEqual([
      [tip, 'turn 2: question 2', 2],
      [expect.stringMatching(/^[0-9a-f]{40}$/), 'turn 1: question 1', 1],
    ]);
    // A turn's commit sha is the database's, read without git: the two committed turns keep theirs.
    const committed = failing.turns.edges.map((e) => e.node.commit?.sha ?? null);
    expect(committed[2]).toBeNull();
    expect(committed[1]).toBe(tip);
    expect(committed[0]).toMatch(/^[0-9a-f]{40}$/);
    // Let the commit fail three times (50 + 100 + 200 ms of backoff): periodic checks run every 100 ms
    // meanwhile, and git failing is no reason to move a repo aside. Every poll reads the whole session.
    await eventually(async () => {
      await read(api, 's');
      const job = await api.server.app.db.outboxJob.findFirst({ where: { sessionId: 's', kind: 'SESSION' } });
      return (job?.attempts ?? 0) >= 3;
    });

    delete process.env.ENTITY_MEMORY_GIT_BINARY;
    const view = await healed(api, 's', 3);
    expect(view.mirror).toMatchObject({ gitCommits: 3, lastError: null });
    expect(git(repo, 'rev-parse', 'main~1').trim()).toBe(tip);
    expect(existsSync(join(api.dataDir, 'moved-aside'))).toBe(false);
  });

  it('answers every read while .git is a file instead of a folder, then heals at the next turn', async () => {
    const { api, repo, tip } = await sessionWithTurns(2, 0);
    renameSync(join(repo, '.git'), join(api.dataDir, 'old-git'));
    writeFileSync(join(repo, '.git'), 'not a git directory\n');

    for (let i = 0; i < 3; i++) {
      const view = await read(api, 's');
      expect(view.mirror).toMatchObject({ dagTurns: 2, inSync: false });
      expect(view.mirror.lastError).toMatch(/\.git is not a folder/);
      expect(view.head).toBeNull();
      expect(view.timeline.edges).toEqual([]);
      expect(view.turns.edges.map((e) => e.node.mirrorState)).toEqual(['COMMITTED', 'COMMITTED']);
    }

    await turns(api, 's', 1, 3);
    const view = await healed(api, 's', 3);
    expect(view.head?.parents).toEqual([{ sha: tip }]);
    expect(subjects(repo)).toEqual(expected(3));
    const aside = readdirSync(join(api.dataDir, 'moved-aside'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(api.dataDir, 'moved-aside', aside[0]!, '.git'), 'utf8')).toBe('not a git directory\n');
  });

  it('a folder left without .git by a failed first init is completed, not moved aside', async () => {
    const api = await startTestServer({}, { repoHealth: { intervalMs: 100 } });
    await api.ok(CreateSession, { input: { sessionId: 'fresh' } });
    mkdirSync(join(api.dataDir, 'sessions', 'fresh'), { recursive: true });
    await turns(api, 'fresh', 1);
    const view = await healed(api, 'fresh', 1);
    expect(view.mirror.gitCommits).toBe(1);
    expect(existsSync(join(api.dataDir, 'moved-aside'))).toBe(false);
  });

  it('looks at every repo without starting git, and finds nothing wrong with healthy ones (a retry branch, a checkout, a packed ref)', async () => {
    const api = await startTestServer({}, { repoHealth: { intervalMs: 0 } });
    const ids = ['a', 'b', 'c'];
    for (const sessionId of ids) {
      await api.ok(CreateSession, { input: { sessionId } });
      await turns(api, sessionId, 2);
    }
    // b: a retry branch, current; c: a checkout of its first commit (HEAD detached); a: main packed.
    await healed(api, 'b', 2);
    const retried = await api.raw(
      `mutation { retryTurn(input: { sessionId: "b", userMessageId: ${JSON.stringify(await userMessageOfTurn(api, 'b', 2))}, assistant: { content: "again" } }) { number branch } }`,
    );
    expect(retried.errors).toBeUndefined();
    const c = await healed(api, 'c', 2);
    const sha = c.timeline.edges[1]!.node.sha;
    const checkedOut = await api.raw(`mutation { checkout(input: { sessionId: "c", sha: ${JSON.stringify(sha)} }) { sessionId } }`);
    expect(checkedOut.errors).toBeUndefined();
    await healed(api, 'b', 3);
    await healed(api, 'a', 2);
    await eventually(async () => git(join(api.dataDir, 'sessions', 'c'), 'rev-parse', 'HEAD').trim() === sha);
    git(join(api.dataDir, 'sessions', 'a'), 'pack-refs', '--all');

    const spawned: string[] = [];
    const stop = onGitSpawn((event) => spawned.push(event.argv.join(' ')));
    onCleanup(stop);
    const found: [string, RepoFault][] = [];
    const { app } = api.server;
    const monitor = new RepoHealthMonitor(app.deps, { check: (sessionId, fault) => found.push([sessionId, fault]), resumeDue: async () => {} });
    const faults = await monitor.checkAll();
    stop();
    expect(spawned).toEqual([]);
    expect([...faults]).toEqual([]);
    expect(found).toEqual([]);

    // The same look names what is wrong.
    rmSync(join(api.dataDir, 'sessions', 'a'), { recursive: true, force: true });
    writeFileSync(join(api.dataDir, 'sessions', 'b', '.git', 'refs', 'heads', 'main'), 'nonsense\n');
    const broken = await monitor.checkAll();
    expect(Object.fromEntries(broken)).toEqual({
      a: { kind: 'missing', detail: `${join(api.dataDir, 'sessions', 'a')} does not exist` },
      b: { kind: 'corrupt', detail: 'branch main: refs/heads/main holds "nonsense", not a commit id' },
    });
  });
});
