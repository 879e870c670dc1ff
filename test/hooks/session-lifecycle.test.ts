/**
 * A hooked session's life: SessionEnd marks it ended (and a resume takes the mark away), a
 * `/clear` starts a new session that names the one it left, and a Claude Code subagent's own
 * transcript becomes its own session, linked to its parent, while its tool calls stay in the
 * parent's turn.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { claudeEvents, runHook } from './hook-events.js';

const SESSION = `
  query Lifecycle($sessionId: String!) {
    session(sessionId: $sessionId) {
      sessionId
      source
      metadata
      parentSession { sessionId }
      turns(first: 10) { edges { node { number open } } }
      messages(first: 50) { edges { node { role content } } }
    }
  }`;

interface Session {
  sessionId: string;
  source: string | null;
  metadata: Record<string, unknown> | null;
  parentSession: { sessionId: string } | null;
  turns: { edges: { node: { number: number; open: boolean } }[] };
  messages: { edges: { node: { role: string; content: string } }[] };
}

async function setUp() {
  const root = tempDir('em-lifecycle-');
  const api = await startTestServer({ allowedRoots: [root] });
  const cwd = join(root, 'work');
  mkdirSync(cwd);
  const send = async (event: object) => expect(await runHook('claude-code', api.dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });
  const read = async (sessionId: string) => {
    const result = await api.raw(SESSION, { sessionId });
    if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
    return (result.data as { session: Session | null }).session;
  };
  return { root, cwd, send, read };
}

describe('a hooked session’s life', () => {
  it('is marked ended at SessionEnd, and goes on, unmarked, when the agent resumes it', async () => {
    const { cwd, send, read } = await setUp();
    const c = claudeEvents('life-1', cwd);
    await send(c.sessionStart());
    await send(c.prompt('p1', 'hello'));
    await send(c.stop('p1', 'Hi.'));
    await send(c.sessionEnd());
    expect((await read('life-1'))!.metadata).toMatchObject({ capture: 'hooks', ended: { at: expect.any(String), reason: 'other' } });

    await send(c.sessionStart('resume'));
    const resumed = await read('life-1');
    expect(resumed!.metadata).not.toHaveProperty('ended');
    await send(c.prompt('p2', 'again'));
    await send(c.stop('p2', 'Again.'));
    expect((await read('life-1'))!.turns.edges.map((e) => e.node)).toEqual([
      { number: 1, open: false },
      { number: 2, open: false },
    ]);
  }, 60_000);

  it('links the session a /clear starts to the one it left, in the same folder', async () => {
    const { root, cwd, send, read } = await setUp();
    const elsewhere = join(root, 'other');
    mkdirSync(elsewhere);
    await send(claudeEvents('before-clear', cwd).sessionStart());
    await send(claudeEvents('other-folder', elsewhere).sessionStart());
    await send(claudeEvents('after-clear', cwd).sessionStart('clear'));
    expect((await read('after-clear'))!.metadata).toMatchObject({ clearedFrom: 'before-clear' });
    // A session started for another reason names none.
    await send(claudeEvents('fresh', cwd).sessionStart('startup'));
    expect((await read('fresh'))!.metadata).not.toHaveProperty('clearedFrom');
  }, 60_000);

  it("imports a subagent's transcript at SubagentStop as its own session, linked to its parent", async () => {
    const { root, cwd, send, read } = await setUp();
    const c = claudeEvents('parent-1', cwd);
    await send(c.sessionStart());
    await send(c.prompt('p1', 'delegate'));
    const agentTranscript = join(root, 'parent-1', 'subagents', 'agent-a7.jsonl');
    mkdirSync(join(root, 'parent-1', 'subagents'), { recursive: true });
    const record = { isSidechain: true, agentId: 'a7', sessionId: 'parent-1', cwd, version: '2.1.197' };
    writeFileSync(
      agentTranscript,
      [
        { ...record, parentUuid: null, uuid: 's-1', type: 'user', timestamp: '2026-12-04T10:00:00.000Z', message: { role: 'user', content: 'SUBTASK: say hi' } },
        {
          ...record,
          parentUuid: 's-1',
          uuid: 's-2',
          type: 'assistant',
          timestamp: '2026-12-04T10:00:01.000Z',
          message: { id: 'msg_s', role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text: 'hi from the subagent' }], stop_reason: 'end_turn' },
        },
      ]
        .map((r) => JSON.stringify(r) + '\n')
        .join(''),
    );
    const subagentStop = { ...c.stop('p1', 'hi from the subagent'), hook_event_name: 'SubagentStop', agent_id: 'a7', agent_transcript_path: agentTranscript };
    await send(subagentStop);
    await send(subagentStop);
    const child = await read('parent-1-a7');
    expect(child).toMatchObject({ source: 'claude-code', parentSession: { sessionId: 'parent-1' } });
    expect(child!.messages.edges.map((e) => [e.node.role, e.node.content])).toEqual([
      ['USER', 'SUBTASK: say hi'],
      ['ASSISTANT', 'hi from the subagent'],
    ]);
    // The parent's turn is still open: a subagent's stop is not its parent's.
    expect((await read('parent-1'))!.turns.edges.map((e) => e.node)).toEqual([{ number: 1, open: true }]);
  }, 60_000);
});
