/**
 * Issue 13, the server side: Claude Code transcripts imported through
 * importClaudeCode on a real server (real SQLite, real git), checked through
 * the API and in the session repos.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, onlyError, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const fixtures = join(import.meta.dirname, '..', 'importers', 'fixtures', 'claude-code');
const u = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const S = (n: number): string => `7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e0${n}`;

interface Summary {
  files: number;
  sessions: number;
  turns: number;
  messages: number;
  branches: number;
  skipped: { type: string; count: number }[];
  errors: { file: string; line: number; message: string }[];
}

/** A copy of the fixtures in a fresh allowed root. */
function fixtureRoot(): string {
  const root = tempDir('em-cc-');
  cpSync(fixtures, join(root, 'cc'), { recursive: true });
  return root;
}

async function start(root: string): Promise<TestServer> {
  return startTestServer({ allowedRoots: [root] });
}

async function importPaths(server: TestServer, paths: string[]): Promise<Summary> {
  const result = await server.raw(
    `mutation($paths: [String!]!) { importClaudeCode(input: { paths: $paths }) {
      files sessions turns messages branches skipped { type count } errors { file line message } } }`,
    { paths },
  );
  expect(result.errors).toBeUndefined();
  return (result.data as { importClaudeCode: Summary }).importClaudeCode;
}

interface SessionView {
  sessionId: string;
  title: string | null;
  agentId: string | null;
  model: string | null;
  source: string | null;
  metadata: Record<string, unknown> | null;
  currentBranch: string;
  repoPath: string;
  parentSession: { sessionId: string } | null;
  subagentSessions: { sessionId: string }[];
  branches: { name: string; kind: string }[];
  mirror: { inSync: boolean; dagTurns: number; gitCommits: number };
  messages: {
    totalCount: number;
    nodes: { messageId: string; role: string; content: string; predecessor: { messageId: string } | null; caller: { messageId: string } | null; toolCallId: string | null }[];
  };
}

async function session(server: TestServer, sessionId: string, branch?: string): Promise<SessionView | null> {
  const result = await server.raw(
    `query($id: String!, $branch: String) { session(sessionId: $id) {
      sessionId title agentId model source metadata currentBranch repoPath
      parentSession { sessionId } subagentSessions { sessionId }
      branches { name kind }
      mirror { inSync dagTurns gitCommits }
      messages(branch: $branch, first: 100) { totalCount edges { node { messageId role content predecessor { messageId } caller { messageId } toolCallId } } }
    } }`,
    { id: sessionId, branch },
  );
  expect(result.errors).toBeUndefined();
  const found = (result.data as { session: (Omit<SessionView, 'messages'> & { messages: { totalCount: number; edges: { node: SessionView['messages']['nodes'][number] }[] } }) | null }).session;
  if (!found) return null;
  return { ...found, messages: { totalCount: found.messages.totalCount, nodes: found.messages.edges.map((e) => e.node) } };
}

/** The session once its repo has every closed turn. */
async function synced(server: TestServer, sessionId: string): Promise<SessionView> {
  const found = await eventually(async () => {
    const s = await session(server, sessionId);
    return s?.mirror.inSync && s.mirror.gitCommits === s.mirror.dagTurns ? s : undefined;
  });
  // Its checkout follows a commit after the commit is recorded: wait for the pass to end.
  await server.repoSettled(sessionId);
  return found;
}

/** The content of every message file in the session repo, on every branch. */
function repoContents(repoPath: string): string[] {
  const out = git(repoPath, 'log', '--all', '-p', '--format=');
  return [out];
}

