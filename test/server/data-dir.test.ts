/**
 * One data dir, one writer: a second serve, verify and backfill beside a running server, tools on
 * a data dir that does not exist, a server killed with SIGKILL, and the database opened by other
 * processes. The command line runs as real child processes; timings come from their exit events.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DataDirBusyError, holderPath, lockDataDir, lockPath } from '../../src/data-dir-lock.js';
import { DatabaseError, migrate, migrationStatus, openDb } from '../../src/db/index.js';
import { eventually } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import { EMBEDDED } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');

interface Run {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves on exit with the status and the milliseconds from spawn to exit. */
  exit: Promise<{ code: number | null; ms: number }>;
  /** Resolves with the first match of `pattern` in stdout; rejects if the process exits first. */
  printed(pattern: RegExp): Promise<RegExpExecArray>;
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Run {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; ms: number }>((resolve) =>
    child.on('exit', (code) => resolve({ code, ms: performance.now() - started })),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exit,
    printed: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(stdout);
          if (!match) return false;
          child.stdout!.off('data', check);
          resolve(match);
          return true;
        };
        if (check()) return;
        child.stdout!.on('data', check);
        void exit.then(({ code }) => reject(new Error(`exited ${code} before printing ${pattern}: ${stderr}`)));
      }),
  };
}

/**
 * "At once": within 2 s, or, on a machine so loaded that starting the program alone takes longer,
 * within a second of that (measured the same way, in the same test).
 */
async function atOnceBound(): Promise<number> {
  const { code, ms } = await run(['--version']).exit;
  expect(code).toBe(0);
  return Math.max(2_000, ms + 1_000);
}

async function record(api: Awaited<ReturnType<typeof startTestServer>>, sessionId: string, turns: number): Promise<void> {
  const created = await api.raw(`mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`);
  expect(created.errors).toBeUndefined();
  for (let n = 1; n <= turns; n++) {
    const turn = await api.raw(
      `mutation { recordTurn(input: { sessionId: "${sessionId}", user: { content: "q${n}" }, assistant: { content: "a${n}" } }) { number } }`,
    );
    expect(turn.errors).toBeUndefined();
  }
  await eventually(async () => {
    const result = await api.raw(`{ session(sessionId: "${sessionId}") { mirror { inSync } } }`);
    return (result.data as { session: { mirror: { inSync: boolean } } }).session.mirror.inSync;
  });
}

