/**
 * rewind over a real server and a real repo: the dry run says each path and
 * what it becomes, and the fork, and changes nothing; a path the user
 * changed refuses the whole rewind; the run restores the agent's files and
 * moves the conversation; rewinding to undoTurn undoes both.
 */
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppendMessage, CreateSession } from '../api/operations.js';
import { eventually } from '../helpers/git.js';
import { onlyError, type TestServer } from '../helpers/server.js';
import { expectUntouched, outcome, picture, projectServer, projectSession, recordTurn, userRepo } from './project-turns.js';

const REWIND = `
  mutation Rewind($input: RewindInput!) {
    rewind(input: $input) {
      turn dryRun undoTurn message
      code { changes { path action conflict fromOid toOid } conflicts result { result paths commit { headline } } }
      conversation { fromTurn { number } branch laterTurns moved }
    }
  }`;

interface RewindView {
  turn: number;
  dryRun: boolean;
  undoTurn: number | null;
  message: string;
  code: {
    changes: { path: string; action: string; conflict: boolean; fromOid: string | null; toOid: string | null }[];
    conflicts: string[];
    result: { result: string; paths: string[]; commit: { headline: string } | null } | null;
  } | null;
  conversation: { fromTurn: { number: number }; branch: string; laterTurns: number; moved: boolean } | null;
}

async function rewind(api: TestServer, input: Record<string, unknown>): Promise<RewindView> {
  const result = await api.raw(REWIND, { input: { sessionId: 's', ...input } });
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return (result.data as { rewind: RewindView }).rewind;
}

async function view(api: TestServer, sessionId = 's'): Promise<{ detached: boolean; head: { turn: { number: number } | null } | null; inSync: boolean }> {
  const result = await api.raw(`{ session(sessionId: "${sessionId}") { detached head { turn { number } } mirror { inSync } } }`);
  const session = (result.data as { session: { detached: boolean; head: { turn: { number: number } | null } | null; mirror: { inSync: boolean } } }).session;
  return { detached: session.detached, head: session.head, inSync: session.mirror.inSync };
}

/** The agent writes `files` and its turn ends with them as touchedPaths; its project commit lands. */
async function agentTurn(api: TestServer, dir: string, files: Record<string, string>, sessionId = 's'): Promise<number> {
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  const { number } = await recordTurn(api, { sessionId, content: `write ${Object.keys(files).join(', ')}`, touchedPaths: Object.keys(files) });
  expect((await outcome(api, sessionId, number)).result).toBe('COMMITTED');
  return number;
}

const read = (dir: string, path: string) => (existsSync(join(dir, path)) ? readFileSync(join(dir, path), 'utf8') : null);