describe('importClaudeCode', () => {
  it('imports prompts, replies and tool results with their callers, into the API and the session repo', async () => {
    const root = fixtureRoot();
    const server = await start(root);
    const summary = await importPaths(server, [join(root, 'cc', 'tools.jsonl'), join(root, 'cc', 'plain.jsonl')]);
    expect(summary.errors).toEqual([]);
    expect(summary.files).toBe(2);
    expect(summary.sessions).toBe(2);

    const tools = await synced(server, S(2));
    expect(tools).toMatchObject({ title: 'Run the tests and fix what fails', agentId: 'claude-code', source: 'claude-code', model: 'claude-sonnet-4-5-20250929', currentBranch: 'main' });
    expect(tools.metadata).toMatchObject({ cwd: '/home/dev/shop', gitBranch: 'main', version: '2.0.14' });
    const byId = new Map(tools.messages.nodes.map((m) => [m.messageId, m]));
    expect(tools.messages.totalCount).toBe(10);
    expect(byId.get(u(106))).toMatchObject({ role: 'TOOL', caller: { messageId: u(102) }, toolCallId: 'toolu_01Run', predecessor: { messageId: u(102) } });
    expect(byId.get(`${u(110)}-2`)).toMatchObject({ role: 'TOOL', caller: { messageId: u(107) }, toolCallId: 'toolu_01ReadTest' });
    expect(byId.get(u(114))).toMatchObject({ role: 'TOOL', caller: { messageId: u(111) }, content: 'PASS test/price.test.ts' });
    expect(byId.get(u(116))?.content).toMatch(/^Fixed: price\(\) now formats cents/);
    const log = repoContents(tools.repoPath).join('\n');
    for (const m of tools.messages.nodes) {
      expect(log).toContain(JSON.stringify(m.messageId));
      if (m.content) expect(log).toContain(JSON.stringify(m.content).slice(1, 40));
    }

    const plain = await synced(server, S(1));
    const prompts = plain.messages.nodes.filter((m) => m.role === 'USER').map((m) => m.content);
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toMatch(/^Write a short README/);
    expect(plain.messages.nodes.filter((m) => m.role === 'ASSISTANT')).toHaveLength(2);
    expect(plain.messages.nodes.filter((m) => m.role === 'SYSTEM')).toHaveLength(3);
  });

  it('makes retry and fork branches, the current one the path to the newest leaf; a second import adds nothing', async () => {
    const root = fixtureRoot();
    const server = await start(root);
    const file = join(root, 'cc', 'retry-fork.jsonl');
    const first = await importPaths(server, [file]);
    expect(first.errors).toEqual([]);
    expect(first.branches).toBe(2);
    const s = await synced(server, S(4));
    expect(s.branches.map((b) => `${b.kind}:${b.name}`).sort()).toEqual(['FORK:fork-' + u(307), 'MAIN:main', 'RETRY:retry-' + u(303)].sort());
    expect(s.currentBranch).toBe(`fork-${u(307)}`);
    expect(s.messages.nodes.map((m) => m.messageId)).toEqual([u(301), u(302), u(307), u(308)]);
    const retry = await session(server, S(4), `retry-${u(303)}`);
    expect(retry!.messages.nodes.map((m) => m.messageId)).toEqual([u(301), u(303), u(304), u(305)]);
    git(s.repoPath, 'rev-parse', '--verify', `refs/heads/retry-${u(303)}`);
    git(s.repoPath, 'rev-parse', '--verify', `refs/heads/fork-${u(307)}`);

    const again = await importPaths(server, [file]);
    expect(again).toMatchObject({ files: 1, sessions: 1, turns: 0, messages: 0, branches: 0, errors: [] });
    const after = await synced(server, S(4));
    expect(after.mirror.dagTurns).toBe(s.mirror.dagTurns);
    expect(after.currentBranch).toBe(s.currentBranch);
  });

  it('appends only the new turns of a grown file, on the branch it continues', async () => {
    const root = fixtureRoot();
    const server = await start(root);
    const whole = readFileSync(join(fixtures, 'retry-fork.jsonl'), 'utf8').split('\n').filter(Boolean);
    const file = join(root, 'grow.jsonl');
    writeFileSync(file, whole.slice(0, 5).join('\n') + '\n');
    const part = await importPaths(server, [file]);
    expect(part).toMatchObject({ messages: 5, branches: 1, errors: [] });
    const before = await synced(server, S(4));
    expect(before.currentBranch).toBe(`retry-${u(303)}`);

    writeFileSync(file, whole.join('\n') + '\n');
    const rest = await importPaths(server, [file]);
    expect(rest).toMatchObject({ messages: 2, turns: 1, branches: 1, errors: [] });
    const after = await synced(server, S(4));
    expect(after.mirror.dagTurns).toBe(before.mirror.dagTurns + 1);
    expect(after.currentBranch).toBe(`fork-${u(307)}`);
    expect(after.messages.nodes.map((m) => m.messageId)).toEqual([u(301), u(302), u(307), u(308)]);
  });

  it('links a sub-agent session to its parent, imported from one folder, parent first', async () => {
    const root = fixtureRoot();
    const server = await start(root);
    const summary = await importPaths(server, [join(root, 'cc')]);
    expect(summary.files).toBe(7);
    const child = `${S(2)}-a7f3c2`;
    const parent = await session(server, S(2));
    expect(parent!.subagentSessions).toEqual([{ sessionId: child }]);
    const sub = await synced(server, child);
    expect(sub.parentSession).toEqual({ sessionId: S(2) });
    expect(sub.messages.nodes.find((m) => m.role === 'TOOL')).toMatchObject({ caller: { messageId: u(402) }, content: 'src/cart.ts\nsrc/checkout.ts' });
  });

  it('reports a malformed line as file:line and imports the rest, and one bad file stops no other', async () => {
    const root = fixtureRoot();
    const server = await start(root);
    const bad = join(root, 'cc', 'malformed.jsonl');
    const missing = join(root, 'cc', 'nothing-here.jsonl');
    mkdirSync(join(root, 'cc', 'empty'));
    const summary = await importPaths(server, [bad, join(root, 'cc', 'partial.jsonl')]);
    expect(summary.errors).toContainEqual(expect.objectContaining({ file: bad, line: 2 }));
    expect(summary.skipped).toContainEqual({ type: 'mystery-record', count: 1 });
    const s = await synced(server, S(5));
    expect(s.messages.nodes.map((m) => m.messageId)).toEqual([u(501), u(502), u(504)]);
    expect((await synced(server, S(6))).messages.totalCount).toBe(2);
    // A missing path is refused before anything is read.
    const refused = await server.raw(`mutation($p: [String!]!) { importClaudeCode(input: { paths: $p }) { files } }`, { p: [missing] });
    expect(onlyError(refused).extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('refuses a path outside the allowed roots and imports nothing', async () => {
    const root = fixtureRoot();
    const outside = fixtureRoot();
    const server = await start(root);
    const result = await server.raw(`mutation($p: [String!]!) { importClaudeCode(input: { paths: $p }) { files } }`, {
      p: [join(root, 'cc', 'plain.jsonl'), join(outside, 'cc')],
    });
    expect(onlyError(result).extensions?.code).toBe('FORBIDDEN');
    expect(await session(server, S(1))).toBeNull();
    const count = await server.raw('{ sessions { totalCount } }');
    expect(count.data).toEqual({ sessions: { totalCount: 0 } });
  });

  it('never makes a project commit for imported turns, even once the session is in a project', async () => {
    const root = fixtureRoot();
    const server = await start(root);
    const work = join(root, 'work');
    mkdirSync(work);
    const whole = readFileSync(join(fixtures, 'plain.jsonl'), 'utf8').split('\n').filter(Boolean);
    const file = join(root, 'plain-grow.jsonl');
    writeFileSync(file, whole.slice(0, 7).join('\n') + '\n');
    await importPaths(server, [file]);
    const created = await server.raw(`mutation($w: String!) { createProject(input: { name: "shop", workdir: $w }) { projectId } }`, { w: work });
    expect(created.errors).toBeUndefined();
    const projectId = (created.data as { createProject: { projectId: string } }).createProject.projectId;
    const added = await server.raw(`mutation($p: String!, $s: String!) { addSessionToProject(input: { projectId: $p, sessionId: $s }) { sessionId } }`, { p: projectId, s: S(1) });
    expect(added.errors).toBeUndefined();
    writeFileSync(join(work, 'edited-by-agent.txt'), 'hello\n');

    writeFileSync(file, whole.join('\n') + '\n');
    const grown = await importPaths(server, [file]);
    expect(grown).toMatchObject({ turns: 1, errors: [] });
    await synced(server, S(1));
    const turns = await server.raw(`query($s: String!) { session(sessionId: $s) { turns(first: 50) { edges { node { number projectCommit { result } } } } } }`, { s: S(1) });
    expect(turns.errors).toBeUndefined();
    const nodes = (turns.data as { session: { turns: { edges: { node: { projectCommit: unknown } }[] } } }).session.turns.edges.map((e) => e.node);
    expect(nodes.length).toBeGreaterThan(1);
    expect(nodes.every((n) => n.projectCommit === null)).toBe(true);
    // No commit in the project folder, and the file the "agent" wrote is left alone.
    expect(() => git(work, 'rev-parse', '--verify', 'HEAD')).toThrow();
    expect(git(work, 'status', '--porcelain')).toContain('edited-by-agent.txt');
  });
});
