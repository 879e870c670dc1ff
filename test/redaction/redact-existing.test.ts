/**
 * `entity-memory redact --existing` (issue 26 item 3): what was stored with redaction off is
 * rewritten, database rows first, then each changed session's repo rebuilt and its old copy
 * deleted; sessions without secrets are left as they were; a second run changes nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTarget } from '../../src/config.js';
import { openDb } from '../../src/db/index.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');

function cli(...args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

// Made of parts, so this file never holds a whole token.
const TOKEN = ['ghp_', 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx'].join('');
const AWS_ID = ['AKIA', 'QYLPMN5HHHFPZAM2'].join('');

async function inSync(api: TestServer, sessionId: string): Promise<string> {
  return eventually(async () => {
    const { data } = await api.raw(`query($id: String!) { session(sessionId: $id) { repoPath mirror { inSync } } }`, { id: sessionId });
    const session = (data as { session: { repoPath: string; mirror: { inSync: boolean } } }).session;
    return session.mirror.inSync ? session.repoPath : undefined;
  });
}

describe('entity-memory redact --existing', () => {
  it('takes the secrets out of the rows and the repos stored with redaction off, and leaves the rest as it was', async () => {
    const dataDir = tempDir();
    const api = await startTestServer({ dataDir, redact: false });
    const turn = `mutation($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`;
    expect((await api.raw(`mutation { createSession(input: { sessionId: "leaky", title: "deploy with ${TOKEN}" }) { sessionId } }`)).errors).toBeUndefined();
    expect((await api.raw(`mutation { createSession(input: { sessionId: "clean" }) { sessionId } }`)).errors).toBeUndefined();
    for (const input of [
      { sessionId: 'leaky', user: { content: `push with ${TOKEN}` }, assistant: { content: 'Pushed.' } },
      { sessionId: 'leaky', user: { content: 'and the AWS one?' }, assistant: { content: 'Read it.' }, toolResults: [{ content: `aws_access_key_id = ${AWS_ID}`, toolName: 'Read', metadata: { path: '.env', again: TOKEN } }] },
      { sessionId: 'leaky', user: { content: 'thanks' }, assistant: { content: 'You are welcome.' } },
      { sessionId: 'clean', user: { content: 'count the lines' }, assistant: { content: '42 lines.' } },
    ]) {
      const result = await api.raw(turn, { input });
      expect(result.errors).toBeUndefined();
    }
    const leakyRepo = await inSync(api, 'leaky');
    const cleanRepo = await inSync(api, 'clean');
    expect(git(leakyRepo, 'log', '-p', '--all')).toContain(TOKEN);
    const cleanHead = git(cleanRepo, 'rev-parse', 'HEAD');
    const leakyCommits = git(leakyRepo, 'rev-list', '--count', 'HEAD');

    // With SQLite, refused while the server holds the data dir; with PostgreSQL the server runs
    // on (each repo is rebuilt under its session's lease). Refused without --existing.
    const target = databaseTarget(api.server.app.config);
    const shared = 'url' in target;
    const where = shared ? ['--database-url', target.url] : [];
    if (!shared) {
      const busy = cli('redact', '--existing', '--data-dir', dataDir, ...where);
      expect(busy.status).toBe(2);
      expect(busy.stderr).toContain('a server is running on this data dir');
      await api.server.stop();
    }
    const bare = cli('redact', '--data-dir', dataDir, ...where);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain('redact needs --existing');

    const run = cli('redact', '--existing', '--data-dir', dataDir, ...where);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('9 messages read; 2 messages and 1 session (title or metadata) redacted: aws-access-key-id ×1, github-token ×3');
    expect(run.stdout).toContain('1 session repos rebuilt without them, 0 failed');

    // The database: markers and counts, never the values.
    const db = await openDb(target);
    try {
      const rows = await db.message.findMany({ where: { sessionId: 'leaky' }, orderBy: { seq: 'asc' }, select: { content: true, metadata: true, redactions: true } });
      expect(JSON.stringify(rows)).not.toContain(TOKEN);
      expect(JSON.stringify(rows)).not.toContain(AWS_ID);
      expect(rows.map((row) => row.redactions).filter(Boolean)).toEqual(['{"github-token":1}', '{"aws-access-key-id":1,"github-token":1}']);
      expect(rows[0]!.content).toBe('push with [redacted:github-token]');
      expect((await db.session.findUnique({ where: { sessionId: 'leaky' } }))!.title).toBe('deploy with [redacted:github-token]');
    } finally {
      await db.$disconnect();
    }

    // The repo: rebuilt with every turn, the old copy gone; the clean session's repo untouched.
    const history = git(leakyRepo, 'log', '-p', '--all');
    expect(history).not.toContain(TOKEN);
    expect(history).not.toContain(AWS_ID);
    expect(history).toContain('[redacted:github-token]');
    expect(git(leakyRepo, 'rev-list', '--count', 'HEAD')).toBe(leakyCommits);
    expect(git(leakyRepo, 'status', '--porcelain')).toBe('');
    const aside = join(dataDir, 'moved-aside');
    expect(existsSync(aside) ? readdirSync(aside) : []).toEqual([]);
    expect(git(cleanRepo, 'rev-parse', 'HEAD')).toBe(cleanHead);
    expect(cli('verify', '--data-dir', dataDir, ...where).status).toBe(0);

    // A server (the same one on PostgreSQL, a new one on SQLite) goes on from the rebuilt repo.
    const next = shared ? api : await startTestServer({ dataDir });
    expect((await next.raw(turn, { input: { sessionId: 'leaky', user: { content: 'one more' }, assistant: { content: 'Done.' } } })).errors).toBeUndefined();
    await inSync(next, 'leaky');
    expect(git(leakyRepo, 'rev-list', '--count', 'HEAD')).toBe(String(Number(leakyCommits) + 1) + '\n');
    expect(git(leakyRepo, 'log', '-p', '--all')).not.toContain(TOKEN);
    await next.server.stop();

    // Again: nothing left to take out, nothing rebuilt.
    const again = cli('redact', '--existing', '--data-dir', dataDir, ...where);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('11 messages read; 0 messages and 0 session (title or metadata) redacted');
    expect(again.stdout).toContain('0 session repos rebuilt without them, 0 failed');
  });
});
