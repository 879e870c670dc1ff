/**
 * What recording costs a real agent: the real Claude Code CLI (test/agents: installed on first
 * use, its model the scripted one) runs a session of N turns (default 200) in one process (`-p
 * --input-format stream-json`, the next prompt sent once the last one's result is out), each turn
 * a Write and a reply, every fifth a Bash command too. Arm A: no hooks. Arm B: a trivial command
 * hook (`node -e 0`) on the same events as ours: what any command hook costs the agent (Claude
 * Code starts a shell and a process per event, and waits); with --http, the same http hooks as
 * ours posting to a server that answers at once (what Claude Code's http hooks cost it alone). Arm C: our hooks installed (`hooks
 * install claude-code --project`, committed) and a server recording them, the repo a project (so
 * every turn is captured and committed). The arms alternate, each run in a repo of its own; the
 * figures are C's wall time against A's (issue 25: ≤ 1.1) and against B's. C's session is then
 * checked: N turns recorded, N agent commits. --http: arm C's hooks are Claude Code's http hooks
 * (`hooks install --http`: every event but SessionStart posted to the server, no process).
 * Usage: npm run bench -- claude-run [--turns N] [--rounds R] [--http]   (or npx tsx bench/claude-run.ts)
 */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../src/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { claudeCodeBinary } from '../test/agents/claude-cli.js';
import { installClaudeHooks } from '../test/agents/run-claude.js';
import { startScriptedModel, type Script } from '../test/agents/scripted-model.js';
import { benchConfig, percentile } from './stats.js';

const { values } = parseArgs({ options: { turns: { type: 'string', default: '200' }, rounds: { type: 'string', default: '2' }, quick: { type: 'boolean', default: false }, http: { type: 'boolean', default: false } } });
const TURNS = values.quick ? 20 : Number(values.turns);
const ROUNDS = Number(values.rounds);

const binary = await claudeCodeBinary();
const root = realpathSync(mkdtempSync(join(tmpdir(), 'em-bench-claude-')));
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], { cwd }).toString();

function script(): Script {
  return {
    turns: Array.from({ length: TURNS }, (_, i) => {
      const n = i + 1;
      return {
        match: new RegExp(`TURN ${n}:`),
        steps: [{ write: `f${n}.txt`, content: `turn ${n}\n` }, ...(n % 5 === 0 ? [{ bash: `echo ${n} >> log.txt` }] : []), { text: `Turn ${n} done.` }],
      };
    }),
  };
}

