/**
 * `entity-memory search` from a terminal, beside a running server (read-only): one line per hit,
 * or JSON; exit 0 found, 1 nothing, 2 a malformed query said in one line.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseTarget } from '../../src/config.js';
import { startTestServer } from '../helpers/server.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');

describe('entity-memory search', () => {
  it('prints the hits beside a running server, as lines or JSON, and says what is wrong with a query', async () => {
    const api = await startTestServer();
    for (const [sessionId, user, assistant] of [
      ['billing', 'Why is the invoice total negative?', 'A refund was applied twice to the invoice.'],
      ['deploy', 'Ship it', 'Deployed; the invoice service restarted.'],
    ] as const) {
      expect((await api.raw(`mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`)).errors).toBeUndefined();
      const turn = await api.raw(`mutation ($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`, { input: { sessionId, user: { content: user }, assistant: { content: assistant } } });
      expect(turn.errors).toBeUndefined();
    }
    const target = databaseTarget(api.server.app.config);
    const where = ['--data-dir', api.dataDir, ...('url' in target ? ['--database-url', target.url] : [])];
    const cli = (...args: string[]) => spawnSync(process.execPath, [bin, 'search', ...args, ...where], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } });

    const lines = cli('invoice', 'refund');
    expect(lines.stderr).toBe('');
    expect(lines.status).toBe(0);
    expect(lines.stdout).toBe('billing\t1\tassistant: A refund was applied twice to the invoice.\n');

    const json = cli('invoice', '--json', '--limit', '5');
    expect(json.status).toBe(0);
    const rows = JSON.parse(json.stdout) as { sessionId: string; turnNumber: number; role: string; snippet: string; highlights: { start: number; end: number }[] }[];
    expect(rows.map((r) => r.sessionId).sort()).toEqual(['billing', 'billing', 'deploy']);
    for (const row of rows) expect(row.highlights.map((h) => row.snippet.slice(h.start, h.end).toLowerCase())).toContain('invoice');
    expect(cli('invoice', '--session', 'deploy', '--json').stdout).toContain('"sessionId": "deploy"');

    const none = cli('quasar');
    expect(none.status).toBe(1);
    expect(none.stdout).toBe('');

    const bad = cli('"unclosed');
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/never closed/);
    expect(cli('x', '--limit', '500').status).toBe(2);
    expect(spawnSync(process.execPath, [bin, 'search', '--help'], { encoding: 'utf8' }).stdout).toMatch(/^usage: entity-memory search QUERY/);
  }, 60_000);
});
