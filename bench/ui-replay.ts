/**
 * The web UI on a long session in a project, in headless Chromium: (a) opening /sessions/<id>
 * cold until the latest turn's position ("Turn N / N"), the first Timeline item and the turn's
 * project diff (its file listed in "Code changes") are visible (target <= 400 ms), and
 * (b) "Previous turn" until "Turn N-1 / N" and that turn's project diff are visible (target
 * <= 150 ms), against baselines from the same run: (c) the page's data as one plain fetch POST
 * from Node, (d) the previous turn's data (its commit, its conversation window before the
 * latest turn's cursor as the server gave it, its project diff) as one POST.
 *
 * Setup: a real server in-process on a temp data dir serving web/dist (built first when
 * stale, scripts/build-web.mjs; or --web-dir <dir>, a build with its .build-stamp); one
 * session of 10,000 closed turns loaded through Prisma (bench/fill-session.ts), its repo built
 * by rebuildSession, and `mirror { inSync }` awaited over HTTP before measuring. The session is
 * in a project (a real repo): its last two turns are the agent's commits there, each changing
 * a 400-line file and adding one.
 *
 * Timing is taken inside the page: a script added before the app watches the DOM and stamps
 * performance.now() when the condition first holds (element present and visible) and at the
 * next animation frame (about when it is painted). (a) runs from the navigation's start (a
 * fresh browser context each time: no HTTP cache, no storage; the server is warm after the
 * first); (b) from the click event's dispatch, with "Back to latest" between rounds. Every
 * measured state is checked afterwards with getByRole/getByText, the names of ui.md.
 * Requests to other origins are watched, not intercepted (test/e2e/chromium.ts watchOrigins):
 * Playwright's interception put ~200 ms on each cold open; a run that saw one fails.
 * --profile adds one more cold open under Chromium's CPU profiler and prints where its samples fell.
 * --compare-web-dir <dir> (another build, e.g. of an earlier commit) adds, after (a), cold opens
 * of the two builds in turn on the same server and data (COMPARE_RUNS each; the page served is
 * swapped between opens, both builds' assets side by side), and their p50 ratio.
 * Usage: npx tsx bench/ui-replay.ts [--quick] [--profile] [--web-dir <dir>] [--compare-web-dir <dir>]   (or npm run bench -- ui-replay)
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session as InspectorSession } from 'node:inspector';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ensureWebBuild } from '../scripts/build-web.mjs';
import { onSqlStatement } from '../src/db/index.js';
import { onGitSpawn, PER_CALL_CONFIG } from '../src/git/run.js';
import { createLogger } from '../src/logger.js';
import { rebuildSession } from '../src/mirror/rebuild.js';
import { startServer, type RunningServer } from '../src/server.js';
import { launchChromium, watchOrigins, type BlockedRequests } from '../test/e2e/chromium.js';
import { fillClosedTurns } from './fill-session.js';
import { benchConfig, fmt, percentile, postGraphQL, timed } from './stats.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const profiling = argv.includes('--profile');
const webDirArg = argv.includes('--web-dir') ? argv[argv.indexOf('--web-dir') + 1] : undefined;
const compareDirArg = argv.includes('--compare-web-dir') ? argv[argv.indexOf('--compare-web-dir') + 1] : undefined;
const COMPARE_RUNS = quick ? 5 : 15;
const TURNS = quick ? 2_000 : 10_000;
const COLD_RUNS = quick ? 3 : 15;
const WARMUP = 2;
const ROUNDS = 20;
const CONTENT_BYTES = 300;
const SESSION_ID = 'bench-ui-replay';
const TITLE = 'Benchmark: UI replay';
/** How long a step may take before the page is taken to lack what ui.md names. */
const STEP_TIMEOUT_MS = 20_000;
const TARGET_OPEN_MS = 400;
const ROOT = join(import.meta.dirname, '..');
const TARGET_PREVIOUS_MS = 150;
/** The file each of the last two turns' project commits changes, and the one each adds. */
const CHANGED_FILE = 'src/orders.ts';
const addedFile = (turn: number) => `src/turn-${turn}.ts`;

