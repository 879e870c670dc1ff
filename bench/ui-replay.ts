/**
 * The web UI on a long session, in headless Chromium: (a) opening /sessions/<id> cold until
 * the latest turn's position ("Turn N / N") and the first Timeline item are visible (target
 * <= 1 s), and (b) "Previous turn" until "Turn N-1 / N" is visible (target <= 300 ms),
 * against baselines from the same run: (c) the page's data as one plain fetch POST from Node,
 * (d) the checkout of the previous turn with the same data, as one POST.
 *
 * Setup: a real server in-process on a temp data dir serving web/dist (built first when
 * stale, scripts/build-web.mjs; or --web-dir <dir>, a build with its .build-stamp); one
 * session of 10,000 closed turns loaded through Prisma (bench/fill-session.ts), its repo built
 * by rebuildSession, and `mirror { inSync }` awaited over HTTP before measuring.
 *
 * Timing is taken inside the page: a script added before the app watches the DOM and stamps
 * performance.now() when the condition first holds (element present and visible) and at the
 * next animation frame (about when it is painted). (a) runs from the navigation's start (a
 * fresh browser context each time: no HTTP cache, no storage; the server is warm after the
 * first); (b) from the click event's dispatch, with "Back to latest" between rounds. Every
 * measured state is checked afterwards with getByRole/getByText, the names of ui.md.
 * Usage: npx tsx bench/ui-replay.ts [--quick] [--web-dir <dir>]   (or npm run bench -- ui-replay)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ensureWebBuild } from '../scripts/build-web.mjs';
import { createLogger } from '../src/logger.js';
import { rebuildSession } from '../src/mirror/rebuild.js';
import { startServer, type RunningServer } from '../src/server.js';
import { launchChromium, noNetwork, type BlockedRequests } from '../test/e2e/chromium.js';
import { fillClosedTurns } from './fill-session.js';
import { benchConfig, fmt, percentile, timed } from './stats.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const webDirArg = argv.includes('--web-dir') ? argv[argv.indexOf('--web-dir') + 1] : undefined;
const TURNS = quick ? 2_000 : 10_000;
const COLD_RUNS = quick ? 3 : 5;
const WARMUP = 2;
const ROUNDS = 20;
const CONTENT_BYTES = 300;
const SESSION_ID = 'bench-ui-replay';
const TITLE = 'Benchmark: UI replay';
/** How long a step may take before the page is taken to lack what ui.md names. */
const STEP_TIMEOUT_MS = 20_000;
const TARGET_OPEN_MS = 1_000;
const TARGET_PREVIOUS_MS = 300;

const started = Date.now();
const root = await mkdtemp(join(tmpdir(), 'em-bench-ui-replay-'));
const config = { ...benchConfig(join(root, 'data')), ...(webDirArg ? { webDir: webDirArg } : {}) };

let server: RunningServer | undefined;
let browser: Browser | undefined;

// --- the GraphQL side, over HTTP like any client ---

