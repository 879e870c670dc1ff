/**
 * `entity-memory archive` and `unarchive` on a real data dir, run as a user runs them: idle
 * sessions become one bundle each (the repo gone, the rows kept: the turns and search still read
 * them, verify checks the bundle), a session in use is left alone, and the repo comes back as it
 * was (the same refs at the same commits, HEAD where it was) through `unarchiveSession`, the CLI,
 * or a new turn, which the mirror commits on top. A kill -9 at each step of an archive leaves the
 * repo as it was or the archive whole; a damaged archive is refused and left as it is.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { EMBEDDED } from '../helpers/database.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

async function record(api: TestServer, sessionId: string, turns: number, from = 1): Promise<void> {
  if (from === 1) expect((await api.raw(`mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`)).errors).toBeUndefined();
  for (let n = from; n < from + turns; n++) {
    const turn = await api.raw(`mutation { recordTurn(input: { sessionId: "${sessionId}", user: { content: "question ${sessionId} ${n}" }, assistant: { content: "answer ${n}" } }) { number } }`);
    expect(turn.errors).toBeUndefined();
  }
}

async function inSync(api: TestServer, count: number): Promise<void> {
  await eventually(async () => {
    const result = await api.raw(`{ sessions(first: 20) { edges { node { mirror { inSync } } } } }`);
    const edges = (result.data as { sessions: { edges: { node: { mirror: { inSync: boolean } } }[] } }).sessions.edges;
    return edges.length === count && edges.every((e) => e.node.mirror.inSync);
  });
}

/** Every ref and its commit, HEAD, and what git finds wrong (nothing). */
function picture(repo: string): { refs: string; head: string; fsck: string } {
  return {
    refs: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
    head: readFileSync(join(repo, '.git', 'HEAD'), 'utf8'),
    fsck: git(repo, 'fsck', '--no-progress'),
  };
}

/** Turns of these sessions made `days` days old (created and closed then). */
async function age(api: TestServer, sessionIds: string[], days: number): Promise<void> {
  const then = new Date(Date.now() - days * 86_400_000);
  await api.server.app.db.turn.updateMany({ where: { sessionId: { in: sessionIds } }, data: { createdAt: then, closedAt: then } });
}

