/**
 * Folders that are not repos yet: `createProject` runs `git init`, and with
 * `initialCommit: true` makes one first commit of the folder's files. The
 * server runs in this process, so the sandbox's HOME is the user's global git
 * config for it (identity, hooks, signing, filter drivers, templates).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initialCommitHint } from '../../src/projects/initial-commit.js';
import { git } from '../helpers/git.js';
import { onlyError, startTestServer, type TestServer } from '../helpers/server.js';
import { marker, markerHooks, marks, sandbox, type Sandbox } from '../security/markers.js';

const CREATE = `
  mutation Create($input: CreateProjectInput!) {
    createProject(input: $input) { projectId needsInitialCommit workingTree { isRepo clean dirtyPaths } }
  }`;

const VIEW = `
  query View($projectId: String!) {
    project(projectId: $projectId) { needsInitialCommit autoCommit { state } workingTree { isRepo clean dirtyPaths } }
    projects { totalCount }
  }`;

interface Created {
  createProject: { projectId: string; needsInitialCommit: boolean; workingTree: { isRepo: boolean; clean: boolean; dirtyPaths: string[] } };
}
interface Viewed {
  project: { needsInitialCommit: boolean; autoCommit: { state: string }; workingTree: { isRepo: boolean; clean: boolean; dirtyPaths: string[] } } | null;
  projects: { totalCount: number };
}

async function server(): Promise<{ sb: Sandbox; api: TestServer }> {
  const sb = sandbox();
  const api = await startTestServer({ dataDir: sb.data, allowedRoots: [sb.root] });
  return { sb, api };
}

/** The user's global git config (the sandbox's HOME), replaced whole. */
function globalConfig(sb: Sandbox, text: string): void {
  writeFileSync(join(sb.home, '.gitconfig'), text);
}

async function create(api: TestServer, input: Record<string, unknown>): Promise<Created['createProject']> {
  const result = await api.raw(CREATE, { input });
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return (result.data as unknown as Created).createProject;
}

async function view(api: TestServer, projectId: string): Promise<Viewed> {
  const result = await api.raw(VIEW, { projectId });
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return result.data as unknown as Viewed;
}

/**
 * A folder with files and no repo: a .gitignore'd file and folder, an
 * executable, a binary file in a nested folder, a name with a space.
 */
function folderWithFiles(sb: Sandbox, name: string): string {
  const dir = join(sb.root, name);
  mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
  mkdirSync(join(dir, 'build'));
  writeFileSync(join(dir, '.gitignore'), 'secret.env\nbuild/\n');
  writeFileSync(join(dir, 'secret.env'), 'TOKEN=x\n');
  writeFileSync(join(dir, 'build', 'out.js'), 'built\n');
  writeFileSync(join(dir, 'README.md'), '# mine\n');
  writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\necho hi\n');
  chmodSync(join(dir, 'run.sh'), 0o755);
  writeFileSync(join(dir, 'src', 'deep', 'data.bin'), Buffer.from([0, 1, 2, 255, 10, 0]));
  writeFileSync(join(dir, 'src', 'my notes.txt'), 'line\r\nno newline at end');
  chmodSync(join(dir, 'src', 'my notes.txt'), 0o600);
  return dir;
}

const COMMITTED = ['.gitignore', 'README.md', 'run.sh', 'src/deep/data.bin', 'src/my notes.txt'];

