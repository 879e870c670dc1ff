/**
 * `import claude-code --follow` (src/importers/follow.ts) against a real server: a transcript
 * written line by line reaches the session repo and the turnCommitted and timeline subscriptions
 * (waited for, not timed: how soon is a benchmark's figure, not a test's); a line being written
 * waits for its newline; a new transcript in the
 * followed folder is picked up. The follower sends through the HTTP target, as the command line
 * does while a server runs.
 */
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TranscriptFollower, type FollowBatch } from '../../src/importers/follow.js';
import { httpImportTarget } from '../../src/importers/http-target.js';
import { TimelineEvents } from '../branching/operations.js';
import { TurnCommitted } from '../mirror/operations.js';
import { eventually, git } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';

const fixtures = join(import.meta.dirname, '..', 'importers', 'fixtures', 'claude-code');
const PLAIN = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e01';
const TOOLS = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e02';

/** The fixture's lines, each with its newline. */
function lines(name: string): string[] {
  return readFileSync(join(fixtures, name), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `${line}\n`);
}

async function messageIds(api: TestServer, sessionId: string): Promise<string[]> {
  const result = await api.raw('query ($id: String!) { session(sessionId: $id) { messages(first: 500) { edges { node { messageId } } } } }', { id: sessionId });
  const session = result.data?.session as { messages: { edges: { node: { messageId: string } }[] } } | null;
  return session?.messages.edges.map((edge) => edge.node.messageId) ?? [];
}

function follow(api: TestServer, paths: string[]) {
  const batches: FollowBatch[] = [];
  const problems: string[] = [];
  const follower = new TranscriptFollower({
    target: httpImportTarget({ url: api.url, token: api.token }),
    paths,
    onBatch: (batch) => batches.push(batch),
    onProblem: (file, problem) => problems.push(`${file}:${problem.line}: ${problem.message}`),
  });
  onCleanup(() => follower.stop());
  return { follower, batches, problems };
}

