/**
 * Bounded cost against a real server: the cost bombs on a session of
 * a few hundred turns are refused with BAD_USER_INPUT and their numbers before
 * any git process starts; the most expensive queries still allowed run within
 * the per-request budgets; what the query's shape cannot tell (many branches,
 * huge messages) is stopped by the git and text budgets; `/health` keeps
 * answering throughout.
 */
import { describe, expect, it } from 'vitest';
import { onGitSpawn } from '../../src/git/run.js';
import { clearShaCache } from '../../src/git/sha-cache.js';
import { REQUEST_GIT_PROCESSES, REQUEST_TEXT_BYTES } from '../../src/request-context.js';
import { BLOB_TEXT_MAX_BYTES, PATCH_MAX_BYTES } from '../../src/services/replay/read-commits.js';
import { MAX_COST } from '../../src/schema/cost.js';
import { startTestServer, type Result, type TestServer } from '../helpers/server.js';
import { wsClient } from '../helpers/ws.js';

const TURNS = 300;

/**
 * Recording and mirroring 300 turns takes 15 s here, and 120 to 180 s under `.ci/run` with four
 * busy loops on the 2 cores; give a loaded machine room.
 */
const LONG = 480_000;

/** Records `turns` closed turns (user, assistant, one tool result) and waits until all are committed to git. */
async function longSession(api: TestServer, sessionId: string, turns: number, content = (n: number) => `message of turn ${n}`) {
  await ok(api, `mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`);
  for (let n = 1; n <= turns; n++) {
    await ok(
      api,
      `mutation T($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`,
      {
        input: {
          sessionId,
          user: { content: content(n) },
          assistant: { content: `reply ${n}` },
          toolResults: [{ content: `tool output ${n}`, toolName: 'list' }],
        },
      },
    );
  }
  await mirrored(api, sessionId);
}

/** Waits until every closed turn of the session is a commit (the mirror works in the background). */
async function mirrored(api: TestServer, sessionId: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const data = await ok<{ session: { mirror: { inSync: boolean; pending: number } } }>(
      api,
      `{ session(sessionId: "${sessionId}") { mirror { inSync pending } } }`,
    );
    if (data.session.mirror.inSync) {
      // The checkout follows the commit after it is recorded: its git runs must not land in a count.
      await api.repoSettled(sessionId);
      return;
    }
    if (Date.now() > deadline) throw new Error(`session ${sessionId} never got in sync: ${JSON.stringify(data)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function ok<T = Record<string, unknown>>(api: TestServer, query: string, variables?: Record<string, unknown>): Promise<T> {
  const result = await api.raw(query, variables);
  if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors)}`);
  return result.data as T;
}

/** Runs `work` while /health is asked back to back; returns its result and every /health latency (ms). */
async function withHealthProbe<T>(api: TestServer, work: () => Promise<T>): Promise<{ result: T; latencies: number[] }> {
  const latencies: number[] = [];
  let done = false;
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const response = await fetch(`${api.url}/health`);
      await response.arrayBuffer();
      latencies.push(performance.now() - started);
      expect(response.status).toBe(200);
    }
  })();
  try {
    const result = await work();
    return { result, latencies };
  } finally {
    done = true;
    await probe;
  }
}

function summary(latencies: number[]): { p50: number; max: number; count: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    p50: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
    max: Math.round(sorted[sorted.length - 1] ?? 0),
    count: sorted.length,
  };
}

/** Counts git processes started while `work` runs. */
async function countingSpawns<T>(work: () => Promise<T>): Promise<{ result: T; spawns: number }> {
  let spawns = 0;
  const stop = onGitSpawn(() => {
    spawns += 1;
  });
  try {
    return { result: await work(), spawns };
  } finally {
    stop();
  }
}

function codes(result: Result<unknown>): (string | undefined)[] {
  return (result.errors ?? []).map((e) => e.extensions?.code);
}

const messagesBomb = (alias = 'a') =>
  `${alias}: session(sessionId: "big") { timeline(first: 500) { edges { node { messages { content } } } } }`;
