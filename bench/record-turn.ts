/**
 * recordTurn (1 user, 1 assistant, 3 tool results) through the server's HTTP
 * handler, against a bare Prisma transaction writing the same rows, in one run,
 * in two settings:
 *  1. quiet: the mirror goes idle between samples (the request alone);
 *  2. busy, as agents send turns: back to back on one session while the mirror
 *     commits the previous ones (the request does not wait for git until the mirror is more
 *     than 16 turns behind, src/mirror/backlog.ts; how many answers waited is printed; issue 14's
 *     goal: p50 within 2.5x of the bare transaction measured in the same setting).
 * Also counts the SQL statements of one recordTurn (fixed whatever the session's length).
 * Usage: npm run bench -- record-turn [turns]
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { onSqlStatement } from '../src/db/index.js';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { benchConfig, benchTurnInput, randomText, row, summary, timed } from './stats.js';

const turns = Number(process.argv[2] ?? 300);
const warmup = 30;
const dataDir = mkdtempSync(join(tmpdir(), 'em-bench-'));
const config = benchConfig(dataDir);

const MUTATION = `mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number mirrorState } }`;
function body(sessionId: string) {
  return JSON.stringify({
    query: MUTATION,
    variables: { input: benchTurnInput(sessionId, 3) },
  });
}

const server = await startServer(config, createLogger('silent'));
const { app } = server;
await app.deps.db.session.create({ data: { sessionId: 'http', createdAt: new Date(), branches: { create: { name: 'main', kind: 'MAIN' } } } });
await app.deps.db.session.create({ data: { sessionId: 'fetch', createdAt: new Date(), branches: { create: { name: 'main', kind: 'MAIN' } } } });
await app.deps.db.session.create({ data: { sessionId: 'bare', createdAt: new Date() } });
await app.deps.db.session.create({ data: { sessionId: 'busy', createdAt: new Date(), branches: { create: { name: 'main', kind: 'MAIN' } } } });

async function overHttp(sessionId = 'http'): Promise<void> {
  const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(sessionId) });
  const result = (await response.json()) as { errors?: unknown };
  if (result.errors) throw new Error(JSON.stringify(result.errors));
}
async function viaYogaFetch(): Promise<void> {
  const response = await app.yoga.fetch('http://bench/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('fetch') });
  const result = (await response.json()) as { errors?: unknown };
  if (result.errors) throw new Error(JSON.stringify(result.errors));
}
let bareSeq = 1;
let bareTurn = 0;
async function bare(): Promise<void> {
  const db = app.deps.db;
  const at = new Date();
  await db.$transaction(async (tx) => {
    const turnId = randomBytes(10).toString('hex');
    const ids = Array.from({ length: 5 }, () => randomBytes(10).toString('hex'));
    const roles = ['USER', 'ASSISTANT', 'TOOL', 'TOOL', 'TOOL'] as const;
    await tx.message.create({ data: { id: ids[0]!, sessionId: 'bare', messageId: ids[0]!, seq: bareSeq++, role: 'USER', content: randomText(200), createdAt: at } });
    await tx.turn.create({ data: { id: turnId, sessionId: 'bare', number: ++bareTurn, branch: 'main', userMessageId: ids[0]!, open: false, closedAt: at } });
    await tx.message.createMany({
      data: ids.slice(1).map((id, i) => ({ id, sessionId: 'bare', messageId: id, seq: bareSeq++, role: roles[i + 1]!, content: randomText(300), createdAt: at, turnId })),
    });
    await tx.outboxJob.create({ data: { sessionId: 'bare', turnId, kind: 'SESSION' } });
    await tx.session.update({ where: { sessionId: 'bare' }, data: { nextSeq: bareSeq } });
  });
}

const samples = { http: [] as number[], fetch: [] as number[], bare: [] as number[] };
for (let i = 0; i < warmup + turns; i++) {
  // Interleaved, so drift in the machine's speed hits all three alike.
  // The git mirror runs between samples, not during them: it is measured by bench/mirror.ts,
  // and on two cores it would otherwise compete with the request being timed.
  const h = await timed(overHttp);
  await app.mirror.idle();
  const f = await timed(viaYogaFetch);
  await app.mirror.idle();
  const b = await timed(bare);
  if (i >= warmup) {
    samples.http.push(h);
    samples.fetch.push(f);
    samples.bare.push(b);
  }
}
await app.mirror.idle();

// Busy: one agent's turns back to back on one session, the mirror committing behind them;
// the bare transaction interleaved, so both run beside the same git work.
const busy = { http: [] as number[], bare: [] as number[] };
let mirrorBacklogMax = 0;
for (let i = 0; i < warmup + turns; i++) {
  const h = await timed(() => overHttp('busy'));
  const b = await timed(bare);
  if (i >= warmup) {
    busy.http.push(h);
    busy.bare.push(b);
  }
  if (i % 10 === 0) mirrorBacklogMax = Math.max(mirrorBacklogMax, await app.deps.db.outboxJob.count({ where: { sessionId: 'busy' } }));
}
const stillPending = await app.deps.db.outboxJob.count({ where: { sessionId: 'busy' } });
await app.mirror.idle();

// Statements of one recordTurn, on a session that already has many turns: the repo lock is held
// meanwhile, as a mirror pass would, so the mirror's own reads are not counted with the request's.
let statements = 0;
await app.deps.repoLocks.run('fetch', async () => {
  const off = onSqlStatement(() => statements++);
  await viaYogaFetch();
  off();
});
await app.mirror.idle();

const http = summary('recordTurn over HTTP (loopback)', samples.http);
const fetchS = summary('recordTurn through yoga.fetch (no socket)', samples.fetch);
const bareS = summary('bare Prisma transaction, same rows', samples.bare);
const busyHttp = summary('busy: recordTurn over HTTP, back to back', busy.http);
const busyBare = summary('busy: bare Prisma transaction, same rows', busy.bare);
const [load1] = loadavg();
console.log(`recordTurn benchmark: ${turns} turns each (after ${warmup} warm-up), 5 messages per turn; load average ${load1!.toFixed(2)} at the end`);
console.log('quiet (the mirror idle between samples):');
for (const s of [http, fetchS, bareS]) console.log(row(s.label, s.p50, s.p99));
console.log(`ratio p50 HTTP / bare:        ${(http.p50 / bareS.p50).toFixed(2)}  (target <= 3)`);
console.log(`ratio p50 yoga.fetch / bare:  ${(fetchS.p50 / bareS.p50).toFixed(2)}`);
console.log('busy (turns back to back, the mirror committing behind them):');
for (const s of [busyHttp, busyBare]) console.log(row(s.label, s.p50, s.p99));
console.log(`ratio p50 HTTP / bare, busy:  ${(busyHttp.p50 / busyBare.p50).toFixed(2)}  (goal <= 2.5)`);
console.log(`mirror backlog seen: up to ${mirrorBacklogMax} turns; ${stillPending} still pending when the last turn was answered; ` +
  `${app.backlog.paced} answers waited for the mirror (${app.backlog.timedOut} of them ${app.backlog.maxWaitMs} ms)`);
console.log(`SQL statements per recordTurn (its selection, number and mirrorState, included; COMMIT counted): ${statements}`);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
