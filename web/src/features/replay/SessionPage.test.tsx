// @vitest-environment jsdom
/**
 * The session page against a stand-in server: an urql exchange that answers each
 * operation by name from a table (no network), and records the mutations sent.
 */
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { Client, Provider, makeErrorResult, makeResult, type Exchange, type Operation } from 'urql';
import { filter, fromValue, mergeMap, never, pipe } from 'wonka';
import { GraphQLError, Kind, type OperationDefinitionNode } from 'graphql';
import { callFinder, failedCallFinder, MessageView, TurnRedactions } from './Conversation';
import { SessionPage, type BranchesSlot } from './SessionPage';

type Answer = (variables: Record<string, unknown>) => unknown;

function operationName(operation: Operation): string {
  const definition = operation.query.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return definition?.name?.value ?? '';
}

function fakeServer(answers: Record<string, Answer>) {
  const sent: { name: string; variables: Record<string, unknown> }[] = [];
  const exchange: Exchange = () => (operations$) =>
    pipe(
      operations$,
      filter((operation) => operation.kind !== 'teardown'),
      mergeMap((operation) => {
        const name = operationName(operation);
        const variables = (operation.variables ?? {}) as Record<string, unknown>;
        sent.push({ name, variables });
        if (operation.kind === 'subscription') return never;
        const answer = answers[name];
        if (!answer) return fromValue(makeErrorResult(operation, new Error(`no answer for ${name}`)));
        const data = answer(variables);
        if (data instanceof GraphQLError) return fromValue(makeResult(operation, { errors: [data] }));
        return fromValue(makeResult(operation, { data: data as Record<string, unknown> }));
      }),
    );
  const client = new Client({ url: 'http://test/graphql', exchanges: [exchange] });
  return { client, sent };
}

const view = (overrides: { detached?: boolean; number?: number; sha?: string; parent?: string } = {}) => ({
  id: 'S1',
  sessionId: 's1',
  title: 'Demo',
  currentBranch: 'main',
  detached: overrides.detached ?? false,
  project: { id: 'P1', projectId: 'p1', name: 'Shop' },
  head: {
    sha: overrides.sha ?? 'c3',
    parentShas: [overrides.parent ?? 'b2'],
    headline: 'turn 3: hello',
    turn: { number: overrides.number ?? 3, branch: 'main' },
  },
  turns: { totalCount: 3 },
});

/** The session's commits on main: turn n is commit `sha`, child of `parent`. */
const COMMITS: Record<string, { sha: string; parentShas: string[]; headline: string; turn: { number: number; branch: string } }> = Object.fromEntries(
  [
    ['a1', 'z0', 1],
    ['b2', 'a1', 2],
    ['c3', 'b2', 3],
  ].map(([sha, parent, number]) => [sha, { sha: sha as string, parentShas: [parent as string], headline: `turn ${number}`, turn: { number: number as number, branch: 'main' } }]),
);

const common: Record<string, Answer> = {
  SessionMirror: () => ({ session: { id: 'S1', mirror: { inSync: false, pending: 2, lastError: null, dagTurns: 3, gitCommits: 1 } } }),
  NextTurn: (v) => {
    const after = { dHVybjox: 'b2', dHVybjoy: 'c3' }[v.after as string];
    return { session: { id: 'S1', turns: { edges: after ? [{ node: { number: COMMITS[after]!.turn.number, commit: { sha: after, parentShas: COMMITS[after]!.parentShas } } }] : [] } } };
  },
  ReplayViewed: (v) => ({
    session: {
      id: 'S1',
      turns: { totalCount: 3 },
      branches: [{ name: 'main', head: COMMITS.c3 }],
      ...(v.hasSha ? { commit: COMMITS[v.sha as string] ?? null } : {}),
    },
  }),
  ReplayConversation: () => ({ session: { id: 'S1', turns: { edges: [] } } }),
  ReplayTimelinePage: () => ({ session: { id: 'S1', timeline: { totalCount: 0, pageInfo: { hasNextPage: false, endCursor: null }, edges: [] } } }),
  ReplayCommitChanges: (v) => ({ session: { id: 'S1', commit: { sha: v.sha, diff: { additions: 1, deletions: 0, files: [] } } } }),
};

