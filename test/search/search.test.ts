/**
 * Full-text search over a real server's database (both passes: SQLite's FTS5 index, PostgreSQL's
 * tsvector): every write path's text findable as soon as the write is answered, the query
 * language (words, phrases, -words, prefixes, qualifiers), filters, ranking, cursors, snippets
 * and their highlights, and bad queries answered BAD_USER_INPUT with where, never a database's
 * own error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onSqlStatement } from '../../src/db/index.js';
import { RANKED_MATCHES } from '../../src/services/search/search.js';
import { onlyError, startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import { claudeEvents, runHook } from '../hooks/hook-events.js';
import { CreateProject } from '../projects/operations.js';
import { userRepo } from '../projects/project-turns.js';

const SEARCH = `
  query Search($query: String!, $filter: SearchFilter, $first: Int, $after: String) {
    search(query: $query, filter: $filter, first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { cursor node { rank turnNumber snippet highlights { start end } session { sessionId } message { messageId role content } } }
    }
  }`;

interface Hit {
  rank: number;
  turnNumber: number | null;
  snippet: string;
  highlights: { start: number; end: number }[];
  session: { sessionId: string };
  message: { messageId: string; role: string; content: string };
}
interface Found {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: { cursor: string; node: Hit }[];
}

async function search(api: TestServer, query: string, rest: { filter?: object; first?: number; after?: string } = {}): Promise<Found> {
  const result = await api.raw(SEARCH, { query, ...rest });
  if (result.errors?.length) throw new Error(`${query}: ${JSON.stringify(result.errors)}`);
  return (result.data as { search: Found }).search;
}

/** The (session, message) of each hit, in order. */
async function found(api: TestServer, query: string, rest: { filter?: object; first?: number } = {}): Promise<string[]> {
  return (await search(api, query, rest)).edges.map((e) => `${e.node.session.sessionId}/${e.node.message.messageId}`);
}

/** The highlighted parts of a hit's snippet. */
const marked = (hit: Hit) => hit.highlights.map((h) => hit.snippet.slice(h.start, h.end));

async function session(api: TestServer, sessionId: string, extra = ''): Promise<void> {
  const result = await api.raw(`mutation { createSession(input: { sessionId: "${sessionId}" ${extra} }) { sessionId } }`);
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
}

async function recordTurn(api: TestServer, input: object): Promise<void> {
  const result = await api.raw(`mutation ($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`, { input });
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
}

async function append(api: TestServer, sessionId: string, role: string, content: string, messageId: string): Promise<void> {
  const result = await api.raw(`mutation ($input: AppendMessageInput!) { appendMessage(input: $input) { seq } }`, {
    input: { sessionId, role, content, messageId },
  });
  if (result.errors?.length) throw new Error(JSON.stringify(result.errors));
}

