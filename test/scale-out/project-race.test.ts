/**
 * Issue 15: two server instances (one PostgreSQL database, one Redis, one data dir) on the same
 * project working directory. Sessions of the project write turns with file edits through both
 * instances at once, each turn on the other instance from the one before; project commits are
 * serialized per working directory across the instances (its lock file), so every agent commit
 * lands, once, none lost. Then the user changes a file and does not commit it: the next turns are
 * skipped by the dirty-tree rule (SKIPPED_DIRTY, a private snapshot each), and the user's file,
 * index, HEAD and refs stay byte for byte as they were.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/git.js';
import { postGraphQL } from '../helpers/instance-process.js';
import { startInstances } from '../helpers/instances.js';
import { tempDir } from '../helpers/temp.js';
import { agentCommits, expectUntouched, picture, snapshotRefOf, userRepo } from '../projects/project-turns.js';
import { writeTurn, type WriteLog } from './turns.js';

const SESSIONS = 4;
const TURNS = 6;
/** Only a bound for a committer that has stopped: on a loaded 2-core machine a commit can take seconds. */
const STALL_MS = 120_000;

interface ProjectOutcome {
  number: number;
  projectCommit: { result: string; dirtyPaths: string[] } | null;
}

/** Database fields only (the commit and snapshot are git-backed, too costly in a list): git itself is asked for those. */
const OUTCOMES = `query Outcomes($sessionId: String!) {
  session(sessionId: $sessionId) { turns(first: 50) { edges { node { number projectCommit { result dirtyPaths } } } } }
}`;

async function outcomes(url: string, sessionId: string): Promise<ProjectOutcome[]> {
  const answer = await postGraphQL<{ session: { turns: { edges: { node: ProjectOutcome }[] } } }>(url, OUTCOMES, { sessionId });
  if (answer.errors?.length || !answer.data) throw new Error(`reading ${sessionId}: ${JSON.stringify(answer.errors)}`);
  return answer.data.session.turns.edges.map((e) => e.node);
}