async function post<T>(query: string, variables: Record<string, unknown>): Promise<T> {
  const response = await fetch(`${server!.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as { data?: T; errors?: unknown };
  if (result.errors || !result.data) throw new Error(`${query.slice(0, 60)}…: ${JSON.stringify(result.errors ?? result)}`);
  return result.data;
}

const MIRROR = `query Mirror($sessionId: String!) { session(sessionId: $sessionId) { mirror { dagTurns gitCommits pending inSync lastError } head { sha parentShas } } }`;

/**
 * What the session page shows, in one operation: the view (head, position, project), the
 * conversation's last turns with their messages, the timeline's first page and the head's
 * changes. VIEW is selected on the query's session and on the checkout mutation's answer.
 * $after is the turn list's cursor (as the server makes it) before the last 10 turns shown.
 */
const VIEW = `
  id sessionId title currentBranch detached
  project { id projectId name }
  head { sha parentShas headline turn { number branch } diff { additions deletions files { path oldPath status additions deletions } } }
  count: turns(first: 0) { totalCount }
  conversation: turns(after: $after, first: 10) { edges { node { number commit { sha } messages { id messageId seq role content toolName toolCallId createdAt caller { messageId } } } } }
  timeline(first: 50) { pageInfo { hasNextPage endCursor } edges { node { sha headline turn { number } } } }
  mirror { inSync pending lastError }`;
const PAGE_DATA = `query PageData($sessionId: String!, $after: String) { session(sessionId: $sessionId) { ${VIEW} } }`;
const CHECKOUT_DATA = `mutation CheckoutData($input: CheckoutInput!, $after: String) { checkout(input: $input) { ${VIEW} } }`;
const turnCursor = (number: number) => Buffer.from(`turn:${number}`).toString('base64url');
const SWITCH = `mutation Switch($input: SwitchBranchInput!) { switchBranch(input: $input) { head { sha } } }`;

type Mirror = { session: { mirror: { dagTurns: number; gitCommits: number; pending: number; inSync: boolean; lastError: string | null }; head: { sha: string; parentShas: string[] } | null } };

/** Polls the mirror state until it is in sync with every turn (or fails after two minutes). */
async function waitInSync(): Promise<Mirror['session']> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { session } = await post<Mirror>(MIRROR, { sessionId: SESSION_ID });
    const m = session.mirror;
    if (m.inSync && m.dagTurns === TURNS && m.gitCommits === TURNS) return session;
    if (m.lastError || Date.now() > deadline) throw new Error(`the mirror did not get in sync: ${JSON.stringify(m)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// --- the browser side ---

/**
 * Runs in the page before the app (plain JavaScript: a TypeScript function would be
 * serialized with the transpiler's helpers): `__uiBench.when(check)` resolves with the performance.now()
 * at which `check` first holds (checked on every DOM change) and at the animation frame after;
 * `__uiBench.lastClick` is the time of the last click event's dispatch.
 */
const PAGE_SCRIPT = `(() => {
  const probes = new Set();
  const visible = (el) => !!el && el.checkVisibility() && el.getClientRects().length > 0;
  const run = () => {
    for (const probe of [...probes]) {
      if (!probe.check()) continue;
      probes.delete(probe);
      const seen = performance.now();
      requestAnimationFrame(() => probe.resolve({ seen, frame: performance.now() }));
    }
  };
  new MutationObserver(run).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  const bench = {
    lastClick: 0,
    // An element holding a "Turn" text node whose whole text matches the pattern, visible.
    text: (pattern) => () => {
      const re = new RegExp(pattern);
      const walker = document.createTreeWalker(document.body || document, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (node.textContent.includes('Turn') && parent && re.test(parent.textContent) && visible(parent)) return true;
      }
      return false;
    },
    // A visible item of the list named "Timeline" (aria-label or aria-labelledby).
    timelineItem: () => () => {
      for (const list of document.querySelectorAll('ol, ul, [role="list"]')) {
        const labelledBy = list.getAttribute('aria-labelledby');
        const name = list.getAttribute('aria-label') ?? (labelledBy ? document.getElementById(labelledBy)?.textContent.trim() : undefined);
        if (name !== 'Timeline') continue;
        for (const item of list.querySelectorAll('li, [role="listitem"]')) if (visible(item)) return true;
      }
      return false;
    },
    when: (...checks) =>
      Promise.all(checks.map((check) => new Promise((resolve) => {
        probes.add({ check, resolve });
        if (document.body) run();
      }))).then((times) => ({ seen: Math.max(...times.map((t) => t.seen)), frame: Math.max(...times.map((t) => t.frame)) })),
  };
  document.addEventListener('click', () => { bench.lastClick = performance.now(); }, true);
  window.__uiBench = bench;
})();`;

const positionPattern = (x: number, y: number) => `(^|\\D)Turn ${x} / ${y}(\\D|$)`;
const positionText = (x: number, y: number) => new RegExp(positionPattern(x, y));

interface Tab {
  context: BrowserContext;
  page: Page;
  blocked: BlockedRequests;
  errors: string[];
}

async function newTab(): Promise<Tab> {
  const context = await browser!.newContext({ viewport: { width: 1400, height: 900 } });
  const blocked = await noNetwork(context, server!.url);
  await context.addInitScript(PAGE_SCRIPT);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, blocked, errors };
}

/** Waits in the page for the position text (and a Timeline item); resolves with the in-page times. */
function waitInPage(page: Page, x: number, y: number, withTimeline: boolean): Promise<{ seen: number; frame: number; lastClick: number }> {
  return page.evaluate(
    async ({ pattern, withTimeline }) => {
      const bench = (window as unknown as { __uiBench: { lastClick: number; when: (...c: (() => boolean)[]) => Promise<{ seen: number; frame: number }>; text: (p: string) => () => boolean; timelineItem: () => () => boolean } }).__uiBench;
      const checks = [bench.text(pattern), ...(withTimeline ? [bench.timelineItem()] : [])];
      const times = await bench.when(...checks);
      return { ...times, lastClick: bench.lastClick };
    },
    { pattern: positionPattern(x, y), withTimeline },
  );
}

/** Races `promise` against a timeout that explains which of ui.md's names the page lacks. */
async function orMissingNames<T>(page: Page, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), STEP_TIMEOUT_MS)));
  const result = await Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  if (result !== 'timeout') return result;
  const missing: string[] = [];
  if ((await page.getByText(/Turn \d+ \/ \d+/).count()) === 0) missing.push('text "Turn X / Y"');
  if ((await page.getByRole('list', { name: 'Timeline', exact: true }).getByRole('listitem').count()) === 0) missing.push('list "Timeline" with a listitem');
  for (const name of ['Previous turn', 'Back to latest']) if ((await page.getByRole('button', { name, exact: true }).count()) === 0) missing.push(`button "${name}"`);
  const shown = (await page.getByText(/Turn \d+ \/ \d+/).allInnerTexts()).join(' | ');
  throw new Error(
    `${what}: not seen within ${STEP_TIMEOUT_MS / 1000} s at ${page.url()}. ` +
      (missing.length > 0
        ? `The page lacks these names of ui.md: ${missing.join(', ')} (is the session page of branch ui-replay merged and web/dist rebuilt?)`
        : `The page has the names of ui.md but shows ${JSON.stringify(shown)}`),
  );
}

