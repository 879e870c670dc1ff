/**
 * expectContractNames against hand-written pages in Chromium (no server): a page with every
 * name of ui.md passes, and a page lacking some gets exactly those reported, so the later
 * end-to-end tests of the real pages can trust an empty answer.
 */
import { describe, expect, it } from 'vitest';
import { openPage } from './browser.js';
import { describeMissing, expectContractNames } from './ui-contract.js';

/** A static page with the contract's roles and names; `leave` drops the marked parts. */
function contractPage(leave: string[] = []): string {
  const part = (key: string, html: string) => (leave.includes(key) ? '' : html);
  return `<!doctype html><html><body>
    <nav aria-label="Sessions"><ul><li><a href="/sessions/s1">Bench session</a></li></ul></nav>
    <nav aria-label="Projects"><ul><li><a href="/projects/p1">demo</a></li></ul>
      <button id="new" onclick="document.getElementById('dlg').showModal()">New project</button></nav>
    <dialog id="dlg" aria-label="New project">
      <label>Folder <input type="text"></label><label>Name <input type="text"></label>
      <label><input type="checkbox"> Commit existing files</label><button>Create project</button>
    </dialog>
    <a href="/projects/p1">Project: demo</a>
    <div role="status" aria-label="Mirror">Mirror in sync</div>
    ${part('readonly', '<div role="status">Viewing turn 1: read-only</div>')}
    <main><article>hello</article><article>hi there</article></main>
    <p>Turn 1 / 2</p>
    <button>Previous turn</button>${part('next', '<button>Next turn</button>')}<button>Back to latest</button>
    ${part('timeline', '<ul aria-label="Timeline"><li>turn 2 second</li><li>turn 1 first</li></ul>')}
    <figure aria-label="Branches"><svg></svg></figure>
    <select aria-label="Branch"><option>main</option></select>
    <section aria-label="Changes"><p>a.txt</p></section>
    <div role="alert">uncommitted changes in a.txt</div>
  </body></html>`;
}

describe('expectContractNames', () => {
  it('finds nothing missing on a page that has every name, in every state asked for', async () => {
    const { page } = await openPage('http://127.0.0.1:9');
    await page.setContent(contractPage());
    const missing = await expectContractNames(page, { session: 'Bench session', project: 'demo', viewingOlder: true, dirtyTree: true });
    expect(missing, describeMissing(missing)).toEqual([]);
  });

  it('reports exactly the names a page lacks', async () => {
    const { page } = await openPage('http://127.0.0.1:9');
    await page.setContent(contractPage(['next', 'timeline', 'readonly']));
    const missing = await expectContractNames(page, { session: 'Bench session', project: 'other', viewingOlder: true });
    expect(missing).toEqual([
      'link "other" in navigation "Projects"',
      'button "Next turn"',
      'status containing "read-only"',
      'list "Timeline"',
      'listitem with "turn N" in list "Timeline"',
      'link "Project: other"',
    ]);
  });
});