describe('one data dir, one writer', () => {
  it('refuses a second serve at once, in one line naming the holder, and leaves the first serving', async () => {
    const api = await startTestServer(EMBEDDED);
    const bound = await atOnceBound();
    const second = run(['serve', '--data-dir', api.dataDir, '--port', '0']);
    const { code, ms } = await second.exit;
    expect(code).toBe(2);
    expect(second.stdout()).toBe('');
    const holder = JSON.parse(readFileSync(holderPath(api.dataDir), 'utf8')) as { pid: number; since: string };
    expect(second.stderr()).toBe(`entity-memory: data dir ${api.dataDir} is in use by entity-memory pid ${process.pid} since ${holder.since}\n`);
    expect(ms).toBeLessThan(bound);
    expect((await fetch(`${api.url}/health`)).status).toBe(200);
  });

  it('verifies beside a running server, read-only, one line per session', async () => {
    const api = await startTestServer(EMBEDDED);
    await record(api, 'alpha', 2);
    await record(api, 'beta', 1);
    const verify = run(['verify', '--data-dir', api.dataDir]);
    const { code, ms } = await verify.exit;
    expect(verify.stderr()).toBe('');
    expect(code).toBe(0);
    const messages = (await api.raw('{ a: session(sessionId: "alpha") { messages(first: 0) { totalCount } } b: session(sessionId: "beta") { messages(first: 0) { totalCount } } }'))
      .data as { a: { messages: { totalCount: number } }; b: { messages: { totalCount: number } } };
    const all = messages.a.messages.totalCount + messages.b.messages.totalCount;
    expect(verify.stdout().trim().split('\n')).toEqual([
      'session\tdag_turns\tgit_commits\tstatus',
      'alpha\t2\t2\tok',
      'beta\t1\t1\tok',
      '2 sessions, 0 mismatched or failed',
      `search index: ${all} of ${all} messages`,
    ]);
    // Nothing waited on: blocked by the server, it would fail after SQLite's 10 s busy timeout (and
    // exit 2). Its own work beyond starting the program, Prisma's client (0.4 s to load, 0.5 s to
    // its first query on an idle 2-core machine) and git per session, is not bounded here.
    expect(ms).toBeLessThan(10_000);
    expect((await api.raw('{ sessions(first: 5) { totalCount } }')).data).toEqual({ sessions: { totalCount: 2 } });
  });

  it('verify exits with the number of sessions out of sync or unreadable, one line each', async () => {
    const api = await startTestServer(EMBEDDED);
    for (const id of ['s1', 's2', 's3', 's4']) await record(api, id, 1);
    await api.server.stop();
    rmSync(join(api.dataDir, 'sessions', 's1'), { recursive: true });
    rmSync(join(api.dataDir, 'sessions', 's2'), { recursive: true });
    writeFileSync(join(api.dataDir, 'sessions', 's4', '.git', 'HEAD'), 'garbage\n');

    const verify = run(['verify', '--data-dir', api.dataDir]);
    const { code } = await verify.exit;
    expect(verify.stderr()).toBe('');
    const lines = verify.stdout().trim().split('\n');
    expect(lines.slice(1, 4)).toEqual(['s1\t1\t0\tMISMATCH', 's2\t1\t0\tMISMATCH', 's3\t1\t1\tok']);
    expect(lines[4]).toMatch(/^s4\t1\t0\tFAILED\t\S/);
    expect(lines.at(-2)).toBe('4 sessions, 3 mismatched or failed');
    expect(lines.at(-1)).toMatch(/^search index: (\d+) of \1 messages$/);
    expect(code).toBe(3);
  });

  it('verify reports a search index that no longer holds every message, or is no longer kept', async () => {
    const api = await startTestServer(EMBEDDED);
    await record(api, 's1', 2);
    await api.server.stop();
    const file = join(api.dataDir, 'entity-memory.db');
    const sqlite = new Database(file);
    const messages = (sqlite.prepare('SELECT count(*) AS n FROM "Message"').get() as { n: number }).n;
    sqlite.exec('DELETE FROM "MessageSearch" WHERE rowid = (SELECT max(rowid) FROM "Message")');
    sqlite.close();
    let verify = run(['verify', '--data-dir', api.dataDir]);
    expect((await verify.exit).code).toBe(1);
    expect(verify.stdout().trim().split('\n').at(-1)).toBe(`search index: FAILED\tit holds ${messages - 1} entries for ${messages} messages`);

    const again = new Database(file);
    again.exec('DROP TRIGGER "Message_search_update"');
    again.close();
    verify = run(['verify', '--data-dir', api.dataDir]);
    expect((await verify.exit).code).toBe(1);
    expect(verify.stdout().trim().split('\n').at(-1)).toBe('search index: FAILED\t1 of the 3 triggers that keep it are missing');
  });

  it('refuses backfill beside a running server in one line saying what to do instead', async () => {
    const api = await startTestServer(EMBEDDED);
    const bound = await atOnceBound();
    const backfill = run(['backfill', '--data-dir', api.dataDir]);
    const { code, ms } = await backfill.exit;
    expect(code).toBe(2);
    expect(backfill.stdout()).toBe('');
    const lines = backfill.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^entity-memory: a server is running on this data dir \\(pid ${process.pid} since \\S+\\); it catches up by itself .* stop it first`));
    expect(ms).toBeLessThan(bound);
    // The server's lock is untouched: a second serve is still refused.
    await expect(lockDataDir(api.dataDir)).rejects.toBeInstanceOf(DataDirBusyError);
  });

  it('backfill takes the lock itself when no server runs, and gives it back', async () => {
    const api = await startTestServer(EMBEDDED);
    await record(api, 'gamma', 2);
    await api.server.stop();
    expect(existsSync(lockPath(api.dataDir))).toBe(false);

    const backfill = run(['backfill', '--data-dir', api.dataDir]);
    const { code } = await backfill.exit;
    expect(backfill.stderr()).toBe('');
    expect(code).toBe(0);
    expect(backfill.stdout()).toContain('1 sessions reconciled, 0 still out of sync');
    expect(existsSync(lockPath(api.dataDir))).toBe(false);
    expect(existsSync(holderPath(api.dataDir))).toBe(false);
  });

  it.each([['verify'], ['backfill']])('%s on a data dir that does not exist exits 2 in one line and creates nothing', async (command) => {
    const parent = tempDir();
    const missing = join(parent, 'typo');
    const bound = await atOnceBound();
    const out = run([command, '--data-dir', missing]);
    const { code, ms } = await out.exit;
    expect(code).toBe(2);
    expect(out.stdout()).toBe('');
    expect(out.stderr()).toBe(`entity-memory: no data dir at ${missing}\n`);
    expect(ms).toBeLessThan(bound);
    expect(readdirSync(parent)).toEqual([]);

    // The default data dir follows OPENPROGRAM_HOME, and is not created either.
    const viaEnv = run([command], { OPENPROGRAM_HOME: missing });
    expect((await viaEnv.exit).code).toBe(2);
    expect(viaEnv.stderr()).toBe(`entity-memory: no data dir at ${missing}\n`);
    expect(readdirSync(parent)).toEqual([]);
  });

  it.each([['verify'], ['backfill']])('%s on a folder without a database exits 2 in one line and creates nothing', async (command) => {
    const dataDir = tempDir();
    const out = run([command, '--data-dir', dataDir]);
    expect((await out.exit).code).toBe(2);
    expect(out.stderr()).toBe(`entity-memory: no entity-memory database at ${join(dataDir, 'entity-memory.db')}\n`);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('verify on a database behind the code says so in one line and does not migrate it', async () => {
    const dataDir = tempDir();
    const file = join(dataDir, 'entity-memory.db');
    const applied = await migrate({ file });
    const newest = applied.at(-1)!;
    const sqlite = new Database(file);
    sqlite.prepare('DELETE FROM _prisma_migrations WHERE migration_name = ?').run(newest);
    sqlite.close();

    const out = run(['verify', '--data-dir', dataDir]);
    expect((await out.exit).code).toBe(2);
    expect(out.stdout()).toBe('');
    expect(out.stderr()).toBe(
      `entity-memory: the database at ${file} lacks 1 migration(s) of this entity-memory (from ${newest}); start \`entity-memory serve\` or run \`entity-memory backfill\` on it once to apply them\n`,
    );
    expect((await migrationStatus({ file })).pending).toEqual([newest]);
  });

  it('a server killed with SIGKILL leaves its lock behind, and the next serve takes it over', async () => {
    const dataDir = tempDir();
    const first = run(['serve', '--data-dir', dataDir, '--port', '0']);
    await first.printed(/GraphiQL at (http:\/\/\S+)\/graphql/);
    const pid = first.child.pid!;
    expect(JSON.parse(readFileSync(holderPath(dataDir), 'utf8'))).toMatchObject({ pid, command: 'serve' });
    first.child.kill('SIGKILL');
    await first.exit;
    expect(existsSync(lockPath(dataDir))).toBe(true);

    // Its pid is gone, so the lock is taken as soon as it is 2 s untouched, not after the 10 s
    // that make a lock stale for a holder on another machine.
    const started = performance.now();
    const taken = await lockDataDir(dataDir);
    expect(performance.now() - started).toBeLessThan(5_000);
    await taken.release();

    const second = run(['serve', '--data-dir', dataDir, '--port', '0']);
    const [, url] = await second.printed(/GraphiQL at (http:\/\/\S+)\/graphql/);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(JSON.parse(readFileSync(holderPath(dataDir), 'utf8'))).toMatchObject({ pid: second.child.pid, command: 'serve' });
    second.child.kill('SIGTERM');
    expect((await second.exit).code).toBe(0);
    expect(existsSync(lockPath(dataDir))).toBe(false);
  });

  it('serves while another process holds a read transaction on the database', async () => {
    const api = await startTestServer(EMBEDDED);
    await record(api, 'delta', 1);
    await api.server.stop();
    // What a sqlite3 shell in the middle of a SELECT holds.
    const shell = new Database(join(api.dataDir, 'entity-memory.db'), { readonly: true });
    onCleanup(() => shell.close());
    shell.exec('BEGIN');
    shell.prepare('SELECT count(*) FROM Session').get();

    const server = run(['serve', '--data-dir', api.dataDir, '--port', '0']);
    const [, url] = await server.printed(/GraphiQL at (http:\/\/\S+)\/graphql/);
    const response = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ sessions(first: 5) { totalCount } }' }),
    });
    expect(await response.json()).toEqual({ data: { sessions: { totalCount: 1 } } });
    shell.exec('COMMIT');
    server.child.kill('SIGTERM');
    expect((await server.exit).code).toBe(0);
  });
  it('a serve that must migrate while another process has the database open exits 2 in one line', async () => {
    const dataDir = tempDir();
    const file = join(dataDir, 'entity-memory.db');
    const newest = (await migrate({ file })).at(-1)!;
    const shell = new Database(file);
    onCleanup(() => shell.close());
    shell.pragma('journal_mode = WAL');
    shell.prepare('DELETE FROM _prisma_migrations WHERE migration_name = ?').run(newest);

    // SQLite's busy timeout (10 s) is waited out first: another process may let go meanwhile.
    const server = run(['serve', '--data-dir', dataDir, '--port', '0']);
    const { code } = await server.exit;
    expect(code).toBe(2);
    expect(server.stdout()).toBe('');
    expect(server.stderr()).toBe(
      `entity-memory: the database at ${file} is locked by another process (migrating needs it alone): stop other programs using it (another entity-memory, a sqlite3 shell) and try again\n`,
    );
    expect(existsSync(lockPath(dataDir))).toBe(false);
  });
});

