/**
 * The mirror takes turns across sessions: a session with a long backlog is
 * committed a pass at a time (at most `passLimit` turns), and a session that
 * waits for a slot meanwhile goes before the backlog's next pass. Asserted on
 * the order of the turnCommitted events, never on times.
 */
import { existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { git } from '../helpers/git.js';
import { holdLock } from '../helpers/locks.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

async function record(api: TestServer, sessionId: string, n: number): Promise<void> {
  await api.ok(RecordTurn, { input: { sessionId, user: { content: `question ${n}` }, assistant: { content: `answer ${n}` } } });
}

describe('fair scheduling across sessions', () => {
  it("commits another session's single turn after one pass of a long backlog, not after the whole backlog", async () => {
    const BACKLOG = 30;
    const PASS = 5;
    // One slot, so the two sessions must share it; a pass commits at most PASS turns.
    const api = await startTestServer({}, { mirror: { concurrency: 1, passLimit: PASS }, repoHealth: { intervalMs: 0 } });
    const { deps } = api.server.app;
    await api.ok(CreateSession, { input: { sessionId: 'busy' } });
    await api.ok(CreateSession, { input: { sessionId: 'quiet' } });

    const order: string[] = [];
    const events = deps.pubsub.subscribe('turnCommitted');
    const collected = (async () => {
      for await (const event of events) {
        order.push(event.sessionId);
        if (order.length === BACKLOG + 1) return;
      }
    })();

    // Holding busy's repo lock keeps its drain (which holds the only slot) from committing while
    // its backlog builds up; requests never take that lock, so the turns are recorded meanwhile.
    const release = await holdLock(deps.repoLocks, 'busy');
    for (let n = 1; n <= BACKLOG; n++) await record(api, 'busy', n);
    // Queued for the slot behind busy's first pass.
    await record(api, 'quiet', 1);
    await release();
    await collected;

    // busy's first pass, then quiet's turn, then the rest of busy's backlog.
    expect(order.indexOf('quiet')).toBe(PASS);
    expect(order.filter((id) => id === 'busy')).toHaveLength(BACKLOG);
    const repo = (id: string) => `${api.dataDir}/sessions/${id}`;
    expect(git(repo('busy'), 'rev-list', '--count', 'main').trim()).toBe(String(BACKLOG));
    expect(git(repo('quiet'), 'rev-list', '--count', 'main').trim()).toBe('1');
  });

  it('puts off a due repack while another session waits for the slot, and packs once none does', async () => {
    // What the other session's repo held when each repack was logged, read as the line is written.
    const seen: { turns: number; otherCommits: string }[] = [];
    let otherRepo = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          const entry = JSON.parse(line) as { msg: string; turns?: number };
          if (entry.msg !== 'packed the loose objects of a session repo') continue;
          seen.push({ turns: entry.turns ?? 0, otherCommits: existsSync(`${otherRepo}/.git`) ? git(otherRepo, 'rev-list', '--count', '--all').trim() : 'none' });
        }
        done();
      },
    });
    const api = await startTestServer({}, { mirror: { concurrency: 1, packEvery: 2 }, repoHealth: { intervalMs: 0 } }, { logger: pino({ level: 'info' }, stream) });
    otherRepo = `${api.dataDir}/sessions/other`;
    const { deps } = api.server.app;
    await api.ok(CreateSession, { input: { sessionId: 'packer' } });
    await api.ok(CreateSession, { input: { sessionId: 'other' } });

    // packer's drain holds the only slot, waiting for its repo lock, while other's waits for the slot.
    const release = await holdLock(deps.repoLocks, 'packer');
    await record(api, 'packer', 1);
    await record(api, 'packer', 2);
    await record(api, 'other', 1);
    await release();
    await api.server.app.mirror.idle();

    // packer's pass made the repack due, but other was waiting: it ran after other's commit.
    expect(seen).toEqual([{ turns: 2, otherCommits: '1' }]);
    const packer = `${api.dataDir}/sessions/packer`;
    expect(git(packer, 'rev-list', '--count', 'main').trim()).toBe('2');
    expect(git(packer, 'fsck', '--strict').trim()).toBe('');
  });
});
