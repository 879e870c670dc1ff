/**
 * `entity-memory export` and `import bundle` between two data dirs, run as a user runs them: the
 * session comes back with the same commits (same shas), branches, HEAD, messages and tool results,
 * searchable and verified; importing it again changes nothing; a file truncated, changed, or
 * written by a newer version is refused in one line with nothing written.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { extract as tarExtract, pack as tarPack } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const SESSION = `{ session(sessionId: "trip") {
  title currentBranch
  branches { name kind isCurrent head { sha } }
  turns(first: 20) { edges { node { number branch commit { sha } messages { messageId seq role content toolName toolCallId caller { messageId } } } } }
} }`;

async function inSync(api: TestServer, sessionId: string): Promise<void> {
  await eventually(async () => {
    const result = await api.raw(`{ session(sessionId: "${sessionId}") { mirror { inSync } } }`);
    return (result.data as { session: { mirror: { inSync: boolean } } | null }).session?.mirror.inSync === true;
  });
}

function picture(repo: string): { refs: string; head: string } {
  return { refs: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'), head: readFileSync(join(repo, '.git', 'HEAD'), 'utf8') };
}

/** The command line's flags for a test server's data dir and database (PostgreSQL in that pass). */
function where(api: TestServer): string[] {
  const url = api.server.app.deps.config.databaseUrl;
  return ['--data-dir', api.dataDir, ...(url ? ['--database-url', url] : [])];
}

/** A server's data dir and database with nothing in them yet (made by a start), stopped. */
async function emptyServer(): Promise<TestServer> {
  const api = await startTestServer();
  await api.server.stop();
  return api;
}

/** The export at `from` copied to `to` with its manifest changed by `change`. */
async function withManifest(from: string, to: string, change: (manifest: Record<string, unknown>) => void): Promise<void> {
  const extract = tarExtract();
  const pack = tarPack();
  const written = pipeline(pack, (await import('node:fs')).createWriteStream(to));
  const reading = pipeline(Readable.from(readFileSync(from)), extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    let body = Buffer.concat(chunks);
    if (entry.header.name === 'manifest.json') {
      const manifest = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      change(manifest);
      body = Buffer.from(JSON.stringify(manifest));
    }
    pack.entry({ name: entry.header.name }, body);
  }
  await reading;
  pack.finalize();
  await written;
}