/** Every file outside .git: its bytes (base64) and mode. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true }) as string[]) {
    const path = relative(dir, join(dir, entry));
    if (path === '.git' || path.startsWith('.git/')) continue;
    const info = lstatSync(join(dir, path));
    out[path] = info.isFile() ? `${(info.mode & 0o777).toString(8)} ${readFileSync(join(dir, path)).toString('base64')}` : `dir ${(info.mode & 0o777).toString(8)}`;
  }
  return out;
}

const commitCount = (dir: string) => git(dir, 'rev-list', '--all', '--count').trim();

describe('createProject on a folder that is not a repo yet', () => {
  it('without initialCommit: inits only, leaves every file and the index as they were, and reports needsInitialCommit until the user commits', async () => {
    const { sb, api } = await server();
    globalConfig(sb, '[user]\n\tname = Dana\n\temail = dana@example.com\n');
    const dir = folderWithFiles(sb, 'plain');
    const before = snapshot(dir);

    const created = await create(api, { name: 'plain', workdir: dir });
    expect(created.needsInitialCommit).toBe(true);
    expect(created.workingTree).toMatchObject({ isRepo: true, clean: false });
    expect(existsSync(join(dir, '.git'))).toBe(true);
    expect(commitCount(dir)).toBe('0');
    expect(git(dir, 'ls-files', '--stage')).toBe('');
    expect(snapshot(dir)).toEqual(before);
    expect((await view(api, created.projectId)).project?.needsInitialCommit).toBe(true);

    // Live: once the user makes a first commit it turns false.
    git(dir, 'add', '-A');
    expect((await view(api, created.projectId)).project?.needsInitialCommit).toBe(true);
    git(dir, '-c', 'user.name=Dana', '-c', 'user.email=dana@example.com', 'commit', '-q', '-m', 'mine');
    expect((await view(api, created.projectId)).project).toMatchObject({ needsInitialCommit: false, workingTree: { clean: true } });
  });

  it('with initialCommit: one commit of exactly the non-ignored files, by the identity git config gives, with hooks and signing off', async () => {
    const { sb, api } = await server();
    const hooks = join(sb.base, 'hooks');
    markerHooks(sb, 'global', hooks);
    const gpg = marker(sb, 'gpg');
    globalConfig(
      sb,
      `[user]\n\tname = Dana\n\temail = dana@example.com\n[core]\n\thooksPath = ${hooks}\n[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = ${gpg}\n`,
    );
    const dir = folderWithFiles(sb, 'app');
    const before = snapshot(dir);

    const created = await create(api, { name: 'app', workdir: dir, initialCommit: true });
    expect(created).toMatchObject({ needsInitialCommit: false, workingTree: { isRepo: true, clean: true, dirtyPaths: [] } });
    expect(commitCount(dir)).toBe('1');
    expect(git(dir, 'ls-tree', '-r', '--format=%(objectmode) %(path)', 'HEAD').trim().split('\n')).toEqual([
      '100644 .gitignore',
      '100644 README.md',
      '100755 run.sh',
      '100644 src/deep/data.bin',
      '100644 src/my notes.txt',
    ]);
    expect(git(dir, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%B').trim()).toBe('Dana <dana@example.com>|Dana <dana@example.com>|Initial commit');
    for (const path of COMMITTED) {
      expect(execFileSync('git', ['cat-file', 'blob', `HEAD:${path}`], { cwd: dir })).toEqual(readFileSync(join(dir, path)));
    }
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(dir, 'status', '--porcelain', '--ignored').trim().split('\n').sort()).toEqual(['!! build/', '!! secret.env']);
    expect(git(dir, 'ls-files').trim().split('\n')).toEqual(COMMITTED);
    expect(snapshot(dir)).toEqual(before);
    expect(marks(sb)).toEqual([]);
    expect((await view(api, created.projectId)).project?.needsInitialCommit).toBe(false);
  });

  it('with initialCommit and no full identity in git config: committed by entity-memory <setup@openprogram.invalid>', async () => {
    const { sb, api } = await server();
    // A name without an email is no identity: the fallback is used whole, never mixed.
    globalConfig(sb, '[user]\n\tname = Half\n');
    const dir = folderWithFiles(sb, 'anon');
    await create(api, { name: 'anon', workdir: dir, initialCommit: true });
    expect(git(dir, 'log', '--format=%an <%ae>|%cn <%ce>').trim()).toBe('entity-memory <setup@openprogram.invalid>|entity-memory <setup@openprogram.invalid>');
    expect(git(dir, 'ls-files').trim().split('\n')).toEqual(COMMITTED);
  });

  it('with initialCommit, makes no commit in an empty folder or in a folder that is a repo already', async () => {
    const { sb, api } = await server();
    globalConfig(sb, '[user]\n\tname = Dana\n\temail = dana@example.com\n');

    const empty = join(sb.root, 'empty');
    mkdirSync(empty);
    const fromEmpty = await create(api, { name: 'empty', workdir: empty, initialCommit: true });
    expect(fromEmpty).toMatchObject({ needsInitialCommit: false, workingTree: { isRepo: true, clean: true } });
    expect(commitCount(empty)).toBe('0');

    const repo = folderWithFiles(sb, 'repo');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', 'README.md');
    git(repo, '-c', 'user.name=U', '-c', 'user.email=u@example.com', 'commit', '-q', '-m', 'first');
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const index = readFileSync(join(repo, '.git', 'index'));
    const fromRepo = await create(api, { name: 'repo', workdir: repo, initialCommit: true });
    expect(fromRepo.needsInitialCommit).toBe(false);
    expect(git(repo, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(commitCount(repo)).toBe('1');
    expect(readFileSync(join(repo, '.git', 'index'))).toEqual(index);

    // A repo the user inited without committing is theirs too: no commit, and it needs one.
    const unborn = folderWithFiles(sb, 'unborn');
    git(unborn, 'init', '-q');
    const before = snapshot(unborn);
    const fromUnborn = await create(api, { name: 'unborn', workdir: unborn, initialCommit: true });
    expect(fromUnborn.needsInitialCommit).toBe(true);
    expect(commitCount(unborn)).toBe('0');
    expect(git(unborn, 'ls-files', '--stage')).toBe('');
    expect(snapshot(unborn)).toEqual(before);
  });

  it('with initialCommit, is refused where git config defines filter drivers, creating nothing and running none', async () => {
    const { sb, api } = await server();
    const clean = marker(sb, 'clean-filter', 'cat');
    globalConfig(sb, `[user]\n\tname = Dana\n\temail = dana@example.com\n[filter "x"]\n\tclean = ${clean}\n`);
    const dir = folderWithFiles(sb, 'filtered');
    writeFileSync(join(dir, '.gitattributes'), '* filter=x\n');
    const before = snapshot(dir);

    const error = onlyError(await api.raw(CREATE, { input: { name: 'filtered', workdir: dir, initialCommit: true } }));
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('initialCommit cannot run');
    expect(error.message).toContain('filter.x.clean');
    expect(existsSync(join(dir, '.git'))).toBe(false);
    expect(snapshot(dir)).toEqual(before);
    expect((await api.raw('{ projects { totalCount } }')).data).toEqual({ projects: { totalCount: 0 } });

    // Without initialCommit it is created as before: no commit, auto-commit off until trusted.
    const created = await create(api, { name: 'filtered', workdir: dir });
    expect((await view(api, created.projectId)).project).toMatchObject({ needsInitialCommit: true, autoCommit: { state: 'DISABLED_UNSAFE_CONFIG' } });
    expect(commitCount(dir)).toBe('0');
    expect(marks(sb)).toEqual([]);
  });

  it('with initialCommit, is refused when the repo git init makes brings filter drivers from a template, and the new repo is removed', async () => {
    const { sb, api } = await server();
    const clean = marker(sb, 'template-filter', 'cat');
    const template = join(sb.base, 'template');
    mkdirSync(template);
    writeFileSync(join(template, 'config'), `[filter "t"]\n\tclean = ${clean}\n`);
    globalConfig(sb, `[user]\n\tname = Dana\n\temail = dana@example.com\n[init]\n\ttemplateDir = ${template}\n[core]\n\tattributesFile = ${join(sb.home, 'attributes')}\n`);
    writeFileSync(join(sb.home, 'attributes'), '* filter=t\n');
    const dir = folderWithFiles(sb, 'templated');
    const before = snapshot(dir);

    const error = onlyError(await api.raw(CREATE, { input: { name: 'templated', workdir: dir, initialCommit: true } }));
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('filter.t.clean');
    expect(existsSync(join(dir, '.git'))).toBe(false);
    expect(snapshot(dir)).toEqual(before);
    expect((await api.raw('{ projects { totalCount } }')).data).toEqual({ projects: { totalCount: 0 } });
    expect(marks(sb)).toEqual([]);
  });

  it('with initialCommit, a first commit git refuses creates nothing: the new repo is removed and the error says why', async () => {
    const { sb, api } = await server();
    globalConfig(sb, '[user]\n\tname = Dana\n\temail = dana@example.com\n');
    const dir = folderWithFiles(sb, 'nested');
    // A repo inside with no commit checked out: `git add -A` cannot add it.
    mkdirSync(join(dir, 'vendor', 'lib'), { recursive: true });
    git(join(dir, 'vendor', 'lib'), 'init', '-q');
    writeFileSync(join(dir, 'vendor', 'lib', 'x.c'), 'int x;\n');
    const before = snapshot(dir);

    const error = onlyError(await api.raw(CREATE, { input: { name: 'nested', workdir: dir, initialCommit: true } }));
    expect(error.extensions?.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('vendor/lib');
    expect(error.message).toContain('nothing was created');
    expect(existsSync(join(dir, '.git'))).toBe(false);
    expect(snapshot(dir)).toEqual(before);
    expect((await api.raw('{ projects { totalCount } }')).data).toEqual({ projects: { totalCount: 0 } });
  });

  it('initialCommitHint says why every turn is skipped and what to do', () => {
    const hint = initialCommitHint('p-123');
    expect(hint).toContain('no commit yet');
    expect(hint).toContain("git add -A && git commit -m 'Initial commit'");
    expect(hint).toContain('project(projectId: "p-123") { needsInitialCommit }');
    expect(hint).not.toContain('\n');
  });
});
