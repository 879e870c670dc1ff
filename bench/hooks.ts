/**
 * What an agent waits for at each hook, in one run:
 *  (1) `POST /hooks/claude-code` round trips over HTTP (keep-alive), as a Claude Code session in a
 *      project of 10,000 tracked files sends them: per turn a UserPromptSubmit, three PostToolUse
 *      of Edit (the file edited before each), then Stop, which closes the turn (the project capture
 *      included; the commit itself is made in the background); its transcript written beside them
 *      as Claude Code writes it (the server reads what it gained at each event), with an Edit it
 *      refused before the first call of each turn (recorded from the transcript at that call's
 *      event). Baseline: a `{ __typename }` GraphQL POST to the same server, interleaved with them.
 *  (2) the hook command (bin/entity-memory-hook.cjs, one process per event, sending a PreToolUse of
 *      Read, which the server answers without writing) against `node -e 0`, alternated.
 * Targets (issue 25): PostToolUse p50 ≤ 10 ms and p99 ≤ 50 ms; Stop p99 ≤ 150 ms; the command ≤ 1.5×
 * `node -e 0`.
 * Usage: npm run bench -- hooks [--quick]   (or npx tsx bench/hooks.ts [--quick])
 */
import { execFile, spawn } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { benchConfig, fmt, percentile, row, summary, timed } from './stats.js';

const quick = process.argv.includes('--quick');
const TURNS = quick ? 10 : 40;
const FILES = quick ? 2_000 : 10_000;
const PROCESSES = quick ? 10 : 30;
const HOOK = join(import.meta.dirname, '..', 'bin', 'entity-memory-hook.cjs');
const run = promisify(execFile);

const dataDir = await realpath(await mkdtemp(join(tmpdir(), 'em-bench-hooks-')));
const workdir = join(dataDir, 'app');
console.log(`a project of ${fmt(FILES)} tracked files, ${TURNS} turns; ${PROCESSES} hook processes`);
for (let folder = 0; folder < FILES / 100; folder++) {
  await mkdir(join(workdir, `f${folder}`), { recursive: true });
  for (let file = 0; file < 100; file++) await writeFile(join(workdir, `f${folder}`, `${file}.txt`), `file ${folder}/${file}\n`);
}
const git = (...args: string[]) => run('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', ...args], { cwd: workdir, maxBuffer: 1 << 26 });
await git('init', '-q', '-b', 'main');
await git('add', '-A');
await git('commit', '-q', '-m', 'initial');

