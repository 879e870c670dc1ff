import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { eventually, git } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';
import { MirrorFailed, MirrorView } from './operations.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');

async function inSync(api: TestServer, sessionId: string, ms = 30_000) {
  return eventually(async () => {
    const view = await api.ok(MirrorView, { sessionId });
    return view.session?.mirror.inSync ? view.session : undefined;
  }, ms);
}

async function turns(api: TestServer, sessionId: string, count: number, from = 1): Promise<void> {
  for (let n = from; n < from + count; n++) {
    await api.ok(RecordTurn, {
      input: { sessionId, user: { content: `question ${n}` }, assistant: { content: `answer ${n}` }, toolResults: [{ content: `r${n}`, toolName: 'read' }] },
    });
  }
}

describe('never losing a turn', () => {
  it('accepts turns while git fails, shows FAILED with the error, publishes mirrorFailed, and catches up', async () => {
    const api = await startTestServer();
    await api.ok(CreateSession, { input: { sessionId: 's' } });
    const failures = wsSubscribe(wsClient(api.url), MirrorFailed, { sessionId: 's' });
    await new Promise((r) => setTimeout(r, 200));
    const saved = process.env.ENTITY_MEMORY_GIT_BINARY;
    process.env.ENTITY_MEMORY_GIT_BINARY = join(tempDir(), 'no-such-git');
    onCleanup(() => {
      if (saved === undefined) delete process.env.ENTITY_MEMORY_GIT_BINARY;
      else process.env.ENTITY_MEMORY_GIT_BINARY = saved;
    });

    await turns(api, 's', 3);
    const [event] = await failures.next(1);
    expect(event?.data?.mirrorFailed).toMatchObject({ session: { sessionId: 's' }, turnNumber: 1, willRetry: true });
    expect(event?.data?.mirrorFailed.error).toMatch(/git/i);
    const failing = await eventually(async () => {
      const view = await api.ok(MirrorView, { sessionId: 's' });
      return view.session?.mirror.lastError ? view.session : undefined;
    });
    expect(failing.mirror).toMatchObject({ dagTurns: 3, inSync: false, pending: 3 });
    expect(failing.turns.edges[0]?.node.mirrorState).toBe('FAILED');

    delete process.env.ENTITY_MEMORY_GIT_BINARY;
    const synced = await inSync(api, 's');
    expect(synced.mirror).toMatchObject({ dagTurns: 3, gitCommits: 3, pending: 0, lastError: null });
    expect(synced.turns.edges.map((e) => e.node.mirrorState)).toEqual(['COMMITTED', 'COMMITTED', 'COMMITTED']);
    expect(git(synced.repoPath, 'log', '--format=%s', 'main').trim().split('\n')).toEqual([
      'turn 3: question 3',
      'turn 2: question 2',
      'turn 1: question 1',
    ]);
  });

  it('rebuilds a deleted repo identical, and moves a tampered one aside before rebuilding it', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    await first.ok(CreateSession, { input: { sessionId: 's' } });
    await turns(first, 's', 4);
    const repo = (await inSync(first, 's')).repoPath;
    const tip = git(repo, 'rev-parse', 'main').trim();
    await first.server.stop();

    rmSync(repo, { recursive: true, force: true });
    const second = await startTestServer({ dataDir });
    const rebuilt = await inSync(second, 's');
    expect(git(rebuilt.repoPath, 'rev-parse', 'main').trim()).toBe(tip);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'fsck', '--strict').trim()).toBe('');
    await second.server.stop();

    // Someone rewrites history in the session repo: the database wins, the old repo is kept aside.
    git(repo, '-c', 'user.name=x', '-c', 'user.email=x@y', 'commit', '--allow-empty', '-m', 'not a turn');
    git(repo, 'reset', '--hard', 'main~2');
    const third = await startTestServer({ dataDir });
    const healed = await inSync(third, 's');
    expect(git(healed.repoPath, 'rev-parse', 'main').trim()).toBe(tip);
    const aside = readdirSync(join(dataDir, 'moved-aside'));
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^s-/);
  });

  it('keeps 50 sessions recording turns at once all in sync', async () => {
    const api = await startTestServer();
    const ids = Array.from({ length: 50 }, (_, i) => `load-${i}`);
    await Promise.all(ids.map((sessionId) => api.ok(CreateSession, { input: { sessionId } })));
    await Promise.all(ids.map((sessionId) => turns(api, sessionId, 3)));
    for (const sessionId of ids) {
      const session = await inSync(api, sessionId, 60_000);
      expect(session.mirror).toMatchObject({ dagTurns: 3, gitCommits: 3 });
      expect(git(session.repoPath, 'rev-list', '--count', 'main').trim()).toBe('3');
    }
    // 150 turns and 50 new repos, each commit fsynced: about 25 s on 2 cores with nothing else running.
  }, 180_000);

  it('mirrors every acknowledged turn exactly once after the server is killed with SIGKILL', async () => {
    const dataDir = tempDir();
    const start = () => {
      const child = spawn(process.execPath, [bin, 'serve', '--data-dir', dataDir, '--port', '0', '--log-level', 'silent'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      onCleanup(() => child.exitCode === null && child.kill('SIGKILL'));
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      return { child, url: () => /GraphiQL at (http:\/\/\S+)\/graphql/.exec(out)?.[1] };
    };
    const post = async (url: string, query: string) => {
      const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      const body = (await response.json()) as { errors?: unknown };
      if (body.errors) throw new Error(JSON.stringify(body.errors));
    };

    const first = start();
    const url = await eventually(async () => first.url());
    await post(url, 'mutation { createSession(input: { sessionId: "k" }) { sessionId } }');
    for (let n = 1; n <= 15; n++) {
      await post(url, `mutation { recordTurn(input: { sessionId: "k", user: { content: "q${n}" }, assistant: { content: "a${n}" } }) { number } }`);
    }
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = start();
    const url2 = await eventually(async () => second.url());
    const repo = join(dataDir, 'sessions', 'k');
    await eventually(async () => existsSync(join(repo, '.git')) && git(repo, 'rev-list', '--count', 'main').trim() === '15', 30_000);
    const subjects = git(repo, 'log', '--format=%s', 'main').trim().split('\n');
    expect(subjects).toEqual(Array.from({ length: 15 }, (_, i) => `turn ${15 - i}: q${15 - i}`));
    expect(git(repo, 'rev-list', '--count', '--all').trim()).toBe('15');
    await post(url2, 'mutation { recordTurn(input: { sessionId: "k", user: { content: "after" }, assistant: { content: "restart" } }) { number } }');
    await eventually(async () => git(repo, 'rev-list', '--count', 'main').trim() === '16');
    second.child.kill('SIGTERM');
    expect(await new Promise((r) => second.child.once('exit', r))).toBe(0);
  });
});