describe('following Claude Code transcripts', () => {
  it('commits a completed turn once its line is written, waits for a partial line, and picks up a new file in the folder', async () => {
    const api = await startTestServer();
    const folder = join(tempDir(), 'projects', '-home-dev-shop');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${PLAIN}.jsonl`);
    const plain = lines('plain.jsonl');
    // Up to the first prompt (line 6): the reply that ends the turn is line 7.
    writeFileSync(file, plain.slice(0, 6).join(''));

    const client = wsClient(api.url);
    const events = wsSubscribe(client, TurnCommitted, {});
    const timeline = wsSubscribe(client, TimelineEvents, { sessionId: PLAIN });
    await events.ready();
    const { follower, batches, problems } = follow(api, [join(folder, '..')]);
    await follower.start();
    expect(await messageIds(api, PLAIN)).toContain('00000000-0000-4000-8000-000000000004');
    expect(events.events).toHaveLength(0);

    appendFileSync(file, plain[6]!);
    const [first] = await events.next(1);
    const committed = () => timeline.events.some((event) => event.data?.timeline.kind === 'COMMITTED');
    while (!committed()) await timeline.next(timeline.events.length + 1);
    expect(first?.data?.turnCommitted.session.sessionId).toBe(PLAIN);
    expect(first?.data?.turnCommitted.turn.number).toBe(1);
    const repo = join(api.dataDir, 'sessions', PLAIN);
    // The event's commit is on main (a turn closed by the same lines may have landed with it, in the same pass).
    expect(git(repo, 'log', '--format=%H', 'main').trim().split('\n')).toContain(first?.data?.turnCommitted.commit.sha);

    // Lines 8 and 9 (a system record and the second prompt), the prompt without its last bytes.
    const prompt = plain[8]!;
    appendFileSync(file, plain[7]! + prompt.slice(0, 40));
    await follower.check();
    expect(await messageIds(api, PLAIN)).not.toContain('00000000-0000-4000-8000-000000000007');
    appendFileSync(file, prompt.slice(40));
    await eventually(async () => (await messageIds(api, PLAIN)).includes('00000000-0000-4000-8000-000000000007'));
    // The rest: the second reply ends turn 2.
    appendFileSync(file, plain.slice(9).join(''));
    const second = await events.next(2);
    expect(second[1]?.data?.turnCommitted.turn.number).toBe(2);

    // A transcript new in the folder is read from its start.
    copyFileSync(join(fixtures, 'tools.jsonl'), join(folder, `${TOOLS}.jsonl`));
    await eventually(async () => events.events.some((event) => event.data?.turnCommitted.session.sessionId === TOOLS));
    expect(batches.some((batch) => batch.outcome.sessionId === TOOLS && batch.outcome.created)).toBe(true);
    expect(problems).toEqual([]);
    await follower.stop();
  });

  it('closes a text reply recorded without a stop reason once nothing has followed it for idleCloseMs, but never one waiting on a tool', async () => {
    const api = await startTestServer();
    const folder = tempDir();
    const sessionId = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e77';
    const file = join(folder, `${sessionId}.jsonl`);
    const base = { sessionId, cwd: '/home/dev/shop', version: '2.0.14', isSidechain: false, userType: 'external' };
    const record = (uuid: string, parentUuid: string | null, type: 'user' | 'assistant', message: unknown) =>
      `${JSON.stringify({ ...base, uuid, parentUuid, type, timestamp: new Date().toISOString(), message })}\n`;
    writeFileSync(
      file,
      record('u-1', null, 'user', { role: 'user', content: 'List the files' }) +
        // A tool call without a stop reason: the turn waits for its result, however long.
        record('a-1', 'u-1', 'assistant', { id: 'msg_1', role: 'assistant', model: 'm', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }], stop_reason: null }),
    );
    const client = wsClient(api.url);
    const events = wsSubscribe(client, TurnCommitted, { sessionId });
    await events.ready();
    const follower = new TranscriptFollower({ target: httpImportTarget({ url: api.url, token: api.token }), paths: [folder], pollMs: 100, idleCloseMs: 300 });
    onCleanup(() => follower.stop());
    await follower.start();
    // Idle far longer than idleCloseMs, looked at each time: a reply waiting on its tool stays open.
    const waitingSince = Date.now();
    while (Date.now() - waitingSince < 1000) await follower.check();
    expect(events.events).toHaveLength(0);

    appendFileSync(
      file,
      record('t-1', 'a-1', 'user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'README.md' }] }) +
        record('a-2', 't-1', 'assistant', { id: 'msg_2', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'One file: README.md' }], stop_reason: null }),
    );
    const [committed] = await events.next(1);
    expect(committed?.data?.turnCommitted.turn.number).toBe(1);
    expect(await messageIds(api, sessionId)).toEqual(['u-1', 'a-1', 't-1', 'a-2']);
    await follower.stop();
  });
  it('never drops a record that comes after the idle rule closed its turn: more of the reply, its tool result and the next reply are the next turn', async () => {
    const api = await startTestServer();
    const folder = tempDir();
    const sessionId = '7d1f0c52-3a4b-4c8d-9e0f-1a2b3c4d5e78';
    const file = join(folder, `${sessionId}.jsonl`);
    const base = { sessionId, cwd: '/home/dev/shop', version: '2.0.14', isSidechain: false, userType: 'external' };
    const record = (uuid: string, parentUuid: string | null, type: 'user' | 'assistant', message: unknown) =>
      `${JSON.stringify({ ...base, uuid, parentUuid, type, timestamp: new Date().toISOString(), message })}\n`;
    // A text reply with a null stop reason: closed by the idle rule once nothing follows it.
    writeFileSync(
      file,
      record('u-1', null, 'user', { role: 'user', content: 'What is in the folder?' }) +
        record('a-1', 'u-1', 'assistant', { id: 'msg_1', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'Let me look.' }], stop_reason: null }),
    );
    const client = wsClient(api.url);
    const events = wsSubscribe(client, TurnCommitted, { sessionId });
    await events.ready();
    const problems: string[] = [];
    const follower = new TranscriptFollower({
      target: httpImportTarget({ url: api.url, token: api.token }),
      paths: [folder],
      pollMs: 100,
      idleCloseMs: 300,
      onProblem: (path, problem) => problems.push(`${path}:${problem.line}: ${problem.message}`),
    });
    onCleanup(() => follower.stop());
    await follower.start();
    const [first] = await events.next(1);
    expect(first?.data?.turnCommitted.turn.number).toBe(1);

    // Then the same response goes on with a tool call (line 3), its result and the last reply.
    appendFileSync(
      file,
      record('a-1b', 'a-1', 'assistant', { id: 'msg_1', role: 'assistant', model: 'm', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }], stop_reason: 'tool_use' }) +
        record('t-1', 'a-1b', 'user', { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'README.md' }] }) +
        record('a-2', 't-1', 'assistant', { id: 'msg_2', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'One file: README.md' }], stop_reason: 'end_turn' }),
    );
    const second = await events.next(2);
    expect(second[1]?.data?.turnCommitted.turn.number).toBe(2);
    expect(await messageIds(api, sessionId)).toEqual(['u-1', 'a-1', 'a-1-L3', 't-1', 'a-2']);
    const turns = await api.raw(
      'query ($id: String!) { session(sessionId: $id) { turns(first: 10) { edges { node { number messages { messageId content caller { messageId } } } } } } }',
      { id: sessionId },
    );
    const nodes = (turns.data?.session as { turns: { edges: { node: { number: number; messages: { messageId: string; content: string; caller: { messageId: string } | null }[] } }[] } }).turns.edges.map((e) => e.node);
    const turn2 = nodes.find((n) => n.number === 2)!;
    expect(turn2.messages.map((m) => m.messageId)).toEqual(['a-1-L3', 't-1', 'a-2']);
    expect(turn2.messages[0]?.content).toBe('Let me look.');
    expect(turn2.messages[1]?.caller).toEqual({ messageId: 'a-1-L3' });
    expect(problems).toEqual([]);
    await follower.stop();
  });
});
