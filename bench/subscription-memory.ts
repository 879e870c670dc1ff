/**
 * Memory of idle subscriptions, and whether closing them gives it back (issue 14, "memory of
 * closed subscriptions released"). The server runs in this process; N graphql-ws sockets, one
 * `turnCommitted` subscription each with the full documented selection, are opened from a
 * child process (so their memory is not counted as the server's), left idle, then closed.
 * After a forced GC at each point it prints the server's RSS, V8 heap and external memory,
 * and what the server still holds per subscription: pubsub listeners and open sockets.
 * Several rounds: memory that grows from round to round is memory closing does not release.
 * Closed, it is also shown before the GC: an idle server allocates nothing after the sockets go,
 * so V8 collects their garbage only once something allocates again (the RSS an idle server shows).
 *
 * Usage: npm run bench -- subscription-memory [subscribers (1000)] [rounds (3)]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { print } from 'graphql';
import WebSocket from 'ws';
import { TurnCommittedSubscription } from '../src/client/operations.js';
import { benchConfig, fmt } from './stats.js';

type ToClients = { kind: 'open'; url: string; count: number } | { kind: 'close' };
type FromClients = { kind: 'opened' } | { kind: 'closed' };

if (process.argv[2] === '--clients') {
  // The child: raw graphql-transport-ws sockets, cheaper than graphql-ws clients by the thousand.
  let sockets: WebSocket[] = [];
  const query = print(TurnCommittedSubscription);
  const openOne = (url: string) =>
    new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
      socket.once('error', reject);
      socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as { type: string; id?: string };
        if (message.type === 'connection_ack') {
          socket.send(JSON.stringify({ id: 'sub', type: 'subscribe', payload: { query, variables: { sessionId: 'memory' } } }));
          // Answered after the subscription is set up: the server takes a socket's messages in order.
          socket.send(JSON.stringify({ id: 'ping', type: 'subscribe', payload: { query: '{ __typename }' } }));
        } else if (message.type === 'complete' && message.id === 'ping') resolve(socket);
        else if (message.type === 'error') reject(new Error(String(data)));
      });
    });
  process.on('message', (message: ToClients) => {
    void (async () => {
      if (message.kind === 'open') {
        for (let i = 0; i < message.count; i += 100) {
          sockets.push(...(await Promise.all(Array.from({ length: Math.min(100, message.count - i) }, () => openOne(message.url)))));
        }
        process.send!({ kind: 'opened' } satisfies FromClients);
      } else {
        await Promise.all(
          sockets.map((socket) => new Promise<void>((resolve) => (socket.once('close', () => resolve()), socket.close(1000)))),
        );
        sockets = [];
        process.send!({ kind: 'closed' } satisfies FromClients);
      }
    })();
  });
} else {
  setFlagsFromString('--expose-gc');
  // A plain gc() is a full, synchronous collection; gc({ type: 'major' }) on node 20 left garbage behind.
  const gc = runInNewContext('gc') as () => void;
  const { createLogger } = await import('../src/logger.js');
  const { startServer } = await import('../src/server.js');
  const count = Number(process.argv[2] ?? 1000);
  const rounds = Number(process.argv[3] ?? 3);
  const dataDir = mkdtempSync(join(tmpdir(), 'em-bench-submem-'));
  const server = await startServer({ ...benchConfig(dataDir), maxWsConnections: count + 100, maxWsPerAddress: count + 100 }, createLogger('silent'));
  const { pubsub, db } = server.app.deps;
  await db.session.create({ data: { sessionId: 'memory', createdAt: new Date(), branches: { create: { name: 'main', kind: 'MAIN' } } } });

  const clients = fork(import.meta.filename, ['--clients'], { execArgv: ['--import', 'tsx'] });
  const ask = (message: ToClients) =>
    new Promise<FromClients>((resolve) => {
      clients.once('message', resolve);
      clients.send(message);
    });

  const MB = 1024 * 1024;
  interface Sample {
    rss: number;
    heap: number;
    external: number;
    listeners: number;
    sockets: number;
  }
  async function sample(collect = true): Promise<Sample> {
    // Closing runs through promise chains; a few turns of the event loop, then a full GC, twice.
    for (let i = 0; i < (collect ? 2 : 1); i++) {
      await new Promise((resolve) => setImmediate(resolve));
      if (collect) gc();
    }
    const m = process.memoryUsage();
    return { rss: m.rss / MB, heap: m.heapUsed / MB, external: (m.external + m.arrayBuffers) / MB, listeners: pubsub.listenerCount('turnCommitted'), sockets: server.openWebSockets() };
  }
  const show = (label: string, s: Sample, base?: Sample) =>
    console.log(
      `  ${label.padEnd(30)} RSS ${fmt(s.rss, 1).padStart(7)} MB${base ? ` (${sign(s.rss - base.rss)})` : '         '}` +
        `  heap ${fmt(s.heap, 1).padStart(6)} MB${base ? ` (${sign(s.heap - base.heap)})` : '         '}` +
        `  external ${fmt(s.external, 1).padStart(5)} MB  listeners ${s.listeners}  sockets ${s.sockets}`,
    );
  const sign = (n: number) => `${n >= 0 ? '+' : ''}${fmt(n, 1)}`.padStart(7);

  async function waitClosed(): Promise<void> {
    // The server hears of each close on its own time; wait for the last one.
    while (server.openWebSockets() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  console.log(`subscription memory: ${count} idle turnCommitted subscriptions (full selection), ${rounds} rounds; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  // A small round first so what loads once (modules, parsed documents, JIT) is not counted as kept.
  await ask({ kind: 'open', url: server.url, count: 10 });
  await ask({ kind: 'close' });
  await waitClosed();
  const before = await sample();
  show('before', before);
  let open: Sample | undefined;
  let after: Sample = before;
  for (let round = 1; round <= rounds; round++) {
    await ask({ kind: 'open', url: server.url, count });
    open = await sample();
    show(`round ${round}: ${count} open`, open, before);
    await ask({ kind: 'close' });
    await waitClosed();
    // What an idle server shows: nothing allocates after the close, so V8 has no reason to collect.
    show(`round ${round}: closed, no GC`, await sample(false), before);
    after = await sample();
    show(`round ${round}: closed, GC`, after, before);
  }
  const heldPer = ((open!.heap - before.heap) * 1024) / count;
  const kept = after.heap - before.heap;
  console.log(
    `per open subscription: ${fmt(heldPer, 1)} KB of heap; kept after the last close: heap ${sign(kept)} MB, RSS ${sign(after.rss - before.rss)} MB, ` +
      `listeners ${after.listeners} (goal 0), sockets ${after.sockets} (goal 0); load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
  clients.kill();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