/** Stands in for the branches panel the shell passes: a button that views commit a1 on main. */
const StubBranches: BranchesSlot = ({ viewedSha, onView }) => (
  <button type="button" onClick={() => onView('a1', 'main')}>
    Branches viewing {viewedSha}
  </button>
);

function renderPage(answers: Record<string, Answer>, search = '') {
  window.history.replaceState(null, '', `/sessions/s1${search}`);
  const server = fakeServer({ ...common, ...answers });
  render(
    <Provider value={server.client}>
      <SessionPage sessionId="s1" Branches={StubBranches} />
    </Provider>,
  );
  return server;
}

const MOVES = ['ReplayCheckout', 'ReplaySwitchBranch'];

afterEach(cleanup);

describe('SessionPage', () => {
  it('says so when the session does not exist', async () => {
    renderPage({ SessionPage: () => ({ session: null }) });
    expect(await screen.findByText('No session s1')).toBeTruthy();
  });

  it('reads the page again while the mirror has not committed every closed turn, with no event heard', async () => {
    // Opened right after an import: three turns closed, none committed yet; the mirror's event came before the page subscribed.
    let reads = 0;
    // (Mounting reads it twice here; a third read is the page's own.)
    const server = renderPage({ SessionPage: () => (++reads <= 2 ? { session: { ...view(), head: null } } : { session: view() }) });
    expect(await screen.findByText('Turn 3 / 3', {}, { timeout: 5_000 })).toBeTruthy();
    const pageReads = server.sent.filter((op) => op.name === 'SessionPage').length;
    expect(pageReads).toBeGreaterThanOrEqual(3);
    // Caught up: no more reads of its own.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(server.sent.filter((op) => op.name === 'SessionPage').length).toBe(pageReads);
  });

  it('shows the title, the project link, the mirror state and the position', async () => {
    renderPage({ SessionPage: () => ({ session: view() }) });
    const link = await screen.findByRole('link', { name: 'Project: Shop' });
    expect(link.getAttribute('href')).toBe('/projects/p1');
    expect(screen.getByRole('heading', { name: 'Demo' })).toBeTruthy();
    await screen.findByText('Turn 3 / 3');
    await waitFor(() => expect(screen.getAllByRole('status').some((status) => status.textContent === 'Mirror pending 2')).toBe(true));
    expect(screen.getByRole('main')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Next turn' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Back to latest' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.queryByText(/read-only/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Continue from here' })).toBeNull();
  });

  it('steps to the parent on Left on this page only: the address says where, read-only, and no mutation moves the session', async () => {
    const server = renderPage({ SessionPage: () => ({ session: view() }) });
    await screen.findByText('Turn 3 / 3');
    await userEvent.keyboard('{ArrowLeft}');
    await screen.findByText('Turn 2 / 3');
    expect(window.location.search).toBe('?at=b2');
    const statuses = screen.getAllByRole('status').map((status) => status.textContent);
    expect(statuses.some((text) => text?.includes('read-only'))).toBe(true);
    await waitFor(() => expect((screen.getByRole('button', { name: 'Next turn' }) as HTMLButtonElement).disabled).toBe(false));
    await userEvent.keyboard('{ArrowRight}');
    await screen.findByText('Turn 3 / 3');
    expect(window.location.search).toBe('');
    expect(server.sent.filter((s) => MOVES.includes(s.name))).toEqual([]);
  });

  it('opens where the address says, and goes back to latest by leaving it', async () => {
    renderPage({ SessionPage: () => ({ session: view() }) }, '?at=a1');
    await screen.findByText('Turn 1 / 3');
    await userEvent.click(screen.getByRole('button', { name: 'Back to latest' }));
    await screen.findByText('Turn 3 / 3');
    expect(window.location.search).toBe('');
  });

  it('leaves the arrow keys to a focused text field', async () => {
    renderPage({ SessionPage: () => ({ session: view() }) });
    await screen.findByText('Turn 3 / 3');
    const input = document.createElement('input');
    document.body.append(input);
    input.focus();
    await userEvent.keyboard('{ArrowLeft}');
    expect(window.location.search).toBe('');
    expect(screen.getByText('Turn 3 / 3')).toBeTruthy();
    input.remove();
  });

  it('continues from the viewed turn only after a confirmation, and shows a refusal in words', async () => {
    let refuse = true;
    const server = renderPage(
      {
        SessionPage: () => ({ session: view() }),
        ReplayCheckout: () =>
          refuse ? new GraphQLError('A turn is open: end it (endTurn) before moving to another commit.') : { checkout: view({ detached: true, number: 2, sha: 'b2', parent: 'a1' }) },
      },
      '?at=b2',
    );
    await screen.findByText('Turn 2 / 3');
    await userEvent.click(screen.getByRole('button', { name: 'Continue from here' }));
    const dialog = screen.getByRole('alertdialog', { name: 'Continue from here' });
    expect(dialog.textContent).toContain('will fork a new branch from turn 2');
    expect(server.sent.filter((s) => MOVES.includes(s.name))).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    const message = await screen.findByText('A turn is open: end it (endTurn) before moving to another commit.');
    expect(message.getAttribute('role')).toBe('alert');
    refuse = false;
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(server.sent.filter((s) => s.name === 'ReplayCheckout').map((s) => s.variables.input)).toEqual([
      { sessionId: 's1', sha: 'b2' },
      { sessionId: 's1', sha: 'b2' },
    ]);
  });

  it('shows the branches the shell gives it with the viewed commit, and views the commit they pick on this page', async () => {
    const server = renderPage({ SessionPage: () => ({ session: view() }) });
    await userEvent.click(await screen.findByRole('button', { name: 'Branches viewing c3' }));
    await screen.findByRole('button', { name: 'Branches viewing a1' });
    expect(window.location.search).toBe('?at=a1');
    expect(server.sent.filter((s) => MOVES.includes(s.name))).toEqual([]);
  });

  const message = { id: 'M', messageId: 'm1', seq: 1, createdAt: '2025-01-01T00:00:00Z', toolName: null, toolCallId: null, caller: null, metadata: null, redactions: [] };

  it('renders markdown but never raw HTML (the plain text until the markdown module is in)', async () => {
    render(<MessageView message={{ ...message, role: 'ASSISTANT', content: 'some **bold** <img src=x onerror=alert(1)>' }} />);
    const article = screen.getByRole('article', { name: 'Assistant' });
    await waitFor(() => expect(article.querySelector('strong')?.textContent).toBe('bold'));
    expect(article.querySelector('img')).toBeNull();
  });

  it("colours a markdown code block in the language it names once the highlighter is in, and leaves inline code and an unknown language plain", async () => {
    const content = 'Run `npm test`, then:\n\n```ts\nconst n = 1;\n```\n\n```nosuchlang\nconst m = 2;\n```';
    render(<MessageView message={{ ...message, role: 'ASSISTANT', content }} />);
    const article = screen.getByRole('article', { name: 'Assistant' });
    await waitFor(() => expect([...article.querySelectorAll('pre code .hljs-keyword')].map((e) => e.textContent)).toEqual(['const']));
    const blocks = [...article.querySelectorAll('pre code')];
    expect(blocks.map((b) => b.textContent)).toEqual(['const n = 1;\n', 'const m = 2;\n']);
    expect(blocks[1]!.querySelector('span')).toBeNull();
    expect(article.querySelector('p code')?.textContent).toBe('npm test');
    expect(article.querySelector('p code span')).toBeNull();
  });

  it("shows a hooked agent's tool output sent as JSON as its text, the JSON put in the page once opened", async () => {
    const call = { ...message, messageId: 'a8', role: 'ASSISTANT' as const, content: '', metadata: { toolCalls: [{ id: 'toolu_2', name: 'Bash', input: { command: 'ls' } }] } };
    const json = JSON.stringify({ stdout: 'a.txt\nb.txt', stderr: '', interrupted: false, isImage: false });
    const result = { ...message, messageId: 't8', role: 'TOOL' as const, toolName: 'Bash', toolCallId: 'toolu_2', content: json, caller: { messageId: 'a8' } };
    render(<MessageView message={result} callOf={callFinder([call, result])} />);
    const article = screen.getByRole('article');
    expect(article.querySelector('pre.tool-output')?.textContent).toBe('a.txt\nb.txt');
    const raw = article.querySelector<HTMLDetailsElement>('details.tool-output-raw')!;
    expect(raw.querySelector('summary')?.textContent).toBe('As recorded (JSON)');
    expect(raw.querySelector('pre')).toBeNull();
    await userEvent.click(raw.querySelector('summary')!);
    await waitFor(() => expect(raw.querySelector('pre')?.textContent).toBe(json));
  });

  it('marks a tool result that failed', () => {
    const result = { ...message, messageId: 't9', role: 'TOOL' as const, toolName: 'Bash', content: 'Exit code 1\n1 failing', metadata: { isError: true } };
    render(<MessageView message={result} />);
    expect(screen.getByRole('article').querySelector('summary')?.textContent).toBe('Tool result: Bash failed: Exit code 1');
    cleanup();
    render(<MessageView message={{ ...result, metadata: null }} />);
    expect(screen.getByRole('article').querySelector('summary')?.textContent).toBe('Tool result: Bash');
    cleanup();
    // A command's exit code, when the agent gave one, says why.
    render(<MessageView message={{ ...result, content: '1 failing', metadata: { isError: true, exitCode: 3 } }} />);
    expect(screen.getByRole('article').querySelector('summary')?.textContent).toBe('Tool result: Bash failed: exit code 3');
  });

  it("marks the call a failed result answers, so an edit shown that was never made does not read as made", () => {
    const edit = { id: 'toolu_1', name: 'Edit', input: { file_path: 'a.txt', old_string: 'two', new_string: '2' } };
    const write = { id: 'toolu_2', name: 'Write', input: { file_path: 'b.txt', content: 'b' } };
    const call = { ...message, messageId: 'a8', role: 'ASSISTANT' as const, content: '', metadata: { toolCalls: [edit, write] } };
    const refused = { ...message, messageId: 't8', role: 'TOOL' as const, toolName: 'Edit', toolCallId: 'toolu_1', content: 'String to replace not found in file.', caller: { messageId: 'a8' }, metadata: { isError: true } };
    const written = { ...message, messageId: 't9', role: 'TOOL' as const, toolName: 'Write', toolCallId: 'toolu_2', content: 'ok', caller: { messageId: 'a8' } };
    render(<MessageView message={call} failedCall={failedCallFinder([call, refused, written])} />);
    const [shownEdit, shownWrite] = [screen.getByRole('group', { name: 'Tool call: Edit' }), screen.getByRole('group', { name: 'Tool call: Write' })];
    expect(shownEdit!.querySelector('.tool-call-name')?.textContent).toBe('Edit failed');
    expect(shownEdit!.classList.contains('tool-call-failed')).toBe(true);
    expect(shownWrite!.querySelector('.tool-call-name')?.textContent).toBe('Write');
  });

  it('collapses a tool result under its tool name and what its call did, linking the call (never its id)', () => {
    const call = { ...message, messageId: 'a7', role: 'ASSISTANT' as const, content: '', metadata: { toolCalls: [{ id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }] } };
    const result = { ...message, messageId: 't7', role: 'TOOL' as const, toolName: 'Bash', toolCallId: 'toolu_1', content: '\u001b[32m✓ 3 passed\u001b[39m', caller: { messageId: 'a7' } };
    render(<MessageView message={result} callOf={callFinder([call, result])} />);
    const article = screen.getByRole('article');
    expect(article.querySelector('details')?.open).toBe(false);
    expect(article.querySelector('summary')?.textContent).toContain('Tool result: Bash');
    expect(article.querySelector('summary')?.textContent).toContain('npm test');
    expect(article.querySelector('summary')?.textContent).not.toContain('a7');
    expect(screen.getByRole('link', { name: 'the call' }).getAttribute('href')).toBe('#message-a7');
    expect(article.querySelector('pre')?.textContent).toBe('✓ 3 passed');
  });

  it('shows an assistant message that only calls tools as its calls: an Edit as a diff, a Bash call as its command, a Read as path and lines', () => {
    const metadata = {
      thinking: ['The flag goes in parseArgs.'],
      toolCalls: [
        { id: 't1', name: 'Edit', input: { file_path: 'src/cli.ts', old_string: 'const verbose = false;\n', new_string: 'const verbose = argv.includes("--verbose");\n' } },
        { id: 't2', name: 'Bash', input: { command: 'npm test -- cli', description: 'Run the CLI tests' } },
        { id: 't3', name: 'Read', input: { file_path: 'README.md', offset: 10, limit: 20 } },
        { id: 't4', name: 'mcp__thing', input: { a: 1 } },
      ],
    };
    render(<MessageView message={{ ...message, role: 'ASSISTANT', content: '', metadata }} />);
    const article = screen.getByRole('article', { name: 'Assistant' });
    const edit = within(article).getByRole('group', { name: 'Tool call: Edit' });
    expect(edit.querySelector('summary')?.textContent).toBe('src/cli.ts +1 −1');
    expect([...edit.querySelectorAll('pre .diff-del')].map((l) => l.textContent)).toEqual(['-const verbose = false;\n']);
    expect([...edit.querySelectorAll('pre .diff-add')].map((l) => l.textContent)).toEqual(['+const verbose = argv.includes("--verbose");\n']);
    expect(within(article).getByRole('group', { name: 'Tool call: Bash' }).querySelector('.shell-command')?.textContent).toBe('$ npm test -- cli');
    expect(within(article).getByRole('group', { name: 'Tool call: Read' }).textContent).toContain('README.md (lines 10–29)');
    expect(within(article).getByRole('group', { name: 'Tool call: mcp__thing' }).querySelector('pre')?.textContent).toBe('{\n  "a": 1\n}');
    expect(article.querySelector('details.thinking')?.hasAttribute('open')).toBe(false);
    expect(article.querySelector('details.thinking')?.textContent).toContain('The flag goes in parseArgs.');
  });

  it('renders a markdown table as a table, and a message that starts with a tag as its text', async () => {
    render(<MessageView message={{ ...message, role: 'ASSISTANT', content: '| file | lines |\n| --- | --- |\n| a.ts | 10 |' }} />);
    expect((await screen.findByRole('table')).textContent).toContain('a.ts');
    cleanup();
    render(<MessageView message={{ ...message, role: 'USER', content: '<task-notification>\n<status>completed</status>\n</task-notification>' }} />);
    const article = screen.getByRole('article');
    expect(article.querySelector('summary')?.textContent).toContain('<task-notification>');
    expect(article.querySelector('pre')?.textContent).toContain('<status>completed</status>');
  });
});

describe('TurnRedactions', () => {
  it("notes what was taken out of a turn's messages, and nothing when nothing was", () => {
    const { container } = render(<TurnRedactions messages={[{ redactions: [] }]} />);
    expect(container.textContent).toBe('');
    render(<TurnRedactions messages={[{ redactions: [{ kind: 'github-token', count: 2 }] }, { redactions: [{ kind: 'aws-access-key-id', count: 1 }] }]} />);
    expect(screen.getByRole('note').textContent).toBe('3 secrets redacted before storing: aws-access-key-id, github-token ×2');
  });
});
