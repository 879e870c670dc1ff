/**
 * Issue 29: the MCP server against a real server, a real project repo and real sessions, with the
 * SDK's own Client over each transport (Streamable HTTP at /mcp; `entity-memory mcp` on stdio): every tool (committed turns, a skipped turn with its
 * snapshot, a restore and its undo, a fork), both resource templates, the bound on an answer's
 * size, and bad input answered as a tool error naming the field, changing nothing.
 */
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { git } from '../helpers/git.js';
import { forTheFile } from '../helpers/leftovers.js';
import type { TestServer } from '../helpers/server.js';
import { expectUntouched, outcome, picture, projectServer, projectSession, userRepo } from '../projects/project-turns.js';
import { callTool, httpClient, ok, stdioClient } from './mcp-client.js';

const MAX = 25_000;

const RECORD = `
  mutation Record($input: RecordTurnInput!) {
    recordTurn(input: $input) { number }
  }`;

/** A turn in which the agent wrote `files` with its Write tool (a call and its result per file). */
async function writeTurn(api: TestServer, dir: string, prompt: string, files: Record<string, string>): Promise<number> {
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  const calls = Object.keys(files).map((path, i) => ({ id: `call-${prompt.length}-${i}`, name: 'Write', input: { file_path: join(dir, path), content: files[path] } }));
  const result = await api.raw(RECORD, {
    input: {
      sessionId: 's',
      user: { content: prompt },
      assistant: { content: `I wrote ${Object.keys(files).join(' and ')}.`, metadata: { toolCalls: calls } },
      toolResults: calls.map((call) => ({ content: `File created successfully at: ${call.input.file_path}`, toolCallId: call.id, toolName: 'Write' })),
      touchedPaths: Object.keys(files),
    },
  });
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
  return (result.data as { recordTurn: { number: number } }).recordTurn.number;
}

const read = (dir: string, path: string) => (existsSync(join(dir, path)) ? readFileSync(join(dir, path), 'utf8') : null);