describe('rewind', () => {
  it('previews, refuses over the user’s change, then rewinds code and conversation together and undoes it', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir, 's');
    await agentTurn(api, dir, { 'a.txt': 'a1\n' });
    await agentTurn(api, dir, { 'a.txt': 'a2\n', 'b.txt': 'b2\n' });
    await agentTurn(api, dir, { 'c.txt': 'c3\n' });
    await eventually(async () => (await view(api)).inSync || undefined);

    // The dry run: each path and what it becomes, the fork; nothing moves.
    const before = picture(dir);
    const plan = await rewind(api, { turn: 1, dryRun: true });
    expect(plan).toMatchObject({ turn: 1, dryRun: true, undoTurn: 3, conversation: { fromTurn: { number: 1 }, branch: 'main', laterTurns: 2, moved: false } });
    expect(plan.code!.changes.map((c) => [c.path, c.action, c.conflict])).toEqual([
      ['a.txt', 'MODIFY', false],
      ['b.txt', 'DELETE', false],
      ['c.txt', 'DELETE', false],
    ]);
    expect(plan.code!.changes[1]!.toOid).toBeNull();
    expect(plan.code!.conflicts).toEqual([]);
    expect(plan.code!.result).toBeNull();
    expect(plan.message).toMatch(/3 paths go back to their state after turn 1\. The next message will fork from turn 1 on a new branch\. Turns 2–3 stay on main\./);
    expectUntouched(dir, before);
    expect((await view(api)).detached).toBe(false);

    // The user edits a file the rewind would write: the preview names it, the run is refused and nothing moves.
    writeFileSync(join(dir, 'b.txt'), 'the user’s b\n');
    const blocked = await rewind(api, { turn: 1, dryRun: true });
    expect(blocked.code!.conflicts).toEqual(['b.txt']);
    expect(blocked.code!.changes.find((c) => c.path === 'b.txt')?.conflict).toBe(true);
    expect(blocked.message).toMatch(/Refused while you have changes in b\.txt/);
    const edited = picture(dir);
    const refused = onlyError(await api.raw(REWIND, { input: { sessionId: 's', turn: 1 } }));
    expect(refused.extensions).toMatchObject({ code: 'CONFLICT', paths: ['b.txt'] });
    expect(refused.message).toMatch(/b\.txt changed since the agent.*nothing was written and the conversation did not move/);
    expectUntouched(dir, edited);
    expect((await view(api)).detached).toBe(false);

    // Put back, the rewind runs: the files of turn 1, committed by the agent, and the next message forks from turn 1.
    writeFileSync(join(dir, 'b.txt'), 'b2\n');
    const done = await rewind(api, { turn: 1 });
    expect(done).toMatchObject({ dryRun: false, undoTurn: 3, conversation: { fromTurn: { number: 1 }, moved: true } });
    expect(done.code!.result).toMatchObject({ result: 'COMMITTED', paths: ['a.txt', 'b.txt', 'c.txt'] });
    expect([read(dir, 'a.txt'), read(dir, 'b.txt'), read(dir, 'c.txt')]).toEqual(['a1\n', null, null]);
    expect(await view(api)).toMatchObject({ detached: true, head: { turn: { number: 1 } } });

    // Undo: back to turn 3, code and conversation.
    const undone = await rewind(api, { turn: 3 });
    expect(undone).toMatchObject({ undoTurn: null, conversation: { fromTurn: { number: 3 }, laterTurns: 0, moved: true } });
    expect(undone.message).toMatch(/Turn 3 is the latest turn/);
    expect([read(dir, 'a.txt'), read(dir, 'b.txt'), read(dir, 'c.txt')]).toEqual(['a2\n', 'b2\n', 'c3\n']);
    expect((await view(api)).detached).toBe(false);

    // The conversation alone: the files stay; the next turn forks from turn 2.
    const talk = await rewind(api, { turn: 2, conversation: true });
    expect(talk.code).toBeNull();
    expect(read(dir, 'c.txt')).toBe('c3\n');
    const forked = await recordTurn(api, { sessionId: 's', content: 'again from 2' });
    expect(forked.number).toBe(3);
    expect((await view(api)).detached).toBe(false);
  });

  it('refuses bad input with a code and changes nothing', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir, 's');
    await agentTurn(api, dir, { 'a.txt': 'a1\n' });
    await api.ok(CreateSession, { input: { sessionId: 'loose' } });
    await recordTurn(api, { sessionId: 'loose' });
    await eventually(async () => ((await view(api)).inSync && (await view(api, 'loose')).inSync) || undefined);
    const before = picture(dir);
    const code = async (input: Record<string, unknown>) => onlyError(await api.raw(REWIND, { input: { sessionId: 's', ...input } })).extensions?.code;
    expect(await code({ turn: -1 })).toBe('BAD_USER_INPUT');
    expect(await code({ turn: 1, code: false, conversation: false })).toBe('BAD_USER_INPUT');
    expect(await code({ turn: 0, conversation: true })).toBe('BAD_USER_INPUT');
    expect(await code({ turn: 9 })).toBe('NOT_FOUND');
    expect(await code({ turn: 1, sessionId: '--force' })).toBe('BAD_USER_INPUT');
    expect(await code({ turn: 1, sessionId: 'nobody' })).toBe('NOT_FOUND');
    // A session without a project rewinds its conversation, not code.
    expect(await code({ turn: 1, sessionId: 'loose', code: true })).toBe('BAD_USER_INPUT');
    expect((await rewind(api, { turn: 1, sessionId: 'loose', conversation: true, dryRun: true })).conversation).toMatchObject({ laterTurns: 0 });
    // Code alone to before the first turn: a.txt goes.
    const zero = await rewind(api, { turn: 0, code: true, dryRun: true });
    expect(zero.conversation).toBeNull();
    expect(zero.code!.changes.map((c) => [c.path, c.action])).toEqual([['a.txt', 'DELETE']]);
    // While the agent is at work (a turn open): previewed, not run.
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: 'next task' } });
    expect((await rewind(api, { turn: 0, code: true, dryRun: true })).message).toMatch(/A turn is open now: the rewind can run once it ends\./);
    const open = onlyError(await api.raw(REWIND, { input: { sessionId: 's', turn: 0, code: true } }));
    expect(open.extensions?.code).toBe('CONFLICT');
    expect(open.message).toMatch(/A turn is open/);
    expectUntouched(dir, before);
  });
});
