/**
 * What redaction (issue 26 item 3) costs: recordTurn over HTTP on a server with redaction on
 * against one with it off, interleaved in one run, with messages shaped like a coding agent's
 * (a prompt, a reply, tool results holding this project's own source files); then the scan alone
 * per message, by size.
 * Usage: npm run bench -- redaction [turns]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/logger.js';
import { redactMessageFields } from '../src/redaction/message.js';
import { startServer, type RunningServer } from '../src/server.js';
import { benchConfig, row, summary, timed } from './stats.js';

const turns = Number(process.argv[2] ?? 200);
const warmup = 20;

// Tool output as an agent sees it: files it read (this project's sources), cut to a few sizes.
const sources = readdirSync(join(import.meta.dirname, '..', 'src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.startsWith('generated'))
  .map((file) => readFileSync(join(import.meta.dirname, '..', 'src', file), 'utf8'));
let next = 0;
const source = (bytes: number) => {
  const text = sources[next++ % sources.length]!;
  return text.length >= bytes ? text.slice(0, bytes) : text.padEnd(bytes, `\n${text}`).slice(0, bytes);
};

function turnInput(sessionId: string) {
  return {
    sessionId,
    user: { content: 'Read the config loader and tell me where the data dir default comes from, then fix the typo in its help text.' },
    assistant: { content: `The default comes from \`OPENPROGRAM_HOME\`, else \`~/.openprogram\`; I fixed the typo.\n\n${source(600)}` },
    toolResults: [
      { content: source(4_000), toolName: 'Read', metadata: { file_path: 'src/config.ts' } },
      { content: source(1_500), toolName: 'Grep' },
      { content: source(12_000), toolName: 'Read', metadata: { file_path: 'src/cli.ts' } },
    ],
  };
}

const MUTATION = `mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`;
async function record(server: RunningServer, sessionId: string): Promise<void> {
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: MUTATION, variables: { input: turnInput(sessionId) } }),
  });
  const result = (await response.json()) as { errors?: unknown };
  if (result.errors) throw new Error(JSON.stringify(result.errors));
}

const dirs = [mkdtempSync(join(tmpdir(), 'em-bench-')), mkdtempSync(join(tmpdir(), 'em-bench-'))];
const on = await startServer({ ...benchConfig(dirs[0]!), redact: true }, createLogger('silent'));
const off = await startServer({ ...benchConfig(dirs[1]!), redact: false }, createLogger('silent'));
for (const server of [on, off]) {
  await server.app.deps.db.session.create({ data: { sessionId: 's', createdAt: new Date(), branches: { create: { name: 'main', kind: 'MAIN' } } } });
}

const samples = { on: [] as number[], off: [] as number[] };
for (let i = 0; i < warmup + turns; i++) {
  // Interleaved, the mirror idle before each sample, so git competes with neither.
  const a = await timed(() => record(on, 's'));
  await on.app.mirror.idle();
  const b = await timed(() => record(off, 's'));
  await off.app.mirror.idle();
  if (i >= warmup) {
    samples.on.push(a);
    samples.off.push(b);
  }
}
const withRedaction = summary('recordTurn, redaction on', samples.on);
const without = summary('recordTurn, redaction off (baseline)', samples.off);
console.log(`recordTurn of 5 messages (about 18 KB, this project's sources as tool output), ${turns} each, load average ${loadavg()[0]!.toFixed(2)}`);
console.log(row(without.label, without.p50, without.p99));
console.log(row(withRedaction.label, withRedaction.p50, withRedaction.p99));

// The scan alone, per message, by size (content as text; the server scans metadata the same way).
console.log('\nthe scan alone (redactMessageFields), per message:');
for (const bytes of [200, 2_000, 13_000, 100_000]) {
  const texts = Array.from({ length: 50 }, () => source(bytes));
  const times: number[] = [];
  for (const text of texts) times.push(await timed(() => redactMessageFields(text, null)));
  const s = summary(`${bytes} bytes`, times);
  console.log(row(s.label, s.p50, s.p99));
}

// None of these messages holds a secret: any redaction is a false positive.
const flagged = await on.app.deps.db.message.count({ where: { redactions: { not: null } } });
const stored = await on.app.deps.db.message.count();
console.log(`\nfalse positives: ${flagged} of ${stored} messages stored with redaction on had anything redacted`);

await on.stop();
await off.stop();
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
console.log(`\nredaction on / off, recordTurn p50: ${(withRedaction.p50 / without.p50).toFixed(2)}x (p99 ${(withRedaction.p99 / without.p99).toFixed(2)}x)`);
