/**
 * The data dir holds every conversation and every file an agent read: it is private to the user.
 * A new one is created 0700 with its database 0600; an old one (0755, a 0644 database) is
 * tightened at start with one warning; a session repo cannot be entered by another account.
 */
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capturedLogger } from '../helpers/logger.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');
const mode = (path: string) => statSync(path).mode & 0o777;

describe('a private data dir', () => {
  it('is created 0700, with the database 0600 and the session repos out of reach of other accounts', async () => {
    const dataDir = join(tempDir('em-private-'), 'new', 'data');
    const api = await startTestServer({ dataDir, databaseUrl: undefined });
    expect((await api.raw('mutation { createSession(input: { sessionId: "private-1" }) { sessionId } }')).errors).toBeUndefined();
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, 'entity-memory.db'))).toBe(0o600);
    expect(mode(join(dataDir, 'sessions'))).toBe(0o700);
    // SQLite gives the WAL the database file's mode.
    expect(mode(join(dataDir, 'entity-memory.db-wal'))).toBe(0o600);
    // Nothing the server made in it (the lock and its holder's file included) is open to others.
    const open = readdirSync(dataDir).filter((name) => (mode(join(dataDir, name)) & 0o077) !== 0);
    expect(open).toEqual([]);
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['entity-memory.lock', 'entity-memory.lock.json']));
  }, 60_000);

  it('tightens a data dir made readable by others, and says so once', async () => {
    const dataDir = tempDir('em-loose-');
    const first = await startTestServer({ dataDir, databaseUrl: undefined });
    expect((await first.raw('mutation { createSession(input: { sessionId: "loose-1" }) { sessionId } }')).errors).toBeUndefined();
    await first.server.stop();
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'sessions'), 0o755);
    chmodSync(join(dataDir, 'entity-memory.db'), 0o644);
    mkdirSync(join(dataDir, 'hooks'), { recursive: true });
    chmodSync(join(dataDir, 'hooks'), 0o755);
    writeFileSync(join(dataDir, 'unrelated.txt'), 'not ours\n', { mode: 0o644 });

    const { logger, lines } = capturedLogger();
    await startTestServer({ dataDir, databaseUrl: undefined }, {}, { logger });
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, 'sessions'))).toBe(0o700);
    expect(mode(join(dataDir, 'hooks'))).toBe(0o700);
    expect(mode(join(dataDir, 'entity-memory.db'))).toBe(0o600);
    // A file the server does not keep is not its to change (the folder keeps others out anyway).
    expect(mode(join(dataDir, 'unrelated.txt'))).toBe(0o644);
    const warnings = lines.filter((line) => /private to you now/.test(String(line.msg)));
    expect(warnings).toHaveLength(1);
  }, 60_000);

  it('is reported by verify when another account can read it', async () => {
    const dataDir = tempDir('em-verify-mode-');
    const api = await startTestServer({ dataDir, databaseUrl: undefined });
    await api.server.stop();
    const verify = () => spawnSync(process.execPath, [bin, 'verify', '--data-dir', dataDir], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } });
    expect(verify().stderr).not.toMatch(/other accounts/);
    chmodSync(dataDir, 0o755);
    const loose = verify();
    expect(loose.status).toBe(0);
    expect(loose.stderr).toContain(`${dataDir} can be read by other accounts on this machine`);
  }, 60_000);
});
