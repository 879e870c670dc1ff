// @vitest-environment jsdom
/**
 * The Branches panel over a urql client whose exchange answers like the server would:
 * the Branch combobox and switchBranch (with its refusal shown), the lanes from one
 * query or, for a lane older than the log page, one more; a refetch on a timeline event.
 */
import { useState } from 'react';
import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Client, makeResult, Provider, type Exchange, type Operation } from 'urql';
import { afterEach, describe, expect, it } from 'vitest';
import { filter, fromValue, makeSubject, map, mergeMap, pipe } from 'wonka';
import { BranchesPanel } from './BranchesPanel';
import { commit, m1, m2, m3, r2 } from './fixtures';
import type { CommitPoint } from './lanes';

afterEach(cleanup);

/** What the fake server holds: main m1..m3 (and more), a retry r2 forked at m1. */
function fakeServer(options: { logPage?: number } = {}) {
  const state = { current: 'main', main: [m3, m2, m1] as CommitPoint[], calls: [] as { name: string; kind: string; variables: unknown }[] };
  const events = makeSubject<Record<string, unknown>>();
  const parentOf = (c: CommitPoint) => (c === r2 ? m1.sha : state.main[state.main.indexOf(c) + 1]?.sha);
  const node = (c: CommitPoint) => ({ sha: c.sha, headline: c.headline, parentShas: parentOf(c) ? [parentOf(c)] : [] });
  const answer = (op: Operation) => {
    const name = op.query.definitions.map((d) => ('name' in d ? d.name?.value : '')).join('');
    const variables = op.variables as { branch?: string; first?: number };
    state.calls.push({ name, kind: op.kind, variables });
    if (name === 'BranchesPanelGraph') {
      const all = [...state.main, r2].sort((a, b) => b.number - a.number).slice(0, options.logPage ?? 200);
      return makeResult(op, {
        data: {
          session: {
            id: 'S1',
            currentBranch: state.current,
            branches: [
              { name: 'main', kind: 'MAIN', isCurrent: state.current === 'main', head: { ...state.main[0]!, turn: null }, forkPoint: null },
              { name: 'retry-a2b', kind: 'RETRY', isCurrent: state.current === 'retry-a2b', head: { ...r2, turn: { number: 2 } }, forkPoint: { ...m1, turn: { number: 1, branch: 'main' } } },
            ],
            timeline: { edges: all.map((c) => ({ node: node(c) })) },
          },
        },
      });
    }
    if (name === 'BranchesPanelLane') {
      const lane = variables.branch === 'main' ? state.main : [r2];
      return makeResult(op, { data: { session: { id: 'S1', timeline: { edges: lane.slice(0, variables.first).map((c) => ({ node: { sha: c.sha, headline: c.headline } })) } } } });
    }
    throw new Error(`unexpected operation ${name}`);
  };
  const exchange: Exchange = () => (ops$) =>
    pipe(
      ops$,
      filter((op) => op.kind !== 'teardown'),
      mergeMap((op) =>
        op.kind === 'subscription'
          ? pipe(events.source, map((data) => makeResult(op, { data })))
          : fromValue(answer(op)),
      ),
    );
  const client = new Client({ url: 'http://test/graphql', exchanges: [exchange] });
  const count = (name: string) => state.calls.filter((c) => c.name === name).length;
  return { state, events, client, count };
}

function renderPanel(server: ReturnType<typeof fakeServer>, viewedSha?: string) {
  const picked: { views: [string, string][]; branches: string[] } = { views: [], branches: [] };
  const Panel = () => {
    const [shown, setShown] = useState('main');
    return (
      <BranchesPanel
        sessionId="s1"
        viewedSha={viewedSha}
        shownBranch={shown}
        onView={(sha, branch) => picked.views.push([sha, branch])}
        onBranch={(branch) => {
          picked.branches.push(branch);
          setShown(branch);
        }}
      />
    );
  };
  render(
    <Provider value={server.client}>
      <Panel />
    </Provider>,
  );
  return picked;
}

const dotNames = () =>
  within(screen.getByRole('figure', { name: 'Branches' }))
    .getAllByRole('button')
    .map((d) => d.getAttribute('aria-label'));

describe('BranchesPanel', () => {
  it('lists every branch in the Branch combobox, the shown one selected, and draws their lanes from one query', async () => {
    const server = fakeServer();
    renderPanel(server);
    const select = (await screen.findByRole('combobox', { name: 'Branch' })) as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(['main', 'retry-a2b']);
    expect(select.value).toBe('main');
    expect(dotNames()).toEqual(['turn 3: q3 (main)', 'turn 2: q2 (main)', 'turn 1: q1 (main)', 'turn 2: q2 again (retry-a2b)']);
    expect(server.count('BranchesPanelLane')).toBe(0);
  });

  it('shows the branch picked in the Branch combobox on the page only (no mutation), and hands a picked dot with its lane', async () => {
    const server = fakeServer();
    const user = userEvent.setup();
    const picked = renderPanel(server);
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Branch' }), 'retry-a2b');
    expect(picked.branches).toEqual(['retry-a2b']);
    await waitFor(() => expect((screen.getByRole('combobox', { name: 'Branch' }) as HTMLSelectElement).value).toBe('retry-a2b'));
    await user.click(screen.getByRole('button', { name: 'turn 2: q2 again (retry-a2b)' }));
    expect(picked.views).toEqual([[expect.any(String), 'retry-a2b']]);
    expect(server.state.calls.filter((c) => c.kind === 'mutation')).toEqual([]);
  });

  it('refetches when the session’s timeline reports an event', async () => {
    const server = fakeServer();
    renderPanel(server);
    await screen.findByRole('combobox', { name: 'Branch' });
    const before = server.count('BranchesPanelGraph');
    server.state.main.unshift(commit('m4'.padEnd(40, '0'), 4, 'q4'));
    server.events.next({ timeline: { kind: 'COMMITTED', branch: 'main' } });
    await screen.findByRole('button', { name: 'turn 4: q4 (main)' });
    expect(server.count('BranchesPanelGraph')).toBeGreaterThan(before);
  });

  it('reads a lane older than the log page with a query of its own', async () => {
    const server = fakeServer({ logPage: 3 });
    renderPanel(server, m1.sha);
    await screen.findByRole('button', { name: 'turn 1: q1 (main)' });
    await waitFor(() => expect(dotNames()).toEqual(['turn 3: q3 (main)', 'turn 2: q2 (main)', 'turn 1: q1 (main)', 'turn 2: q2 again (retry-a2b)']));
    const lanes = server.state.calls.filter((c) => c.name === 'BranchesPanelLane').map((c) => c.variables);
    expect(lanes).toEqual([{ sessionId: 's1', branch: 'main', first: 3 }]);
    expect(screen.getByRole('button', { name: 'turn 1: q1 (main)' }).getAttribute('aria-current')).toBe('true');
  });
});