const started = Date.now();
const root = await mkdtemp(join(tmpdir(), 'em-bench-ui-replay-'));
// The project's folder is beside the data dir (never inside it), under the allowed root.
/** With --compare-web-dir: the folder served, holding both builds' assets; its index.html is the build of the open. */
const abDir = join(root, 'web-ab');
const config = { ...benchConfig(join(root, 'data')), allowedRoots: [root], ...(compareDirArg ? { webDir: abDir } : webDirArg ? { webDir: webDirArg } : {}) };

let server: RunningServer | undefined;
let browser: Browser | undefined;

// --- the GraphQL side, over HTTP like any client ---

const post = <T>(query: string, variables: Record<string, unknown> = {}) => postGraphQL<T>(server!.url, query, variables);

const MIRROR = `query Mirror($sessionId: String!) { session(sessionId: $sessionId) { mirror { dagTurns gitCommits pending inSync lastError } head { sha parentShas } } }`;

/**
 * What the session page shows at the latest turn, in one operation: the view (position,
 * project), the head (the current branch's tip) and count, the conversation's last 10 turns with their
 * messages, the timeline's first page, the mirror, and the tip turn's project diff.
 */
const DIFF = 'diff { additions deletions files { path oldPath status additions deletions patch truncated } }';
const PROJECT_DIFF = `turn { number cursor projectCommit { result reason message dirtyPaths paths commit { sha ${DIFF} } snapshot { sha ${DIFF} } } }`;
const PAGE_DATA = `query PageData($sessionId: String!) { session(sessionId: $sessionId) {
  id sessionId title currentBranch detached
  project { id projectId name }
  count: turns(first: 0) { totalCount }
  head { sha parentShas headline ${PROJECT_DIFF} }
  conversation: turns(last: 10) { edges { cursor node { number commit { sha } messages { id messageId seq role content toolName toolCallId createdAt caller { messageId } } } } }
  timeline(first: 50) { pageInfo { hasNextPage endCursor } edges { node { sha headline turn { number } } } }
  mirror { inSync pending lastError }
} }`;
/** The previous turn's data: its commit and project diff, and the conversation window before the latest turn's cursor. */
const PREVIOUS_DATA = `query PreviousData($sessionId: String!, $sha: String!, $before: String!) { session(sessionId: $sessionId) {
  id
  commit(sha: $sha) { sha parentShas headline ${PROJECT_DIFF} }
  conversation: turns(last: 10, before: $before) { edges { cursor node { number commit { sha } messages { id messageId seq role content toolName toolCallId createdAt caller { messageId } } } } }
} }`;
type PageData = {
  session: {
    count: { totalCount: number };
    head: { sha: string; turn: { cursor: string; projectCommit: { commit: { diff: { files: { path: string }[] } } | null } | null } };
    conversation: { edges: { cursor: string }[] };
  };
};
type PreviousData = { session: { commit: { sha: string; turn: { number: number; projectCommit: { commit: { diff: { files: { path: string }[] } } | null } | null } }; conversation: { edges: unknown[] } } };

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Bench Agent', '-c', 'user.email=agent@example.invalid', ...args], { cwd, encoding: 'utf8' }).trim();

/** A 400-line TypeScript file; `version` changes 20 of its lines. */
function ordersSource(version: number): string {
  return Array.from({ length: 400 }, (_, i) => (i % 20 === 0 && version > 0 ? `export const order${i} = { id: ${i}, version: ${version}, total: ${i * 3} };` : `export const order${i} = { id: ${i}, total: ${i * 3} };`)).join('\n') + '\n';
}

/**
 * Puts the session in a project on a real repo, and makes its last two turns the agent's
 * commits there (rows as the committer leaves them: COMMITTED with the commit's sha).
 */
