/**
 * An event's size against the session's length (issue 31: "a frame's size independent of the
 * session's length"): one turnCommitted frame, as the socket carries it, for a new turn of a
 * session of 10 turns (the baseline) and of a session of LONG turns, with the client's documented
 * selection plus `commit { message author files { path size } }`, the turn's commit files
 * included. Goal: the long session's frame ≤ 1.1× the short one's (it differs only by the digits
 * of the turn number and the message paths). Also the time from the recordTurn acknowledgement to
 * the frame, for each.
 * Usage: npm run bench -- event-size [--quick]   (or npx tsx bench/event-size.ts [--quick])
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { print } from 'graphql';
import WebSocket from 'ws';
import { TurnCommittedSubscription } from '../src/client/operations.js';
import { createLogger } from '../src/logger.js';
import { rebuildSession } from '../src/mirror/rebuild.js';
import { startServer } from '../src/server.js';
import { fillClosedTurns } from './fill-session.js';
import { benchConfig, fmt, postGraphQL } from './stats.js';

const quick = process.argv.includes('--quick');
const LONG = quick ? 1_000 : 4_000;
const SELECTION = print(TurnCommittedSubscription).replace(/headline\n/, 'headline\n        message\n        author { name email date }\n        files { path size }\n');

const root = await mkdtemp(join(tmpdir(), 'em-bench-event-size-'));
const server = await startServer(benchConfig(root), createLogger('silent'));
const { deps } = server.app;

/** One new turn of `sessionId`: the bytes of its turnCommitted frame, and ack → frame in ms. */
async function frameOfNextTurn(sessionId: string): Promise<{ bytes: number; ms: number; files: number }> {
  const socket = new WebSocket(`${server.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const frames: { data: Buffer; at: number }[] = [];
  let arrived: (() => void) | null = null;
  socket.on('message', (data: Buffer) => {
    frames.push({ data, at: performance.now() });
    arrived?.();
  });
  const next = async (type: string, id?: string) => {
    for (;;) {
      const found = frames.find((f) => {
        const message = JSON.parse(f.data.toString()) as { type: string; id?: string };
        return message.type === type && (id === undefined || message.id === id);
      });
      if (found) return found;
      await new Promise<void>((resolve) => (arrived = resolve));
    }
  };
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await next('connection_ack');
  socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SELECTION, variables: { sessionId } } }));
  // The subscription is live once a query sent after it on the same socket is answered.
  socket.send(JSON.stringify({ id: '2', type: 'subscribe', payload: { query: '{ __typename }' } }));
  await next('complete', '2');
  await postGraphQL(server.url, 'mutation ($input: RecordTurnInput!) { recordTurn(input: $input) { number } }', {
    input: { sessionId, user: { content: 'one more question' }, assistant: { content: 'one more answer' }, toolResults: [{ content: 'output', toolName: 'run' }] },
  });
  const acked = performance.now();
  const frame = await next('next', '1');
  socket.close();
  const payload = JSON.parse(frame.data.toString()) as { payload: { errors?: unknown; data: { turnCommitted: { commit: { files: unknown[] } } } } };
  if (payload.payload.errors) throw new Error(JSON.stringify(payload.payload.errors));
  return { bytes: frame.data.length, ms: frame.at - acked, files: payload.payload.data.turnCommitted.commit.files.length };
}

try {
  for (const [sessionId, turns] of [['short', 10], ['long', LONG]] as const) {
    await fillClosedTurns(deps.db, { sessionId, title: sessionId, turns, contentBytes: 200 });
    await deps.repoLocks.run(sessionId, () => rebuildSession(deps, sessionId, { moveAside: false }));
  }
  console.log(`event size: one turnCommitted frame (the client's selection + commit { message author files }), sessions of 10 and ${fmt(LONG)} turns; load average ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  const short = await frameOfNextTurn('short');
  const long = await frameOfNextTurn('long');
  for (const [label, f] of [['10 turns (baseline)', short], [`${fmt(LONG)} turns`, long]] as const) {
    console.log(`  ${label.padEnd(22)} ${fmt(f.bytes).padStart(8)} bytes, ${f.files} files, ack -> frame ${fmt(f.ms, 1)} ms`);
  }
  const ratio = long.bytes / short.bytes;
  console.log(`  frame, ${fmt(LONG)} turns against 10: ×${ratio.toFixed(2)} (${ratio <= 1.1 ? 'ok' : 'MISSED'} ≤ 1.1×)`);
} finally {
  await server.stop();
  await rm(root, { recursive: true, force: true });
}
