/**
 * No repo config, included file or global config makes the server's git run a
 * program. Each key points at a marker script; a control run with plain git
 * (as the user would run it, on a copy) shows the marker does fire, then every
 * API operation that touches a project runs and no marker may appear, and
 * nothing may be written to HOME or TMPDIR.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppendMessage, CreateSession, EndTurn, RecordTurn } from '../api/operations.js';
import { eventually, git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { AddSessionToProject } from '../projects/operations.js';
import { clearMarks, controlCopy, listing, marker, markerHooks, marks, sandbox, userGit, userGitMayFail, type Sandbox } from './markers.js';
import { SecCreateProject, SecImportProjects, SecProject, SecTurnCommits, SecUpdateProject } from './project-operations.js';

const me = ['-c', 'user.name=Dana', '-c', 'user.email=dana@example.com'];

/** A repo with two commits (the second changes a.txt) and a signed commit on top, made before any hostile config. */
function userRepo(dir: string, attributes = ''): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'a.txt'), 'one\n');
  writeFileSync(join(dir, 'b.md'), '# b\n');
  if (attributes) writeFileSync(join(dir, '.gitattributes'), attributes);
  git(dir, ...me, 'add', '-A');
  git(dir, ...me, 'commit', '-q', '-m', 'initial');
  writeFileSync(join(dir, 'a.txt'), 'two\n');
  git(dir, ...me, 'commit', '-q', '-am', 'second');
  // A commit carrying a signature: `git log` with log.showSignature runs gpg.program on it.
  const tree = git(dir, 'rev-parse', 'HEAD^{tree}').trim();
  const parent = git(dir, 'rev-parse', 'HEAD').trim();
  const body =
    `tree ${tree}\nparent ${parent}\nauthor Dana <dana@example.com> 1700000000 +0000\ncommitter Dana <dana@example.com> 1700000000 +0000\n` +
    'gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n';
  const sha = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: dir, input: body, encoding: 'utf8' }).trim();
  git(dir, 'update-ref', 'refs/heads/main', sha);
  return dir;
}

function setConfig(dir: string, entries: [string, string][], file?: string): void {
  for (const [key, value] of entries) git(dir, 'config', ...(file ? ['--file', file] : ['--local']), '--add', key, value);
}

async function outcome(api: TestServer, sessionId: string, number: number) {
  return eventually(async () => {
    const view = await api.ok(SecTurnCommits, { sessionId });
    const found = view.session?.turns.edges.find((e) => e.node.number === number)?.node.projectCommit;
    return found && found.result !== 'PENDING' ? found : undefined;
  });
}

/** A turn the agent spends editing a tracked file and adding one, driven through appendMessage/endTurn. */
async function turnByMessages(api: TestServer, sessionId: string, dir: string, touched: string[] | null): Promise<void> {
  await api.ok(AppendMessage, { input: { sessionId, role: 'USER', content: 'edit a.txt and add c.txt' } });
  writeFileSync(join(dir, 'a.txt'), `agent ${sessionId}\n`);
  writeFileSync(join(dir, 'c.txt'), 'new\n');
  await api.ok(AppendMessage, { input: { sessionId, role: 'ASSISTANT', content: 'done' } });
  await api.ok(EndTurn, { input: { sessionId, ...(touched ? { touchedPaths: touched } : {}) } });
}

function snapshot(sb: Sandbox) {
  return { home: listing(sb.home), tmp: listing(sb.tmp) };
}