async function bindProject(app: RunningServer['app']): Promise<void> {
  const workdir = join(root, 'project');
  mkdirSync(join(workdir, 'src'), { recursive: true });
  git(workdir, 'init', '-q', '-b', 'main');
  writeFileSync(join(workdir, CHANGED_FILE), ordersSource(0));
  git(workdir, 'add', '-A');
  git(workdir, 'commit', '-q', '-m', 'initial');
  const { createProject } = await post<{ createProject: { projectId: string } }>(
    `mutation P($input: CreateProjectInput!) { createProject(input: $input) { projectId } }`,
    { input: { name: 'Bench project', workdir } },
  );
  const projectId = createProject.projectId;
  await app.deps.db.session.update({ where: { sessionId: SESSION_ID }, data: { projectId } });
  for (const turn of [TURNS - 1, TURNS]) {
    writeFileSync(join(workdir, CHANGED_FILE), ordersSource(turn));
    writeFileSync(join(workdir, addedFile(turn)), `export const turn = ${turn};\n`);
    git(workdir, 'add', '-A');
    git(workdir, 'commit', '-q', '-m', `[agent ${SESSION_ID}] turn ${turn}`);
    const sha = git(workdir, 'rev-parse', 'HEAD');
    await app.deps.db.turn.updateMany({
      where: { sessionId: SESSION_ID, number: turn },
      data: { projectId, projectResult: 'COMMITTED', projectCommitSha: sha, projectMessage: `Committed turn ${turn}.` },
    });
  }
}

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
    // A visible element of the region named "Code changes" whose text is the path.
    codeFile: (path) => () => {
      for (const region of document.querySelectorAll('section[aria-label="Code changes"]')) {
        for (const el of region.querySelectorAll('*')) if (el.childElementCount === 0 && el.textContent.trim() === path && visible(el)) return true;
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
  const blocked = watchOrigins(context, server!.url);
  await context.addInitScript(PAGE_SCRIPT);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, blocked, errors };
}

/**
 * Waits in the page for the position text, turn x's project diff (the file the turn added, in
 * "Code changes") and, when asked, a Timeline item; resolves with the in-page times.
 */