describe('search: every write is findable once it is answered', () => {
  it('recordTurn: the text, the tool calls\' inputs (path:, tool:) and the turn of each hit', async () => {
    const api = await startTestServer();
    await session(api, 'login');
    await recordTurn(api, {
      sessionId: 'login',
      user: { content: 'Fix the flaky login_bug in the checkout', messageId: 'u1' },
      assistant: {
        content: 'I removed the stale build folder and fixed it.',
        messageId: 'a1',
        metadata: { toolCalls: [{ id: 'toolu_1', name: 'Bash', input: { command: 'rm -rf build/cache' } }, { id: 'toolu_2', name: 'Edit', input: { file_path: 'src/auth/session.ts' } }] },
      },
      toolResults: [{ content: 'removed 12 files', toolName: 'Bash', toolCallId: 'toolu_1', messageId: 't1' }],
    });
    expect(await found(api, 'login bug')).toEqual(['login/u1']);
    const hit = (await search(api, '"login bug"')).edges[0]!.node;
    expect(hit).toMatchObject({ turnNumber: 1, message: { role: 'USER' }, snippet: 'Fix the flaky login_bug in the checkout' });
    expect(marked(hit)).toEqual(['login', 'bug']);
    // The command and the path are among the tools' inputs: path: and tool: find the assistant's call.
    expect(await found(api, 'path:src/auth/session.ts')).toEqual(['login/a1']);
    expect(await found(api, 'path:build/cache')).toEqual(['login/a1']);
    const byTool = await search(api, 'tool:Bash rm');
    expect(byTool.edges.map((e) => e.node.message.messageId)).toEqual(['a1']);
    // Matched only in the tools' inputs: the snippet is from there, with the match marked.
    expect(marked(byTool.edges[0]!.node)).toContain('rm');
    expect(byTool.edges[0]!.node.snippet).toContain('rm -rf build/cache');
    expect(await found(api, 'tool:Bash', { filter: { role: 'TOOL' } })).toEqual(['login/t1']);
    // Text words are not tools' words.
    expect(await found(api, 'path:checkout')).toEqual([]);
  });

  it('appendMessage and updateMessage: new words at once, replaced words gone', async () => {
    const api = await startTestServer();
    await session(api, 'live');
    await append(api, 'live', 'USER', 'Why does the quokka parser hang?', 'u1');
    expect(await found(api, 'quokka')).toEqual(['live/u1']);
    await append(api, 'live', 'ASSISTANT', 'Thinking…', 'a1');
    expect(await found(api, 'wombat')).toEqual([]);
    const updated = await api.raw(`mutation { updateMessage(input: { sessionId: "live", messageId: "a1", content: "The wombat lexer loops on CRLF." }) { messageId } }`);
    expect(updated.errors).toBeUndefined();
    expect(await found(api, 'wombat lexer')).toEqual(['live/a1']);
    expect(await found(api, 'thinking')).toEqual([]);
  });

  it("hooks and imports: a Claude Code session's prompt, tool input and reply; a transcript's text", async () => {
    const root = tempDir('em-search-');
    const api = await startTestServer({ allowedRoots: [root] });
    const c = claudeEvents('hooked', root);
    for (const event of [
      c.prompt('p1', 'Rename the frobnicator module'),
      c.postTool('p1', 'toolu_1', 'Bash', { command: 'git mv lib/frob.js lib/frobnicator.js' }, { stdout: '' }),
      c.stop('p1', 'Renamed it.'),
    ]) {
      expect(await runHook('claude-code', api.dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    expect((await search(api, 'frobnicator', { filter: { sessionId: 'hooked', role: 'USER' } })).edges).toHaveLength(1);
    expect((await search(api, 'path:lib/frob.js')).edges.map((e) => e.node.session.sessionId)).toContain('hooked');

    // A tool's result sent as JSON (Claude Code's tool_response): every line's words are found,
    // the first word of a line too, and the snippet reads as text, not as JSON with its escapes.
    const output = { stdout: 'compiling quuxlib\nerror: cannot borrow `x` as mutable\nwarning: unused import\n', stderr: '', interrupted: false };
    for (const event of [
      c.prompt('p2', 'Build it'),
      c.postTool('p2', 'toolu_2', 'Bash', { command: 'cargo build' }, output),
      c.postTool('p2', 'toolu_3', 'Write', { file_path: join(root, 'src', 'zebu.rs'), content: 'fn main() {}\nfn zebu_helper() {}\n' }, { type: 'create' }),
      c.stop('p2', 'It does not build.'),
    ]) {
      expect(await runHook('claude-code', api.dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    const [built] = (await search(api, 'error borrow', { filter: { sessionId: 'hooked', role: 'TOOL' } })).edges;
    expect(built?.node.snippet).toBe('compiling quuxlib\nerror: cannot borrow `x` as mutable\nwarning: unused import\n');
    expect(marked(built!.node)).toEqual(['error', 'borrow']);
    expect((await search(api, 'warning quuxlib', { filter: { sessionId: 'hooked' } })).edges).toHaveLength(1);
    // A tool call's input, in the tools' text: its name and its values, one a line, no ids.
    const [called] = (await search(api, 'zebu', { filter: { sessionId: 'hooked', role: 'ASSISTANT' } })).edges;
    expect(called?.node.snippet.split('\n').filter((line) => line === 'Write')).toEqual(['Write']);
    expect(called?.node.snippet).toContain('fn main() {}\nfn zebu_helper() {}\n');
    expect(called?.node.snippet).not.toMatch(/toolu_|[{}]"|\\n/);
    expect(marked(called!.node)).toContain('zebu');

    // In a session bound to a project, its paths read relative to the project, as the session page shows them.
    const repo = userRepo(root);
    await api.ok(CreateProject, { input: { name: 'App', workdir: repo } });
    const bound = claudeEvents('bound', repo);
    for (const event of [
      bound.prompt('p3', 'Add the gnu module'),
      bound.postTool('p3', 'toolu_4', 'Write', { file_path: join(repo, 'src', 'gnu.rs'), content: 'fn gnu() {}\n' }, { type: 'create', filePath: join(repo, 'src', 'gnu.rs') }),
      bound.stop('p3', 'Added src/gnu.rs.'),
    ]) {
      expect(await runHook('claude-code', api.dataDir, event)).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    const shown = (await search(api, 'gnu rs', { filter: { sessionId: 'bound' } })).edges.map((e) => `${e.node.message.role}: ${e.node.snippet}`);
    expect(shown.sort()).toEqual(['ASSISTANT: Added src/gnu.rs.', 'ASSISTANT: Write\nsrc/gnu.rs\nfn gnu() {}\n', 'TOOL: create\nsrc/gnu.rs']);

    const file = join(root, 'imported.jsonl');
    const records = [
      { type: 'user', uuid: 'u-1', parentUuid: null, sessionId: 'imported', cwd: root, timestamp: '2026-12-01T10:00:00.000Z', message: { role: 'user', content: 'Where is the axolotl config?' } },
      {
        type: 'assistant',
        uuid: 'a-1',
        parentUuid: 'u-1',
        sessionId: 'imported',
        cwd: root,
        timestamp: '2026-12-01T10:00:01.000Z',
        message: { id: 'msg_1', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: 'In etc/axolotl.toml.' }], stop_reason: 'end_turn' },
      },
    ];
    writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const imported = await api.raw(`mutation($paths: [String!]!) { importClaudeCode(input: { paths: $paths }) { messages } }`, { paths: [file] });
    expect(imported.errors).toBeUndefined();
    const hits = await search(api, 'axolotl');
    expect(hits.edges.map((e) => e.node.session.sessionId)).toEqual(['imported', 'imported']);
    expect(hits.edges.map((e) => e.node.message.role).sort()).toEqual(['ASSISTANT', 'USER']);
  }, 60_000);
});

describe('search: the query language, filters, ranking and pages', () => {
  /** Three sessions: two in a project, one by another agent. */
  async function corpus(): Promise<TestServer> {
    const root = tempDir('em-search-');
    const api = await startTestServer({ allowedRoots: [root] });
    await session(api, 'alpha', 'agentId: "claude-code"');
    await session(api, 'beta', 'agentId: "codex"');
    await recordTurn(api, {
      sessionId: 'alpha',
      user: { content: 'The payment webhook retries forever', messageId: 'a1' },
      assistant: { content: 'The webhook handler never acknowledges: webhook, webhook, webhook.', messageId: 'a2' },
    });
    await recordTurn(api, { sessionId: 'alpha', user: { content: 'Add tests for the payments module', messageId: 'a3' }, assistant: { content: 'Done.', messageId: 'a4' } });
    await recordTurn(api, {
      sessionId: 'beta',
      user: { content: 'Payment totals are off by one cent', messageId: 'b1' },
      assistant: { content: 'Rounding: use integer cents for payment totals.', messageId: 'b2' },
    });
    return api;
  }

  it('words all match, "phrases" in order, -words excluded, prefix* widens; qualifiers and filters narrow', async () => {
    const api = await corpus();
    expect((await found(api, 'payment')).sort()).toEqual(['alpha/a1', 'beta/b1', 'beta/b2']);
    expect(await found(api, 'payment webhook')).toEqual(['alpha/a1']);
    expect((await found(api, 'payment*')).sort()).toEqual(['alpha/a1', 'alpha/a3', 'beta/b1', 'beta/b2']);
    expect((await found(api, '"payment totals"')).sort()).toEqual(['beta/b1', 'beta/b2']);
    expect(await found(api, '"integer cents"')).toEqual(['beta/b2']);
    expect(await found(api, '"totals payment"')).toEqual([]);
    expect((await found(api, 'payment -cents')).sort()).toEqual(['alpha/a1', 'beta/b1']);
    expect(await found(api, 'payment role:assistant')).toEqual(['beta/b2']);
    expect(await found(api, 'payment session:beta role:user')).toEqual(['beta/b1']);
    expect((await found(api, 'payment', { filter: { agent: 'codex' } })).sort()).toEqual(['beta/b1', 'beta/b2']);
    expect(await found(api, 'payment', { filter: { sessionId: 'alpha' } })).toEqual(['alpha/a1']);
    // The filter and the query's qualifier both hold: nothing is in two sessions at once.
    expect(await found(api, 'payment session:alpha', { filter: { sessionId: 'beta' } })).toEqual([]);
    expect(await found(api, 'payment', { filter: { since: '2000-01-01T00:00:00Z', until: '2001-01-01T00:00:00Z' } })).toEqual([]);
    expect((await found(api, 'payment', { filter: { since: '2000-01-01T00:00:00Z' } })).length).toBe(3);
    // Qualifiers alone, and a -word with them: the filters choose, newest first.
    expect(await found(api, 'session:alpha role:user')).toEqual(['alpha/a3', 'alpha/a1']);
    expect(await found(api, 'session:alpha role:user -tests')).toEqual(['alpha/a1']);
    // Any case, any punctuation around a word.
    expect(await found(api, 'WEBHOOK.')).toEqual(['alpha/a2', 'alpha/a1']);
  });

  it('ranks the better match first, pages with cursors to the end, and counts every hit', async () => {
    const api = await corpus();
    // a2 says webhook four times in fewer words than a1's once.
    const ranked = await search(api, 'webhook');
    expect(ranked.edges.map((e) => e.node.message.messageId)).toEqual(['a2', 'a1']);
    expect(ranked.edges[0]!.node.rank).toBeGreaterThan(ranked.edges[1]!.node.rank);
    expect(marked(ranked.edges[0]!.node)).toEqual(['webhook', 'webhook', 'webhook', 'webhook']);

    const all = await found(api, 'payment*', { first: 10 });
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await search(api, 'payment*', { first: 1, ...(after ? { after } : {}) });
      expect(page.totalCount).toBe(4);
      seen.push(...page.edges.map((e) => `${e.node.session.sessionId}/${e.node.message.messageId}`));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor!;
    }
    expect(seen).toEqual(all);
  });

  it("reads a hit's message once: its fields cost no statement more than the hit's rank", async () => {
    const api = await corpus();
    /** The fewest statements about messages and sessions of three runs (the mirror's own reads may run beside one). */
    const statements = async (selection: string): Promise<number> => {
      let fewest = Infinity;
      for (let run = 0; run < 3; run++) {
        const seen: string[] = [];
        const off = onSqlStatement((event) => seen.push(event.sql));
        try {
          const result = await api.raw(`{ search(query: "payment*", first: 10) { edges { node { ${selection} } } } }`);
          expect(result.errors).toBeUndefined();
          expect((result.data as { search: { edges: unknown[] } }).search.edges).toHaveLength(4);
        } finally {
          off();
        }
        fewest = Math.min(fewest, seen.filter((sql) => /FROM [`"](?:\w+[`"]\.[`"])?(?:Message|MessageSearch|Session)[`"]/.test(sql)).length);
      }
      return fewest;
    };
    const rankOnly = await statements('rank');
    const withMessage = await statements('rank snippet message { id messageId role seq createdAt toolName } session { sessionId title }');
    expect(withMessage).toBe(rankOnly);
  });

  it('ranks the newest RANKED_MATCHES of a word found more often, counts them all, and pages no deeper', async () => {
    const api = await startTestServer();
    await session(api, 'many');
    const db = api.server.app.deps.db;
    const base = Date.UTC(2026, 0, 1);
    // The oldest message is the best match (the word four times in four words); 5,100 after it say it once.
    const total = RANKED_MATCHES + 101;
    const rows = Array.from({ length: total }, (_, i) => ({
      id: `many-${i}`,
      sessionId: 'many',
      messageId: `m${i}`,
      seq: i + 1,
      role: 'USER' as const,
      content: i === 0 ? 'quartz quartz quartz quartz' : i === total - 1 ? 'quartz quartz quartz and more words' : `message ${i} names quartz once among other words`,
      createdAt: new Date(base + i * 1000),
    }));
    for (let i = 0; i < rows.length; i += 500) await db.message.createMany({ data: rows.slice(i, i + 500) });
    await db.session.update({ where: { sessionId: 'many' }, data: { nextSeq: total + 1 } });

    const page = await search(api, 'quartz', { first: 3 });
    expect(page.totalCount).toBe(total);
    const ids = page.edges.map((e) => e.node.message.messageId);
    // The newest strong match leads; the oldest, out of the newest RANKED_MATCHES, is not ranked at all.
    expect(ids[0]).toBe(`m${total - 1}`);
    expect(ids).not.toContain('m0');
    expect((await api.raw('{ search(query: "quartz", first: 0) { rankedMatches } }')).data).toEqual({ search: { rankedMatches: RANKED_MATCHES } });
    // A word found less often is ranked in full: the oldest message is its best match.
    expect((await found(api, 'quartz', { filter: { until: new Date(base + 10_000).toISOString() } }))[0]).toBe('many/m0');

    // The last rankable page ends there: its hasNextPage is false, and a cursor past it is refused.
    const last = await search(api, 'quartz', { first: 2, after: Buffer.from(`search:${RANKED_MATCHES - 3}`).toString('base64url') });
    expect(last.edges).toHaveLength(2);
    expect(last.pageInfo.hasNextPage).toBe(false);
    const past = onlyError(await api.raw(SEARCH, { query: 'quartz', after: last.pageInfo.endCursor }));
    expect(past.extensions?.code).toBe('BAD_USER_INPUT');
    expect(past.message).toMatch(/newest matches.*filter by date/);
  });

  it('cuts a snippet to 300 characters around the first match, marks its words, never splits a character', async () => {
    const api = await startTestServer();
    await session(api, 'long');
    const before = '😀'.repeat(200);
    const text = `${before} the needle is here ${'x'.repeat(500)}`;
    await append(api, 'long', 'USER', text, 'm1');
    const hit = (await search(api, 'needle')).edges[0]!.node;
    expect(hit.snippet.length).toBeLessThanOrEqual(300);
    expect(marked(hit)).toEqual(['needle']);
    expect(text.includes(hit.snippet)).toBe(true);
    // No half of an emoji at either end.
    expect(hit.snippet.charCodeAt(0) >= 0xdc00 && hit.snippet.charCodeAt(0) <= 0xdfff).toBe(false);
    expect([...hit.snippet].every((ch) => ch.length === 2 || ch.codePointAt(0)! < 0xd800 || ch.codePointAt(0)! > 0xdfff)).toBe(true);
  });
});

describe('search: bad input', () => {
  it('answers BAD_USER_INPUT, naming where, for a malformed query; never a database error', async () => {
    const api = await startTestServer();
    await session(api, 's');
    await append(api, 's', 'USER', 'near the colon: braces { and } quotes', 'm1');
    await append(api, 's', 'ASSISTANT', 'Noted.', 'm2');
    const refused: [string, RegExp, number | undefined][] = [
      ['', /empty/, undefined],
      ['   ', /empty/, undefined],
      ['x'.repeat(10_000), /at most 1000/, undefined],
      ['ok\0no', /NUL/, 2],
      ['"unclosed phrase', /never closed/, 0],
      ['fine "unclosed', /never closed/, 5],
      ['*', /no letter or digit/, 0],
      ['-only', /only says what must not match/, undefined],
      ['role:robot', /not a role/, 0],
      ['role:user role:tool', /given twice/, 10],
      ['path:', /needs a value/, 0],
      ['session:../etc', /not a valid id/, undefined],
      ['---', /no letter or digit/, 0],
      ['{ }', /no letter or digit/, 0],
      ['  * ?', /no letter or digit/, 2],
    ];
    for (const [query, message, position] of refused) {
      const error = onlyError(await api.raw(SEARCH, { query }));
      expect(error.extensions?.code, JSON.stringify(query)).toBe('BAD_USER_INPUT');
      expect(error.message, JSON.stringify(query)).toMatch(message);
      if (position !== undefined) expect(error.extensions?.position, JSON.stringify(query)).toBe(position);
      expect(error.message).not.toMatch(/fts5|syntax error|tsquery|SQLITE|prisma/i);
    }
    // FTS and tsquery syntax, right-to-left text, stop-word-like words: searched as words.
    for (const query of ['NEAR(', 'a:b', 'braces { }', 'AND OR NOT', '"near the colon"', 'שלום עולם', 'the', 'x AND', '^foo', 'foo:*', '(braces']) {
      const result = await api.raw(SEARCH, { query });
      expect(result.errors, query).toBeUndefined();
    }
    expect(await found(api, '"near the colon"')).toEqual(['s/m1']);
    expect(await found(api, 'braces {')).toEqual(['s/m1']);
    const badCursor = onlyError(await api.raw(SEARCH, { query: 'near', after: 'nope' }));
    expect(badCursor.extensions?.code).toBe('BAD_USER_INPUT');
    const tooMany = onlyError(await api.raw(SEARCH, { query: 'near', first: 101 }));
    expect(tooMany.extensions?.code).toBe('BAD_USER_INPUT');
  });
});
