/**
 * Issue 26 item 8: git missing for a moment (off PATH, a broken upgrade) when a turn closes
 * does not lose the turn's commit. The close cannot hash the agent's paths then, so it keeps
 * what they look like (size, mode, times) and the turn stays PENDING; the committer tries again
 * with back-off, and once git runs it captures them and commits as it would have. If one of
 * them changed meanwhile, what is there may be the user's: skipped with the reason, nothing
 * committed or touched.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, git } from '../helpers/git.js';
import { agentCommits, outcome, picture, projectServer, projectSession, recordTurn, userRepo, expectUntouched } from './project-turns.js';
import type { TestServer } from '../helpers/server.js';

const saved = process.env.ENTITY_MEMORY_GIT_BINARY;
afterEach(() => {
  if (saved === undefined) delete process.env.ENTITY_MEMORY_GIT_BINARY;
  else process.env.ENTITY_MEMORY_GIT_BINARY = saved;
});

/** Resolves once the committer has tried the turn's commit and put it off (an attempt counted). */
async function putOff(api: TestServer, sessionId: string, number: number): Promise<string> {
  return eventually(async () => {
    const turn = await api.server.app.deps.db.turn.findFirst({ where: { sessionId, number }, select: { id: true, projectResult: true } });
    const job = turn && (await api.server.app.deps.db.outboxJob.findFirst({ where: { turnId: turn.id }, select: { attempts: true, lastError: true } }));
    return job && job.attempts > 0 && turn.projectResult === 'PENDING' ? job.lastError ?? '' : undefined;
  });
}

describe('a turn that closes while git is missing', () => {
  it('stays PENDING, and is captured and committed as the agent left it once git is back', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);
    const before = git(dir, 'rev-parse', 'HEAD').trim();

    process.env.ENTITY_MEMORY_GIT_BINARY = join(root, 'no-such-git');
    writeFileSync(join(dir, 'agent.txt'), 'from the agent\n');
    const turn = await recordTurn(api, { sessionId: 's', touchedPaths: ['agent.txt'] });
    expect(turn.projectCommit?.result).toBe('PENDING');
    expect(await putOff(api, 's', turn.number)).toMatch(/^git binary .*no-such-git/);

    delete process.env.ENTITY_MEMORY_GIT_BINARY;
    const done = await outcome(api, 's', turn.number);
    expect(done.result).toBe('COMMITTED');
    expect(done.paths).toEqual(['agent.txt']);
    expect(agentCommits(dir)).toHaveLength(1);
    expect(git(dir, 'rev-parse', 'HEAD^').trim()).toBe(before);
    expect(git(dir, 'show', 'HEAD:agent.txt')).toBe('from the agent\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it("is skipped, nothing committed or touched, when one of the agent's paths changed before git came back", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    await projectSession(api, dir);

    process.env.ENTITY_MEMORY_GIT_BINARY = join(root, 'no-such-git');
    writeFileSync(join(dir, 'notes.txt'), 'the agent\n');
    const turn = await recordTurn(api, { sessionId: 's', touchedPaths: ['notes.txt'] });
    await putOff(api, 's', turn.number);
    // The user edits the same file meanwhile (a different size, so the change is seen whatever the clock).
    writeFileSync(join(dir, 'notes.txt'), 'the user, after the turn\n');
    const mine = picture(dir);

    delete process.env.ENTITY_MEMORY_GIT_BINARY;
    const done = await outcome(api, 's', turn.number);
    expect(done.result).toBe('SKIPPED_DIRTY');
    expect(done.dirtyPaths).toEqual(['notes.txt']);
    expect(done.reason).toMatch(/changed since the turn closed while git could not run/);
    expect(done.message).toMatch(/git could not run when it closed, and notes\.txt changed since/);
    expect(agentCommits(dir)).toEqual([]);
    expectUntouched(dir, mine);
  });
});