/** The measured state, checked the way users' automation finds it (ui.md). */
async function checkShown(page: Page, x: number, withTimeline: boolean) {
  const position = page.getByText(positionText(x, TURNS));
  if (!(await position.first().isVisible())) throw new Error(`"Turn ${x} / ${TURNS}" is not visible by getByText`);
  if (withTimeline) {
    const first = page.getByRole('list', { name: 'Timeline', exact: true }).getByRole('listitem').first();
    if (!(await first.isVisible())) throw new Error('the first listitem of list "Timeline" is not visible by getByRole');
  }
}

async function clickButton(page: Page, name: string) {
  const button = page.getByRole('button', { name, exact: true });
  await orMissingNames(page, `button "${name}"`, button.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS }));
  await button.click();
}

// --- run ---

try {
  console.log(
    `UI replay benchmark${quick ? ' (--quick)' : ''}: ${cpus().length} cpus (${availableParallelism()} available), node ${process.version}, ` +
      `${fmt(TURNS)} turns (${fmt(2 * TURNS)} messages of ${CONTENT_BYTES} B); ${COLD_RUNS} cold opens, ${ROUNDS} rounds after ${WARMUP} warm-up`,
  );

  // 1. setup
  if (webDirArg) {
    console.log(`  web UI: ${webDirArg} (--web-dir)`);
  } else {
    const build = await ensureWebBuild({ log: (message: string) => console.log(`  ${message}`) });
    console.log(`  web UI: web/dist ${build.built ? `built in ${fmt(build.ms ?? 0)} ms` : 'up to date'}`);
  }
  let t0 = performance.now();
  server = await startServer(config, createLogger('silent'));
  const { app } = server;
  const startMs = performance.now() - t0;
  t0 = performance.now();
  await fillClosedTurns(app.deps.db, { sessionId: SESSION_ID, title: TITLE, turns: TURNS, contentBytes: CONTENT_BYTES });
  const fillMs = performance.now() - t0;
  t0 = performance.now();
  const { written } = await app.deps.repoLocks.run(SESSION_ID, () => rebuildSession(app.deps, SESSION_ID, { moveAside: false }));
  if (written !== TURNS) throw new Error(`rebuildSession wrote ${written} turns, expected ${TURNS}`);
  const rebuildMs = performance.now() - t0;
  const session = await waitInSync();
  const tipSha = session.head!.sha;
  const parentSha = session.head!.parentShas[0]!;
  console.log(
    `  setup in ${root}: server started in ${fmt(startMs / 1000, 1)} s; rows through Prisma in ${fmt(fillMs / 1000, 1)} s; ` +
      `rebuildSession in ${fmt(rebuildMs / 1000, 1)} s; mirror in sync (${fmt(session.mirror.gitCommits)} commits, pending ${session.mirror.pending})`,
  );

  const index = await fetch(`${server.url}/sessions/${SESSION_ID}`, { headers: { accept: 'text/html' } });
  if (index.status !== 200) throw new Error(`GET /sessions/${SESSION_ID} answered ${index.status}: ${(await index.text()).slice(0, 200)}`);

  // 2. baselines from Node: (c) the page's data, (d) the checkout of the previous turn with it.
  const pageData: number[] = [];
  const checkoutData: number[] = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const c = await timed(async () => {
      const data = await post<{ session: { count: { totalCount: number }; head: { sha: string }; conversation: { edges: unknown[] } } }>(PAGE_DATA, { sessionId: SESSION_ID, after: turnCursor(TURNS - 10) });
      if (data.session.count.totalCount !== TURNS || data.session.head.sha !== tipSha || data.session.conversation.edges.length !== 10) throw new Error(`page data: ${JSON.stringify(data.session.count)}`);
    });
    const d = await timed(async () => {
      const data = await post<{ checkout: { head: { sha: string } } }>(CHECKOUT_DATA, { input: { sessionId: SESSION_ID, sha: parentSha }, after: turnCursor(TURNS - 11) });
      if (data.checkout.head.sha !== parentSha) throw new Error(`checkout: head at ${data.checkout.head.sha}, expected ${parentSha}`);
    });
    await post(SWITCH, { input: { sessionId: SESSION_ID, branch: 'main' } });
    if (i >= WARMUP) {
      pageData.push(c);
      checkoutData.push(d);
    }
  }

  // 3. the browser
  browser = await launchChromium();
  console.log(`  browser: Chromium ${browser.version()} (headless)`);

  // (a) cold opens: a fresh context each time.
  const opens: { seen: number; frame: number }[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const tab = await newTab();
    try {
      await tab.page.goto(`${server.url}/sessions/${SESSION_ID}`, { waitUntil: 'commit' });
      const times = await orMissingNames(tab.page, `"Turn ${TURNS} / ${TURNS}" and a Timeline item after opening the page`, waitInPage(tab.page, TURNS, TURNS, true));
      await checkShown(tab.page, TURNS, true);
      opens.push(times);
      if (tab.blocked.urls.length > 0) throw new Error(`the page asked for other origins: ${tab.blocked.urls.join(', ')}`);
    } finally {
      await tab.context.close();
    }
  }

  // (b) Previous turn, then Back to latest, in one tab.
  const tab = await newTab();
  const previous: { seen: number; frame: number }[] = [];
  const back: number[] = [];
  await tab.page.goto(`${server.url}/sessions/${SESSION_ID}`, { waitUntil: 'commit' });
  await orMissingNames(tab.page, `"Turn ${TURNS} / ${TURNS}" after opening the page`, waitInPage(tab.page, TURNS, TURNS, true));
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const seenPrevious = waitInPage(tab.page, TURNS - 1, TURNS, false);
    await clickButton(tab.page, 'Previous turn');
    const p = await orMissingNames(tab.page, `"Turn ${TURNS - 1} / ${TURNS}" after "Previous turn"`, seenPrevious);
    await checkShown(tab.page, TURNS - 1, false);
    const seenLatest = waitInPage(tab.page, TURNS, TURNS, false);
    await clickButton(tab.page, 'Back to latest');
    const b = await orMissingNames(tab.page, `"Turn ${TURNS} / ${TURNS}" after "Back to latest"`, seenLatest);
    await checkShown(tab.page, TURNS, false);
    if (i >= WARMUP) {
      previous.push({ seen: p.seen - p.lastClick, frame: p.frame - p.lastClick });
      back.push(b.frame - b.lastClick);
    }
  }
  if (tab.blocked.urls.length > 0) throw new Error(`the page asked for other origins: ${tab.blocked.urls.join(', ')}`);
  if (tab.errors.length > 0) console.log(`  page errors: ${tab.errors.join(' | ')}`);
  await tab.context.close();

  // 4. the table
  const p50 = (xs: number[]) => percentile(xs, 50);
  const p95 = (xs: number[]) => percentile(xs, 95);
  const ms = (n: number) => `${fmt(n, 1)} ms`.padStart(11);
  const line = (label: string, first: string, xs: number[], target: string) =>
    `${label.padEnd(64)}${first.padStart(11)}${ms(p50(xs))}${ms(p95(xs))}   ${target}`;
  const verdict = (value: number, target: number) => `<= ${fmt(target)} ms ${value <= target ? 'ok' : 'MISSED'}`;
  const openFrames = opens.map((o) => o.frame);
  const previousFrames = previous.map((o) => o.frame);

  console.log(`\n${'step'.padEnd(64)}${'first'.padStart(11)}${'p50'.padStart(11)}${'p95'.padStart(11)}   target (on p95)`);
  console.log(line(`(a) cold open -> "Turn ${TURNS} / ${TURNS}" + Timeline item (${COLD_RUNS}x)`, ms(openFrames[0]!), openFrames, verdict(p95(openFrames), TARGET_OPEN_MS)));
  console.log(line('    the same, in the DOM (before the frame)', ms(opens[0]!.seen), opens.map((o) => o.seen), ''));
  console.log(line(`(b) "Previous turn" -> "Turn ${TURNS - 1} / ${TURNS}" (${ROUNDS}x)`, '', previousFrames, verdict(p95(previousFrames), TARGET_PREVIOUS_MS)));
  console.log(line('    "Back to latest" -> back at the tip', '', back, ''));
  console.log(line('(c) baseline: the page data, one POST from Node', '', pageData, ''));
  console.log(line('(d) baseline: checkout(previous) + page data, one POST', '', checkoutData, ''));
  console.log(`\nratio p50 (a) / (c): ${(p50(openFrames) / p50(pageData)).toFixed(2)}   ratio p50 (b) / (d): ${(p50(previousFrames) / p50(checkoutData)).toFixed(2)}`);
} finally {
  await browser?.close();
  await server?.stop();
  await rm(root, { recursive: true, force: true });
  console.log(`\ntotal ${fmt((Date.now() - started) / 1000, 1)} s; browser closed, server stopped, temp dirs removed`);
}
