/**
 * `import codex --follow` and `import gemini --follow` (src/importers/follow.ts with the formats
 * of codex/files.ts and gemini/files.ts) against a real server: a rollout or chat file written in
 * parts gives, turn by turn, the session an import of the whole file gives. Each step is read
 * with follower.check(), which returns once what it read is sent: nothing is timed.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROLLOUT_FOLLOW } from '../../src/importers/codex/files.js';
import type { FollowFormat } from '../../src/importers/follow-format.js';
import { TranscriptFollower } from '../../src/importers/follow.js';
import { GEMINI_FOLLOW } from '../../src/importers/gemini/files.js';
import { httpImportTarget } from '../../src/importers/http-target.js';
import { onCleanup } from '../helpers/leftovers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';

const fixtures = join(import.meta.dirname, '..', 'importers', 'fixtures');
const ROLLOUT = join(fixtures, 'codex', '2026', '12', '04', 'rollout-2026-12-04T16-32-40-01a241e6-968d-7220-bfa2-5111bc4f04a1.jsonl');
const CHAT = join(fixtures, 'gemini', 'shop', 'chats', 'session-2026-12-04T16-39-7a1b7ca5.jsonl');

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `${line}\n`);
}

const SESSION = `query ($id: String!) {
  session(sessionId: $id) {
    source
    branches { name }
    turns(first: 20) { edges { node { number open } } }
    messages(first: 100) { edges { node { messageId role content } } }
  }
}`;

interface Seen {
  source: string;
  branches: { name: string }[];
  turns: { edges: { node: { number: number; open: boolean } }[] };
  messages: { edges: { node: { messageId: string; role: string; content: string } }[] };
}

async function read(api: TestServer, id: string): Promise<Seen> {
  const result = await api.raw(SESSION, { id });
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
  return (result.data as { session: Seen }).session;
}

const turns = (seen: Seen) => seen.turns.edges.map((e) => e.node);

async function follow(api: TestServer, folder: string, format: FollowFormat) {
  const problems: string[] = [];
  const follower = new TranscriptFollower({
    target: httpImportTarget({ url: api.url, token: api.token }),
    paths: [folder],
    format,
    // Never by idleness here: each turn closes by what the file says.
    idleCloseMs: 3_600_000,
    onProblem: (file, problem) => problems.push(`${file}:${problem.line}: ${problem.message}`),
  });
  onCleanup(() => follower.stop());
  await follower.start();
  return { follower, problems };
}

describe('following Codex rollouts', () => {
  it('keeps a turn open until its task_complete, then closes it; the rollback a fork, as the whole import makes it', async () => {
    const api = await startTestServer();
    const folder = join(tempDir(), 'sessions');
    mkdirSync(join(folder, '2026', '12', '04'), { recursive: true });
    const file = join(folder, '2026', '12', '04', 'rollout-2026-12-04T16-32-40-01a241e6-968d-7220-bfa2-5111bc4f04a1.jsonl');
    const all = lines(ROLLOUT);
    const complete = all.findIndex((line) => line.includes('"task_complete"'));
    // Turn 1 up to its first tool output.
    writeFileSync(file, all.slice(0, 12).join(''));
    const { follower, problems } = await follow(api, folder, ROLLOUT_FOLLOW);
    const id = '01a241e6-968d-7220-bfa2-5111bc4f04a1';
    expect(turns(await read(api, id))).toEqual([{ number: 1, open: true }]);

    // Its final reply, not yet its task_complete: still open.
    appendFileSync(file, all.slice(12, complete).join(''));
    await follower.check();
    expect(turns(await read(api, id))).toEqual([{ number: 1, open: true }]);

    // task_complete makes no message, and closes the turn.
    appendFileSync(file, all[complete]!);
    await follower.check();
    expect(turns(await read(api, id))).toEqual([{ number: 1, open: false }]);

    appendFileSync(file, all.slice(complete + 1).join(''));
    await follower.check();
    const seen = await read(api, id);
    expect(seen.source).toBe('codex');
    expect(seen.branches.map((b) => b.name)).toEqual(['main', 'fork-msg_01a241e6-b100-7000-8000-000000000010']);
    expect(seen.messages.edges.map((e) => e.node.content)).toEqual([
      'Why is the total off by a cent?',
      '',
      'Exit code: 0\nOutput:\ntotal = price * qty\n',
      '',
      'Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM cart.js\n',
      'It multiplied floats; it rounds to cents now.',
      'Instead, explain the fix in a comment.',
      'Added a comment above the rounding.',
    ]);
    expect(problems).toEqual([]);
  }, 60_000);
});

describe('following Gemini chats', () => {
  it('updates a reply written again with its tool calls, adds nothing for the resumed history, and forks at the rewind', async () => {
    const api = await startTestServer();
    const folder = join(tempDir(), 'tmp', 'shop', 'chats');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, 'session-2026-12-04T16-39-7a1b7ca5.jsonl');
    const all = lines(CHAT);
    // Up to the reply written without its tool calls.
    writeFileSync(file, all.slice(0, 6).join(''));
    const { follower, problems } = await follow(api, join(folder, '..', '..'), GEMINI_FOLLOW);
    const id = '7a1b7ca5-dad9-4864-96c9-c2febb528024';
    expect((await read(api, id)).messages.edges.map((e) => e.node.role)).toEqual(['USER', 'ASSISTANT']);

    for (const line of all.slice(6)) {
      appendFileSync(file, line);
      await follower.check();
    }
    const seen = await read(api, id);
    expect(seen.source).toBe('gemini');
    expect(seen.branches.map((b) => b.name)).toEqual(['main', 'fork-0c6a1f2e-0000-4000-8000-000000000002']);
    expect(seen.messages.edges.map((e) => e.node.role)).toEqual(['USER', 'ASSISTANT', 'TOOL', 'ASSISTANT', 'USER', 'ASSISTANT']);
    expect(problems).toEqual([]);
  }, 60_000);
});