/** One session of TURNS turns; resolves with its wall time (ms) from the process start to its exit. */
async function session(repo: string, home: string): Promise<number> {
  const model = await startScriptedModel(script(), repo);
  const env = {
    PATH: `/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'sk-ant-dummy-scripted-model',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
  mkdirSync(home, { recursive: true });
  const args = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'acceptEdits', '--allowedTools', 'Write', 'Bash'];
  const started = process.hrtime.bigint();
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(binary, args, { cwd: repo, env, stdio: ['pipe', 'pipe', 'pipe'] });
      let sent = 0;
      let results = 0;
      let pending = '';
      let stderr = '';
      const send = () => {
        sent++;
        child.stdin.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: `TURN ${sent}: write f${sent}.txt` } })}\n`);
      };
      child.stdout.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
          const line = pending.slice(0, end);
          pending = pending.slice(end + 1);
          if (!line.startsWith('{"type":"result"')) continue;
          results++;
          if (sent < TURNS) send();
          else child.stdin.end();
        }
      });
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 && results === TURNS ? resolve() : reject(new Error(`claude exited ${code} after ${results} of ${TURNS} turns: ${stderr.slice(-500)}`))));
      send();
    });
  } finally {
    await model.close();
  }
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function freshRepo(name: string): string {
  const repo = join(root, name);
  mkdirSync(repo, { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'initial');
  return repo;
}

async function graphql(server: RunningServer, query: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(server.auth.token ? { authorization: `Bearer ${server.auth.token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data!;
}

const times = { plain: [] as number[], trivial: [] as number[], hooked: [] as number[] };
// What an http hook costs the agent with nothing behind it: a server that answers every POST at once.
const trivialServer = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((resolve) => trivialServer.listen(0, '127.0.0.1', resolve));
const trivialUrl = `http://127.0.0.1:${(trivialServer.address() as AddressInfo).port}/hooks/claude-code`;

let checked = '';
console.log(`Claude Code ${TURNS}-turn sessions, ${ROUNDS} round(s) of each arm, alternated`);
for (let round = 1; round <= ROUNDS; round++) {
  const plain = await session(freshRepo(`plain-${round}`), join(root, `home-plain-${round}`));
  times.plain.push(plain);
  console.log(`round ${round}: without hooks ${(plain / 1000).toFixed(1)} s`);

  // The same settings as ours, each command replaced by `node -e 0`.
  const trivialRepo = freshRepo(`trivial-${round}`);
  // --no-mcp here and below: the hooks' cost per turn is measured, not the MCP server's start with each session.
  const settings = await installClaudeHooks(trivialRepo, join(root, 'unused-data-dir'), ['--no-mcp']);
  const installed = JSON.parse(readFileSync(settings, 'utf8')) as { hooks: Record<string, { hooks: Record<string, unknown>[] }[]> };
  for (const [event, groups] of Object.entries(installed.hooks)) {
    for (const group of groups) {
      // --http: the same http hooks as ours but posting to a server that answers at once (SessionStart stays a command, as ours).
      group.hooks = group.hooks.map(() => (values.http && event !== 'SessionStart' ? { type: 'http', url: trivialUrl, timeout: 10 } : { type: 'command', command: `"${process.execPath}" -e 0`, timeout: 10 }));
    }
  }
  writeFileSync(settings, JSON.stringify(installed, null, 2));
  git(trivialRepo, 'add', '.claude/settings.json');
  git(trivialRepo, 'commit', '-q', '-m', 'trivial hooks');
  const trivial = await session(trivialRepo, join(root, `home-trivial-${round}`));
  times.trivial.push(trivial);
  console.log(`round ${round}: ${values.http ? 'trivial http' : 'node -e 0'} hooks ${(trivial / 1000).toFixed(1)} s`);

  const dataDir = join(root, `data-${round}`);
  const server = await startServer({ ...benchConfig(dataDir), allowedRoots: [root] }, createLogger('silent'));
  const repo = freshRepo(`hooked-${round}`);
  // --http: Claude Code's http hooks (install --http), posting each event but SessionStart to the server itself.
  await installClaudeHooks(repo, dataDir, values.http ? ['--http', '--no-mcp'] : ['--no-mcp']);
  git(repo, 'add', '.claude/settings.json');
  git(repo, 'commit', '-q', '-m', 'entity-memory hooks');
  await graphql(server, `mutation { createProject(input: { name: "bench", workdir: ${JSON.stringify(repo)} }) { projectId } }`);
  const hooked = await session(repo, join(root, `home-hooked-${round}`));
  times.hooked.push(hooked);
  console.log(`round ${round}: with ${values.http ? 'http ' : ''}hooks    ${(hooked / 1000).toFixed(1)} s`);
  // What was recorded: every turn, and (once the background commits are made) every agent commit.
  const deadline = Date.now() + 180_000;
  for (;;) {
    const data = await graphql(server, '{ sessions(first: 1) { edges { node { turns(first: 1) { totalCount } } } } }');
    const turns = (data.sessions as { edges: { node: { turns: { totalCount: number } } }[] }).edges[0]?.node.turns.totalCount ?? 0;
    const commits = Number(git(repo, 'rev-list', '--count', '--author=openprogram', 'HEAD').trim());
    if (turns === TURNS && commits === TURNS) {
      checked = `${turns} turns recorded, ${commits} agent commits`;
      break;
    }
    if (turns > TURNS || commits > TURNS || Date.now() > deadline) throw new Error(`recorded ${turns} turns and ${commits} agent commits for ${TURNS} turns`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await server.stop();
}
const plain = percentile(times.plain, 50);
const trivial = percentile(times.trivial, 50);
const hooked = percentile(times.hooked, 50);
const trivialName = values.http ? 'trivial http' : 'node -e 0';
const perTurn = (ms: number) => `${(ms / 1000).toFixed(1)} s (${(ms / TURNS).toFixed(0)} ms/turn)`;
console.log(`\nhooked session: ${checked}`);
console.log(
  `claude-run: ${TURNS} turns without hooks ${perTurn(plain)}, ${trivialName} hooks ${perTurn(trivial)}, ours ${perTurn(hooked)}: ours ${(hooked / plain).toFixed(2)}× no hooks (target ≤ 1.1), ${(hooked / trivial).toFixed(2)}× ${trivialName} hooks`,
);
trivialServer.close();
