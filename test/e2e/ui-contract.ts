/**
 * The UI contract's accessible names (/work/shared/contract/ui.md, contract/ui.md) as one
 * check for end-to-end tests: on a page showing a session bound to a project, every role and
 * name the contract lists is looked up with getByRole, and the ones not found are returned
 * (an empty list means the page keeps the contract). The "New project" dialog is opened with
 * its button, checked, and closed with Escape. The read-only status and the dirty-tree alert
 * only exist in some states: they are checked when the caller says the page is in that state.
 */
import type { Locator, Page } from 'playwright-core';

export interface ContractOptions {
  /** The viewed session's link text in the Sessions navigation (its title, or id when untitled). */
  session?: string;
  /** The session's project name: the Projects link and the "Project: <name>" indicator. */
  project?: string;
  /** The page views an older commit: the read-only status must be there. */
  viewingOlder?: boolean;
  /** A dirty-tree warning is showing: the alert must be there (with this text, when a string). */
  dirtyTree?: boolean | string;
  /** How long to wait for each element to appear (ms); default 2000. */
  timeoutMs?: number;
}

/** Roles and names of ui.md missing from the page, each as `role "name"` (empty: all present). */
export async function expectContractNames(page: Page, options: ContractOptions = {}): Promise<string[]> {
  const timeout = options.timeoutMs ?? 2000;
  const missing: string[] = [];
  const present = async (locator: Locator): Promise<boolean> => {
    try {
      await locator.first().waitFor({ state: 'attached', timeout });
      return true;
    } catch {
      return false;
    }
  };
  // Alternatives (img or figure, ...) are waited for together, so a page using the second one
  // does not wait out the first one's timeout.
  const expectOne = async (description: string, first: Locator, ...others: Locator[]) => {
    if (!(await present(others.reduce((either, other) => either.or(other), first)))) missing.push(description);
  };

  // Sessions and Projects navigation.
  const sessions = page.getByRole('navigation', { name: 'Sessions', exact: true });
  await expectOne('navigation "Sessions"', sessions);
  if (options.session !== undefined) {
    await expectOne(`link "${options.session}" in navigation "Sessions"`, sessions.getByRole('link', { name: options.session, exact: true }));
  } else {
    await expectOne('a link in navigation "Sessions"', sessions.getByRole('link'));
  }
  const projects = page.getByRole('navigation', { name: 'Projects', exact: true });
  await expectOne('navigation "Projects"', projects);
  if (options.project !== undefined) {
    await expectOne(`link "${options.project}" in navigation "Projects"`, projects.getByRole('link', { name: options.project, exact: true }));
  }
  const newProject = page.getByRole('button', { name: 'New project', exact: true });
  await expectOne('button "New project"', newProject);

  // The conversation, the position and the replay buttons.
  const main = page.getByRole('main');
  await expectOne('main', main);
  await expectOne('article in main', main.getByRole('article'));
  await expectOne('text "Turn X / Y"', page.getByText(/Turn \d+ \/ \d+/));
  for (const name of ['Previous turn', 'Next turn', 'Back to latest']) {
    await expectOne(`button "${name}"`, page.getByRole('button', { name, exact: true }));
  }
  if (options.viewingOlder) {
    await expectOne('status containing "read-only"', page.getByRole('status').filter({ hasText: /read-only/ }));
  }

  // Timeline, branches, changes.
  const timeline = page.getByRole('list', { name: 'Timeline', exact: true });
  await expectOne('list "Timeline"', timeline);
  await expectOne('listitem with "turn N" in list "Timeline"', timeline.getByRole('listitem').filter({ hasText: /turn \d+/ }));
  await expectOne(
    'img or figure "Branches"',
    page.getByRole('img', { name: 'Branches', exact: true }),
    page.getByRole('figure', { name: 'Branches', exact: true }),
  );
  await expectOne(
    'combobox or listbox "Branch"',
    page.getByRole('combobox', { name: 'Branch', exact: true }),
    page.getByRole('listbox', { name: 'Branch', exact: true }),
  );
  await expectOne('region "Changes"', page.getByRole('region', { name: 'Changes', exact: true }));

  // Project indicator, dirty tree, mirror state.
  await expectOne(
    options.project !== undefined ? `link "Project: ${options.project}"` : 'link "Project: <name>"',
    page.getByRole('link', { name: options.project !== undefined ? `Project: ${options.project}` : /^Project: / }),
  );
  if (options.dirtyTree) {
    const text = typeof options.dirtyTree === 'string' ? options.dirtyTree : /uncommitted changes/;
    await expectOne(`alert "${typeof options.dirtyTree === 'string' ? options.dirtyTree : 'uncommitted changes'}"`, page.getByRole('alert').filter({ hasText: text }));
  }
  const mirrorState = /in sync|pending \d+|failed: /;
  await expectOne(
    'status "Mirror" (in sync / pending N / failed: …)',
    page.getByRole('status', { name: /Mirror/ }).filter({ hasText: mirrorState }),
    page.getByRole('status').filter({ hasText: /Mirror/ }).filter({ hasText: mirrorState }),
  );

  // The New project dialog, opened from its button and closed again.
  if (await present(newProject)) {
    await newProject.first().click();
    const dialog = page.getByRole('dialog', { name: 'New project', exact: true });
    if (await present(dialog)) {
      for (const name of ['Folder', 'Name']) await expectOne(`textbox "${name}" in dialog "New project"`, dialog.getByRole('textbox', { name, exact: true }));
      await expectOne('checkbox "Commit existing files" in dialog "New project"', dialog.getByRole('checkbox', { name: 'Commit existing files', exact: true }));
      await expectOne('button "Create project" in dialog "New project"', dialog.getByRole('button', { name: 'Create project', exact: true }));
      await page.keyboard.press('Escape');
    } else {
      missing.push('dialog "New project" (after clicking button "New project")');
    }
  }
  return missing;
}

/** The missing names one per line, for a failure message. */
export function describeMissing(missing: string[]): string {
  return missing.length === 0 ? 'none' : missing.map((name) => `- ${name}`).join('\n');
}
