/**
 * Issue 25: an imported transcript keeps its history. Imported in parts (as a growing file is,
 * now and again later) it gives exactly what importing it whole gives: the same turns, the same
 * messages, the same trees in the session repo; and each turn's commit carries the time of the
 * turn's last message in the transcript, not the import's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

/** Three turns (tool calls, a response written in several records), laid out as in ~/.claude/projects. */
const TURNS = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e08';
const fixture = join(import.meta.dirname, '..', 'importers', 'fixtures', 'claude-projects', '-home-dev-shop', `${TURNS}.jsonl`);

interface Summary {
  turns: number;
  messages: number;
  errors: { file: string; line: number; message: string }[];
}

async function importPaths(server: TestServer, paths: string[]): Promise<Summary> {
  const result = await server.raw(
    `mutation($paths: [String!]!) { importClaudeCode(input: { paths: $paths }) { turns messages errors { file line message } } }`,
    { paths },
  );
  expect(result.errors).toBeUndefined();
  return (result.data as { importClaudeCode: Summary }).importClaudeCode;
}

interface Imported {
  repoPath: string;
  /** Each turn's number, open or not, and its messages' ids in order. */
  turns: { number: number; open: boolean; messages: string[] }[];
  /** Each commit of main, oldest first: every file but meta.json (which names the session) with its blob. */
  trees: string[][];
}

/** The session once its repo has every closed turn: its turns, and its repo's trees. */
async function imported(server: TestServer, sessionId: string): Promise<Imported> {
  const repoPath = await eventually(async () => {
    const result = await server.raw('query($id: String!) { session(sessionId: $id) { repoPath mirror { inSync dagTurns gitCommits } } }', { id: sessionId });
    const s = (result.data as { session: { repoPath: string; mirror: { inSync: boolean; dagTurns: number; gitCommits: number } } | null }).session;
    return s?.mirror.inSync && s.mirror.gitCommits === s.mirror.dagTurns ? s.repoPath : undefined;
  });
  await server.repoSettled(sessionId);
  const result = await server.raw(
    'query($id: String!) { session(sessionId: $id) { turns(first: 50) { edges { node { number open messages { messageId } } } } } }',
    { id: sessionId },
  );
  expect(result.errors).toBeUndefined();
  const edges = (result.data as { session: { turns: { edges: { node: { number: number; open: boolean; messages: { messageId: string }[] } }[] } } }).session.turns.edges;
  const turns = edges.map(({ node }) => ({ number: node.number, open: node.open, messages: node.messages.map((m) => m.messageId) })).sort((a, b) => a.number - b.number);
  const shas = git(repoPath, 'log', '--reverse', '--format=%H', 'main').trim().split('\n').filter(Boolean);
  const trees = shas.map((sha) =>
    git(repoPath, 'ls-tree', '-r', sha)
      .trim()
      .split('\n')
      .filter((line) => !line.endsWith('\tmeta.json')),
  );
  return { repoPath, turns, trees };
}

/** The fixture's lines (each with its newline), under another session id. */
function transcript(sessionId: string): string[] {
  return readFileSync(fixture, 'utf8')
    .replaceAll(TURNS, sessionId)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `${line}\n`);
}

const sessionOf = (n: number): string => `7d1f0c52-3a4b-4c8d-9e0f-${String(n).padStart(12, '0')}`;

describe('imported history', () => {
  it('dates each turn commit at its last message in the transcript, author and committer', async () => {
    const root = tempDir('em-hist-');
    const server = await startTestServer({ allowedRoots: [root] });
    const file = join(root, `${TURNS}.jsonl`);
    writeFileSync(file, transcript(TURNS).join(''));
    const summary = await importPaths(server, [file]);
    expect(summary).toMatchObject({ turns: 3, errors: [] });
    const { repoPath } = await imported(server, TURNS);
    const dates = git(repoPath, 'log', '--reverse', '--format=%aI %cI', 'main').trim().split('\n');
    expect(dates).toEqual([
      '2026-03-03T10:00:11+00:00 2026-03-03T10:00:11+00:00',
      '2026-03-03T10:00:40+00:00 2026-03-03T10:00:40+00:00',
      '2026-03-03T10:01:18+00:00 2026-03-03T10:01:18+00:00',
    ]);
  });

  it('dates a turn whose clock went back at the turn before it, so commits stay in order', async () => {
    const root = tempDir('em-hist-');
    const server = await startTestServer({ allowedRoots: [root] });
    const sessionId = sessionOf(99);
    // Turn 2 (lines 9 to 13) recorded by a clock an hour behind.
    const lines = transcript(sessionId).map((line, i) => (i >= 8 && i <= 12 ? line.replace('"2026-03-03T10:', '"2026-03-03T09:') : line));
    const file = join(root, `${sessionId}.jsonl`);
    writeFileSync(file, lines.join(''));
    expect((await importPaths(server, [file])).errors).toEqual([]);
    const { repoPath } = await imported(server, sessionId);
    expect(git(repoPath, 'log', '--reverse', '--format=%aI', 'main').trim().split('\n')).toEqual([
      '2026-03-03T10:00:11+00:00',
      '2026-03-03T10:00:11+00:00',
      '2026-03-03T10:01:18+00:00',
    ]);
  });

  it('gives the same turns, messages and trees imported in two parts, split at any line, as imported whole', async () => {
    const root = tempDir('em-hist-');
    const server = await startTestServer({ allowedRoots: [root] });
    const whole = transcript(sessionOf(0));
    const wholeFile = join(root, 'whole.jsonl');
    writeFileSync(wholeFile, whole.join(''));
    expect((await importPaths(server, [wholeFile])).errors).toEqual([]);
    const expected = await imported(server, sessionOf(0));
    expect(expected.turns.map((t) => t.messages.length)).toEqual([4, 4, 2]);
    expect(expected.trees).toHaveLength(3);

    for (let split = 1; split < whole.length; split += 1) {
      const sessionId = sessionOf(split);
      const lines = transcript(sessionId);
      const file = join(root, `${sessionId}.jsonl`);
      // Written just before each import: the file is fresh, as one still being written is.
      writeFileSync(file, lines.slice(0, split).join(''));
      expect((await importPaths(server, [file])).errors, `first ${split} lines`).toEqual([]);
      writeFileSync(file, lines.join(''));
      expect((await importPaths(server, [file])).errors, `whole after ${split} lines`).toEqual([]);
      const got = await imported(server, sessionId);
      expect({ split, turns: got.turns }).toEqual({ split, turns: expected.turns });
      expect({ split, trees: got.trees }).toEqual({ split, trees: expected.trees });
    }
  });
});
