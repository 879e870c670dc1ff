/**
 * Which folders may become a project, and what happens when a project's
 * folder or git directory later points outside the allowed roots: refused
 * with the reason, and nothing of ours (commit, lock file, claim, message
 * file) is written there.
 */
import { lstatSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppendMessage, CreateSession, EndTurn, RecordTurn } from '../api/operations.js';
import { onGitSpawn } from '../../src/git/run.js';
import { eventually, git } from '../helpers/git.js';
import { onlyError, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { AddSessionToProject } from '../projects/operations.js';
import { listing, sandbox } from './markers.js';
import { SecCreateProject, SecImportProjects, SecProject, SecTurnCommits } from './project-operations.js';

const me = ['-c', 'user.name=Dana', '-c', 'user.email=dana@example.com'];

function userRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'a.txt'), 'one\n');
  git(dir, ...me, 'add', '-A');
  git(dir, ...me, 'commit', '-q', '-m', 'initial');
  return dir;
}

async function outcome(api: TestServer, sessionId: string, number: number) {
  return eventually(async () => {
    const view = await api.ok(SecTurnCommits, { sessionId });
    const found = view.session?.turns.edges.find((e) => e.node.number === number)?.node.projectCommit;
    return found && found.result !== 'PENDING' ? found : undefined;
  });
}

async function refused(api: TestServer, workdir: string): Promise<{ code: string | undefined; message: string }> {
  const error = onlyError(await api.request(SecCreateProject, { input: { name: 'x', workdir } }));
  return { code: error.extensions?.code, message: error.message };
}

/** Everything under a folder with each file's size and mtime: any write shows. */
function fingerprint(dir: string): string[] {
  return listing(dir).map((p) => {
    const s = lstatSync(join(dir, p));
    return `${p} ${s.isDirectory() ? 'dir' : s.size} ${s.mtimeMs}`;
  });
}

