/**
 * Issue 26 item 8: faults of the machine are told, not masked. A request that meets git missing,
 * the disk full or a read-only database answers what is wrong (`extensions.reason`) and when to
 * try again (`extensions.retryAfter`), and `/health` says degraded, naming it, until it is over.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, openDb } from '../../src/db/index.js';
import { classifyFault, FaultBoard } from '../../src/faults.js';
import { HealthProbe } from '../../src/http/health.js';
import { onCleanup } from '../helpers/leftovers.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { CreateProject } from '../projects/operations.js';
import { userRepo } from '../projects/project-turns.js';
import { ProjectRepo } from '../../src/git/project-repo.js';
import { isTransient } from '../../src/projects/committer.js';

/** The error `work` throws (it must throw). */
async function thrown(work: () => unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected it to throw');
}

describe('faults of the machine, classified', () => {
  it('tells a full disk, a read-only SQLite database and anything else apart, from the real errors', async () => {
    // /dev/full answers every write with ENOSPC, as a full disk does.
    expect(classifyFault(await thrown(() => writeFileSync('/dev/full', 'x')))?.reason).toBe('DISK_FULL');
    // Prisma's error for a write the database refuses, wrapped as the driver adapter passes it on.
    const file = join(tempDir(), 'faults.db');
    await migrate({ file });
    const db = await openDb({ file, readOnly: true });
    onCleanup(() => db.$disconnect());
    const readOnly = await thrown(() => db.session.create({ data: { sessionId: 's', createdAt: new Date() } }));
    expect(classifyFault(readOnly)).toEqual({ reason: 'DATABASE_READ_ONLY', message: expect.stringContaining('Make it writable') });
    // A bug stays a bug.
    expect(classifyFault(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBeNull();
    expect(classifyFault(await thrown(() => db.$queryRawUnsafe('SELECT * FROM "NoSuchTable"')))).toBeNull();
  });
});

describe('/health and the faults requests met', () => {
  it('says degraded, listing them, while a write fault is recent, and ok once it is over', async () => {
    const board = new FaultBoard();
    const probe = new HealthProbe({ database: async () => 1, sessionsFolder: tempDir(), git: async () => undefined, faults: () => board.current(), leases: () => 0 }, 0);
    expect(await probe.report()).toEqual({ status: 'ok', database: 'ok', sessionsFolder: 'ok', git: 'ok', leases: 0 });
    board.note('DISK_FULL');
    board.note('GIT_MISSING');
    expect(await probe.report()).toEqual({ status: 'degraded', database: 'ok', sessionsFolder: 'ok', git: 'ok', faults: ['DISK_FULL'], leases: 0 });
    board.clearWriteFaults();
    expect((await probe.report()).status).toBe('ok');
  });
});

describe('git missing', () => {
  const saved = process.env.ENTITY_MEMORY_GIT_BINARY;
  afterEach(() => {
    if (saved === undefined) delete process.env.ENTITY_MEMORY_GIT_BINARY;
    else process.env.ENTITY_MEMORY_GIT_BINARY = saved;
  });

  it('answers GIT_MISSING with a sentence and retryAfter, /health degraded naming git, and both well again once git is back', async () => {
    const root = tempDir('em-faults-');
    const api = await startTestServer({ allowedRoots: [root] });
    const { createProject } = await api.ok(CreateProject, { input: { name: 'App', workdir: userRepo(root) } });
    const tree = `{ project(projectId: "${createProject.projectId}") { workingTree { clean } } }`;
    const health = async () => (await fetch(`${api.url}/health`)).json() as Promise<{ status: string; git: string }>;
    expect((await api.raw(tree)).errors).toBeUndefined();

    process.env.ENTITY_MEMORY_GIT_BINARY = join(root, 'no-such-git');
    const missing = await api.raw(tree);
    expect(missing.errors?.map((e) => [e.extensions?.code, e.extensions?.reason, e.extensions?.retryAfter])).toEqual([['INTERNAL_SERVER_ERROR', 'GIT_MISSING', 30]]);
    expect(missing.errors![0]!.message).toMatch(/^git cannot be started .*Install it or fix PATH/);
    await expect.poll(health, { timeout: 20_000 }).toMatchObject({ status: 'degraded', git: 'unreachable' });

    delete process.env.ENTITY_MEMORY_GIT_BINARY;
    expect((await api.raw(tree)).errors).toBeUndefined();
    await expect.poll(health, { timeout: 20_000 }).toMatchObject({ status: 'ok', git: 'ok' });
  });
});

describe('a project commit that meets a fault of the machine', () => {
  it('is tried again (git missing, the disk full), while a refusal of the user\'s repo is not', async () => {
    const root = tempDir('em-faults-');
    const repo = new ProjectRepo(userRepo(root));
    const saved = process.env.ENTITY_MEMORY_GIT_BINARY;
    process.env.ENTITY_MEMORY_GIT_BINARY = join(root, 'no-such-git');
    const missing = await thrown(() => repo.status());
    if (saved === undefined) delete process.env.ENTITY_MEMORY_GIT_BINARY;
    else process.env.ENTITY_MEMORY_GIT_BINARY = saved;
    expect(isTransient(missing)).toBe(true);
    expect(isTransient(await thrown(() => writeFileSync('/dev/full', 'x')))).toBe(true);
    // A folder that is gone is no moment's fault: the commit is not tried again.
    expect(isTransient(await thrown(() => new ProjectRepo(join(root, 'gone')).status()))).toBe(false);
  });
});