const patchBomb = `session(sessionId: "big") { timeline(first: 500) { edges { node { diff { files { patch } } } } } }`;

describe('cost limit', () => {
  it(`refuses the issue's cost bombs on a ${TURNS}-turn session with BAD_USER_INPUT and the numbers, before any git process, while /health answers`, async () => {
    const api = await startTestServer();
    await longSession(api, 'big', TURNS);

    const bombs = {
      'timeline(first:500) { messages { content } }': `{ ${messagesBomb()} }`,
      'three aliases of it': `{ ${messagesBomb('a')} ${messagesBomb('b')} ${messagesBomb('c')} }`,
      'timeline(first:500) { diff { files { patch } } }': `{ ${patchBomb} }`,
      'sessions(first:500) { head { diff } }': `{ sessions(first: 500) { edges { node { head { diff { files { path } } } } } } }`,
      'messages(first:500) { successors { successors { content } } }': `{ session(sessionId: "big") { messages(first: 500) { edges { node { successors { successors { content } } } } } } }`,
    };
    const all: number[] = [];
    for (const [name, query] of Object.entries(bombs)) {
      const { result, latencies } = await withHealthProbe(api, () => countingSpawns(() => api.raw(query)));
      all.push(...latencies);
      expect(result.spawns, name).toBe(0);
      const { errors, data } = result.result;
      expect(errors?.length, name).toBeGreaterThan(0);
      expect(new Set(codes(result.result)), name).toEqual(new Set(['BAD_USER_INPUT']));
      const error = errors![0]!;
      expect(error.extensions?.maxCost, name).toBe(MAX_COST);
      expect(error.extensions?.cost as number, name).toBeGreaterThan(MAX_COST);
      expect(error.message, name).toMatch(/^This query costs \d+, more than the 10000 one request may cost: ask for fewer items with first:/);
      // Nothing was resolved: every root field is null.
      expect(Object.values(data ?? {}).every((value) => value === null), name).toBe(true);
    }
    const health = summary(all);
    console.log(`/health while the cost bombs were refused: p50 ${health.p50} ms, max ${health.max} ms over ${health.count} requests`);
    expect(health.max).toBeLessThan(1000);
  }, LONG);

  it('counts first: (its default too) and the git-backed fields, and takes what the existing clients ask', async () => {
    const api = await startTestServer();
    await ok(api, `mutation { createSession(input: { sessionId: "s" }) { sessionId } }`);
    const cost = async (query: string) => {
      const result = await api.raw(query);
      return result.errors?.[0]?.extensions?.cost as number | undefined;
    };
    // Within the limit: no error at all.
    expect(await cost(`{ session(sessionId: "s") { timeline(first: 500) { edges { node { sha headline author { name date } } } } } }`)).toBeUndefined();
    expect(await cost(`{ session(sessionId: "s") { messages(first: 500) { totalCount edges { node { seq role content } } } } }`)).toBeUndefined();
    expect(await cost(`{ session(sessionId: "s") { timeline(first: 20) { edges { node { diff { files { path patch truncated } } } } } } }`)).toBeUndefined();
    // first: multiplies, and omitting it counts 50: session 1, timeline 6 × 5 (a branch's timeline is read
    // from the database: the branch, its tip, its path, the page and its count), each commit 1 + diff 150 + additions 1.
    const page = (first: string) => `{ session(sessionId: "s") { timeline${first} { edges { node { diff { additions } } } } } }`;
    expect(await cost(page('(first: 70)'))).toBe(1 + 30 + 70 * 152);
    expect(await cost(page(''))).toBeUndefined();
    expect(await cost(page('(first: 60)'))).toBeUndefined();
    // Commit.messages is counted 50 times when first: is omitted.
    const messages = (first: number, inner: string) =>
      `{ session(sessionId: "s") { timeline(first: ${first}) { edges { node { ${inner} } } } } }`;
    expect(await cost(messages(200, 'messages { content }'))).toBe(1 + 30 + 200 * (1 + 20 + 50 * 1));
    expect(await cost(messages(200, 'messages(first: 5) { content }'))).toBeUndefined();
    // A variable counts like a literal.
    const byVariable = await api.raw(`query Q($n: Int) { session(sessionId: "s") { timeline(first: $n) { edges { node { diff { additions } } } } } }`, {
      n: 400,
    });
    expect(codes(byVariable)).toEqual(['BAD_USER_INPUT']);
    expect(byVariable.errors![0]!.extensions?.cost).toBeGreaterThan(MAX_COST);
  });

  it('refuses an over-cost subscription when it is set up, over graphql-ws', async () => {
    const api = await startTestServer();
    const client = wsClient(api.url, api.token ? { connectionParams: { token: api.token } } : {});
    const query = `subscription { turnCommitted { session { messages(first: 500) { edges { node { successors { successors { content } } } } } } } }`;
    const errors = await new Promise<readonly { message: string; extensions?: Record<string, unknown> }[]>((resolve) => {
      client.subscribe(
        { query },
        {
          next: (value) => resolve(value.errors ?? []),
          error: (error) => resolve(error as { message: string }[]),
          complete: () => {},
        },
      );
    });
    expect(errors[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(errors[0]?.message).toMatch(/^This query costs \d+/);
  });
});

describe('per-request budgets', () => {
  it(`stops a request that needs more than ${REQUEST_GIT_PROCESSES} git processes on the fields beyond it, with BAD_USER_INPUT saying how to page`, async () => {
    const api = await startTestServer();
    // A turn's commit sha and headline come from the database; its git fields (message), asked for
    // together, share one git process per repo: spread over 70 sessions they need 70 processes.
    const sessions = 70;
    for (let n = 1; n <= sessions; n++) await longSession(api, `s${n}`, 1);
    const query = `{ sessions(first: ${sessions}) { edges { node { sessionId turns(first: 1) { edges { node { commit { message } } } } } } } }`;
    // What git already said of these commits (the mirror's events read some) would answer without
    // a process (src/git/sha-cache.ts): forgotten, so every message needs git.
    clearShaCache();
    const headlines = await countingSpawns(() => api.raw(query.replace('commit { message }', 'commit { headline }')));
    expect([headlines.spawns, headlines.result.errors]).toEqual([0, undefined]);
    const { result, spawns } = await countingSpawns(() => api.raw(query));
    expect(spawns).toBe(REQUEST_GIT_PROCESSES);
    const edges = (result.data as { sessions: { edges: { node: { turns: { edges: { node: { commit: { message: string } | null } }[] } } }[] } })
      .sessions.edges;
    const commits = edges.map((edge) => edge.node.turns.edges[0]!.node.commit);
    expect(commits.filter((c) => c !== null)).toHaveLength(REQUEST_GIT_PROCESSES);
    expect(result.errors).toHaveLength(sessions - REQUEST_GIT_PROCESSES);
    expect(new Set(codes(result))).toEqual(new Set(['BAD_USER_INPUT']));
    const error = result.errors![0]!;
    expect(error.path?.at(-1)).toBe('commit');
    expect(error.message).toContain(`more git work than one request may do (at most ${REQUEST_GIT_PROCESSES} git processes)`);
    expect(error.message).toContain('first:');
    expect(error.extensions?.gitProcessLimit).toBe(REQUEST_GIT_PROCESSES);
    // Paged, it fits: the next request has a budget of its own.
    const paged = await api.raw(`{ sessions(first: 50) { edges { node { turns(first: 1) { edges { node { commit { message } } } } } } } }`);
    expect(paged.errors).toBeUndefined();
  }, LONG);

  it(`stops a request reading more than ${REQUEST_TEXT_BYTES} bytes of message content, from the message that does not fit`, async () => {
    const api = await startTestServer();
    const big = 7 * 1024 * 1024;
    await longSession(api, 'huge', 3, (n) => String(n).repeat(big));
    const small = await api.raw(`{ session(sessionId: "huge") { messages(first: 6) { edges { node { seq content } } } } }`);
    expect(small.errors).toBeUndefined();

    const result = await api.raw(`{ session(sessionId: "huge") { messages { edges { node { seq content } } } } }`);
    // Seq 1 and 4 (7 MiB each) fit in 16 MiB with the small ones; seq 7 does not.
    expect(result.errors?.map((e) => e.path)).toEqual([['session', 'messages', 'edges', 6, 'node', 'content']]);
    expect(new Set(codes(result))).toEqual(new Set(['BAD_USER_INPUT']));
    expect(result.errors![0]!.message).toContain(`more text than one request may (at most ${REQUEST_TEXT_BYTES} bytes`);
    expect(result.errors![0]!.message).toContain('first:');
    expect(result.errors![0]!.extensions?.byteLimit).toBe(REQUEST_TEXT_BYTES);
    // content is non-null: the error reaches up to the session, and no text is sent.
    expect(result.data).toEqual({ session: null });
  });

  it(`caps a patch at ${PATCH_MAX_BYTES} bytes and a file's text at ${BLOB_TEXT_MAX_BYTES}, with truncated set`, async () => {
    const api = await startTestServer();
    const line = 'x'.repeat(99) + '\n';
    await longSession(api, 'wide', 1, () => line.repeat(15_000)); // 1.5 MB of text in one message
    const data = await ok<{
      session: {
        head: {
          diff: { files: { path: string; patch: string; truncated: boolean }[] };
          files: { path: string; size: number }[];
        };
      };
    }>(api, `{ session(sessionId: "wide") { head { diff { files { path patch truncated } } files { path size } } } }`);
    const userFile = data.session.head.diff.files.find((f) => /-u-/.test(f.path))!;
    expect(userFile.truncated).toBe(true);
    expect(Buffer.byteLength(userFile.patch)).toBeLessThanOrEqual(PATCH_MAX_BYTES);
    expect(userFile.patch.endsWith('\n')).toBe(true);
    const small = data.session.head.diff.files.find((f) => /-a-/.test(f.path))!;
    expect(small.truncated).toBe(false);

    const entry = data.session.head.files.find((f) => f.path === userFile.path)!;
    const blob = await ok<{ session: { head: { file: { size: number; text: string; truncated: boolean; isBinary: boolean } } } }>(
      api,
      `query F($path: String!) { session(sessionId: "wide") { head { file(path: $path) { size text truncated isBinary } } } }`,
      { path: userFile.path },
    );
    expect(blob.session.head.file.size).toBe(entry.size);
    expect(blob.session.head.file.size).toBeGreaterThan(BLOB_TEXT_MAX_BYTES);
    expect(blob.session.head.file.truncated).toBe(true);
    expect(blob.session.head.file.isBinary).toBe(false);
    expect(Buffer.byteLength(blob.session.head.file.text)).toBeLessThanOrEqual(BLOB_TEXT_MAX_BYTES);
  });
});

describe('the worst allowed query', () => {
  it(`runs on a ${TURNS}-turn session within the budgets, repeatedly, while /health answers`, async () => {
    const api = await startTestServer();
    await longSession(api, 'big', TURNS);
    // Just under the limit: 28 commits with their diffs and patches (two git
    // processes each), and a page of 200 messages with their content.
    const worst = `{
      session(sessionId: "big") {
        timeline(first: 28) { edges { node { sha headline diff { additions files { path patch } } } } }
        messages(first: 200) { edges { node { seq content } } }
      }
    }`;
    const { result: runs, latencies } = await withHealthProbe(api, async () => {
      const all: Result<Record<string, unknown>>[] = [];
      for (let i = 0; i < 3; i++) all.push(await api.raw(worst));
      return all;
    });
    for (const run of runs) {
      expect(run.errors).toBeUndefined();
      const session = run.data!.session as { timeline: { edges: unknown[] }; messages: { edges: unknown[] } };
      expect(session.timeline.edges).toHaveLength(28);
      expect(session.messages.edges).toHaveLength(200);
    }
    const health = summary(latencies);
    console.log(`/health while the worst allowed query ran 3 times: p50 ${health.p50} ms, max ${health.max} ms over ${health.count} requests`);
    expect(health.max).toBeLessThan(1000);
  }, LONG);
});