describe('the data dir lock and the database, in process', () => {
  it('refuses a second holder in the same process, and is free again once released', async () => {
    const dataDir = join(tempDir(), 'new');
    const lock = await lockDataDir(dataDir, { command: 'backfill' });
    expect(statSync(dataDir).isDirectory()).toBe(true);
    const refusal = await lockDataDir(dataDir).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DataDirBusyError);
    expect((refusal as Error).message).toBe(`data dir ${dataDir} is in use by entity-memory pid ${process.pid} since ${lock.holder.since} (backfill)`);
    await lock.release();
    await lock.release();
    expect(readdirSync(dataDir)).toEqual([]);
    const again = await lockDataDir(dataDir);
    await again.release();
  });

  it('migrating a database another process has open fails in one line, not with the engine\'s SocketTimeout', async () => {
    // A migration pending (its row removed) while a server has the database open: the original
    // report's 30-line `unknown variant "SocketTimeout"` (SQLITE_BUSY) at start-up.
    const file = join(tempDir(), 'entity-memory.db');
    const newest = (await migrate({ file })).at(-1)!;
    const other = new Database(file);
    onCleanup(() => other.close());
    other.pragma('journal_mode = WAL');
    other.prepare('DELETE FROM _prisma_migrations WHERE migration_name = ?').run(newest);
    other.prepare('SELECT count(*) FROM Session').get();

    const error = await migrate({ file, busyTimeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toBe(
      `the database at ${file} is locked by another process (migrating needs it alone): stop other programs using it (another entity-memory, a sqlite3 shell) and try again`,
    );
    expect(message).not.toContain('SocketTimeout');
  });

  it('opens read-only without writing, and refuses a database newer than the code', async () => {
    const file = join(tempDir(), 'entity-memory.db');
    await expect(openDb({ file, readOnly: true })).rejects.toThrow(`no entity-memory database at ${file}`);
    expect(existsSync(file)).toBe(false);
    await migrate({ file });
    const db = await openDb({ file, readOnly: true });
    try {
      expect(await db.session.count()).toBe(0);
      await expect(db.session.create({ data: { sessionId: 'x' } })).rejects.toThrow(/readonly/);
    } finally {
      await db.$disconnect();
    }
    const sqlite = new Database(file);
    sqlite
      .prepare(
        "INSERT INTO _prisma_migrations (id, checksum, migration_name, finished_at, applied_steps_count) VALUES ('z', 'z', '99990101000000_from_the_future', CURRENT_TIMESTAMP, 1)",
      )
      .run();
    sqlite.close();
    await expect(openDb({ file })).rejects.toThrow(/was migrated by a newer entity-memory \(99990101000000_from_the_future\)/);
    await expect(openDb({ file, readOnly: true })).rejects.toBeInstanceOf(DatabaseError);
  });
});
