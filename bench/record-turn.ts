/**
 * recordTurn (1 user, 1 assistant, 3 tool results) through the server's HTTP
 * handler, against a bare Prisma transaction writing the same rows, in one run.
 * Usage: npm run bench -- record-turn [turns]
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { benchConfig, row, summary, timed } from './stats.js';

const turns = Number(process.argv[2] ?? 300);
const warmup = 30;
const dataDir = mkdtempSync(join(tmpdir(), 'em-bench-'));
const config = benchConfig(dataDir);
const text = (n: number) => randomBytes(n).toString('base64').slice(0, n);

const MUTATION = `mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number mirrorState } }`;
function body(sessionId: string) {
  return JSON.stringify({
    query: MUTATION,
    variables: {
      input: {
        sessionId,
        user: { content: text(200) },
        assistant: { content: text(300) },
        toolResults: [{ content: text(300), toolName: 'read' }, { content: text(300), toolName: 'grep' }, { content: text(300), toolName: 'list' }],
        durationMs: 1200,
        tokens: 400,
      },
    },
  });
}

const server = await startServer(config, createLogger('silent'));
const { app } = server;
await app.deps.db.session.create({ data: { sessionId: 'http', createdAt: new Date(), branches: { create: { name: 'main', kind: 'MAIN' } } } });
await app.deps.db.session.create({ data: { sessionId: 'fetch', createdAt: new Date(), branches: { create: { name: 'main', kind: 'MAIN' } } } });
await app.deps.db.session.create({ data: { sessionId: 'bare', createdAt: new Date() } });

async function overHttp(): Promise<void> {
  const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('http') });
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
    await tx.message.create({ data: { id: ids[0]!, sessionId: 'bare', messageId: ids[0]!, seq: bareSeq++, role: 'USER', content: text(200), createdAt: at } });
    await tx.turn.create({ data: { id: turnId, sessionId: 'bare', number: ++bareTurn, branch: 'main', userMessageId: ids[0]!, open: false, closedAt: at } });
    await tx.message.createMany({
      data: ids.slice(1).map((id, i) => ({ id, sessionId: 'bare', messageId: id, seq: bareSeq++, role: roles[i + 1]!, content: text(300), createdAt: at, turnId })),
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
const http = summary('recordTurn over HTTP (loopback)', samples.http);
const fetchS = summary('recordTurn through yoga.fetch (no socket)', samples.fetch);
const bareS = summary('bare Prisma transaction, same rows', samples.bare);
console.log(`recordTurn benchmark: ${turns} turns each (after ${warmup} warm-up), 5 messages per turn`);
for (const s of [http, fetchS, bareS]) console.log(row(s.label, s.p50, s.p99));
console.log(`ratio p50 HTTP / bare:        ${(http.p50 / bareS.p50).toFixed(2)}  (target <= 3)`);
console.log(`ratio p50 yoga.fetch / bare:  ${(fetchS.p50 / bareS.p50).toFixed(2)}`);
await server.stop();
rmSync(dataDir, { recursive: true, force: true });
