/**
 * Which turn wrote each line (Project.blame) and which commits changed a file
 * (Project.fileHistory), on a real repo where the agent's and the user's commits interleave:
 * every line's origin and turn right, including a line the user changed after the agent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/git.js';
import { onlyError, type TestServer } from '../helpers/server.js';
import { outcome, projectServer, projectSession, recordTurn, userGit, userRepo } from './project-turns.js';

const BLAME = `
  query Blame($projectId: String!, $path: String!, $rev: String) {
    project(projectId: $projectId) {
      blame(path: $path, rev: $rev) { startLine endLine lines origin turnNumber turn { number } session { sessionId } commit { sha headline } }
    }
  }`;

const HISTORY = `
  query History($projectId: String!, $path: String!, $first: Int, $after: String) {
    project(projectId: $projectId) {
      fileHistory(path: $path, first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        edges { node { origin turnNumber session { sessionId } commit { sha headline } } }
      }
    }
  }`;

interface Range {
  startLine: number;
  endLine: number;
  origin: string;
  turnNumber: number | null;
  lines: string[];
  turn: { number: number } | null;
  session: { sessionId: string } | null;
  commit: { sha: string; headline: string };
}

async function blame(api: TestServer, projectId: string, path: string, rev?: string): Promise<Range[]> {
  const result = await api.raw(BLAME, { projectId, path, ...(rev ? { rev } : {}) });
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
  return (result.data as { project: { blame: Range[] } }).project.blame;
}

const lines = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);

describe('attribution', () => {
  it("tells each line's turn, and the user's lines, where agent and user commits interleave", async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    const projectId = await projectSession(api, dir, 's');

    // Turn 1: the agent writes app.ts (5 lines).
    writeFileSync(join(dir, 'app.ts'), `${lines(5, 'agent line').join('\n')}\n`);
    await recordTurn(api, { sessionId: 's', touchedPaths: ['app.ts'] });
    const first = await outcome(api, 's', 1);
    expect(first.result).toBe('COMMITTED');
    // The user changes line 3 and commits it.
    const afterUser = lines(5, 'agent line');
    afterUser[2] = 'the user rewrote line 3';
    writeFileSync(join(dir, 'app.ts'), `${afterUser.join('\n')}\n`);
    userGit(dir, 'commit', '-q', '-am', 'Fix line 3 by hand');
    const userSha = git(dir, 'rev-parse', 'HEAD').trim();
    // Turn 2: the agent adds two lines.
    writeFileSync(join(dir, 'app.ts'), `${[...afterUser, 'agent turn 2 a', 'agent turn 2 b'].join('\n')}\n`);
    await recordTurn(api, { sessionId: 's', touchedPaths: ['app.ts'] });
    const second = await outcome(api, 's', 2);
    expect(second.result).toBe('COMMITTED');

    const ranges = await blame(api, projectId, 'app.ts');
    expect(ranges.map((r) => [r.startLine, r.endLine, r.origin, r.turnNumber, r.session?.sessionId ?? null, r.commit.sha])).toEqual([
      [1, 2, 'AGENT', 1, 's', first.commit!.sha],
      [3, 3, 'USER', null, null, userSha],
      [4, 5, 'AGENT', 1, 's', first.commit!.sha],
      [6, 7, 'AGENT', 2, 's', second.commit!.sha],
    ]);
    expect(ranges[1]!.commit.headline).toBe('Fix line 3 by hand');
    // Each range's text, and the agent's turn itself.
    expect(ranges.flatMap((r) => r.lines)).toEqual([...afterUser, 'agent turn 2 a', 'agent turn 2 b']);
    expect(ranges.map((r) => r.turn?.number ?? null)).toEqual([1, null, 1, 2]);
    // Against git blame itself, line for line.
    const gitBlame = git(dir, 'blame', '--porcelain', 'HEAD', '--', 'app.ts')
      .split('\n')
      .filter((line) => /^[0-9a-f]{40} \d+ \d+/.test(line))
      .map((line) => line.split(' ')[0]);
    expect(ranges.flatMap((r) => Array.from({ length: r.endLine - r.startLine + 1 }, () => r.commit.sha))).toEqual(gitBlame);
    // At turn 1's commit: every line is turn 1's.
    expect((await blame(api, projectId, 'app.ts', first.commit!.sha.slice(0, 10))).map((r) => [r.startLine, r.endLine, r.turnNumber])).toEqual([[1, 5, 1]]);
    // A file only the user wrote.
    expect((await blame(api, projectId, './README.md')).map((r) => r.origin)).toEqual(['USER']);

    // The file's history: newest first, each commit's origin; paged.
    const history = await api.raw(HISTORY, { projectId, path: 'app.ts' });
    const page = (history.data as { project: { fileHistory: { totalCount: number; edges: { node: { origin: string; turnNumber: number | null; commit: { sha: string } } }[] } } }).project
      .fileHistory;
    expect(page.totalCount).toBe(3);
    expect(page.edges.map((e) => [e.node.origin, e.node.turnNumber, e.node.commit.sha])).toEqual([
      ['AGENT', 2, second.commit!.sha],
      ['USER', null, userSha],
      ['AGENT', 1, first.commit!.sha],
    ]);
    const one = await api.raw(HISTORY, { projectId, path: 'app.ts', first: 1 });
    const firstPage = (one.data as { project: { fileHistory: { pageInfo: { hasNextPage: boolean; endCursor: string } } } }).project.fileHistory;
    expect(firstPage.pageInfo.hasNextPage).toBe(true);
    const next = await api.raw(HISTORY, { projectId, path: 'app.ts', first: 1, after: firstPage.pageInfo.endCursor });
    expect((next.data as { project: { fileHistory: { edges: { node: { commit: { sha: string } } }[] } } }).project.fileHistory.edges[0]!.node.commit.sha).toBe(userSha);

    // A project's commit is a node: its id fetches it again.
    const withId = await api.raw(`query ($projectId: String!) { project(projectId: $projectId) { blame(path: "app.ts") { commit { id sha } } } }`, { projectId });
    const commitId = (withId.data as { project: { blame: { commit: { id: string; sha: string } }[] } }).project.blame[1]!.commit.id;
    const byId = await api.raw(`query ($id: ID!) { node(id: $id) { ... on Commit { sha headline } } }`, { id: commitId });
    expect(byId.data).toEqual({ node: { sha: userSha, headline: 'Fix line 3 by hand' } });

    // Bad input: a clear code, nothing run in the repo's name.
    const cases: [object, string, RegExp][] = [
      [{ path: '../outside.txt' }, 'BAD_USER_INPUT', /not a file path of the repo/],
      [{ path: '.git/config' }, 'BAD_USER_INPUT', /not a file path of the repo/],
      [{ path: '/etc/passwd' }, 'BAD_USER_INPUT', /not a file path of the repo/],
      [{ path: 'missing.txt' }, 'NOT_FOUND', /has no file missing\.txt/],
      [{ path: 'app.ts', rev: '--output=/tmp/x' }, 'BAD_USER_INPUT', /rev must be HEAD or a commit/],
      [{ path: 'app.ts', rev: 'abcdef1234' }, 'NOT_FOUND', /no commit abcdef1234/],
    ];
    for (const [args, code, message] of cases) {
      const error = onlyError(await api.raw(BLAME, { projectId, ...args }));
      expect(error.extensions?.code, JSON.stringify(args)).toBe(code);
      expect(error.message).toMatch(message);
    }
  }, 60_000);
});
