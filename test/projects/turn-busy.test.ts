/**
 * The user is in the middle of a git operation when the agent's turn closes:
 * SKIPPED_BUSY with the operation named, not one byte of the user's repo
 * changed (working tree, index, HEAD, in-progress state, refs, stash), and the
 * agent's edits kept on a private snapshot ref.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/git.js';
import { tempDir } from '../helpers/temp.js';
import { wsClient, wsRequest, wsSubscribe } from '../helpers/ws.js';
import { Projects } from './operations.js';
import {
  agentCommits,
  expectSnapshot,
  expectUntouched,
  outcome,
  picture,
  projectServer,
  projectSession,
  recordTurn,
  userGit,
  userGitEnv,
  userGitFails,
  userRepo,
} from './project-turns.js';

interface BusyCase {
  name: string;
  /** Puts the user's repo in the middle of the operation. */
  begin(dir: string): void;
  /** Files that must still be there afterwards (in .git). */
  state: string[];
  reason: RegExp;
  /** Whether the runtime reports touchedPaths (both ways must skip). */
  touched: boolean;
}

/** main and a `side` branch that both change notes.txt. */
function conflictingSide(dir: string): void {
  userGit(dir, 'checkout', '-q', '-b', 'side');
  writeFileSync(join(dir, 'notes.txt'), 'side\n');
  userGit(dir, 'commit', '-q', '-am', 'side edit');
  userGit(dir, 'checkout', '-q', 'main');
  writeFileSync(join(dir, 'notes.txt'), 'main\n');
  userGit(dir, 'commit', '-q', '-am', 'main edit');
}

const CASES: BusyCase[] = [
  {
    name: 'a merge --no-commit whose tree looks clean',
    begin: (dir) => {
      userGit(dir, 'checkout', '-q', '-b', 'side');
      userGit(dir, 'commit', '-q', '--allow-empty', '-m', 'side');
      userGit(dir, 'checkout', '-q', 'main');
      userGit(dir, 'merge', '--no-ff', '--no-commit', 'side');
      expect(git(dir, 'status', '--porcelain')).toBe('');
    },
    state: ['MERGE_HEAD', 'MERGE_MSG'],
    reason: /\bmerge\b/,
    touched: false,
  },
  {
    name: 'a cherry-pick stopped on a conflict and resolved to a clean-looking tree',
    begin: (dir) => {
      conflictingSide(dir);
      userGitFails(dir, 'cherry-pick', 'side');
      userGit(dir, 'checkout', '--ours', 'notes.txt');
      userGit(dir, 'add', 'notes.txt');
      expect(git(dir, 'status', '--porcelain')).toBe('');
    },
    state: ['CHERRY_PICK_HEAD'],
    reason: /cherry-pick/,
    touched: false,
  },
  {
    name: 'a revert --no-commit',
    begin: (dir) => {
      writeFileSync(join(dir, 'notes.txt'), 'v2\n');
      userGit(dir, 'commit', '-q', '-am', 'v2');
      userGit(dir, 'revert', '--no-commit', 'HEAD');
    },
    state: ['REVERT_HEAD'],
    reason: /\brevert\b/,
    touched: true,
  },
  {
    name: 'an interactive rebase stopped at edit',
    begin: (dir) => {
      writeFileSync(join(dir, 'notes.txt'), 'v2\n');
      userGit(dir, 'commit', '-q', '-am', 'v2');
      userGitEnv(dir, { GIT_SEQUENCE_EDITOR: "sed -i -e '1s/^pick/edit/'" }, 'rebase', '-q', '-i', 'HEAD~1');
    },
    state: ['rebase-merge/git-rebase-todo', 'rebase-merge/head-name'],
    reason: /\brebase\b/,
    touched: true,
  },
  {
    name: 'git am stopped on a patch that does not apply',
    begin: (dir) => {
      conflictingSide(dir);
      const patch = join(tempDir('em-patch-'), 'side.patch');
      writeFileSync(patch, userGit(dir, 'format-patch', '-1', '--stdout', 'side'));
      userGitFails(dir, 'am', patch);
    },
    state: ['rebase-apply/applying', 'rebase-apply/patch'],
    reason: /git am/,
    touched: true,
  },
  {
    name: 'a bisect',
    begin: (dir) => {
      const first = git(dir, 'rev-parse', 'HEAD').trim();
      for (const v of ['v2', 'v3', 'v4']) {
        writeFileSync(join(dir, 'notes.txt'), `${v}\n`);
        userGit(dir, 'commit', '-q', '-am', v);
      }
      userGit(dir, 'bisect', 'start', 'HEAD', first);
    },
    state: ['BISECT_LOG', 'BISECT_START'],
    reason: /\bbisect\b/,
    touched: true,
  },
  {
    name: 'a detached HEAD',
    begin: (dir) => userGit(dir, 'checkout', '-q', '--detach'),
    state: [],
    reason: /detached/,
    touched: false,
  },
];

