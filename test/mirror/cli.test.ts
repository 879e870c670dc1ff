import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTarget } from '../../src/config.js';
import { openDb } from '../../src/db/index.js';
import { CreateSession, RecordTurn } from '../api/operations.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { MirrorView } from './operations.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('entity-memory verify and backfill', () => {
  it('reports each mismatched session (exit status: their number), and backfill repairs it, including turns that predate the mirror', async () => {
    const dataDir = tempDir();
    const api = await startTestServer({ dataDir });
    await api.ok(CreateSession, { input: { sessionId: 'a' } });
    await api.ok(CreateSession, { input: { sessionId: 'old' } });
    for (let n = 1; n <= 3; n++) {
      await api.ok(RecordTurn, { input: { sessionId: 'a', user: { content: `q${n}` }, assistant: { content: `r${n}` } } });
    }
    await eventually(async () => (await api.ok(MirrorView, { sessionId: 'a' })).session?.mirror.inSync);
    await api.server.stop();

    // "old" predates the mirror: turns in the database, no jobs, no repo.
    const target = databaseTarget(api.server.app.config);
    const db = await openDb(target);
    const at = new Date('2026-01-01T00:00:00Z');
    for (let n = 1; n <= 30; n++) {
      const userId = `old-u${n}`;
      await db.message.create({ data: { id: userId, sessionId: 'old', messageId: `u${n}`, seq: 2 * n - 1, role: 'USER', content: `old ${n}`, createdAt: at } });
      await db.turn.create({
        data: { id: `old-t${n}`, sessionId: 'old', number: n, branch: 'main', userMessageId: userId, open: false, closedAt: new Date(at.getTime() + n * 1000), parentTurnId: n > 1 ? `old-t${n - 1}` : null },
      });
      await db.message.update({ where: { id: userId }, data: { turnId: `old-t${n}` } });
      await db.message.create({ data: { id: `old-a${n}`, sessionId: 'old', messageId: `a${n}`, seq: 2 * n, role: 'ASSISTANT', content: `reply ${n}`, createdAt: at, turnId: `old-t${n}`, predecessorId: userId } });
    }
    await db.session.update({ where: { sessionId: 'old' }, data: { nextSeq: 61 } });
    await db.branch.update({ where: { sessionId_name: { sessionId: 'old', name: 'main' } }, data: { headTurnId: 'old-t30' } });
    await db.$disconnect();
    rmSync(join(dataDir, 'sessions', 'a'), { recursive: true, force: true });

    // The commands find the database the server used (PostgreSQL in the suite's PostgreSQL pass).
    const where = 'url' in target ? ['--database-url', target.url] : [];
    const before = cli('verify', '--data-dir', dataDir, ...where);
    // The exit status counts the sessions out of sync: 'a' and 'old'.
    expect(before.status).toBe(2);
    expect(before.stdout).toContain('a\t3\t0\tMISMATCH');
    expect(before.stdout).toContain('old\t30\t0\tMISMATCH');

    const fixed = cli('backfill', '--data-dir', dataDir, ...where);
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain('2 sessions reconciled, 0 still out of sync');

    const after = cli('verify', '--data-dir', dataDir, ...where);
    expect(after.status).toBe(0);
    expect(after.stdout).toContain('old\t30\t30\tok');
    const oldRepo = join(dataDir, 'sessions', 'old');
    expect(git(oldRepo, 'log', '-1', '--format=%s', 'main').trim()).toBe('turn 30: old 30');
    expect(git(oldRepo, 'status', '--porcelain')).toBe('');

    expect(cli('backfill', '--data-dir', dataDir, '--session', '../x').status).toBe(2);
    expect(cli('verify', '--bogus').status).toBe(2);
  });
});
