/**
 * The request path never waits for git: the mirror's pass holds the session's
 * repo lock, never its write lock (src/locks.ts). Here the repo lock is held as
 * a pass in flight would hold it; turns are recorded and answered meanwhile,
 * and are committed, in order, once it is let go. A checkout's database write
 * is not held up either; only its HEAD move waits for the repo.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { sessionRepoPath } from '../../src/mirror/index.js';
import { Checkout } from '../branching/operations.js';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { eventually } from '../helpers/git.js';
import { holdLock } from '../helpers/locks.js';
import { startTestServer } from '../helpers/server.js';

function turn(sessionId: string, n: number) {
  return { input: { sessionId, user: { content: `question ${n}` }, assistant: { content: `answer ${n}` }, toolResults: [{ content: `out ${n}`, toolName: 'read' }] } };
}

function gitLog(dir: string): string[] {
  return execFileSync('git', ['-C', dir, 'log', '--format=%s', 'main'], { encoding: 'utf8' }).trim().split('\n');
}

describe('the request path while the mirror holds a session repo', () => {
  it('answers recordTurn without waiting for the repo lock; the turns land in order once it is free', async () => {
    const api = await startTestServer();
    const { deps, mirror } = api.server.app;
    await api.ok(CreateSession, { input: { sessionId: 'busy' } });
    await api.ok(RecordTurn, turn('busy', 1));
    await mirror.idle();

    const release = await holdLock(deps.repoLocks, 'busy');

    // Three turns recorded and acknowledged while git cannot run for this session.
    const answered: number[] = [];
    for (let n = 2; n <= 4; n++) answered.push((await api.ok(RecordTurn, turn('busy', n))).recordTurn.number);
    expect(answered).toEqual([2, 3, 4]);
    const pending = await deps.db.turn.findMany({ where: { sessionId: 'busy', mirrorState: 'PENDING' }, select: { number: true } });
    expect(pending.map((t) => t.number).sort()).toEqual([2, 3, 4]);

    // The view moves in the database at once; the repo follows when the lock is free.
    const first = await deps.db.turn.findFirstOrThrow({ where: { sessionId: 'busy', number: 1 }, select: { commitSha: true } });
    const moved = api.ok(Checkout, { input: { sessionId: 'busy', sha: first.commitSha!.slice(0, 12) } });
    await eventually(async () => (await deps.db.session.findUniqueOrThrow({ where: { sessionId: 'busy' } })).viewTurnId);

    await release();
    await moved;
    await mirror.idle();
    const repo = sessionRepoPath(api.server.app.config, 'busy');
    expect(gitLog(repo).length).toBe(4);
    const rows = await deps.db.turn.findMany({ where: { sessionId: 'busy' }, orderBy: { number: 'asc' }, select: { number: true, mirrorState: true } });
    expect(rows.map((r) => `${r.number}:${r.mirrorState}`)).toEqual(['1:COMMITTED', '2:COMMITTED', '3:COMMITTED', '4:COMMITTED']);
    // HEAD is where the checkout put the session: detached at turn 1's commit.
    const head = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    expect(head).toBe(first.commitSha);
  });
});