const server = await startServer(benchConfig(dataDir), createLogger('silent'));
const headers: Record<string, string> = { 'content-type': 'application/json', ...(server.auth.token ? { authorization: `Bearer ${server.auth.token}` } : {}) };
async function post(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${text}`);
}
await post('/graphql', { query: `mutation { createProject(input: { name: "app", workdir: ${JSON.stringify(workdir)} }) { projectId } }` });

const samples = { baseline: [] as number[], prompt: [] as number[], tool: [] as number[], afterRefused: [] as number[], stop: [] as number[] };
// The session's transcript, written as Claude Code writes it: the server reads what it gained at each event.
const transcript = join(dataDir, 'transcript.jsonl');
await writeFile(transcript, '');
const record = (value: object) => appendFile(transcript, `${JSON.stringify({ sessionId: 'bench-hooks', ...value })}\n`);
const response = (id: string, text: string, toolUse: object) =>
  record({ type: 'assistant', message: { id, role: 'assistant', model: 'claude-bench', content: [{ type: 'text', text }, { type: 'tool_use', ...toolUse }] } });
const toolResult = (id: string, content: string, isError = false) =>
  record({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError && { is_error: true }) }] } });
const base = { session_id: 'bench-hooks', transcript_path: transcript, cwd: workdir };
for (let turn = 1; turn <= TURNS; turn++) {
  const promptId = `p${turn}`;
  await record({ type: 'user', message: { role: 'user', content: `turn ${turn}` } });
  samples.prompt.push(await timed(() => post('/hooks/claude-code', { ...base, hook_event_name: 'UserPromptSubmit', prompt_id: promptId, prompt: `turn ${turn}` })));
  // An Edit Claude Code refused (its text was not in the file): no hook; the next event records it from the transcript.
  await response(`msg_${turn}_r`, 'Editing the first file.', { id: `toolu_${turn}_r`, name: 'Edit', input: { file_path: join(workdir, 'f0', '0.txt'), old_string: 'absent', new_string: 'y' } });
  await toolResult(`toolu_${turn}_r`, '<tool_use_error>String to replace not found in file.</tool_use_error>', true);
  for (let call = 0; call < 3; call++) {
    const path = join(workdir, `f${call}`, `${turn % 100}.txt`);
    const input = { file_path: path, old_string: 'x', new_string: 'y' };
    await response(`msg_${turn}_${call}`, `Editing ${call}.`, { id: `toolu_${turn}_${call}`, name: 'Edit', input });
    await writeFile(path, `turn ${turn} call ${call}\n`);
    samples.baseline.push(await timed(() => post('/graphql', { query: '{ __typename }' })));
    (call === 0 ? samples.afterRefused : samples.tool).push(
      await timed(() =>
        post('/hooks/claude-code', { ...base, hook_event_name: 'PostToolUse', prompt_id: promptId, tool_name: 'Edit', tool_input: input, tool_response: {}, tool_use_id: `toolu_${turn}_${call}` }),
      ),
    );
    await toolResult(`toolu_${turn}_${call}`, 'The file has been updated.');
  }
  samples.stop.push(await timed(() => post('/hooks/claude-code', { ...base, hook_event_name: 'Stop', prompt_id: promptId, stop_hook_active: false, last_assistant_message: 'done' })));
}

const spawned = (command: string, args: string[], stdin: string) =>
  timed(
    () =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(command, args, { stdio: ['pipe', 'ignore', 'ignore'], env: { PATH: process.env.PATH ?? '' } });
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`))));
        child.stdin.end(stdin);
      }),
  );
const event = JSON.stringify({ ...base, hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: 'f0/0.txt' }, tool_use_id: 'toolu_read' });
const processes = { node: [] as number[], hook: [] as number[] };
for (let i = 0; i < PROCESSES; i++) {
  processes.node.push(await spawned(process.execPath, ['-e', '0'], ''));
  processes.hook.push(await spawned(process.execPath, [HOOK, 'claude-code', '--data-dir', dataDir], event));
}
await server.stop();

console.log('\nPOST round trips, one server, keep-alive');
for (const [label, values] of [
  ['GraphQL { __typename } (baseline)', samples.baseline],
  ['UserPromptSubmit', samples.prompt],
  ['PostToolUse (Edit)', samples.tool],
  ['PostToolUse (Edit) after a refused Edit (recorded too)', samples.afterRefused],
  ['Stop (turn closed, project captured)', samples.stop],
] as const) {
  const s = summary(label, values);
  console.log(row(s.label, s.p50, s.p99, `${(s.p50 / percentile(samples.baseline, 50)).toFixed(2)}× baseline p50`));
}
const node = percentile(processes.node, 50);
const hook = percentile(processes.hook, 50);
console.log('\nprocesses, alternated');
console.log(row('node -e 0 (baseline)', node, percentile(processes.node, 99)));
console.log(row('entity-memory-hook.cjs (PreToolUse sent)', hook, percentile(processes.hook, 99), `${(hook / node).toFixed(2)}× node -e 0`));
const tool = summary('', samples.tool);
const stop = summary('', samples.stop);
console.log(
  `\nhooks: PostToolUse p50 ${tool.p50.toFixed(1)} ms (target ≤ 10), p99 ${tool.p99.toFixed(1)} ms (≤ 50); Stop p99 ${stop.p99.toFixed(1)} ms (≤ 150); command ${(hook / node).toFixed(2)}× node -e 0 (≤ 1.5)`,
);