describe('git never runs a program from config', () => {
  it('repo config, included files and global config: no marker fires in any project operation, nothing is written to HOME or TMPDIR', async () => {
    const sb = sandbox();

    // R1: every key set directly in .git/config, and hooks in .git/hooks.
    const r1 = userRepo(join(sb.root, 'direct'));
    markerHooks(sb, 'r1-hook', join(r1, '.git', 'hooks'));
    setConfig(r1, [
      ['core.fsmonitor', marker(sb, 'r1-core.fsmonitor')],
      ['diff.external', marker(sb, 'r1-diff.external')],
      ['core.pager', marker(sb, 'r1-core.pager', 'cat')],
      ['pager.status', marker(sb, 'r1-pager.status', 'cat')],
      ['pager.log', marker(sb, 'r1-pager.log', 'cat')],
      ['core.editor', marker(sb, 'r1-core.editor')],
      ['sequence.editor', marker(sb, 'r1-sequence.editor')],
      ['credential.helper', marker(sb, 'r1-credential.helper')],
      ['core.sshCommand', marker(sb, 'r1-core.sshCommand', 'exit 1')],
      ['core.askPass', marker(sb, 'r1-core.askPass')],
      ['commit.gpgsign', 'true'],
      ['tag.gpgsign', 'true'],
      ['gpg.program', marker(sb, 'r1-gpg.program', 'exit 1')],
      ['log.showSignature', 'true'],
      ['trailer.t.key', 'T'],
      ['trailer.t.cmd', marker(sb, 'r1-trailer.cmd')],
      ['gc.auto', '1'],
      ['gc.autoDetach', 'false'],
    ]);

    // R2: the keys come through include.path and includeIf; a hooks folder through core.hooksPath.
    const r2 = userRepo(join(sb.root, 'included'), 'a.txt diff=x\n');
    const hooksDir = join(sb.base, 'hooks-r2');
    markerHooks(sb, 'r2-hookspath', hooksDir);
    const include = join(r2, '.git', 'hostile.inc');
    setConfig(r2, [['include.path', 'hostile.inc']]);
    setConfig(
      r2,
      [
        ['core.fsmonitor', marker(sb, 'r2-include-core.fsmonitor')],
        ['core.hooksPath', hooksDir],
        ['diff.x.textconv', marker(sb, 'r2-diff.x.textconv', 'cat "$1"')],
        ['diff.x.command', marker(sb, 'r2-diff.x.command')],
      ],
      include,
    );
    const conditional = join(r2, '.git', 'conditional.inc');
    git(r2, 'config', '--local', 'includeIf.gitdir:**/included/.git.path', conditional);
    setConfig(
      r2,
      [
        ['commit.gpgsign', 'true'],
        ['gpg.format', 'ssh'],
        ['user.signingKey', 'key::ssh-ed25519 AAAA'],
        ['gpg.ssh.program', marker(sb, 'r2-gpg.ssh.program', 'exit 1')],
      ],
      conditional,
    );

    // R4, imported: no config of its own; the user's global config (in the sandbox HOME) has the keys, and its
    // init.templateDir puts marker hooks into every repo git init makes (the project 'fresh' below).
    const r4 = userRepo(join(sb.root, 'group', 'global'));
    const templates = join(sb.base, 'templates');
    markerHooks(sb, 'template-hook', join(templates, 'hooks'));
    const globalConfig = join(sb.home, '.gitconfig');
    writeFileSync(globalConfig, '');
    setConfig(
      r4,
      [
        ['core.fsmonitor', marker(sb, 'global-core.fsmonitor')],
        ['diff.external', marker(sb, 'global-diff.external')],
        ['core.pager', marker(sb, 'global-core.pager', 'cat')],
        ['core.editor', marker(sb, 'global-core.editor')],
        ['credential.helper', marker(sb, 'global-credential.helper')],
        ['core.sshCommand', marker(sb, 'global-core.sshCommand', 'exit 1')],
        ['core.askPass', marker(sb, 'global-core.askPass')],
        ['commit.gpgsign', 'true'],
        ['gpg.program', marker(sb, 'global-gpg.program', 'exit 1')],
        ['log.showSignature', 'true'],
        ['init.templateDir', templates],
        ['user.name', 'Dana'],
        ['user.email', 'dana@example.com'],
      ],
      globalConfig,
    );

    // Control: plain git, as the user runs it, fires every marker that can fire without a terminal or a network.
    const c1 = controlCopy(sb, r1, 'direct');
    userGit(sb, c1, 'status', '--porcelain');
    userGitMayFail(sb, c1, 'log', '-1');
    userGitMayFail(sb, c1, 'diff', 'HEAD~2', 'HEAD~1');
    userGitMayFail(sb, c1, 'commit', '--allow-empty');
    userGitMayFail(sb, c1, 'rebase', '-i', 'HEAD~1');
    userGitMayFail(sb, c1, 'ls-remote', 'ssh://example.invalid/repo');
    userGitMayFail(sb, c1, 'interpret-trailers', '--trailer', 't=v', '/dev/null');
    const c2 = controlCopy(sb, r2, 'included');
    userGit(sb, c2, 'status', '--porcelain');
    userGitMayFail(sb, c2, 'log', '-p', '--no-ext-diff', '-1', 'HEAD~1', '--', 'a.txt');
    userGitMayFail(sb, c2, 'diff', 'HEAD~2', 'HEAD~1');
    userGitMayFail(sb, c2, '-c', 'user.name=D', '-c', 'user.email=d@example.com', 'commit', '--allow-empty', '-m', 'x');
    const c4 = controlCopy(sb, r4, 'global');
    userGit(sb, c4, 'status', '--porcelain');
    userGitMayFail(sb, c4, 'log', '-1');
    userGitMayFail(sb, c4, 'diff', 'HEAD~2', 'HEAD~1');
    userGitMayFail(sb, c4, 'commit', '--allow-empty');
    userGitMayFail(sb, c4, 'ls-remote', 'ssh://example.invalid/repo');
    const c0 = join(sb.base, 'control', 'fresh');
    mkdirSync(c0);
    userGit(sb, c0, 'init', '-q');
    writeFileSync(join(c0, 'x'), 'x');
    userGitMayFail(sb, c0, '-c', 'commit.gpgsign=false', 'commit', '-q', '--allow-empty', '-m', 'x');
    expect(marks(sb)).toEqual(
      expect.arrayContaining([
        'r1-core.fsmonitor',
        'r1-gpg.program',
        'r1-diff.external',
        'r1-hook-pre-commit',
        'r1-core.editor',
        'r1-sequence.editor',
        'r1-core.sshCommand',
        'r1-trailer.cmd',
        'r2-include-core.fsmonitor',
        'r2-diff.x.textconv',
        'r2-diff.x.command',
        'r2-hookspath-pre-commit',
        'r2-gpg.ssh.program',
        'global-core.fsmonitor',
        'global-gpg.program',
        'global-diff.external',
        'global-core.editor',
        'global-core.sshCommand',
        'template-hook-pre-commit',
      ]),
    );
    clearMarks(sb);

    const api = await startTestServer({ dataDir: sb.data, allowedRoots: [sb.root] });
    const before = snapshot(sb);

    // create (an existing repo, and a plain folder git init-ed with the global templates), import, join.
    const p1 = (await api.ok(SecCreateProject, { input: { name: 'direct', workdir: r1 } })).createProject;
    const p2 = (await api.ok(SecCreateProject, { input: { name: 'included', workdir: r2 } })).createProject;
    const fresh = join(sb.root, 'fresh');
    mkdirSync(fresh);
    const p0 = (await api.ok(SecCreateProject, { input: { name: 'fresh', workdir: fresh } })).createProject;
    const imported = (await api.ok(SecImportProjects, { input: { root: join(sb.root, 'group') } })).importProjects;
    expect(imported.map((p) => p.workdir)).toEqual([r4]);
    const p4 = imported[0]!;
    for (const project of [p1, p2, p0, p4]) expect(project.autoCommit).toEqual({ state: 'ENABLED', unsafeKeys: [], message: null });

    await api.ok(CreateSession, { input: { sessionId: 's1', projectId: p1.projectId } });
    await api.ok(CreateSession, { input: { sessionId: 's2' } });
    await api.ok(AddSessionToProject, { input: { sessionId: 's2', projectId: p2.projectId } });
    await api.ok(CreateSession, { input: { sessionId: 's0', projectId: p0.projectId } });
    await api.ok(CreateSession, { input: { sessionId: 's4', projectId: p4.projectId } });

    // Turn start (status), turn end (status, add, commit), with and without touchedPaths, and recordTurn.
    await turnByMessages(api, 's1', r1, ['a.txt', 'c.txt']);
    await turnByMessages(api, 's2', r2, null);
    writeFileSync(join(fresh, 'a.txt'), 'fresh\n');
    await api.ok(RecordTurn, { input: { sessionId: 's0', user: { content: 'write a.txt' }, assistant: { content: 'ok' }, touchedPaths: ['a.txt'] } });
    await turnByMessages(api, 's4', r4, ['a.txt', 'c.txt']);
    for (const [sessionId, dir] of [
      ['s1', r1],
      ['s2', r2],
      ['s0', fresh],
      ['s4', r4],
    ] as const) {
      const result = await outcome(api, sessionId, 1);
      expect(result.result, sessionId).toBe('COMMITTED');
      expect(result.commit?.sha, sessionId).toBe(git(dir, 'rev-parse', 'HEAD').trim());
      expect(result.commit?.files.map((f) => f.path), sessionId).toContain('a.txt');
      expect(result.commit?.diff.files.find((f) => f.path === 'a.txt')?.patch, sessionId).toContain('+');
      // Our commits are never signed, whatever the config says.
      expect(git(dir, 'cat-file', 'commit', 'HEAD'), sessionId).not.toContain('gpgsig');
    }

    // Every read: working tree, history (with the signed commit), diffs, files.
    for (const project of [p1, p2, p0, p4]) {
      const view = await api.ok(SecProject, { projectId: project.projectId });
      expect(view.project?.workingTree.isRepo).toBe(true);
      expect(view.project?.history.edges.length).toBeGreaterThan(0);
    }
    const signed = (await api.ok(SecProject, { projectId: p1.projectId })).project!.history.edges[1]!.node;
    expect(signed.headline).toBe('signed');

    expect(marks(sb)).toEqual([]);
    expect(snapshot(sb)).toEqual(before);
  });

  it('filter drivers (local, included, global): no git add until the user trusts them, status with them switched off, trust pinned to the config', async () => {
    const sb = sandbox();
    const dir = userRepo(join(sb.root, 'filtered'), 'a.txt filter=x\nb.md filter=y\n');
    setConfig(dir, [
      ['filter.x.clean', marker(sb, 'filter.x.clean', 'cat')],
      ['filter.x.smudge', marker(sb, 'filter.x.smudge', 'cat')],
      ['filter.x.required', 'true'],
      ['include.path', 'filters.inc'],
    ]);
    setConfig(dir, [['filter.y.process', marker(sb, 'filter.y.process', 'exit 1')]], join(dir, '.git', 'filters.inc'));
    // The user's global config defines a driver too, for every file through their global attributes.
    writeFileSync(join(sb.home, '.gitattributes'), '*.txt filter=g\n');
    writeFileSync(
      join(sb.home, '.gitconfig'),
      `[core]\n\tattributesFile = ${join(sb.home, '.gitattributes')}\n[filter "g"]\n\tclean = ${marker(sb, 'filter.g.clean', 'cat')}\n`,
    );
    // An imported repo with a driver only in an included file.
    const other = userRepo(join(sb.root, 'group', 'other'), 'a.txt filter=z\n');
    setConfig(other, [['include.path', 'z.inc']]);
    setConfig(other, [['filter.z.clean', marker(sb, 'filter.z.clean', 'cat')]], join(other, '.git', 'z.inc'));

    // Control: the user's own git add and status run them.
    const copy = controlCopy(sb, dir, 'filtered');
    writeFileSync(join(copy, 'a.txt'), 'changed\n');
    userGitMayFail(sb, copy, 'status', '--porcelain');
    writeFileSync(join(copy, 'b.md'), 'changed\n');
    writeFileSync(join(copy, 'c.txt'), 'new\n');
    userGitMayFail(sb, copy, 'add', 'c.txt');
    userGitMayFail(sb, copy, 'add', '-A');
    expect(marks(sb)).toEqual(expect.arrayContaining(['filter.x.clean', 'filter.y.process', 'filter.g.clean']));
    clearMarks(sb);

    const api = await startTestServer({ dataDir: sb.data, allowedRoots: [sb.root] });
    const before = snapshot(sb);
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const { createProject } = await api.ok(SecCreateProject, { input: { name: 'filtered', workdir: dir } });
    const projectId = createProject.projectId;
    expect(createProject.autoCommit.state).toBe('DISABLED_UNSAFE_CONFIG');
    expect(createProject.autoCommit.unsafeKeys).toEqual(['filter.g.clean', 'filter.x.clean', 'filter.x.smudge', 'filter.y.process']);
    expect(createProject.autoCommit.message).toMatch(/filter\.x\.clean \(local config \.git\/config\)/);
    expect(createProject.autoCommit.message).toMatch(/filter\.y\.process \(local config .*filters\.inc\)/);
    expect(createProject.autoCommit.message).toMatch(/filter\.g\.clean \(global config .*\.gitconfig\)/);
    expect(createProject.autoCommit.message).toContain(`updateProject(input: { projectId: "${projectId}", trustRepoConfig: true })`);
    const imported = (await api.ok(SecImportProjects, { input: { root: join(sb.root, 'group') } })).importProjects;
    expect(imported.map((p) => [p.workdir, p.autoCommit.state, p.autoCommit.unsafeKeys])).toEqual([
      [other, 'DISABLED_UNSAFE_CONFIG', ['filter.g.clean', 'filter.z.clean']],
    ]);

    await api.ok(CreateSession, { input: { sessionId: 's', projectId } });
    await turnByMessages(api, 's', dir, ['a.txt', 'c.txt']);
    const refused = await outcome(api, 's', 1);
    expect(refused).toMatchObject({ result: 'FAILED', commit: null });
    expect(refused.message).toContain('filter.x.clean');
    expect(refused.message).toContain('trustRepoConfig: true');
    expect(git(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('agent s\n');
    // No lock file and no message file were made; the turn's claim is released.
    expect(listing(join(dir, '.git')).filter((p) => p.startsWith('entity-memory'))).toEqual(['entity-memory-claims']);
    // Reads run status with every driver switched off: the changed files show, no filter runs. b.md keeps its
    // size and gets a new mtime, so status must read it and compare (where git would run its clean filter).
    writeFileSync(join(dir, 'b.md'), '# B\n');
    utimesSync(join(dir, 'b.md'), new Date(Date.now() + 5_000), new Date(Date.now() + 5_000));
    const view = await api.ok(SecProject, { projectId });
    expect(view.project?.workingTree.dirtyPaths).toEqual(['a.txt', 'b.md', 'c.txt']);
    expect(view.project?.history.edges.map((e) => e.node.headline)).toEqual(['signed', 'second', 'initial']);
    expect(marks(sb)).toEqual([]);
    expect(snapshot(sb)).toEqual(before);

    // The user drops the included process driver (a broken one) and opts in to the rest: the next turn commits,
    // and their clean filters run, as their own git add would run them.
    git(dir, 'config', '--local', '--unset', 'include.path');
    const trusted = await api.ok(SecUpdateProject, { input: { projectId, trustRepoConfig: true } });
    expect(trusted.updateProject.autoCommit).toMatchObject({ state: 'TRUSTED', message: null });
    // The user puts the tree back, then the agent writes d.txt.
    writeFileSync(join(dir, 'a.txt'), 'two\n');
    writeFileSync(join(dir, 'b.md'), git(dir, 'cat-file', 'blob', 'HEAD:b.md'));
    rmSync(join(dir, 'c.txt'));
    clearMarks(sb);
    writeFileSync(join(dir, 'd.txt'), 'again\n');
    await api.ok(RecordTurn, { input: { sessionId: 's', user: { content: 'write d' }, assistant: { content: 'ok' }, touchedPaths: ['d.txt'] } });
    const committed = await outcome(api, 's', 2);
    expect(committed.result, committed.message ?? '').toBe('COMMITTED');
    expect(marks(sb)).toContain('filter.g.clean');

    // A driver added after the trust turns auto-commit off again.
    setConfig(dir, [['filter.w.clean', marker(sb, 'filter.w.clean', 'cat')]]);
    const changed = await api.ok(SecProject, { projectId });
    expect(changed.project?.autoCommit.state).toBe('DISABLED_UNSAFE_CONFIG');
    expect(changed.project?.autoCommit.message).toContain('changed since you trusted it');
    const withdrawn = await api.ok(SecUpdateProject, { input: { projectId, trustRepoConfig: false } });
    expect(withdrawn.updateProject.autoCommit.state).toBe('DISABLED_UNSAFE_CONFIG');
    expect(withdrawn.updateProject.autoCommit.message).not.toContain('changed since');
  });
});
