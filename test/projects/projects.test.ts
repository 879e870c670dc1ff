import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppendMessage, CreateSession, EndTurn, RecordTurn } from '../api/operations.js';
import { eventually, git } from '../helpers/git.js';
import { onlyError, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { wsClient, wsSubscribe } from '../helpers/ws.js';
import {
  AddSessionToProject,
  CreateProject,
  DirtyWarnings,
  ImportProjects,
  ProjectCommits,
  Projects,
  ProjectView,
  TurnOutcomes,
  UpdateProject,
} from './operations.js';

const userGit = (dir: string, ...args: string[]) => git(dir, '-c', 'user.name=Dana', '-c', 'user.email=dana@example.com', ...args);

async function server(): Promise<{ api: TestServer; root: string }> {
  const root = tempDir('em-projects-');
  const api = await startTestServer({ allowedRoots: [root] });
  return { api, root };
}

/** A repo with one commit by the user. */
function userRepo(root: string, name = 'app'): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), '# app\n');
  writeFileSync(join(dir, 'notes.txt'), 'v1\n');
  userGit(dir, 'add', '-A');
  userGit(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

async function outcome(api: TestServer, sessionId: string, number: number) {
  return eventually(async () => {
    const view = await api.ok(TurnOutcomes, { sessionId });
    const found = view.session?.turns.edges.find((e) => e.node.number === number)?.node.projectCommit;
    return found && found.result !== 'PENDING' ? found : undefined;
  });
}

describe('projects', () => {
  it('initialises a plain folder, reuses an existing repo, and lists, updates and imports projects', async () => {
    const { api, root } = await server();
    const plain = join(root, 'plain');
    mkdirSync(plain);
    const created = await api.ok(CreateProject, { input: { name: 'Plain', workdir: plain, description: 'd' } });
    expect(created.createProject).toMatchObject({ name: 'Plain', workdir: realpathSync(plain), status: 'ACTIVE', workingTree: { isRepo: true, clean: true } });
    expect(git(plain, 'rev-parse', '--is-inside-work-tree').trim()).toBe('true');

    const existing = userRepo(root);
    const head = git(existing, 'rev-parse', 'HEAD').trim();
    const reused = await api.ok(CreateProject, { input: { name: 'App', workdir: existing, status: 'PAUSED' } });
    expect(git(existing, 'rev-parse', 'HEAD').trim()).toBe(head);
    const view = await api.ok(ProjectView, { projectId: reused.createProject.projectId });
    expect(view.project?.history.edges.map((e) => e.node.headline)).toEqual(['initial']);
    expect(view.project?.workingTree).toEqual({ isRepo: true, clean: true, branch: 'main', dirtyPaths: [] });

    const updated = await api.ok(UpdateProject, { input: { projectId: reused.createProject.projectId, name: 'App 2', status: 'DONE' } });
    expect(updated.updateProject).toMatchObject({ name: 'App 2', status: 'DONE' });
    expect((await api.ok(Projects, { status: 'DONE' })).projects.edges.map((e) => e.node.name)).toEqual(['App 2']);
    const page = await api.ok(Projects, { first: 1 });
    expect(page.projects).toMatchObject({ totalCount: 2, pageInfo: { hasNextPage: true } });

    // Import finds the repos not yet known, once.
    userRepo(join(root, 'group'), 'one');
    userRepo(join(root, 'group', 'deeper'), 'two');
    const imported = await api.ok(ImportProjects, { input: { root, maxDepth: 3 } });
    expect(imported.importProjects.map((p) => p.name).sort()).toEqual(['one', 'two']);
    expect((await api.ok(ImportProjects, { input: { root, maxDepth: 3 } })).importProjects).toEqual([]);
    expect((await api.ok(Projects, {})).projects.totalCount).toBe(4);
  });

  it('refuses every bad workdir and creates nothing', async () => {
    const { api, root } = await server();
    const outside = tempDir('em-outside-');
    const file = join(root, 'file.txt');
    writeFileSync(file, 'x');
    mkdirSync(join(root, 'repo'));
    git(join(root, 'repo'), 'init', '-q');
    mkdirSync(join(root, 'repo', 'sub'));
    symlinkSync(outside, join(root, 'escape'));
    mkdirSync(join(api.dataDir, 'sessions'), { recursive: true });
    const cases: [string, string][] = [
      ['relative/path', 'BAD_USER_INPUT'],
      [join(root, 'missing'), 'BAD_USER_INPUT'],
      [file, 'BAD_USER_INPUT'],
      ['/', 'FORBIDDEN'],
      [outside, 'FORBIDDEN'],
      [join(root, 'escape'), 'FORBIDDEN'],
      [api.dataDir, 'FORBIDDEN'],
      [join(api.dataDir, 'sessions'), 'FORBIDDEN'],
      [join(root, 'repo', 'sub'), 'BAD_USER_INPUT'],
    ];
    for (const [workdir, code] of cases) {
      const error = onlyError(await api.request(CreateProject, { input: { name: 'x', workdir } }));
      expect(error.extensions?.code, workdir).toBe(code);
    }
    expect(onlyError(await api.request(CreateProject, { input: { name: '  ', workdir: root } })).extensions?.code).toBe('BAD_USER_INPUT');
    expect((await api.ok(Projects, {})).projects.totalCount).toBe(0);
    await api.ok(CreateProject, { input: { name: 'ok', workdir: join(root, 'repo') } });
    expect(onlyError(await api.request(CreateProject, { input: { name: 'again', workdir: join(root, 'repo') } })).extensions?.code).toBe('CONFLICT');
    expect(onlyError(await api.request(ImportProjects, { input: { root: outside } })).extensions?.code).toBe('FORBIDDEN');
  });

  it("commits the agent's edits on a clean tree, with the agent's identity and the documented message", async () => {
    const { api, root } = await server();
    const dir = userRepo(root);
    const { createProject } = await api.ok(CreateProject, { input: { name: 'App', workdir: dir } });
    const projectId = createProject.projectId;
    const commits = wsSubscribe(wsClient(api.url), ProjectCommits, { projectId });
    await commits.ready();
    await api.ok(CreateSession, { input: { sessionId: 'sess', model: 'claude-sonnet-4.7', projectId } });

    await api.ok(AppendMessage, { input: { sessionId: 'sess', role: 'USER', content: 'Add a changelog\nand bump the notes' } });
    writeFileSync(join(dir, 'CHANGELOG.md'), '- first\n');
    writeFileSync(join(dir, 'notes.txt'), 'v2\n');
    await api.ok(AppendMessage, { input: { sessionId: 'sess', role: 'ASSISTANT', content: 'Done.' } });
    await api.ok(EndTurn, { input: { sessionId: 'sess' } });

    const result = await outcome(api, 'sess', 1);
    expect(result).toMatchObject({ result: 'COMMITTED', dirtyPaths: [] });
    expect(result.commit?.sha).toBe(git(dir, 'rev-parse', 'HEAD').trim());
    expect(git(dir, 'log', '-1', '--format=%B').trimEnd()).toBe('[agent sess] turn 1: Add a changelog and bump the notes\n\nSession-Id: sess\nTurn: 1');
    expect(git(dir, 'log', '-1', '--format=%an|%ae|%cn|%ce').trim()).toBe(
      'agent (claude-sonnet-4.7 via OpenProgram)|agent@openprogram.invalid|agent (claude-sonnet-4.7 via OpenProgram)|agent@openprogram.invalid',
    );
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['CHANGELOG.md', 'notes.txt']);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    const [event] = await commits.next(1);
    expect(event?.data?.projectCommitted).toMatchObject({ project: { projectId }, session: { sessionId: 'sess' }, turnNumber: 1, commit: { sha: result.commit?.sha } });

    // A turn that changed nothing commits nothing.
    await api.ok(RecordTurn, { input: { sessionId: 'sess', user: { content: 'just talk' }, assistant: { content: 'ok' } } });
    expect(await outcome(api, 'sess', 2)).toMatchObject({ result: 'NOTHING_TO_COMMIT', commit: null });
    const history = await api.ok(ProjectView, { projectId });
    expect(history.project?.history.edges.map((e) => e.node.headline)).toEqual(['[agent sess] turn 1: Add a changelog and bump the notes', 'initial']);
    expect(history.project?.sessions.edges.map((e) => e.node.sessionId)).toEqual(['sess']);
  });

  it('leaves tracked, staged and untracked user changes byte for byte, and warns over graphql-ws', async () => {
    const { api, root } = await server();
    const dir = userRepo(root);
    const { createProject } = await api.ok(CreateProject, { input: { name: 'App', workdir: dir } });
    const projectId = createProject.projectId;
    const warnings = wsSubscribe(wsClient(api.url), DirtyWarnings, { projectId });
    await warnings.ready();
    await api.ok(CreateSession, { input: { sessionId: 's' } });
    await api.ok(AddSessionToProject, { input: { sessionId: 's', projectId } });

    // The user's own work, of every kind, before the turn begins.
    writeFileSync(join(dir, 'notes.txt'), 'user edit\n');
    writeFileSync(join(dir, 'staged.txt'), 'staged\n');
    userGit(dir, 'add', 'staged.txt');
    writeFileSync(join(dir, 'scratch.txt'), 'untracked\n');
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: 'edit things' } });
    writeFileSync(join(dir, 'agent.txt'), 'agent output\n');
    const before = {
      status: git(dir, 'status', '--porcelain'),
      cached: git(dir, 'diff', '--cached'),
      diff: git(dir, 'diff'),
      head: git(dir, 'rev-parse', 'HEAD'),
      index: readFileSync(join(dir, '.git', 'index')),
      files: ['notes.txt', 'staged.txt', 'scratch.txt', 'agent.txt'].map((f) => readFileSync(join(dir, f), 'utf8')),
    };
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'ASSISTANT', content: 'wrote agent.txt' } });
    await api.ok(EndTurn, { input: { sessionId: 's', touchedPaths: ['agent.txt'] } });

    const result = await outcome(api, 's', 1);
    expect(result.result).toBe('SKIPPED_DIRTY');
    expect(result.dirtyPaths).toEqual(['notes.txt', 'scratch.txt', 'staged.txt']);
    expect(result.message).toMatch(/uncommitted changes.*won't be auto-committed/);
    const [warning] = await warnings.next(1);
    expect(warning?.data?.dirtyTreeWarning).toMatchObject({
      project: { projectId },
      session: { sessionId: 's' },
      turnNumber: 1,
      dirtyPaths: ['notes.txt', 'scratch.txt', 'staged.txt'],
    });
    expect(warning?.data?.dirtyTreeWarning.message).toBe(result.message);
    expect(git(dir, 'status', '--porcelain')).toBe(before.status);
    expect(git(dir, 'diff', '--cached')).toBe(before.cached);
    expect(git(dir, 'diff')).toBe(before.diff);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(before.head);
    expect(readFileSync(join(dir, '.git', 'index')).equals(before.index)).toBe(true);
    expect(['notes.txt', 'staged.txt', 'scratch.txt', 'agent.txt'].map((f) => readFileSync(join(dir, f), 'utf8'))).toEqual(before.files);
  });

  it('commits five sessions ending turns at once, each its own touched paths', async () => {
    const { api, root } = await server();
    const dir = userRepo(root);
    const { createProject } = await api.ok(CreateProject, { input: { name: 'App', workdir: dir } });
    const ids = ['s1', 's2', 's3', 's4', 's5'];
    for (const sessionId of ids) await api.ok(CreateSession, { input: { sessionId, projectId: createProject.projectId } });
    for (const sessionId of ids) writeFileSync(join(dir, `${sessionId}.txt`), `${sessionId}\n`);
    await Promise.all(
      ids.map((sessionId) =>
        api.ok(RecordTurn, {
          input: { sessionId, user: { content: `write ${sessionId}` }, assistant: { content: 'ok' }, touchedPaths: [`${sessionId}.txt`] },
        }),
      ),
    );
    for (const sessionId of ids) {
      const result = await outcome(api, sessionId, 1);
      expect(result.result, sessionId).toBe('COMMITTED');
      expect(git(dir, 'show', '--name-only', '--format=', result.commit!.sha).trim()).toBe(`${sessionId}.txt`);
    }
    expect(git(dir, 'rev-list', '--count', 'HEAD').trim()).toBe('6');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });

  it("commits whatever the user's repo configures: failing and hanging hooks, gpg signing, no identity", async () => {
    const { api, root } = await server();
    const dir = userRepo(root);
    const hooks = join(dir, '.git', 'hooks');
    writeFileSync(join(hooks, 'pre-commit'), '#!/bin/sh\necho refused >&2\nexit 1\n');
    // Were it run, it would leave a marker and hang the commit.
    writeFileSync(join(hooks, 'commit-msg'), `#!/bin/sh\ntouch '${join(root, 'commit-msg-ran')}'\nsleep 600\n`);
    chmodSync(join(hooks, 'pre-commit'), 0o755);
    chmodSync(join(hooks, 'commit-msg'), 0o755);
    git(dir, 'config', 'commit.gpgsign', 'true');
    git(dir, 'config', 'gpg.program', '/bin/false');
    git(dir, 'config', 'user.useConfigOnly', 'true');
    const { createProject } = await api.ok(CreateProject, { input: { name: 'App', workdir: dir } });
    await api.ok(CreateSession, { input: { sessionId: 's', projectId: createProject.projectId } });
    writeFileSync(join(dir, 'out.txt'), 'agent\n');
    await api.ok(RecordTurn, { input: { sessionId: 's', user: { content: 'go' }, assistant: { content: 'ok' }, touchedPaths: ['out.txt'] } });
    const result = await outcome(api, 's', 1);
    expect(result.result).toBe('COMMITTED');
    expect(existsSync(join(root, 'commit-msg-ran'))).toBe(false);
    expect(git(dir, 'log', '-1', '--format=%G?|%s').trim()).toBe('N|[agent s] turn 1: go');
  });

  it("waits for a user's index.lock to go away, and never removes it", async () => {
    const { api, root } = await server();
    const dir = userRepo(root);
    const { createProject } = await api.ok(CreateProject, { input: { name: 'App', workdir: dir } });
    await api.ok(CreateSession, { input: { sessionId: 's', projectId: createProject.projectId } });
    const lock = join(dir, '.git', 'index.lock');
    writeFileSync(lock, '');
    writeFileSync(join(dir, 'out.txt'), 'agent\n');
    await api.ok(RecordTurn, { input: { sessionId: 's', user: { content: 'go' }, assistant: { content: 'ok' }, touchedPaths: ['out.txt'] } });
    // The committer has met the lock twice, and is still waiting: the lock is the user's.
    await eventually(async () => ((await api.server.app.db.outboxJob.findFirst({ where: { kind: 'PROJECT' } }))?.attempts ?? 0) >= 2);
    expect(readFileSync(lock, 'utf8')).toBe('');
    expect(git(dir, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
    const { rmSync } = await import('node:fs');
    rmSync(lock);
    expect((await outcome(api, 's', 1)).result).toBe('COMMITTED');
    expect(git(dir, 'rev-list', '--count', 'HEAD').trim()).toBe('2');
  });
});
