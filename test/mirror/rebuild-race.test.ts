/**
 * A rebuild from the database (src/mirror/rebuild.ts) while turns keep closing: the turns it read
 * are written, recorded and announced; a turn that closed after that read keeps its outbox job and
 * is committed by the next pass. (Seen with three servers, one killed: a rebuild removed every job
 * of the session, so the turn closed during it stayed PENDING with no job, and the session's
 * mirror stopped for good.)
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { Logger } from '../../src/logger.js';
import { rebuildSession, rebuildWaiting } from '../../src/mirror/rebuild.js';
import type { TurnCommittedPayload } from '../../src/pubsub.js';
import { appendMessage } from '../../src/services/sessions/append-message.js';
import { createSession } from '../../src/services/sessions/create-session.js';
import { recordTurn } from '../../src/services/sessions/record-turn.js';
import { git } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import { capturedLogger } from '../helpers/logger.js';
import { testConfig } from '../helpers/server.js';

/** Only a bound for a commit that never comes (a loaded 2-core machine is slow). */
const DEADLINE_MS = 60_000;

async function started() {
  const { logger } = capturedLogger();
  const config = testConfig();
  const app = await createApp(config, logger as Logger, { repoHealth: { intervalMs: 0 } });
  onCleanup(() => app.close());
  const committed: TurnCommittedPayload[] = [];
  const waiters = new Set<() => void>();
  const events = app.deps.pubsub.subscribe('turnCommitted');
  onCleanup(() => events.return(undefined));
  void (async () => {
    for await (const event of events) {
      committed.push(event);
      for (const wake of waiters) wake();
    }
  })();
  /** Resolves once `turnId` was announced. */
  const announced = (turnId: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!committed.some((e) => e.turnId === turnId)) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`turn ${turnId} not announced in time`));
      }, DEADLINE_MS);
      waiters.add(check);
      check();
    });
  return { app, config, committed, announced };
}

/** Two committed turns, then a third opened (its user message stored, not closed). */
async function sessionWithOpenTurn(app: Awaited<ReturnType<typeof started>>['app'], sessionId: string) {
  await createSession({ sessionId }, app.deps);
  for (const n of [1, 2]) await recordTurn({ sessionId, user: { content: `question ${n}` }, assistant: { content: `answer ${n}` } }, app.deps);
  await app.mirror.idle();
  await appendMessage({ sessionId, role: 'USER', content: 'question 3' }, app.deps);
  return app.db.turn.findFirstOrThrow({ where: { sessionId, number: 3 }, select: { id: true, open: true } });
}

describe('a rebuild while a turn closes', () => {
  it('keeps the job of a turn closed after the rebuild read the turns, and the next pass commits it', async () => {
    const { app, config, committed, announced } = await started();
    const third = await sessionWithOpenTurn(app, 'r1');
    expect(third.open).toBe(true);

    // The turn closes (its job queued) after the rebuild read the closed turns, before it records:
    // in its recording transaction, as another server's close would land at that moment.
    const { written, dequeued } = await app.deps.repoLocks.run('r1', () =>
      rebuildSession(app.deps, 'r1', {
        moveAside: true,
        fence: async (tx) => {
          await tx.turn.update({ where: { id: third.id }, data: { open: false, closedAt: new Date() } });
          await tx.outboxJob.create({ data: { sessionId: 'r1', turnId: third.id, kind: 'SESSION' } });
        },
      }),
    );
    expect(written).toBe(2);
    expect(dequeued).toEqual([]);
    expect(await app.db.outboxJob.count({ where: { turnId: third.id } })).toBe(1);
    expect(await app.db.turn.findUniqueOrThrow({ where: { id: third.id } })).toMatchObject({ commitSha: null, mirrorState: 'PENDING' });

    app.mirror.notify('r1');
    await announced(third.id);
    const repo = join(config.dataDir, 'sessions', 'r1');
    expect(git(repo, 'log', '--format=%s', 'main').trim().split('\n')).toEqual(['turn 3: question 3', 'turn 2: question 2', 'turn 1: question 1']);
    expect(committed.filter((e) => e.turnId === third.id)).toHaveLength(1);
    expect(await app.db.outboxJob.count({ where: { sessionId: 'r1' } })).toBe(0);
  }, 120_000);

  it('announces exactly the waiting turns it wrote, and none it left waiting', async () => {
    const { app, committed, announced } = await started();
    const third = await sessionWithOpenTurn(app, 'r2');
    // Turn 2 waits again (as after a commit the database never heard of), then the rebuild runs.
    const second = await app.db.turn.findFirstOrThrow({ where: { sessionId: 'r2', number: 2 } });
    await app.db.$transaction([
      app.db.turn.update({ where: { id: second.id }, data: { commitSha: null, mirroredAt: null, mirrorState: 'PENDING' } }),
      app.db.outboxJob.create({ data: { sessionId: 'r2', turnId: second.id, kind: 'SESSION' } }),
    ]);
    const before = committed.length;
    let rebuilt = -1;
    await app.deps.repoLocks.run('r2', () =>
      rebuildWaiting(app.deps, 'r2', {
        fence: async (tx) => {
          await tx.turn.update({ where: { id: third.id }, data: { open: false, closedAt: new Date() } });
          await tx.outboxJob.create({ data: { sessionId: 'r2', turnId: third.id, kind: 'SESSION' } });
        },
        onRebuilt: (turns) => (rebuilt = turns),
      }),
    );
    expect(rebuilt).toBe(2);
    await announced(second.id);
    expect((await app.db.turn.findUniqueOrThrow({ where: { id: second.id } })).commitSha).not.toBeNull();
    expect(await app.db.turn.findUniqueOrThrow({ where: { id: third.id } })).toMatchObject({ commitSha: null, mirrorState: 'PENDING' });

    app.mirror.notify('r2');
    await announced(third.id);
    expect(committed.slice(before).map((e) => e.turnId)).toEqual([second.id, third.id]);
  }, 120_000);
});