/** Every session's outcomes once each of its `turns` turns has one that is not PENDING (fails when none moves for STALL_MS). */
async function settledOutcomes(url: string, sessions: string[], turns: number): Promise<ProjectOutcome[][]> {
  let done = -1;
  let deadline = 0;
  for (;;) {
    const all = await Promise.all(sessions.map((sessionId) => outcomes(url, sessionId)));
    const now = all.flat().filter((o) => o.projectCommit && o.projectCommit.result !== 'PENDING').length;
    if (all.every((o) => o.length === turns) && now === sessions.length * turns) return all;
    if (now > done) [done, deadline] = [now, Date.now() + STALL_MS];
    if (Date.now() > deadline) throw new Error(`no project commit ran for ${STALL_MS} ms; ${done} of ${sessions.length * turns} have`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('two instances on one project working directory', () => {
  it("land every agent commit once, none lost, and leave a user's uncommitted change byte for byte", async () => {
    const root = tempDir('em-race-');
    const dir = userRepo(root);
    const group = await startInstances(2, { allowedRoots: [root] });
    const urls = () => group.processes.map((p) => p.url);

    const created = await postGraphQL<{ createProject: { projectId: string } }>(group.url(0), 'mutation ($dir: String!) { createProject(input: { name: "shared", workdir: $dir }) { projectId } }', { dir });
    const projectId = created.data?.createProject.projectId;
    expect(projectId, JSON.stringify(created.errors)).toBeTruthy();
    // The other instance sees the same project: one per working directory, whichever instance is asked.
    const again = await postGraphQL(group.url(1), 'mutation ($dir: String!) { createProject(input: { name: "again", workdir: $dir }) { projectId } }', { dir });
    expect(again.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const sessions = Array.from({ length: SESSIONS }, (_, i) => `p${i}`);
    for (const [i, sessionId] of sessions.entries()) {
      const answer = await postGraphQL(group.url(i % 2), 'mutation ($id: String!, $projectId: String!) { createSession(input: { sessionId: $id, projectId: $projectId }) { sessionId } }', {
        id: sessionId,
        projectId,
      });
      expect(answer.errors).toBeUndefined();
    }
    const initial = git(dir, 'rev-parse', 'HEAD').trim();

    // Every session writes its own file each turn and says so (touchedPaths), through both instances at once.
    const log: WriteLog = { unanswered: 0, landedUnanswered: 0 };
    const fileOf = (sessionId: string, n: number) => `${sessionId}-${n}.txt`;
    await Promise.all(
      sessions.map(async (sessionId, i) => {
        for (let n = 1; n <= TURNS; n++) {
          const file = fileOf(sessionId, n);
          writeFileSync(join(dir, file), `${sessionId} turn ${n}\n`);
          const written = await writeTurn(urls, (i + n) % 2, sessionId, n, { touchedPaths: [file] }, log);
          expect(written).toEqual({ outcome: 'acknowledged', number: n });
        }
      }),
    );
    const settled = await settledOutcomes(group.url(1), sessions, TURNS);
    for (const [i, sessionId] of sessions.entries()) {
      expect(settled[i]!.map((o) => [o.number, o.projectCommit?.result]), sessionId).toEqual(Array.from({ length: TURNS }, (_, k) => [k + 1, 'COMMITTED']));
    }

    // All agent commits landed, once each, on one line of history from the user's commit.
    const total = SESSIONS * TURNS;
    expect(git(dir, 'rev-list', '--count', 'HEAD').trim()).toBe(String(1 + total));
    expect(git(dir, 'rev-list', '--first-parent', '--count', 'HEAD').trim()).toBe(String(1 + total));
    expect(agentCommits(dir)).toHaveLength(total);
    const commits = git(dir, 'log', '--format=%H %(trailers:key=Session-Id,valueonly,separator=) %(trailers:key=Turn,valueonly,separator=)', `${initial}..HEAD`)
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string, string]);
    expect(commits.map(([, sessionId, turn]) => `${sessionId} ${turn}`).sort()).toEqual(
      sessions.flatMap((sessionId) => Array.from({ length: TURNS }, (_, k) => `${sessionId} ${k + 1}`)).sort(),
    );
    // Each turn's commit holds its file, and only it; and HEAD has every file.
    for (const [sha, sessionId, turn] of commits) {
      const file = fileOf(sessionId, Number(turn));
      expect(git(dir, 'show', '--name-only', '--format=', sha).trim(), `${sessionId} turn ${turn}`).toBe(file);
      expect(git(dir, 'show', `HEAD:${file}`)).toBe(`${sessionId} turn ${turn}\n`);
    }
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // Dangling commits are no damage (a commit built on a HEAD that moved before it could land is left unreferenced).
    expect(git(dir, 'fsck', '--strict', '--no-dangling').trim()).toBe('');

    // The user changes a file and does not commit it; every session writes one more file, at once.
    writeFileSync(join(dir, 'notes.txt'), 'the user’s work in progress\n');
    const userBytes = readFileSync(join(dir, 'notes.txt'));
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    for (const sessionId of sessions) writeFileSync(join(dir, fileOf(sessionId, TURNS + 1)), `${sessionId} turn ${TURNS + 1}\n`);
    const before = picture(dir);
    await Promise.all(
      sessions.map(async (sessionId, i) => {
        const written = await writeTurn(urls, i % 2, sessionId, TURNS + 1, { touchedPaths: [fileOf(sessionId, TURNS + 1)] }, log);
        expect(written).toEqual({ outcome: 'acknowledged', number: TURNS + 1 });
      }),
    );
    const skipped = await settledOutcomes(group.url(0), sessions, TURNS + 1);
    for (const [i, sessionId] of sessions.entries()) {
      const last = skipped[i]!.at(-1)!;
      expect(last.projectCommit?.result, sessionId).toBe('SKIPPED_DIRTY');
      expect(last.projectCommit!.dirtyPaths, sessionId).toContain('notes.txt');
      // The agent's edit is kept on a private snapshot ref, on the commit it found.
      const snapshot = snapshotRefOf(sessionId, TURNS + 1);
      expect(git(dir, 'rev-parse', `${snapshot}^`).trim()).toBe(head);
      expect(git(dir, 'show', `${snapshot}:${fileOf(sessionId, TURNS + 1)}`)).toBe(`${sessionId} turn ${TURNS + 1}\n`);
    }
    expect(readFileSync(join(dir, 'notes.txt')).equals(userBytes)).toBe(true);
    expectUntouched(dir, before);
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(agentCommits(dir)).toHaveLength(total);
    // No instance dies here, so no turn landed without its answer. A request may still get no answer
    // under load (seen once in CI: 2 of 28, a kept-alive connection closed as it was reused) and is
    // retried on the other instance, which wrote it once: the counts above say so.
    expect(log.landedUnanswered).toBe(0);
  }, 600_000);
});