describe('a git operation of the user in progress', () => {
  for (const busy of CASES) {
    it(`skips the turn during ${busy.name}: SKIPPED_BUSY naming it, nothing touched, a snapshot of the agent's edits`, async () => {
      const { api, root } = await projectServer();
      const dir = userRepo(root);
      busy.begin(dir);
      await projectSession(api, dir);
      const head = git(dir, 'rev-parse', 'HEAD').trim();
      writeFileSync(join(dir, 'agent.txt'), `agent during ${busy.name}\n`);
      const before = picture(dir);

      const closed = await recordTurn(api, { sessionId: 's', ...(busy.touched ? { touchedPaths: ['agent.txt'] } : {}) });
      expect(closed.projectCommit?.paths).toContain('agent.txt');
      const result = await outcome(api, 's', 1);

      expect(result.result).toBe('SKIPPED_BUSY');
      expect(result.reason).toMatch(busy.reason);
      expect(result.message).toContain(result.reason);
      expect(result.commit).toBeNull();
      expectUntouched(dir, before);
      for (const file of busy.state) expect(existsSync(join(dir, '.git', file)), file).toBe(true);
      expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
      expect(agentCommits(dir)).toEqual([]);
      expectSnapshot(dir, result, 's', 1, head, { 'agent.txt': `agent during ${busy.name}\n` });
    });
  }

  it('publishes a dirtyTreeWarning with the reason, and commits once the user has finished', async () => {
    const { api, root } = await projectServer();
    const dir = userRepo(root);
    userGit(dir, 'checkout', '-q', '-b', 'side');
    userGit(dir, 'commit', '-q', '--allow-empty', '-m', 'side');
    userGit(dir, 'checkout', '-q', 'main');
    userGit(dir, 'merge', '--no-ff', '--no-commit', 'side');
    const projectId = await projectSession(api, dir);
    const client = wsClient(api.url);
    const warnings = wsSubscribe(client, WARNINGS, { projectId });
    // A round trip on the same socket, so the subscription is in place before the turn closes.
    await wsRequest(client, Projects, {});

    writeFileSync(join(dir, 'agent.txt'), 'agent\n');
    await recordTurn(api, { sessionId: 's' });
    const result = await outcome(api, 's', 1);
    const [event] = await warnings.next(1);
    expect(event?.data?.dirtyTreeWarning).toMatchObject({ turnNumber: 1, dirtyPaths: [], reason: result.reason, message: result.message });
    expect(result.reason).toMatch(/merge/);

    // The user concludes the merge; the agent's next turn is committed on top of it.
    userGit(dir, 'commit', '-q', '--no-edit');
    writeFileSync(join(dir, 'agent.txt'), 'agent again\n');
    await recordTurn(api, { sessionId: 's', touchedPaths: ['agent.txt'] });
    const second = await outcome(api, 's', 2);
    expect(second.result).toBe('COMMITTED');
    expect(git(dir, 'rev-list', '--parents', '-1', 'HEAD^').trim().split(' ')).toHaveLength(3);
    expect(git(dir, 'show', 'HEAD:agent.txt')).toBe('agent again\n');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});

const WARNINGS = parse(`
  subscription Warnings($projectId: String) {
    dirtyTreeWarning(projectId: $projectId) { turnNumber dirtyPaths message reason }
  }
`) as TypedDocumentNode<{ dirtyTreeWarning: { turnNumber: number; dirtyPaths: string[]; message: string; reason: string | null } }, { projectId: string }>;
