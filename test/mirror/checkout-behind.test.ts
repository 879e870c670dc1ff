/**
 * The working tree follows a turn's commit after the commit is recorded and
 * announced (src/mirror/worker.ts settleAndPublish). A crash in between
 * leaves the repo's checkout-behind mark, and the next start-up brings the
 * working tree to HEAD; a repo without the mark is left as it is.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { MirrorView } from './operations.js';

const MARK = join('.git', 'entity-memory-checkout-behind');

async function twoTurns(api: TestServer, sessionId: string): Promise<string> {
  await api.ok(CreateSession, { input: { sessionId } });
  for (const n of [1, 2]) {
    await api.ok(RecordTurn, { input: { sessionId, user: { content: `question ${n}` }, assistant: { content: `answer ${n}` } } });
  }
  const view = await eventually(async () => {
    const session = (await api.ok(MirrorView, { sessionId })).session;
    return session?.mirror.inSync && session.mirror.gitCommits === 2 ? session : undefined;
  });
  await api.repoSettled(sessionId);
  return view.repoPath;
}

/** Index and working tree back at turn 1 while main (and HEAD) are at turn 2: a crash before the checkout followed. */
function leaveCheckoutBehind(repo: string): void {
  git(repo, 'read-tree', '--reset', '-u', 'main~1');
  expect(git(repo, 'status', '--porcelain')).not.toBe('');
}

describe('a checkout left behind by a crash', () => {
  it('is brought to HEAD at the next start-up when the repo is marked, and only then', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    const marked = await twoTurns(first, 'marked');
    const unmarked = await twoTurns(first, 'unmarked');
    // Every pass clears its mark once the checkout has followed.
    expect(existsSync(join(marked, MARK))).toBe(false);
    await first.server.stop();

    leaveCheckoutBehind(marked);
    writeFileSync(join(marked, MARK), '');
    leaveCheckoutBehind(unmarked);
    const unmarkedStatus = git(unmarked, 'status', '--porcelain');

    const second = await startTestServer({ dataDir });
    // The database says in sync at once; the start-up pass that brings the checkout along may come
    // later (on PostgreSQL it takes the session's lease first): its sign is the mark going away.
    await eventually(async () => ((await second.ok(MirrorView, { sessionId: 'marked' })).session?.mirror.inSync ? true : undefined));
    await eventually(async () => (existsSync(join(marked, MARK)) ? undefined : true));
    await second.repoSettled('marked');
    expect(git(marked, 'status', '--porcelain')).toBe('');
    expect(git(marked, 'log', '--format=%s', 'main').trim().split('\n')).toEqual(['turn 2: question 2', 'turn 1: question 1']);
    expect(existsSync(join(marked, MARK))).toBe(false);
    // No mark, no reset: nothing tells the server this tree is its own doing (a person may have run git there).
    expect(git(unmarked, 'status', '--porcelain')).toBe(unmarkedStatus);
  });
});
