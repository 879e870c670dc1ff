import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, git } from '../helpers/git.js';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');

function serve(dataDir: string, root: string) {
  const child = spawn(process.execPath, [bin, 'serve', '--data-dir', dataDir, '--port', '0', '--allowed-root', root, '--log-level', 'silent'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onCleanup(() => child.exitCode === null && child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { child, url: () => /GraphiQL at (http:\/\/\S+)\/graphql/.exec(out)?.[1] };
}

async function post<T>(url: string, query: string): Promise<T> {
  const response = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  const body = (await response.json()) as { data: T; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

describe('two server processes on one working directory', () => {
  it('serialize their commits through the lock file: none is lost', async () => {
    const root = tempDir('em-shared-');
    const dir = join(root, 'shared');
    mkdirSync(dir);
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'README.md'), 'x\n');
    git(dir, '-c', 'user.name=U', '-c', 'user.email=u@example.com', 'add', '-A');
    git(dir, '-c', 'user.name=U', '-c', 'user.email=u@example.com', 'commit', '-q', '-m', 'initial');

    const servers = [serve(tempDir(), root), serve(tempDir(), root)];
    const urls = await Promise.all(servers.map((s) => eventually(async () => s.url())));
    const turns = 8;
    await Promise.all(
      urls.map(async (url, i) => {
        const { createProject } = await post<{ createProject: { projectId: string } }>(
          url,
          `mutation { createProject(input: { name: "shared", workdir: ${JSON.stringify(dir)} }) { projectId } }`,
        );
        await post(url, `mutation { createSession(input: { sessionId: "p${i}", projectId: "${createProject.projectId}" }) { sessionId } }`);
        for (let n = 1; n <= turns; n++) {
          const file = `p${i}-${n}.txt`;
          writeFileSync(join(dir, file), `${i} ${n}\n`);
          await post(
            url,
            `mutation { recordTurn(input: { sessionId: "p${i}", user: { content: "write ${file}" }, assistant: { content: "ok" }, touchedPaths: ["${file}"] }) { number } }`,
          );
        }
      }),
    );
    const results = await Promise.all(
      urls.map((url, i) =>
        eventually(async () => {
          const data = await post<{ session: { turns: { edges: { node: { projectCommit: { result: string } | null } }[] } } }>(
            url,
            `{ session(sessionId: "p${i}") { turns(first: 50) { edges { node { projectCommit { result } } } } } }`,
          );
          const outcomes = data.session.turns.edges.map((e) => e.node.projectCommit?.result);
          return outcomes.every((o) => o !== undefined && o !== 'PENDING') ? outcomes : undefined;
        }, 60_000),
      ),
    );
    for (const outcomes of results) expect(outcomes).toEqual(Array.from({ length: turns }, () => 'COMMITTED'));
    expect(git(dir, 'rev-list', '--count', 'HEAD').trim()).toBe(String(1 + 2 * turns));
    expect(git(dir, 'status', '--porcelain')).toBe('');
    for (const server of servers) server.child.kill('SIGTERM');
  });
});
