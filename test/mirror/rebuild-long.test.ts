/**
 * A rebuild of a long session (src/mirror/rebuild.ts): every turn written and recorded, and the
 * waiting jobs of the turns written dequeued, however many turns there are. (A statement naming
 * every turn written went past the parameters a statement may carry, P2029, and the rebuild of a
 * 10,000-turn session failed after writing its repo.)
 */
import { describe, expect, it } from 'vitest';
import { fillClosedTurns } from '../../bench/fill-session.js';
import { createApp } from '../../src/app.js';
import type { Logger } from '../../src/logger.js';
import { rebuildSession } from '../../src/mirror/rebuild.js';
import { sessionRepoPath } from '../../src/mirror/session-repos.js';
import { git } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import { capturedLogger } from '../helpers/logger.js';
import { testConfig } from '../helpers/server.js';

const TURNS = 3_000;

describe('rebuilding a long session', () => {
  it(`writes and records all ${TURNS} turns and dequeues their jobs`, async () => {
    const { logger } = capturedLogger();
    const app = await createApp(testConfig(), logger as Logger, { repoHealth: { intervalMs: 0 } });
    onCleanup(() => app.close());
    await fillClosedTurns(app.db, { sessionId: 'long', title: 'long', turns: TURNS, contentBytes: 40 });
    const turns = await app.db.turn.findMany({ where: { sessionId: 'long' }, select: { id: true }, orderBy: { number: 'asc' } });
    // The last 600 turns wait for their commit, as after a crash.
    await app.db.outboxJob.createMany({ data: turns.slice(-600).map((turn) => ({ sessionId: 'long', turnId: turn.id, kind: 'SESSION' as const })) });

    const { written, dequeued } = await rebuildSession(app.deps, 'long', { moveAside: true });
    expect(written).toBe(TURNS);
    expect(dequeued).toHaveLength(600);
    expect(await app.db.outboxJob.count({ where: { sessionId: 'long' } })).toBe(0);
    expect(await app.db.turn.count({ where: { sessionId: 'long', commitSha: null } })).toBe(0);
    expect(git(sessionRepoPath(app.deps.config, 'long'), 'rev-list', '--count', 'main').trim()).toBe(String(TURNS));
  });
});
