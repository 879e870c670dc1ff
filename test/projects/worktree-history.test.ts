/**
 * Projects whose `.git` is a file, not a folder: a `git worktree add`
 * checkout (git dir `<main>/.git/worktrees/<name>`, refs in the main repo's
 * common dir) and a submodule checkout (git dir `<super>/.git/modules/<name>`).
 * Their commits are read through the API like any other project's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/git.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { CreateProject, ProjectView } from './operations.js';

const userGit = (dir: string, ...args: string[]) => git(dir, '-c', 'user.name=Dana', '-c', 'user.email=dana@example.com', ...args);

/** A repo with one commit by the user. */
function userRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), '# app\n');
  userGit(dir, 'add', '-A');
  userGit(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

/** Commits one new file in `dir` as the user. */
function commitFile(dir: string, path: string, text: string, message: string): string {
  writeFileSync(join(dir, path), text);
  userGit(dir, 'add', '--', path);
  userGit(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD').trim();
}

// Commit reads that are not in ProjectView: the tree's files, one file's text, and the commit by sha.
const COMMIT_READS = `
  query CommitReads($projectId: String!) {
    project(projectId: $projectId) {
      history(first: 5) { totalCount edges { node { sha files { path } file(path: "README.md") { text } } } }
    }
  }
`;

async function expectHistory(api: TestServer, workdir: string, headlines: string[], newest: { path: string; files: string[] }) {
  const { createProject } = await api.ok(CreateProject, { input: { name: 'checkout', workdir } });
  const projectId = createProject.projectId;
  const view = await api.request(ProjectView, { projectId });
  expect(view.errors).toBeUndefined();
  const history = view.data!.project!.history;
  expect(history.totalCount).toBe(headlines.length);
  expect(history.edges.map((e) => e.node.headline)).toEqual(headlines);
  expect(history.edges[0]!.node.sha).toBe(git(workdir, 'rev-parse', 'HEAD').trim());
  expect(history.edges[0]!.node.author).toEqual({ name: 'Dana', email: 'dana@example.com' });
  expect(history.edges[0]!.node.diff.files).toEqual([{ path: newest.path, status: 'ADDED' }]);

  const reads = await api.raw(COMMIT_READS, { projectId });
  expect(reads.errors).toBeUndefined();
  const node = (reads.data as { project: { history: { edges: { node: { sha: string; files: { path: string }[]; file: { text: string } | null } }[] } } })
    .project.history.edges[0]!.node;
  expect(node.files.map((f) => f.path).sort()).toEqual(newest.files);
  expect(node.file?.text).toBe('# app\n');
}

describe('project commit reads where .git is a file', () => {
  it('reads the history, diff and files of a git worktree checkout', async () => {
    const root = tempDir('em-worktree-');
    const api = await startTestServer({ allowedRoots: [root] });
    const main = userRepo(join(root, 'app'));
    const checkout = join(root, 'app-feature');
    git(main, 'worktree', 'add', '-q', '-b', 'feature', checkout);
    commitFile(checkout, 'feature.txt', 'on the feature branch\n', 'feature work');
    // The main checkout moves on too: the worktree's history must be its own branch's, not main's.
    commitFile(main, 'main.txt', 'on main\n', 'main work');

    await expectHistory(api, checkout, ['feature work', 'initial'], { path: 'feature.txt', files: ['README.md', 'feature.txt'] });
  });

  it('reads the history, diff and files of a submodule checkout', async () => {
    const root = tempDir('em-submodule-');
    const api = await startTestServer({ allowedRoots: [root] });
    const library = userRepo(join(root, 'library'));
    commitFile(library, 'lib.txt', 'library code\n', 'library work');
    const superproject = userRepo(join(root, 'super'));
    git(superproject, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'lib');
    userGit(superproject, 'commit', '-q', '-m', 'add the library');
    const checkout = join(superproject, 'lib');
    commitFile(checkout, 'more.txt', 'more\n', 'work inside the submodule');

    await expectHistory(api, checkout, ['work inside the submodule', 'library work', 'initial'], {
      path: 'more.txt',
      files: ['README.md', 'lib.txt', 'more.txt'],
    });
  });
});
