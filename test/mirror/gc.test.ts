/**
 * `entity-memory gc` on a real data dir, run as a user runs it: a dry run changes nothing; a run
 * compacts each idle session repo (smaller on disk, one pack, the same commits, verify clean),
 * leaves a session in use alone (a turn open, a turn in the last 10 minutes), removes the
 * moved-aside copies older than 14 days and keeps the newer; beside a running server it is refused.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemdUnit } from '../../src/autostart/units.js';
import { bytesOnDisk } from '../../src/mirror/gc.js';
import { cli } from '../helpers/cli.js';
import { EMBEDDED } from '../helpers/database.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

async function record(api: TestServer, sessionId: string, turns: number): Promise<void> {
  expect((await api.raw(`mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`)).errors).toBeUndefined();
  for (let n = 1; n <= turns; n++) {
    const turn = await api.raw(`mutation { recordTurn(input: { sessionId: "${sessionId}", user: { content: "q${n}" }, assistant: { content: "a${n}" } }) { number } }`);
    expect(turn.errors).toBeUndefined();
  }
}

/** Every branch and where it points, and the objects git finds wrong (none). */
function picture(repo: string): { refs: string; fsck: string } {
  return { refs: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'), fsck: git(repo, 'fsck', '--no-progress') };
}

function packs(repo: string): number {
  return Number(/^packs: (\d+)$/m.exec(git(repo, 'count-objects', '-v'))?.[1]);
}

describe('entity-memory gc', () => {
  it('compacts idle session repos and old moved-aside copies, leaves sessions in use alone, and changes nothing on a dry run', async () => {
    const api = await startTestServer(EMBEDDED);
    await record(api, 'idle', 25);
    await record(api, 'recent', 3);
    await record(api, 'open', 2);
    expect((await api.raw(`mutation { appendMessage(input: { sessionId: "open", role: USER, content: "still typing" }) { seq } }`)).errors).toBeUndefined();
    await eventually(async () => {
      const result = await api.raw(`{ sessions(first: 10) { edges { node { mirror { inSync } } } } }`);
      const edges = (result.data as { sessions: { edges: { node: { mirror: { inSync: boolean } } }[] } }).sessions.edges;
      return edges.length === 3 && edges.every((e) => e.node.mirror.inSync);
    });
    // idle's and open's turns an hour old; recent's just now.
    const hourAgo = new Date(Date.now() - 3_600_000);
    await api.server.app.db.turn.updateMany({ where: { sessionId: { in: ['idle', 'open'] } }, data: { createdAt: hourAgo, closedAt: hourAgo } });
    await api.server.stop();

    const idle = join(api.dataDir, 'sessions', 'idle');
    // Something no branch reaches, as an interrupted write leaves: 256 KB that gc may drop.
    const garbage = join(api.dataDir, 'garbage.bin');
    writeFileSync(garbage, randomBytes(256 * 1024));
    git(idle, 'hash-object', '-w', garbage);
    const aside = join(api.dataDir, 'moved-aside');
    const old = join(aside, 'idle-2026-01-02T03-04-05-678Z');
    const fresh = join(aside, `idle-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    for (const dir of [old, fresh]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
    }
    // What git init's templates put in repos made before they were left out: removed, samples only.
    mkdirSync(join(idle, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(idle, '.git', 'hooks', 'pre-commit.sample'), '#!/bin/sh\n');
    writeFileSync(join(idle, '.git', 'hooks', 'post-checkout'), '#!/bin/sh\n');
    const before = { idle: picture(idle), bytes: await bytesOnDisk(join(idle, '.git')), packs: packs(idle) };

    const dry = await cli(['gc', '--dry-run', '--data-dir', api.dataDir]);
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(0);
    const dryLines = dry.stdout.trim().split('\n');
    expect(dryLines.find((l) => l.startsWith('idle\t'))).toMatch(/^idle\t\S+ \S+\t\d+ packs, \d+ loose objects$/);
    expect(dryLines.find((l) => l.startsWith('open\t'))).toMatch(/left alone: a turn is open$/);
    expect(dryLines.find((l) => l.startsWith('recent\t'))).toMatch(/left alone: a turn in the last 10 minutes$/);
    expect(dryLines).toContain('dry run: 1 repos would be compacted, 2 left alone; nothing was changed');
    expect(dry.stdout).toContain('moved-aside: 1 of 2 copies older than 14 days would be removed');
    expect(await bytesOnDisk(join(idle, '.git'))).toBe(before.bytes);
    expect([existsSync(old), existsSync(fresh)]).toEqual([true, true]);

    const run = await cli(['gc', '--json', '--data-dir', api.dataDir]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout) as { sessions: { sessionId: string; before: number; after: number | null; skipped?: string }[] };
    const row = (id: string) => report.sessions.find((s) => s.sessionId === id)!;
    expect(row('idle').before).toBe(before.bytes);
    // Smaller by at least the unreachable 256 KB, in one pack, the same branches, nothing broken.
    expect(row('idle').after).toBeLessThan(before.bytes - 200 * 1024);
    expect(await bytesOnDisk(join(idle, '.git'))).toBe(row('idle').after);
    expect(packs(idle)).toBe(1);
    // The branches where they were, nothing broken, and the dangling blob gone.
    expect(before.idle.fsck).toMatch(/^dangling blob [0-9a-f]{40}\n$/);
    expect(picture(idle)).toEqual({ refs: before.idle.refs, fsck: '' });
    expect(readdirSync(join(idle, '.git', 'hooks'))).toEqual(['post-checkout']);
    expect([row('open').after, row('open').skipped]).toEqual([null, 'a turn is open']);
    expect(row('recent').after).toBeNull();
    expect([existsSync(old), existsSync(fresh)]).toEqual([false, true]);

    const verify = await cli(['verify', '--data-dir', api.dataDir]);
    expect(verify.status).toBe(0);
  });

  it('is refused beside a running server, in one line, changing nothing; naming how to pause it when it is the installed service', async () => {
    const api = await startTestServer(EMBEDDED);
    await record(api, 'busy', 2);
    const home = tempDir('em-gc-home-');
    const env = { HOME: home, XDG_CONFIG_HOME: '' };
    const run = await cli(['gc', '--data-dir', api.dataDir], env);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^entity-memory: a server is running on this data dir \(pid \d+ since \S+\); stop it first to gc$/)]);
    if (process.platform !== 'linux') return;
    // The same data dir served by the service `entity-memory service install` wrote.
    const unit = join(home, '.config', 'systemd', 'user', 'entity-memory.service');
    mkdirSync(join(unit, '..'), { recursive: true });
    writeFileSync(unit, systemdUnit({ node: process.execPath, script: '/opt/em/bin/entity-memory.js', dataDir: api.dataDir, path: '/usr/bin:/bin' }));
    const again = await cli(['gc', '--data-dir', api.dataDir], env);
    expect(again.status).toBe(2);
    expect(again.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /stop it first to gc \(it is the installed service: systemctl --user stop entity-memory\.service, then systemctl --user start entity-memory\.service after\)$/,
      ),
    ]);
  });
});