describe('entity-memory export / import bundle', () => {
  it('moves a session between data dirs with the same commits, branches and messages; again changes nothing', async () => {
    const api = await startTestServer();
    expect((await api.raw(`mutation { createSession(input: { sessionId: "trip", title: "Plan the trip" }) { sessionId } }`)).errors).toBeUndefined();
    for (const n of [1, 2, 3]) {
      const turn = await api.raw(
        `mutation { recordTurn(input: { sessionId: "trip", user: { content: "leg ${n}: which train?" }, assistant: { content: "checking timetable ${n}" }, toolResults: [{ content: "08:1${n} departs", toolName: "Timetable", toolCallId: "call-${n}" }] }) { number } }`,
      );
      expect(turn.errors).toBeUndefined();
    }
    const last = (await api.raw(`{ session(sessionId: "trip") { turns(last: 1) { edges { node { messages { messageId role } } } } } }`)).data as {
      session: { turns: { edges: { node: { messages: { messageId: string; role: string }[] } }[] } };
    };
    const userMessageId = last.session.turns.edges[0]!.node.messages.find((m) => m.role === 'USER')!.messageId;
    const retried = await api.raw(`mutation { retryTurn(input: { sessionId: "trip", userMessageId: "${userMessageId}", assistant: { content: "the 08:13 is faster" } }) { number branch } }`);
    expect(retried.errors).toBeUndefined();
    await inSync(api, 'trip');
    await api.repoSettled('trip');
    const original = await api.raw(SESSION);
    expect(original.errors).toBeUndefined();
    await api.server.stop();
    const from = join(api.dataDir, 'sessions', 'trip');
    const before = picture(from);
    expect(before.refs.split('\n').filter(Boolean).length).toBe(2);

    const file = join(tempDir('em-export-'), 'trip.em');
    const exported = await cli(['export', 'trip', '--out', file, ...where(api)]);
    expect([exported.status, exported.stderr]).toEqual([0, '']);
    expect(exported.stdout).toMatch(/^trip: 4 turns, \d+ messages, 2 branches, 2 refs -> .*trip\.em \(\S+ \S+\)\n$/);
    expect(execFileSync('tar', ['tf', file], { encoding: 'utf8' }).split('\n').filter(Boolean)).toEqual(['manifest.json', 'rows.jsonl', 'repo.bundle']);

    const other = await emptyServer();
    const imported = await cli(['import', 'bundle', file, ...where(other)]);
    expect([imported.status, imported.stderr]).toEqual([0, '']);
    expect(imported.stdout).toMatch(/^trip: imported, 4 turns, \d+ messages, 2 branches\n$/);
    const to = join(other.dataDir, 'sessions', 'trip');
    expect(picture(to)).toEqual(before);
    expect(git(to, 'status', '--porcelain')).toBe('');
    expect((await cli(['verify', ...where(other)])).stdout).toMatch(/^trip\t4\t4\tok$/m);

    const there = await startTestServer({ dataDir: other.dataDir });
    expect(await there.raw(SESSION)).toEqual(original);
    const found = await there.raw(`{ search(query: "timetable 2") { edges { node { message { content } } } } }`);
    expect((found.data as { search: { edges: { node: { message: { content: string } } }[] } }).search.edges.map((e) => e.node.message.content)).toEqual(['checking timetable 2']);
    // The next turn goes on from where it was, committed on top of the imported branch.
    const next = await there.raw(`mutation { recordTurn(input: { sessionId: "trip", user: { content: "and back?" }, assistant: { content: "the 17:40" } }) { number branch } }`);
    expect(next.errors).toBeUndefined();
    await inSync(there, 'trip');
    await there.server.stop();

    const again = await cli(['import', 'bundle', file, ...where(other)]);
    expect([again.status, again.stdout]).toEqual([0, 'trip: left as it is: this data dir has that session already\n']);
  });

  it('refuses a file truncated, changed, of a newer format, or not an export, in one line, writing nothing', async () => {
    const api = await startTestServer();
    expect((await api.raw(`mutation { createSession(input: { sessionId: "short" }) { sessionId } }`)).errors).toBeUndefined();
    expect((await api.raw(`mutation { recordTurn(input: { sessionId: "short", user: { content: "hi" }, assistant: { content: "hello" } }) { number } }`)).errors).toBeUndefined();
    await inSync(api, 'short');
    await api.server.stop();
    const dir = tempDir('em-export-bad-');
    const file = join(dir, 'short.em');
    expect((await cli(['export', 'short', '--out', file, ...where(api)])).status).toBe(0);
    const bytes = readFileSync(file);

    const truncated = join(dir, 'truncated.em');
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    const changed = join(dir, 'changed.em');
    const text = bytes.toString('latin1');
    const at = text.indexOf('"hello"');
    expect(at).toBeGreaterThan(0);
    writeFileSync(changed, Buffer.from(text.slice(0, at) + '"HELLO"' + text.slice(at + 7), 'latin1'));
    const newer = join(dir, 'newer.em');
    await withManifest(file, newer, (manifest) => (manifest.version = 2));
    const notOne = join(dir, 'notes.txt');
    writeFileSync(notOne, 'just some notes\n');

    const other = await emptyServer();
    const cases: [string, RegExp][] = [
      [truncated, /it is cut short or damaged \(Unexpected end of data\); nothing was written$/],
      [changed, /rows\.jsonl fails its checksum \(the file was changed or cut short\); nothing was written$/],
      [newer, /written by a newer entity-memory \(export format 2; this version reads 1\): upgrade entity-memory to import it; nothing was written$/],
      [notOne, /not an entity-memory session export this version can import/],
      [join(dir, 'missing.em'), /no file at .*missing\.em$/],
    ];
    for (const [path, message] of cases) {
      const run = await cli(['import', 'bundle', path, ...where(other)]);
      expect(run.status, path).toBe(2);
      expect(run.stderr.trim().split('\n'), path).toEqual([expect.stringMatching(message)]);
    }
    expect(existsSync(join(other.dataDir, 'sessions', 'short'))).toBe(false);
    const check = await startTestServer({ dataDir: other.dataDir });
    expect((await check.raw(`{ session(sessionId: "short") { sessionId } }`)).data).toEqual({ session: null });
  });
});
