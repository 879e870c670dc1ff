// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Client, Provider, fetchExchange } from 'urql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProjectsNav } from './ProjectsNav';

afterEach(cleanup);

/**
 * A client whose requests never leave the test: each body is recorded; the project list is
 * answered (no projects), anything else left unanswered.
 */
function recordingClient() {
  const sent: { query: string; variables: unknown }[] = [];
  const fetch = async (_url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as { query: string; variables: unknown };
    sent.push(body);
    if (body.query.trimStart().startsWith('query ProjectsNav')) {
      return new Response(JSON.stringify({ data: { projects: { totalCount: 0, edges: [] } } }), { headers: { 'content-type': 'application/json' } });
    }
    return new Promise<Response>(() => {});
  };
  return { client: new Client({ url: 'http://localhost/graphql', exchanges: [fetchExchange], fetch }), sent };
}

async function openDialog() {
  const { client, sent } = recordingClient();
  render(
    <Provider value={client}>
      <ProjectsNav />
    </Provider>,
  );
  const user = userEvent.setup();
  // The button comes in under the list, once the list is in.
  await user.click(await screen.findByRole('button', { name: 'New project' }));
  const dialog = screen.getByRole('dialog', { name: 'New project' });
  const mutations = () => sent.filter((body) => body.query.trimStart().startsWith('mutation'));
  return { user, dialog, mutations };
}

describe('the New project dialog', () => {
  it('has the fields ui.md names', async () => {
    const { dialog } = await openDialog();
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(screen.getByRole('textbox', { name: 'Folder' })).toBe(document.activeElement);
    expect(screen.getByRole('textbox', { name: 'Name' })).toBeTruthy();
    expect(screen.getByRole('checkbox', { name: 'Commit existing files' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Create project' })).toBeTruthy();
    expect(dialog.textContent).toContain('existing repo is used as it is; otherwise git init runs');
  });

  it('refuses an empty folder without asking the server', async () => {
    const { user, mutations } = await openDialog();
    await user.click(screen.getByRole('button', { name: 'Create project' }));
    const folder = screen.getByRole('textbox', { name: 'Folder' });
    expect(folder.getAttribute('aria-invalid')).toBe('true');
    expect(folder.getAttribute('aria-describedby') && document.getElementById(folder.getAttribute('aria-describedby')!)?.textContent).toMatch(/absolute path/);
    expect(mutations()).toEqual([]);
  });

  it('refuses a relative folder without asking the server', async () => {
    const { user, mutations } = await openDialog();
    await user.type(screen.getByRole('textbox', { name: 'Folder' }), 'code/app');
    expect((screen.getByRole('textbox', { name: 'Name' }) as HTMLInputElement).value).toBe('app');
    await user.click(screen.getByRole('button', { name: 'Create project' }));
    expect(screen.getByText(/"code\/app" is a relative path/)).toBeTruthy();
    expect(mutations()).toEqual([]);
  });

  it('sends createProject for an absolute folder, with initialCommit from the checkbox', async () => {
    const { user, mutations } = await openDialog();
    await user.type(screen.getByRole('textbox', { name: 'Folder' }), '/home/me/app');
    await user.click(screen.getByRole('checkbox', { name: 'Commit existing files' }));
    await user.click(screen.getByRole('button', { name: 'Create project' }));
    await vi.waitFor(() => expect(mutations()).toHaveLength(1), { timeout: 30_000 });
    expect(mutations()[0]!.variables).toEqual({ input: { workdir: '/home/me/app', name: 'app', initialCommit: true } });
  });

  it('closes on Cancel and on Escape', async () => {
    const { user } = await openDialog();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'New project' }));
    await user.click(screen.getByRole('button', { name: 'New project' }));
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
