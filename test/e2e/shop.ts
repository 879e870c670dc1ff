/** What the browser tests of a session in a project start from. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { CreateProject } from '../projects/operations.js';
import { FAST_COMMITTER, userGit } from '../projects/project-turns.js';

/** A server allowed a fresh folder holding `shop/`, a user's repo with one commit (README.md and an empty src/), made the project "Shop". */
export async function shopProject(prefix: string): Promise<{ api: TestServer; root: string; workdir: string; projectId: string }> {
  const root = tempDir(prefix);
  const api = await startTestServer({ allowedRoots: [root] }, { projectCommitter: FAST_COMMITTER });
  const workdir = join(root, 'shop');
  mkdirSync(join(workdir, 'src'), { recursive: true });
  userGit(workdir, 'init', '-q', '-b', 'main');
  writeFileSync(join(workdir, 'README.md'), '# Shop\n');
  userGit(workdir, 'add', '-A');
  userGit(workdir, 'commit', '-q', '-m', 'Start the shop');
  const { createProject } = await api.ok(CreateProject, { input: { name: 'Shop', workdir } });
  return { api, root, workdir, projectId: createProject.projectId };
}