describe('project working directories', () => {
  it('refuses an allowed root itself, the home directory, and folders that contain a root or the data directory', async () => {
    const sb = sandbox();
    // Home, a second (nested) root and the data directory all lie inside the allowed root here,
    // so each refusal is the rule under test and not "outside the roots".
    const home = join(sb.root, 'home-user');
    const nested = join(sb.root, 'team', 'shared');
    const data = join(sb.root, 'state', 'data');
    for (const dir of [home, nested, data]) mkdirSync(dir, { recursive: true });
    process.env.HOME = home;
    const api = await startTestServer({ dataDir: data, allowedRoots: [sb.root, nested] });
    const before = fingerprint(sb.root);

    expect(await refused(api, sb.root)).toEqual({
      code: 'FORBIDDEN',
      message: `workdir ${sb.root} is an allowed root itself; pick a folder inside it, like ${join(sb.root, 'my-project')}.`,
    });
    expect(await refused(api, nested)).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('is an allowed root itself; pick a folder inside it') });
    expect(await refused(api, home)).toEqual({
      code: 'FORBIDDEN',
      message: `workdir ${home} is your home directory; pick a folder inside it, like ${join(home, 'code', 'my-project')}.`,
    });
    expect(await refused(api, join(sb.root, 'team'))).toEqual({
      code: 'FORBIDDEN',
      message: `workdir ${join(sb.root, 'team')} contains the allowed root ${nested}; pick a folder inside ${nested}.`,
    });
    expect(await refused(api, join(sb.root, 'state'))).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining(`contains the server's data directory ${data}; pick a folder inside`),
    });
    expect(await refused(api, data)).toMatchObject({ code: 'FORBIDDEN' });
    // The data directory itself is no longer written by these refusals; the root's tree is as it was.
    expect(fingerprint(sb.root).filter((p) => !p.startsWith(join('state', 'data')))).toEqual(before.filter((p) => !p.startsWith(join('state', 'data'))));

    // A folder inside each is fine, and scanning a root itself for repos is too.
    await api.ok(SecCreateProject, { input: { name: 'ok', workdir: mkdirp(join(home, 'code', 'app')) } });
    await api.ok(SecCreateProject, { input: { name: 'ok2', workdir: mkdirp(join(nested, 'app')) } });
    userRepo(join(sb.root, 'found'));
    const imported = await api.ok(SecImportProjects, { input: { root: sb.root, maxDepth: 2 } });
    expect(imported.importProjects.map((p) => p.workdir)).toEqual([join(sb.root, 'found')]);
  });

  it('a bare repo, a folder inside a .git directory, and a .git file pointing outside the roots are refused at creation', async () => {
    const sb = sandbox();
    const outside = userRepo(join(sb.base, 'outside'));
    const api = await startTestServer({ dataDir: sb.data, allowedRoots: [sb.root] });

    const bare = join(sb.root, 'bare.git');
    mkdirSync(bare);
    git(bare, 'init', '-q', '--bare');
    expect(await refused(api, bare)).toEqual({
      code: 'BAD_USER_INPUT',
      message: `${bare} is a bare git repository: it has no working tree to commit from; use a clone of it.`,
    });
    const app = userRepo(join(sb.root, 'app'));
    expect(await refused(api, join(app, '.git'))).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringContaining('lies inside a git directory') });

    const linked = join(sb.root, 'linked');
    mkdirSync(linked);
    writeFileSync(join(linked, '.git'), `gitdir: ${join(outside, '.git')}\n`);
    const outsideBefore = fingerprint(outside);
    expect(await refused(api, linked)).toEqual({
      code: 'FORBIDDEN',
      message:
        `The git directory of ${linked} is ${join(outside, '.git')}, outside the server's allowed roots (${sb.root}); ` +
        'nothing is written there. Point its .git back inside the project, or use another folder.',
    });
    const broken = join(sb.root, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, '.git'), `gitdir: ${join(sb.base, 'nowhere')}\n`);
    expect(await refused(api, broken)).toMatchObject({ code: 'BAD_USER_INPUT', message: expect.stringContaining('git cannot read it') });
    // Import skips them all and takes the good one.
    const imported = await api.ok(SecImportProjects, { input: { root: sb.root } });
    expect(imported.importProjects.map((p) => p.workdir)).toEqual([app]);
    expect(fingerprint(outside)).toEqual(outsideBefore);
  });

  it('a project folder swapped for a symlink to a repo outside the roots after creation: every use refused, nothing written there', async () => {
    const sb = sandbox();
    const outside = userRepo(join(sb.base, 'outside'));
    const api = await startTestServer({ dataDir: sb.data, allowedRoots: [sb.root] });
    const dir = userRepo(join(sb.root, 'app'));
    const { createProject } = await api.ok(SecCreateProject, { input: { name: 'app', workdir: dir } });
    const projectId = createProject.projectId;
    await api.ok(CreateSession, { input: { sessionId: 's', projectId } });
    await api.ok(CreateSession, { input: { sessionId: 'late' } });

    renameSync(dir, join(sb.root, 'app-moved'));
    symlinkSync(outside, dir);
    const outsideBefore = fingerprint(outside);
    const head = git(outside, 'rev-parse', 'HEAD').trim();

    // Turn start, the agent's edit, turn end (claims, lock, commit): all refused.
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'USER', content: 'edit a.txt' } });
    writeFileSync(join(outside, 'a.txt'), 'agent\n');
    const edited = fingerprint(outside);
    await api.ok(AppendMessage, { input: { sessionId: 's', role: 'ASSISTANT', content: 'done' } });
    await api.ok(EndTurn, { input: { sessionId: 's', touchedPaths: ['a.txt'] } });
    const result = await outcome(api, 's', 1);
    expect(result).toMatchObject({ result: 'FAILED', commit: null });
    expect(result.message).toBe(
      "The agent's edits from turn 1 were not committed: " +
        `The project's working directory ${dir} now resolves to ${outside} (was it replaced by a symlink?); ` +
        'nothing is read or written there. Restore the folder, or create a new project.',
    );
    expect(git(outside, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(fingerprint(outside)).toEqual(edited);
    expect(edited.filter((p) => !outsideBefore.includes(p))).toEqual([expect.stringMatching(/^a\.txt /)]);

    // Reads show the state and read nothing there; joining is refused.
    const view = await api.ok(SecProject, { projectId });
    expect(view.project?.workingTree).toEqual({ isRepo: false, clean: false, branch: null, dirtyPaths: [] });
    expect(view.project?.history.edges).toEqual([]);
    expect(view.project?.autoCommit).toMatchObject({ state: 'UNAVAILABLE', unsafeKeys: [] });
    expect(view.project?.autoCommit.message).toContain(`now resolves to ${outside}`);
    expect(onlyError(await api.request(CreateSession, { input: { sessionId: 's2', projectId } })).extensions?.code).toBe('FORBIDDEN');
    expect(onlyError(await api.request(AddSessionToProject, { input: { sessionId: 'late', projectId } })).extensions?.code).toBe('FORBIDDEN');

    // Swapped for a symlink to another folder inside the roots: refused as well (the project is bound to its path).
    rmSync(dir);
    const other = userRepo(join(sb.root, 'other'));
    symlinkSync(other, dir);
    writeFileSync(join(other, 'b.txt'), 'agent\n');
    await api.ok(RecordTurn, { input: { sessionId: 's', user: { content: 'again' }, assistant: { content: 'ok' }, touchedPaths: ['b.txt'] } });
    const again = await outcome(api, 's', 2);
    expect(again.result).toBe('FAILED');
    expect(again.message).toContain(`now resolves to ${other}`);
    expect(git(other, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
    expect(fingerprint(join(other, '.git')).filter((p) => p.startsWith('entity-memory'))).toEqual([]);
    expect(fingerprint(outside)).toEqual(edited);
  });

  it("a project's .git replaced by a .git file pointing outside the roots: the turn fails, no commit, lock or claim lands there", async () => {
    const sb = sandbox();
    const outside = userRepo(join(sb.base, 'outside'));
    const api = await startTestServer({ dataDir: sb.data, allowedRoots: [sb.root] });
    const dir = userRepo(join(sb.root, 'app'));
    const { createProject } = await api.ok(SecCreateProject, { input: { name: 'app', workdir: dir } });
    await api.ok(CreateSession, { input: { sessionId: 's', projectId: createProject.projectId } });

    rmSync(join(dir, '.git'), { recursive: true });
    writeFileSync(join(dir, '.git'), `gitdir: ${join(outside, '.git')}\n`);
    writeFileSync(join(dir, 'a.txt'), 'agent\n');
    const outsideBefore = fingerprint(join(outside, '.git'));
    await api.ok(RecordTurn, { input: { sessionId: 's', user: { content: 'edit' }, assistant: { content: 'ok' }, touchedPaths: ['a.txt'] } });
    const result = await outcome(api, 's', 1);
    expect(result.result).toBe('FAILED');
    expect(result.message).toBe(
      "The agent's edits from turn 1 were not committed: " +
        `The git directory of ${dir} is ${join(outside, '.git')}, outside the server's allowed roots (${sb.root}); ` +
        'nothing is written there. Point its .git back inside the project, or use another folder.',
    );
    expect(fingerprint(join(outside, '.git'))).toEqual(outsideBefore);
    expect(git(outside, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
  });

  it("a remembered location: no git to locate the repo while its folder and .git are the same files; a .git, its config or the folder swapped is seen at the next read", async () => {
    const sb = sandbox();
    const outside = userRepo(join(sb.base, 'outside'));
    const api = await startTestServer({ dataDir: sb.data, allowedRoots: [sb.root] });
    const dir = userRepo(join(sb.root, 'app'));
    const { createProject } = await api.ok(SecCreateProject, { input: { name: 'app', workdir: dir } });
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const read = () => readHistory(api, createProject.projectId);
    // Located when the project was created (its working tree was read then): not again.
    expect(await read()).toEqual({ shas: [head], located: 0 });
    expect(await read()).toEqual({ shas: [head], located: 0 });

    // A commit (files come and go in the folder and in .git) says nothing new about where the repo is: kept.
    writeFileSync(join(dir, 'later.txt'), 'later\n');
    git(dir, 'add', 'later.txt');
    git(dir, ...me, 'commit', '-q', '-m', 'later');
    const later = git(dir, 'rev-parse', 'HEAD').trim();
    expect(await read()).toEqual({ shas: [later, head], located: 0 });
    // Its config written (where core.worktree would say where the files are): located again.
    git(dir, 'config', 'core.worktree', dir);
    expect(await read()).toEqual({ shas: [later, head], located: 1 });
    expect(await read()).toEqual({ shas: [later, head], located: 0 });

    // Its .git moved aside and replaced by a .git file pointing outside the roots: refused, nothing read there.
    renameSync(join(dir, '.git'), join(sb.root, 'app.git-aside'));
    writeFileSync(join(dir, '.git'), `gitdir: ${join(outside, '.git')}\n`);
    const outsideBefore = fingerprint(join(outside, '.git'));
    expect(await read()).toEqual({ shas: [], located: 1 });
    expect(fingerprint(join(outside, '.git'))).toEqual(outsideBefore);

    // Put back, then the folder swapped for a symlink to the repo outside: each seen at once.
    rmSync(join(dir, '.git'));
    renameSync(join(sb.root, 'app.git-aside'), join(dir, '.git'));
    expect(await read()).toEqual({ shas: [later, head], located: 1 });
    renameSync(dir, join(sb.root, 'app-moved'));
    symlinkSync(outside, dir);
    expect((await read()).shas).toEqual([]);
    expect(fingerprint(join(outside, '.git'))).toEqual(outsideBefore);
  });

  it("a remembered location through a .git file: its git directory swapped for a symlink out of the roots is seen at the next use; nothing is read or written there", async () => {
    const sb = sandbox();
    const outside = userRepo(join(sb.base, 'outside'));
    const api = await startTestServer({ dataDir: sb.data, allowedRoots: [sb.root] });
    const dir = mkdirp(join(sb.root, 'app'));
    const gitDir = join(sb.root, 'app-git');
    git(dir, 'init', '-q', '-b', 'main', `--separate-git-dir=${gitDir}`);
    writeFileSync(join(dir, 'a.txt'), 'one\n');
    git(dir, ...me, 'add', '-A');
    git(dir, ...me, 'commit', '-q', '-m', 'initial');
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const { createProject } = await api.ok(SecCreateProject, { input: { name: 'app', workdir: dir } });
    expect(await readHistory(api, createProject.projectId)).toEqual({ shas: [head], located: 0 });

    // The .git file unchanged, the folder it names moved aside and a symlink to the repo outside put in its place.
    renameSync(gitDir, join(sb.root, 'app-git-aside'));
    symlinkSync(join(outside, '.git'), gitDir);
    const outsideBefore = fingerprint(join(outside, '.git'));
    expect(await readHistory(api, createProject.projectId)).toEqual({ shas: [], located: 1 });
    // Its working tree is not read either (no repo there for us), and nothing lands outside.
    const project = await api.raw(`{ project(projectId: "${createProject.projectId}") { workingTree { isRepo clean } } }`);
    expect(project.data).toEqual({ project: { workingTree: { isRepo: false, clean: false } } });
    expect(fingerprint(join(outside, '.git'))).toEqual(outsideBefore);
  });

  it('a repo above the allowed root (a dotfiles repo in HOME) is never found: a project inside the root gets its own repo', async () => {
    const sb = sandbox();
    const root = join(sb.base, 'home-repo');
    userRepo(root);
    const api = await startTestServer({ dataDir: tempDir('em-data-'), allowedRoots: [join(root, 'code')] });
    const dir = mkdirp(join(root, 'code', 'app'));
    const head = git(root, 'rev-parse', 'HEAD').trim();
    const { createProject } = await api.ok(SecCreateProject, { input: { name: 'app', workdir: dir } });
    expect(createProject.workingTree).toMatchObject({ isRepo: true, clean: true });
    expect(git(dir, 'rev-parse', '--show-toplevel').trim()).toBe(dir);
    expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(head);
  });
});

/** A project's history (its shas), and how many times git was asked where the repo is for it. */
async function readHistory(api: TestServer, projectId: string): Promise<{ shas: string[]; located: number }> {
  const argv: string[] = [];
  const stop = onGitSpawn((e) => argv.push(e.argv.join(' ')));
  try {
    const result = await api.raw(`{ project(projectId: "${projectId}") { history(first: 3) { edges { node { sha } } } } }`);
    expect(result.errors).toBeUndefined();
    const edges = (result.data!.project as { history: { edges: { node: { sha: string } }[] } }).history.edges;
    return { shas: edges.map((e) => e.node.sha), located: argv.filter((a) => a.includes('--absolute-git-dir')).length };
  } finally {
    stop();
  }
}

function mkdirp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
