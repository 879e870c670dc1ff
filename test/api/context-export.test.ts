/**
 * exportContext on a real imported Claude Code transcript that was compacted: the turn after the
 * compaction's context is the compact summary and what follows (not what it replaced), a turn
 * before it the whole path; each is one JSON file in a commit beside the branches, so the branch,
 * the turn count and verify are unchanged; exporting again writes the same commit.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { EMBEDDED } from '../helpers/database.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 9, minute)).toISOString();
const TRANSCRIPT = [
  { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 'compacted', timestamp: at(0), message: { role: 'user', content: 'port the parser to TypeScript' } },
  { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 'compacted', timestamp: at(1), message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: 'ported lexer.ts' }] } },
  { type: 'user', uuid: 'u2', parentUuid: 'a1', sessionId: 'compacted', timestamp: at(2), message: { role: 'user', content: 'now the grammar' } },
  { type: 'assistant', uuid: 'a2', parentUuid: 'u2', sessionId: 'compacted', timestamp: at(3), message: { id: 'msg_2', role: 'assistant', content: [{ type: 'text', text: 'ported grammar.ts' }] } },
  { type: 'system', subtype: 'compact_boundary', uuid: 'b1', parentUuid: null, logicalParentUuid: 'a2', sessionId: 'compacted', timestamp: at(4), content: 'Conversation compacted' },
  { type: 'user', uuid: 's1', parentUuid: 'b1', sessionId: 'compacted', timestamp: at(4), isCompactSummary: true, message: { role: 'user', content: 'Summary: lexer.ts and grammar.ts are ported; tests next.' } },
  { type: 'user', uuid: 'u3', parentUuid: 's1', sessionId: 'compacted', timestamp: at(5), message: { role: 'user', content: 'write the tests' } },
  { type: 'assistant', uuid: 'a3', parentUuid: 'u3', sessionId: 'compacted', timestamp: at(6), message: { id: 'msg_3', role: 'assistant', content: [{ type: 'text', text: 'added parser.test.ts' }] } },
  { type: 'user', uuid: 'u4', parentUuid: 'a3', sessionId: 'compacted', timestamp: at(7), message: { role: 'user', content: 'run them' } },
];

const EXPORT = `mutation($turn: Int!) { exportContext(input: { sessionId: "compacted", turn: $turn }) { ref sha path compaction { content } messages { role content } } }`;
type Exported = { exportContext: { ref: string; sha: string; path: string; compaction: { content: string } | null; messages: { role: string; content: string }[] } };

describe('exportContext', () => {
  it("writes the turn's context from its last compaction on into a commit beside the branches", async () => {
    const folder = tempDir('em-context-');
    writeFileSync(join(folder, 'compacted.jsonl'), TRANSCRIPT.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const api = await startTestServer({ ...EMBEDDED, allowedRoots: [folder] });
    expect((await api.raw(`mutation { importClaudeCode(input: { paths: ["${folder}"] }) { sessions turns } }`)).errors).toBeUndefined();
    await eventually(async () => ((await api.raw(`{ session(sessionId: "compacted") { mirror { inSync } } }`)).data as { session: { mirror: { inSync: boolean } } }).session.mirror.inSync);
    await api.repoSettled('compacted');
    const repo = join(api.dataDir, 'sessions', 'compacted');
    const branchBefore = git(repo, 'rev-parse', 'main').trim();

    const after = await api.raw(EXPORT, { turn: 3 });
    expect(after.errors).toBeUndefined();
    const third = (after.data as Exported).exportContext;
    expect(third.ref).toBe('refs/contexts/main/3');
    expect(third.compaction?.content).toBe('Summary: lexer.ts and grammar.ts are ported; tests next.');
    expect(third.messages.map((m) => [m.role, m.content])).toEqual([
      ['SYSTEM', 'Summary: lexer.ts and grammar.ts are ported; tests next.'],
      ['USER', 'write the tests'],
    ]);
    // In git: the file, on a commit whose parent is turn 3's, beside the branches.
    const file = JSON.parse(git(repo, 'show', `${third.ref}:${third.path}`)) as { turn: { number: number; commit: string }; compaction: string; messages: { role: string; content: string }[] };
    expect(file.turn.number).toBe(3);
    expect(git(repo, 'rev-parse', `${third.sha}^`).trim()).toBe(file.turn.commit);
    expect(file.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', 'Summary: lexer.ts and grammar.ts are ported; tests next.'],
      ['user', 'write the tests'],
    ]);
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(branchBefore);

    // Before the compaction: the whole path up to the turn's user message.
    const before = (await api.raw(EXPORT, { turn: 2 })).data as Exported;
    expect(before.exportContext.compaction).toBeNull();
    expect(before.exportContext.messages.map((m) => m.content)).toEqual(['port the parser to TypeScript', 'ported lexer.ts', 'now the grammar']);

    // Again: the same commit. The session's counts are unchanged.
    expect(((await api.raw(EXPORT, { turn: 3 })).data as Exported).exportContext.sha).toBe(third.sha);
    const counts = await api.raw(`{ session(sessionId: "compacted") { mirror { dagTurns gitCommits inSync } timeline(all: true, first: 10) { edges { node { sha } } } } }`);
    expect(counts.data).toMatchObject({ session: { mirror: { dagTurns: 3, gitCommits: 3, inSync: true } } });
    // The open turn (the transcript's last prompt) has no commit to write beside.
    expect((await api.raw(EXPORT, { turn: 4 })).errors?.[0]?.extensions?.code).toBe('CONFLICT');
    expect((counts.data as { session: { timeline: { edges: unknown[] } } }).session.timeline.edges).toHaveLength(3);
    const bad = await api.raw(EXPORT, { turn: 9 });
    expect(bad.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    await api.server.stop();
    expect((await cli(['verify', '--data-dir', api.dataDir])).stdout).toMatch(/^compacted\t3\t3\tok$/m);
  });
});