describe.each(['Streamable HTTP', 'stdio (entity-memory mcp)'])('the MCP server over %s', (transport) => {
  let api: TestServer;
  let dir: string;
  let projectId: string;
  let client: Client;
  const big = Array.from({ length: 3000 }, (_, i) => `line ${i} of a long generated file, padded to be wide enough`).join('\n') + '\n';

  beforeAll(() => forTheFile(async () => {
    const server = await projectServer();
    api = server.api;
    dir = userRepo(server.root);
    projectId = await projectSession(api, dir, 's');
    // Turn 1 and 2 commit; turn 3 is skipped (the user has work in progress) and kept as a snapshot.
    expect((await outcome(api, 's', await writeTurn(api, dir, 'add the alpha module', { 'a.txt': 'alpha\n' }))).result).toBe('COMMITTED');
    expect((await outcome(api, 's', await writeTurn(api, dir, 'make alpha beta and add b', { 'a.txt': 'beta\n', 'b.txt': 'bee\n', 'big.txt': big }))).result).toBe('COMMITTED');
    writeFileSync(join(dir, 'scratch.txt'), 'the user’s own notes\n');
    const skipped = await outcome(api, 's', await writeTurn(api, dir, 'write the gamma file', { 'c.txt': 'gamma\n' }));
    expect(skipped.result).toBe('SKIPPED_DIRTY');
    client = transport === 'Streamable HTTP' ? await httpClient(api) : await stdioClient(api.dataDir);
  }));

  it('lists exactly the tools of the issue, each with a described schema and the right hints', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['fork_session', 'get_turn', 'get_turn_diff', 'list_sessions', 'project_history', 'read_file_at_turn', 'restore_files', 'search'].sort(),
    );
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe('object');
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
        expect((property as { description?: string }).description, `${tool.name}.${name}`).toMatch(/\w+/);
      }
      const readOnly = !['restore_files', 'fork_session'].includes(tool.name);
      expect(tool.annotations?.readOnlyHint ?? false, tool.name).toBe(readOnly);
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('restore_files')?.annotations?.destructiveHint).toBe(true);
    expect(byName.get('fork_session')?.annotations?.destructiveHint).toBe(false);
    expect(byName.get('get_turn')?.inputSchema.required).toEqual(['session']);
  });

  it('search: hits with session, turn, role, snippet and a URI, paged with a cursor', async () => {
    const found = await ok(client, 'search', { query: 'alpha' });
    const hits = found.data.hits as { session: string; turn: number; role: string; snippet: string; uri: string }[];
    expect(hits.length).toBeGreaterThanOrEqual(2);
    expect(hits.every((h) => h.session === 's')).toBe(true);
    // Both prompts say alpha; which ranks first is the database's (bm25 or ts_rank).
    expect(hits.find((h) => h.role === 'user' && h.turn === 1)).toMatchObject({ uri: 'entity-memory://session/s/turn/1' });
    expect(found.text).toContain('entity-memory://session/s/turn/1');
    const first = await ok(client, 'search', { query: 'alpha', limit: 1 });
    expect(first.data.nextCursor).toEqual(expect.any(String));
    expect(first.text).toContain(`cursor "${first.data.nextCursor as string}"`);
    expect(first.data.note).toContain(`cursor "${first.data.nextCursor as string}"`);
    const second = await ok(client, 'search', { query: 'alpha', limit: 1, cursor: first.data.nextCursor });
    expect((second.data.hits as { uri: string }[])[0]).not.toEqual((first.data.hits as { uri: string }[])[0]);
    const filtered = await ok(client, 'search', { query: 'alpha', role: 'user', project: dir });
    expect((filtered.data.hits as { role: string; turn: number }[]).map((h) => [h.role, h.turn]).sort()).toEqual([
      ['user', 1],
      ['user', 2],
    ]);
    const none = await ok(client, 'search', { query: 'zebra' });
    expect(none.data).toMatchObject({ totalCount: 0, hits: [] });
    expect(none.text).toMatch(/No message matches/);
  });

  it('list_sessions: id, title, agent, turns, activity, branch and project; by project folder too', async () => {
    const listed = await ok(client, 'list_sessions', {});
    expect(listed.data.sessions).toEqual([
      expect.objectContaining({ sessionId: 's', turns: 3, branch: 'main', project: { projectId, name: 'App' }, uri: 'entity-memory://session/s' }),
    ]);
    expect(listed.text).toMatch(/- s: .*3 turns.*branch main, project App/);
    expect((await ok(client, 'list_sessions', { project: join(dir, 'src') })).data.totalCount).toBe(1);
    expect((await ok(client, 'list_sessions', { agent: 'nobody' })).data.totalCount).toBe(0);
  });

  it("get_turn: prompt, reply, tool calls with results, changed files with counts, and the commit's outcome", async () => {
    const latest = await ok(client, 'get_turn', { session: 's' });
    expect(latest.data).toMatchObject({
      turn: 3,
      prompt: 'write the gamma file',
      files: [{ path: 'c.txt', status: 'added', additions: 1, deletions: 0 }],
      project: { result: 'SKIPPED_DIRTY', commitSha: null, snapshotSha: expect.stringMatching(/^[0-9a-f]{40}$/) },
    });
    expect(latest.text).toMatch(/Project commit: skipped dirty, snapshot [0-9a-f]{12}/);
    const second = await ok(client, 'get_turn', { session: 's', turn: 2 });
    expect(second.data).toMatchObject({ turn: 2, reply: 'I wrote a.txt and b.txt and big.txt.', project: { result: 'COMMITTED' } });
    expect(second.data.toolCalls).toEqual([
      expect.objectContaining({ name: 'Write', input: `file_path: ${join(dir, 'a.txt')}`, result: `File created successfully at: ${join(dir, 'a.txt')}` }),
      expect.objectContaining({ name: 'Write', input: `file_path: ${join(dir, 'b.txt')}` }),
      expect.objectContaining({ name: 'Write', input: `file_path: ${join(dir, 'big.txt')}` }),
    ]);
    expect(second.data.files).toEqual([
      { path: 'a.txt', status: 'modified', additions: 1, deletions: 1 },
      { path: 'b.txt', status: 'added', additions: 1, deletions: 0 },
      { path: 'big.txt', status: 'added', additions: 3000, deletions: 0 },
    ]);
    expect(second.text).toContain('- Write file_path:');
  });

  it("get_turn_diff: the agent's commit, or the skipped turn's snapshot, as a unified patch; one path; cut with an offset", async () => {
    const diff = await ok(client, 'get_turn_diff', { session: 's', turn: 2, path: 'a.txt' });
    expect(diff.data).toMatchObject({ kind: 'commit', fileCount: 1, nextOffset: null });
    expect(diff.data.patch).toMatch(/^diff --git a\/a\.txt b\/a\.txt\n(.*\n)*--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ .* @@\n-alpha\n\+beta\n$/);
    expect((await ok(client, 'get_turn_diff', { session: 's', turn: 2, path: join(dir, 'a.txt') })).data.patch).toBe(diff.data.patch);
    const snapshot = await ok(client, 'get_turn_diff', { session: 's' });
    expect(snapshot.data).toMatchObject({ turn: 3, kind: 'snapshot', files: [{ path: 'c.txt', status: 'added' }] });
    expect(snapshot.data.patch).toContain('+gamma');
    // The whole of turn 2 is longer than an answer may be: cut, with the offset that continues.
    const whole = await ok(client, 'get_turn_diff', { session: 's', turn: 2 });
    expect(whole.size).toBeLessThanOrEqual(MAX);
    const next = whole.data.nextOffset as number;
    expect(next).toBeGreaterThan(0);
    expect(whole.text).toContain(`offset ${next}`);
    expect(whole.data.note).toContain(`offset ${next}`);
    let patch = whole.data.patch as string;
    for (let offset: number | null = next; offset !== null; ) {
      const part = await ok(client, 'get_turn_diff', { session: 's', turn: 2, offset });
      expect(part.size).toBeLessThanOrEqual(MAX);
      patch += part.data.patch as string;
      offset = part.data.nextOffset as number | null;
    }
    expect(patch).toContain('+line 2999 of a long generated file');
    expect(patch.split('\n').filter((line) => line.startsWith('+line ')).length).toBe(3000);
    const missing = await callTool(client, 'get_turn_diff', { session: 's', turn: 2, path: 'c.txt' });
    expect(missing).toMatchObject({ isError: true, data: { error: { code: 'NOT_FOUND' } } });
    expect(missing.text).toBe("Turn 2's diff does not touch c.txt; it changed a.txt, b.txt, big.txt.");
  });

  it('read_file_at_turn: the file as the agent left it after each turn, from the commit or the snapshot, cut with an offset', async () => {
    expect((await ok(client, 'read_file_at_turn', { session: 's', turn: 1, path: 'a.txt' })).data).toMatchObject({ content: 'alpha\n', fromTurn: 1, exists: true });
    expect((await ok(client, 'read_file_at_turn', { session: 's', turn: 2, path: 'a.txt' })).data).toMatchObject({ content: 'beta\n' });
    // As the agent's own tools name files: absolute, inside the project folder.
    expect((await ok(client, 'read_file_at_turn', { session: 's', turn: 2, path: join(dir, 'a.txt') })).data).toMatchObject({ path: 'a.txt', content: 'beta\n' });
    const outside = await callTool(client, 'read_file_at_turn', { session: 's', turn: 2, path: '/etc/passwd' });
    expect(outside).toMatchObject({ isError: true, text: `/etc/passwd is not inside the project folder ${dir}: give a file of the project, relative to that folder or inside it.` });
    const gamma = await ok(client, 'read_file_at_turn', { session: 's', turn: 3, path: 'c.txt' });
    expect(gamma.text).toMatch(/turn 3's snapshot/);
    expect(gamma.data).toMatchObject({ content: 'gamma\n' });
    expect((await ok(client, 'read_file_at_turn', { session: 's', turn: 1, path: 'b.txt' })).data).toMatchObject({ exists: false, content: null });
    const long = await ok(client, 'read_file_at_turn', { session: 's', turn: 2, path: 'big.txt' });
    expect(long.size).toBeLessThanOrEqual(MAX);
    let text = long.data.content as string;
    let offset = long.data.nextOffset as number | null;
    while (offset !== null) {
      const part = await ok(client, 'read_file_at_turn', { session: 's', turn: 2, path: 'big.txt', offset });
      text += part.data.content as string;
      offset = part.data.nextOffset as number | null;
    }
    expect(text).toBe(big);
  });

  it("project_history: the agent's commits with their session and turn, the user's apart; one file's", async () => {
    const history = await ok(client, 'project_history', { project: projectId });
    expect((history.data.commits as { by: string; session: string | null; turn: number | null }[]).map((c) => [c.by, c.session, c.turn])).toEqual([
      ['agent', 's', 2],
      ['agent', 's', 1],
      ['user', null, null],
    ]);
    expect(history.text).toMatch(/agent \(session s, turn 2\)/);
    expect(history.text).toMatch(/user Dana/);
    const file = await ok(client, 'project_history', { project: dir, path: 'a.txt' });
    expect((file.data.commits as { turn: number }[]).map((c) => c.turn)).toEqual([2, 1]);
    const absolute = await ok(client, 'project_history', { project: projectId, path: join(dir, 'a.txt') });
    expect((absolute.data.commits as { turn: number }[]).map((c) => c.turn)).toEqual([2, 1]);
  });

  it('resources: both templates, sessions listed, a session and a turn read as markdown', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['entity-memory://session/{sessionId}', 'entity-memory://session/{sessionId}/turn/{n}']);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['entity-memory://session/s']);
    const session = await client.readResource({ uri: 'entity-memory://session/s' });
    const text = (session.contents[0] as { text: string }).text;
    expect(text).toMatch(/^# /);
    expect(text).toContain('## Turn 1');
    expect(text).toContain('## Turn 3');
    expect(text).toContain('add the alpha module');
    expect(text.length).toBeLessThanOrEqual(MAX);
    const turn = await client.readResource({ uri: 'entity-memory://session/s/turn/1' });
    const turnText = (turn.contents[0] as { text: string }).text;
    expect(turnText).toContain('**Tool result (Write):**');
    expect(turnText).toContain('Project: committed');
    await expect(client.readResource({ uri: 'entity-memory://session/s/turn/9' })).rejects.toThrow(/turn 9 is not one of them/);
    await expect(client.readResource({ uri: 'entity-memory://session/nope' })).rejects.toThrow(/No session "nope"/);
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/is not a resource of this server/);
  });

  it('answers bad input as a tool error naming the field, and changes nothing', async () => {
    const before = picture(dir);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['get_turn', { session: 's', turn: 'two' }, /^Invalid argument turn of get_turn: /],
      ['get_turn', { session: 's', turn: 0 }, /^Invalid argument turn of get_turn: /],
      ['get_turn', {}, /^get_turn needs the argument session\.$/],
      ['get_turn', { session: 's', turns: 2 }, /^get_turn has no argument "turns"; it takes session, turn\.$/],
      ['get_turn', { session: 'nope' }, /^No session "nope"/],
      ['get_turn', { session: 's', turn: 40 }, /^Session s has 3 turns on its branch main: turn 40 is not one of them\.$/],
      ['read_file_at_turn', { session: 's', turn: 1, path: '../outside.txt' }, /path/],
      ['search', { query: '"unclosed' }, /./],
      ['search', { query: 'alpha', since: 'yesterday' }, /^Invalid argument since of search: must be a date/],
      ['list_sessions', { project: '/no/such/folder' }, /^No project has the folder \/no\/such\/folder/],
      ['restore_files', { session: 's', turn: -1 }, /^Invalid argument turn of restore_files/],
      ['fork_session', { session: 's', turn: 99 }, /99/],
    ];
    for (const [name, args, message] of cases) {
      const answer = await callTool(client, name, args);
      expect(answer.isError, `${name} ${JSON.stringify(args)}: ${answer.text}`).toBe(true);
      expect(answer.text, `${name} ${JSON.stringify(args)}`).toMatch(message);
      expect(answer.text).not.toMatch(/\n\s+at /);
    }
    // A path that reads like an option is a file name like any other: never an option to git.
    expect((await ok(client, 'read_file_at_turn', { session: 's', turn: 1, path: '--output=/tmp/x' })).data).toMatchObject({ exists: false });
    await expect(client.callTool({ name: 'drop_everything', arguments: {} })).rejects.toThrow(/No tool "drop_everything": the tools are search, /);
    expectUntouched(dir, before);
  });

  it('restore_files plans without writing, writes with confirm, and is undone by the turn it names; fork_session moves the conversation', async () => {
    const before = picture(dir);
    const plan = await ok(client, 'restore_files', { session: 's', turn: 1 });
    expect(plan.data).toMatchObject({ dryRun: true, result: null, conflicts: [] });
    expect(plan.data.changes).toEqual([
      { path: 'a.txt', action: 'modify', conflict: false },
      { path: 'b.txt', action: 'delete', conflict: false },
      { path: 'big.txt', action: 'delete', conflict: false },
      { path: 'c.txt', action: 'delete', conflict: false },
    ]);
    expect(plan.text).toMatch(/^Plan \(nothing written; call again with confirm: true to write\)/);
    expectUntouched(dir, before);

    // The user changes a file the restore would write: refused, nothing written.
    writeFileSync(join(dir, 'b.txt'), 'the user’s b\n');
    const edited = picture(dir);
    const refused = await callTool(client, 'restore_files', { session: 's', turn: 1, confirm: true });
    expect(refused).toMatchObject({ isError: true, data: { error: { code: 'CONFLICT' } } });
    expect(refused.text).toMatch(/Paths changed since the agent left them: b\.txt\. Nothing was written\./);
    expectUntouched(dir, edited);
    writeFileSync(join(dir, 'b.txt'), 'bee\n');

    const done = await ok(client, 'restore_files', { session: 's', turn: 1, confirm: true });
    expect(done.data).toMatchObject({ dryRun: false, undoTurn: 3 });
    expect([read(dir, 'a.txt'), read(dir, 'b.txt'), read(dir, 'c.txt'), read(dir, 'scratch.txt')]).toEqual(['alpha\n', null, null, 'the user’s own notes\n']);
    expect(done.text).toMatch(/To undo, restore_files to turn 3\./);
    await ok(client, 'restore_files', { session: 's', turn: 3, confirm: true });
    expect([read(dir, 'a.txt'), read(dir, 'b.txt'), read(dir, 'c.txt')]).toEqual(['beta\n', 'bee\n', 'gamma\n']);

    const fork = await ok(client, 'fork_session', { session: 's', turn: 1 });
    expect(fork.data).toMatchObject({ fromTurn: 1, laterTurns: 2, laterTurnsBranch: 'main', moved: true });
    expect(fork.text).toMatch(/continues from turn 1: the next user message starts the branch fork-/);
    const session = await api.raw('{ session(sessionId: "s") { detached head { turn { number } } } }');
    expect(session.data).toEqual({ session: { detached: true, head: { turn: { number: 1 } } } });
    expect(git(dir, 'status', '--porcelain')).toContain('scratch.txt');
  });
});