function waitInPage(page: Page, x: number, y: number, withTimeline: boolean): Promise<{ seen: number; frame: number; lastClick: number }> {
  return page.evaluate(
    async ({ pattern, file, withTimeline }) => {
      type Check = () => boolean;
      const bench = (
        window as unknown as {
          __uiBench: { lastClick: number; when: (...c: Check[]) => Promise<{ seen: number; frame: number }>; text: (p: string) => Check; timelineItem: () => Check; codeFile: (path: string) => Check };
        }
      ).__uiBench;
      const checks = [bench.text(pattern), bench.codeFile(file), ...(withTimeline ? [bench.timelineItem()] : [])];
      const times = await bench.when(...checks);
      return { ...times, lastClick: bench.lastClick };
    },
    { pattern: positionPattern(x, y), file: addedFile(x), withTimeline },
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
  const file = page.getByRole('region', { name: 'Code changes', exact: true }).getByText(addedFile(x), { exact: true });
  if (!(await file.first().isVisible())) throw new Error(`"${addedFile(x)}" is not visible in region "Code changes"`);
  if (withTimeline) {
    const first = page.getByRole('list', { name: 'Timeline', exact: true }).getByRole('listitem').first();
    if (!(await first.isVisible())) throw new Error('the first listitem of list "Timeline" is not visible by getByRole');
  }
}

/**
 * Where a cold open's time goes: each request the page makes (scripts, and /graphql by operation
 * name) with its start and end in ms from the navigation's start, as Chromium times them.
 */
function traceRequests(page: Page): { text: () => string; bodies: Map<string, string> } {
  const seen: { name: string; start: number; end: number }[] = [];
  // Each GraphQL operation's request body (its last), to be sent again alone.
  const bodies = new Map<string, string>();
  page.on('requestfinished', (request) => {
    const timing = request.timing();
    const path = new URL(request.url()).pathname.replace(/^\/assets\//, '');
    let name = path;
    if (path === '/graphql') {
      try {
        name = (JSON.parse(request.postData() ?? '{}') as { operationName?: string }).operationName ?? path;
        bodies.set(name, request.postData()!);
      } catch {
        // not JSON: keep the path
      }
    }
    seen.push({ name, start: timing.startTime, end: timing.startTime + timing.responseEnd });
  });
  // From the document's request (the first to start).
  return {
    text: () => {
      const origin = Math.min(...seen.map((r) => r.start));
      return seen.map((r) => `${r.name} ${Math.round(r.start - origin)}-${Math.round(r.end - origin)}`).join(', ');
    },
    bodies,
  };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** A script's short name: a page's asset, or a server file by its package (or its path under this repository). */
function scriptName(url: string): string {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url.startsWith('node:') ? url : new URL(url).pathname.replace(/^\/assets\//, '');
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (dependency) return dependency[1]!;
  return path.startsWith(ROOT) ? path.slice(ROOT.length + 1) : path;
}

/** Where a CPU profile's samples fell: by script (and GC, idle, program), then the functions with the most self time. */
function summarizeProfile(cpu: CpuProfile): string {
  const byId = new Map(cpu.nodes.map((n) => [n.id, n]));
  const byScript = new Map<string, number>();
  const byFunction = new Map<string, number>();
  cpu.samples.forEach((id, i) => {
    const ms = (cpu.timeDeltas[i + 1] ?? 0) / 1000;
    const frame = byId.get(id)!.callFrame;
    const script = frame.url ? scriptName(frame.url) : `(${frame.functionName || 'native'})`;
    byScript.set(script, (byScript.get(script) ?? 0) + ms);
    const name = `${frame.functionName || '(anonymous)'} ${script}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  });
  const top = (m: Map<string, number>, n: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `  ${fmt(v, 1).padStart(7)}  ${k}`).join('\n');
  return `${top(byScript, 8)}\n functions, self time:\n${top(byFunction, 15)}`;
}

/**
 * Each operation of a cold open sent again alone from Node, one after another: p50 ms of each,
 * and the SQL statements and git processes (by subcommand) of its last round.
 */
async function eachAlone(bodies: Map<string, string>): Promise<string> {
  const rows: string[] = [];
  let statements = 0;
  const git = new Map<string, number>();
  const stopSql = onSqlStatement(() => statements++);
  const stopGit = onGitSpawn((e) => {
    const name = e.argv[1 + PER_CALL_CONFIG.length] ?? '?';
    git.set(name, (git.get(name) ?? 0) + 1);
  });
  for (const [name, body] of bodies) {
    const xs: number[] = [];
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      const ms = await timed(async () => {
        const response = await fetch(`${server!.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
        const json = (await response.json()) as { errors?: unknown[] };
        if (json.errors?.length) throw new Error(`${name}: ${JSON.stringify(json.errors)}`);
      });
      if (i >= WARMUP) xs.push(ms);
      if (i < WARMUP + ROUNDS - 1) {
        statements = 0;
        git.clear();
      }
    }
    const processes = [...git].map(([sub, n]) => `${n} ${sub}`).join(' ');
    rows.push(`  ${name.padEnd(20)} ${fmt(percentile(xs, 50), 1).padStart(6)} ms  ${String(statements).padStart(3)} SQL  git: ${processes || 'none'}`);
  }
  stopSql();
  stopGit();
  return rows.join('\n');
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
  const builtDir = webDirArg ?? join(ROOT, 'web', 'dist');
  if (compareDirArg) {
    for (const dir of [builtDir, compareDirArg]) cpSync(dir, abDir, { recursive: true });
    console.log(`  compared with: ${compareDirArg} (--compare-web-dir)`);
  }
  /** Serves `dir`'s page from now on (--compare-web-dir). */
  const servePageOf = (dir: string) => copyFileSync(join(dir, 'index.html'), join(abDir, 'index.html'));
  if (compareDirArg) servePageOf(builtDir);
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
  await bindProject(app);
  const session = await waitInSync();
  const tipSha = session.head!.sha;
  const parentSha = session.head!.parentShas[0]!;
  console.log(
    `  setup in ${root}: server started in ${fmt(startMs / 1000, 1)} s; rows through Prisma in ${fmt(fillMs / 1000, 1)} s; ` +
      `rebuildSession in ${fmt(rebuildMs / 1000, 1)} s; mirror in sync (${fmt(session.mirror.gitCommits)} commits, pending ${session.mirror.pending})`,
  );

  const index = await fetch(`${server.url}/sessions/${SESSION_ID}`, { headers: { accept: 'text/html' } });
  if (index.status !== 200) throw new Error(`GET /sessions/${SESSION_ID} answered ${index.status}: ${(await index.text()).slice(0, 200)}`);

  // 2. baselines from Node: (c) the page's data, (d) the previous turn's, with the cursor (c) answered.
  const pageData: number[] = [];
  const previousData: number[] = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    let before = '';
    const c = await timed(async () => {
      const { session } = await post<PageData>(PAGE_DATA, { sessionId: SESSION_ID });
      const tip = session.head;
      if (session.count.totalCount !== TURNS || tip.sha !== tipSha || session.conversation.edges.length !== 10) throw new Error(`page data: ${JSON.stringify(session.count)}`);
      if (!tip.turn.projectCommit?.commit?.diff.files.some((f) => f.path === CHANGED_FILE)) throw new Error(`page data: no project diff of ${CHANGED_FILE}`);
      before = tip.turn.cursor;
    });
    const d = await timed(async () => {
      const { session } = await post<PreviousData>(PREVIOUS_DATA, { sessionId: SESSION_ID, sha: parentSha, before });
      if (session.commit.turn.number !== TURNS - 1 || session.conversation.edges.length !== 10) throw new Error(`previous data: turn ${session.commit.turn.number}`);
      if (!session.commit.turn.projectCommit?.commit?.diff.files.some((f) => f.path === addedFile(TURNS - 1))) throw new Error('previous data: no project diff');
    });
    if (i >= WARMUP) {
      pageData.push(c);
      previousData.push(d);
    }
  }

  // 3. the browser
  browser = await launchChromium();
  console.log(`  browser: Chromium ${browser.version()} (headless)`);

  // (a) cold opens: a fresh context each time.
  const opens: { seen: number; frame: number }[] = [];
  let openTrace = '';
  let openBodies = new Map<string, string>();
  for (let i = 0; i < COLD_RUNS; i++) {
    const tab = await newTab();
    try {
      const trace = traceRequests(tab.page);
      await tab.page.goto(`${server.url}/sessions/${SESSION_ID}`, { waitUntil: 'commit' });
      const times = await orMissingNames(tab.page, `"Turn ${TURNS} / ${TURNS}", its project diff and a Timeline item after opening the page`, waitInPage(tab.page, TURNS, TURNS, true));
      await checkShown(tab.page, TURNS, true);
      opens.push(times);
      if (i === COLD_RUNS - 1) {
        openTrace = trace.text();
        openBodies = trace.bodies;
      }
      if (tab.blocked.urls.length > 0) throw new Error(`the page asked for other origins: ${tab.blocked.urls.join(', ')}`);
    } finally {
      await tab.context.close();
    }
  }

  // --compare-web-dir: the two builds' cold opens in turn (this one first, then the other, and so on).
  const compared = { built: [] as number[], other: [] as number[] };
  if (compareDirArg) {
    for (let i = 0; i < 2 * COMPARE_RUNS; i++) {
      const arm = i % 2 === 0 ? 'built' : 'other';
      servePageOf(arm === 'built' ? builtDir : compareDirArg);
      const tab = await newTab();
      try {
        await tab.page.goto(`${server.url}/sessions/${SESSION_ID}`, { waitUntil: 'commit' });
        const times = await orMissingNames(tab.page, `"Turn ${TURNS} / ${TURNS}" after opening the page (${arm})`, waitInPage(tab.page, TURNS, TURNS, true));
        compared[arm].push(times.frame);
      } finally {
        await tab.context.close();
      }
    }
    servePageOf(builtDir);
  }

  // With --profile: one more cold open under Chromium's CPU profiler (not timed).
  let profile = '';
  if (profiling) {
    const tab = await newTab();
    try {
      const cdp = await tab.context.newCDPSession(tab.page);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
      // The server's own process too (it runs in this one), over the same cold open.
      const inspector = new InspectorSession();
      inspector.connect();
      const post = (method: string, params?: object) =>
        new Promise<unknown>((resolve, reject) => inspector.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))));
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
      await post('Profiler.start');
      await tab.page.goto(`${server.url}/sessions/${SESSION_ID}`, { waitUntil: 'commit' });
      await waitInPage(tab.page, TURNS, TURNS, true);
      const { profile: serverCpu } = (await post('Profiler.stop')) as { profile: CpuProfile };
      inspector.disconnect();
      const { profile: cpu } = (await cdp.send('Profiler.stop')) as { profile: CpuProfile };
      profile = `${summarizeProfile(cpu)}\nthe server's process (with this benchmark's client) over the same open:\n${summarizeProfile(serverCpu)}`;
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
    const p = await orMissingNames(tab.page, `"Turn ${TURNS - 1} / ${TURNS}" and its project diff after "Previous turn"`, seenPrevious);
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

  console.log(`\n${'step'.padEnd(64)}${'first'.padStart(11)}${'p50'.padStart(11)}${'p95'.padStart(11)}   target (on p50)`);
  console.log(line(`(a) cold open -> "Turn ${TURNS} / ${TURNS}" + Timeline item + diff (${COLD_RUNS}x)`, ms(openFrames[0]!), openFrames, verdict(p50(openFrames), TARGET_OPEN_MS)));
  console.log(line('    the same, in the DOM (before the frame)', ms(opens[0]!.seen), opens.map((o) => o.seen), ''));
  console.log(line(`(b) "Previous turn" -> "Turn ${TURNS - 1} / ${TURNS}" + diff (${ROUNDS}x)`, '', previousFrames, verdict(p50(previousFrames), TARGET_PREVIOUS_MS)));
  console.log(line('    "Back to latest" -> back at the tip', '', back, ''));
  console.log(line('(c) baseline: the page data, one POST from Node', '', pageData, ''));
  console.log(line('(d) baseline: the previous turn\'s data, one POST', '', previousData, ''));
  if (compareDirArg) {
    console.log(line(`    this build, in turn with the other (${COMPARE_RUNS}x)`, '', compared.built, ''));
    console.log(line(`    --compare-web-dir's build (${COMPARE_RUNS}x)`, '', compared.other, ''));
    console.log(`    ratio p50 this build / the other: ${(p50(compared.built) / p50(compared.other)).toFixed(2)}`);
  }
  console.log(`\nthe last cold open, ms from navigation: ${openTrace}`);
  console.log(`\nits GraphQL operations, each alone from Node (p50 of ${ROUNDS}; the statements and git processes of one):\n${await eachAlone(openBodies)}`);
  if (profile) console.log(`\na cold open's main thread (--profile), ms of samples:\n${profile}`);
  console.log(`\nratio p50 (a) / (c): ${(p50(openFrames) / p50(pageData)).toFixed(2)}   ratio p50 (b) / (d): ${(p50(previousFrames) / p50(previousData)).toFixed(2)}`);
} finally {
  await browser?.close();
  await server?.stop();
  await rm(root, { recursive: true, force: true });
  console.log(`\ntotal ${fmt((Date.now() - started) / 1000, 1)} s; browser closed, server stopped, temp dirs removed`);
}