describe('entity-memory archive', () => {
  it('archives idle sessions into bundles, keeps their rows, verifies them, and brings each back as it was', async () => {
    let api = await startTestServer(EMBEDDED);
    await record(api, 'old', 6);
    await record(api, 'recent', 2);
    await record(api, 'open', 2);
    expect((await api.raw(`mutation { appendMessage(input: { sessionId: "open", role: USER, content: "still typing" }) { seq } }`)).errors).toBeUndefined();
    await inSync(api, 3);
    // old viewed at its third turn: HEAD detached there, as a replay leaves it.
    const third = (await api.raw(`{ session(sessionId: "old") { turns(first: 3) { edges { node { commit { sha } } } } } }`)).data as {
      session: { turns: { edges: { node: { commit: { sha: string } } }[] } };
    };
    const thirdSha = third.session.turns.edges[2]!.node.commit.sha;
    expect((await api.raw(`mutation { checkout(input: { sessionId: "old", sha: "${thirdSha}" }) { sessionId } }`)).errors).toBeUndefined();
    await age(api, ['old', 'open'], 100);
    await api.server.stop();
    const dataDir = api.dataDir;
    const old = join(dataDir, 'sessions', 'old');
    const before = picture(old);
    expect(before.head.trim()).toBe(thirdSha);

    const dry = await cli(['archive', '--older-than', '90d', '--dry-run', '--data-dir', dataDir]);
    expect([dry.status, dry.stderr]).toEqual([0, '']);
    expect(dry.stdout.trim().split('\n')).toEqual(['old\twould be archived', 'open\tleft alone: a turn is open', 'dry run: 1 sessions would be archived, 1 left alone; nothing was changed']);
    expect(existsSync(old)).toBe(true);

    const run = await cli(['archive', '--older-than', '90', '--json', '--data-dir', dataDir]);
    expect([run.status, run.stderr]).toEqual([0, '']);
    const rows = JSON.parse(run.stdout) as { sessionId: string; archived: boolean; repoBytes?: number; bundleBytes?: number; skipped?: string }[];
    expect(rows.map((r) => [r.sessionId, r.archived, r.skipped])).toEqual([
      ['old', true, undefined],
      ['open', false, 'a turn is open'],
    ]);
    expect(rows[0]!.bundleBytes).toBeLessThan(rows[0]!.repoBytes!);
    expect(existsSync(old)).toBe(false);
    expect(readdirSync(join(dataDir, 'archive')).sort()).toEqual(['old.bundle', 'old.json']);
    // No leftovers beside the repos.
    expect(readdirSync(join(dataDir, 'sessions')).sort()).toEqual(['open', 'recent']);
    // Named and in use: left alone.
    const named = await cli(['archive', 'recent', '--data-dir', dataDir]);
    expect(named.stdout).toContain('recent\tleft alone: a turn in the last 10 minutes');
    expect(existsSync(join(dataDir, 'sessions', 'recent'))).toBe(true);

    const verify = await cli(['verify', '--data-dir', dataDir]);
    expect(verify.stdout).toMatch(/^old\t6\t6\tok$/m);
    expect(verify.status).toBe(0);

    // Exported from its archive, as it stands.
    const file = join(dataDir, 'old.em');
    const exported = await cli(['export', 'old', '--out', file, '--data-dir', dataDir]);
    expect([exported.status, exported.stderr]).toEqual([0, '']);
    expect(exported.stdout).toMatch(/^old: 6 turns, 12 messages, 1 branches, 1 refs -> /);
    expect(existsSync(old)).toBe(false);

    // A server started on the data dir leaves it archived (no rebuild), and reads its rows.
    api = await startTestServer({ ...EMBEDDED, dataDir });
    const read = await api.raw(`{ session(sessionId: "old") { archive { archivedAt repoBytes bundleBytes } turns(first: 0) { totalCount } timeline(first: 5) { edges { node { sha } } } }
      search(query: "question old 4") { edges { node { message { content } } } } }`);
    expect(read.errors).toBeUndefined();
    const data = read.data as {
      session: { archive: { archivedAt: string; repoBytes: number; bundleBytes: number }; turns: { totalCount: number }; timeline: { edges: unknown[] } };
      search: { edges: { node: { message: { content: string } } }[] };
    };
    expect(data.session.archive.bundleBytes).toBe(rows[0]!.bundleBytes);
    expect(data.session.turns.totalCount).toBe(6);
    expect(data.session.timeline.edges).toEqual([]);
    expect(data.search.edges.map((e) => e.node.message.content)).toContain('question old 4');
    expect(existsSync(old)).toBe(false);

    // Opened (the UI's call): back as it was, the archive removed.
    const back = await api.raw(`mutation { unarchiveSession(input: { sessionId: "old" }) { archive { archivedAt } timeline(first: 10) { edges { node { sha } } } } }`);
    expect(back.errors).toBeUndefined();
    expect((back.data as { unarchiveSession: { archive: null; timeline: { edges: unknown[] } } }).unarchiveSession.archive).toBeNull();
    expect(picture(old)).toEqual(before);
    expect(git(old, 'status', '--porcelain')).toBe('');
    expect(readdirSync(join(dataDir, 'archive'))).toEqual([]);
    const again = await api.raw(`mutation { unarchiveSession(input: { sessionId: "old" }) { sessionId } }`);
    expect(again.errors).toBeUndefined();
    expect((await api.raw(`mutation { switchBranch(input: { sessionId: "old", branch: "main" }) { sessionId } }`)).errors).toBeUndefined();
    await api.server.stop();
    const onMain = picture(old);

    // Archived again, then a new turn: the mirror brings the repo back and commits on top of it.
    expect((await cli(['archive', 'old', '--data-dir', dataDir])).status).toBe(0);
    expect(existsSync(old)).toBe(false);
    api = await startTestServer({ ...EMBEDDED, dataDir });
    await record(api, 'old', 1, 7);
    await inSync(api, 3);
    await api.repoSettled('old');
    const after = picture(old);
    expect(after.fsck).toBe('');
    expect(git(old, 'rev-list', '--count', 'main').trim()).toBe('7');
    expect(git(old, 'rev-parse', 'main~1').trim()).toBe(onMain.refs.match(/^refs\/heads\/main (\S+)$/m)![1]);
    expect(after.head).toBe('ref: refs/heads/main\n');
    expect(existsSync(join(dataDir, 'archive', 'old.json'))).toBe(false);
    await age(api, ['old'], 100);
    await api.server.stop();

    // The CLI's unarchive, and a damaged archive refused and left as it is.
    expect((await cli(['archive', 'old', '--data-dir', dataDir])).stdout).toMatch(/^old\t\S+ \S+ -> \S+ \S+$/m);
    const bundle = join(dataDir, 'archive', 'old.bundle');
    const bytes = readFileSync(bundle);
    bytes[bytes.length - 30] = bytes[bytes.length - 30]! ^ 0xff;
    writeFileSync(bundle, bytes);
    const damaged = await cli(['unarchive', 'old', '--data-dir', dataDir]);
    expect(damaged.status).toBe(1);
    expect(damaged.stdout).toMatch(/^old\tFAILED\tthe archive of session old .* fails its checksum; it is left as it is$/m);
    expect(existsSync(old)).toBe(false);
    expect((await cli(['verify', '--data-dir', dataDir])).stdout).toMatch(/^old\t7\t0\tFAILED\tarchived, but its bundle fails its checksum$/m);
    bytes[bytes.length - 30] = bytes[bytes.length - 30]! ^ 0xff;
    writeFileSync(bundle, bytes);
    const restored = await cli(['unarchive', 'old', '--data-dir', dataDir]);
    expect([restored.status, restored.stdout]).toEqual([0, 'old\tbrought back\n']);
    expect(picture(old)).toEqual(after);
  });

  for (const step of ['bundle-written', 'manifest-written', 'repo-moved'] as const) {
    it(`killed (-9) at ${step}: the repo as it was, or the archive whole; the next run finishes cleanly`, async () => {
      const api = await startTestServer(EMBEDDED);
      await record(api, 'kept', 4);
      await inSync(api, 1);
      await age(api, ['kept'], 1);
      await api.server.stop();
      const repo = join(api.dataDir, 'sessions', 'kept');
      const before = picture(repo);

      const killed = await cli(['archive', 'kept', '--data-dir', api.dataDir], { ENTITY_MEMORY_TEST_KILL_AT: step });
      expect(killed.status).toBeNull();
      const archived = existsSync(join(api.dataDir, 'archive', 'kept.json'));
      if (existsSync(repo)) expect(picture(repo)).toEqual(before);
      else expect(archived).toBe(true);
      // Whatever it left verifies, and a server started on it reads the session whole.
      expect((await cli(['verify', '--data-dir', api.dataDir])).stdout).toMatch(/^kept\t4\t4\tok$/m);

      const done = await cli(['archive', 'kept', '--data-dir', api.dataDir]);
      expect(done.status).toBe(0);
      expect(existsSync(repo)).toBe(false);
      expect(readdirSync(join(api.dataDir, 'sessions'))).toEqual([]);
      expect((await cli(['unarchive', 'kept', '--data-dir', api.dataDir])).stdout).toBe('kept\tbrought back\n');
      expect(picture(repo)).toEqual(before);
    });
  }

  it('refuses bad arguments in one line, changing nothing', async () => {
    const api = await startTestServer(EMBEDDED);
    await record(api, 'one', 1);
    await api.server.stop();
    const cases: [string[], RegExp][] = [
      [['archive', '--data-dir', api.dataDir], /name the sessions to archive, or give --older-than DAYS/],
      [['archive', 'one', '--older-than', '9', '--data-dir', api.dataDir], /not both/],
      [['archive', '--older-than=-3', '--data-dir', api.dataDir], /is not a number of days/],
      [['archive', 'nobody', '--data-dir', api.dataDir], /no session nobody in this data dir/],
      [['archive', '--upload-pack=x', '--data-dir', api.dataDir], /Unknown option/],
      [['unarchive', '../one', '--data-dir', api.dataDir], /is not a session id/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
    }
    expect(existsSync(join(api.dataDir, 'sessions', 'one'))).toBe(true);
    expect(existsSync(join(api.dataDir, 'archive'))).toBe(false);
  });
});
