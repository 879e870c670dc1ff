#!/usr/bin/env node
/**
 * entity-memory's MCP server on stdio, as an agent starts it (registered by `entity-memory hooks
 * install`; `entity-memory mcp` runs this same script):
 *
 *   node bin/entity-memory-mcp.cjs --data-dir DIR
 *
 * Each message the agent writes on stdin (one JSON-RPC message a line, MCP's stdio framing) is
 * posted to the /mcp of the server running on DIR (`DIR/server.json`, with the token of
 * $ENTITY_MEMORY_TOKEN or `DIR/token`), where the SDK's Streamable HTTP transport and server answer
 * it (src/mcp/http.ts); each answer is written back as one line on stdout.
 *
 * It moves messages; it does not implement the protocol. It reads a message's `id` and `method`
 * only to keep the session (the id the initialize answer carries, sent back as `Mcp-Session-Id`
 * with the negotiated `MCP-Protocol-Version`), to answer a request the server could not take with
 * an error for that id (never a dropped request), and to open the session again with the agent's
 * own initialize when the server restarted (404, or refused: then it reads DIR/server.json again, for
 * a server started on another port). With no server on DIR it says so in one line on stderr and exits 2.
 *
 * Like the hook script, it is CommonJS and loads Node's built-in modules only: an agent starts it
 * with every session and waits for its answer to initialize; the server's code (and the SDK's
 * client, about 90 ms to load) would double that (`npm run bench -- mcp`).
 */
'use strict';
const { readFileSync } = require('node:fs');
const { homedir } = require('node:os');
const { join, resolve } = require('node:path');
const http = require('node:http');

function dataDirOf(argv, env) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--data-dir') return resolve(argv[i + 1] ?? '');
    if (argv[i].startsWith('--data-dir=')) return resolve(argv[i].slice('--data-dir='.length));
  }
  return resolve(env.OPENPROGRAM_HOME || join(homedir(), '.openprogram'));
}

function cannotRun(message) {
  process.stderr.write(`entity-memory: ${message}\n`);
  process.exit(2);
}

/** The server holding the data dir: where it listens (its server.json, its pid alive) and the token; undefined when none does. */
function readTarget(dataDir) {
  let info;
  try {
    info = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'));
    if (typeof info.url !== 'string' || typeof info.pid !== 'number') info = undefined;
    else process.kill(info.pid, 0);
  } catch (error) {
    if (!(error && error.code === 'EPERM')) info = undefined;
  }
  if (!info) return undefined;
  let token = process.env.ENTITY_MEMORY_TOKEN || undefined;
  if (token === undefined) {
    try {
      token = readFileSync(join(dataDir, 'token'), 'utf8').trim() || undefined;
    } catch {
      token = undefined;
    }
  }
  return { url: info.url, token };
}

function target(dataDir) {
  const found = readTarget(dataDir);
  if (!found) {
    cannotRun(`no entity-memory server is running on the data dir ${dataDir}: start one (entity-memory serve, or npm start in its folder) and the agent's MCP server again`);
  }
  return found;
}

/** Errors of a server that is not there (stopped, or listening elsewhere now). */
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'ETIMEDOUT']);

/** A body's messages: JSON (one message or a batch), or the `data:` of each event of an SSE stream. */
function messagesOf(contentType, body) {
  if (body.trim() === '') return [];
  if (contentType.startsWith('text/event-stream')) {
    return body
      .split(/\r?\n\r?\n/)
      .map((event) =>
        event
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n'),
      )
      .filter((data) => data.trim() !== '')
      .map((data) => JSON.parse(data));
  }
  const parsed = JSON.parse(body);
  return Array.isArray(parsed) ? parsed : [parsed];
}

async function* stdinLines() {
  let rest = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    rest += chunk;
    let end;
    while ((end = rest.indexOf('\n')) >= 0) {
      yield rest.slice(0, end).replace(/\r$/, '');
      rest = rest.slice(end + 1);
    }
  }
  if (rest !== '') yield rest;
}

async function relay(dataDir, first) {
  let url;
  let token;
  let endpoint;
  let send;
  /** Sends to `found` from now on (the server started again, maybe on another port). */
  const point = (found) => {
    ({ url, token } = found);
    endpoint = new URL('/mcp', url);
    // node:https (and TLS with it) loads only for a server behind https: a local one is plain http.
    send = endpoint.protocol === 'https:' ? require('node:https').request : http.request;
  };
  point(first);
  let sessionId;
  let protocolVersion;
  let initialize;
  let initialized;
  let session;
  const out = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

  const post = (body, method = 'POST') =>
    new Promise((done, fail) => {
      const headers = { accept: 'application/json, text/event-stream' };
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (token) headers.authorization = `Bearer ${token}`;
      if (sessionId) headers['mcp-session-id'] = sessionId;
      if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
      const req = send(endpoint, { method, headers }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          try {
            const header = res.headers['mcp-session-id'];
            done({
              status: res.statusCode ?? 0,
              sessionId: Array.isArray(header) ? header[0] : header,
              messages: messagesOf(String(res.headers['content-type'] ?? ''), Buffer.concat(chunks).toString('utf8')),
            });
          } catch (error) {
            fail(error);
          }
        });
        res.on('error', fail);
      });
      req.on('error', fail);
      req.end(body);
    });

  /** Opens the session with `line` (the agent's initialize): its answer; the session's id and version kept. */
  const open = async (line) => {
    sessionId = undefined;
    protocolVersion = undefined;
    const answer = await post(line);
    sessionId = answer.sessionId;
    const version = answer.messages.find((m) => m && m.result)?.result?.protocolVersion;
    if (typeof version === 'string') protocolVersion = version;
    return answer;
  };

  /** After a 404 or a refused connection (the server restarted): the agent's initialize again, its answer the relay's own. */
  const reopen = async () => {
    await open(initialize);
    if (initialized) await post(initialized);
  };

  const failed = (message, error) => {
    if (message.id === undefined || message.id === null || message.method === undefined) return;
    const why = error instanceof Error ? (error.code ?? error.message) : String(error);
    out({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `The entity-memory server at ${url} did not answer (${why}); is it still running?` } });
  };

  const forward = async (line) => {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      out({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'A line on stdin that is not JSON: each MCP message is one line of JSON.' } });
      return;
    }
    if (message === null || typeof message !== 'object') message = {};
    try {
      if (message.method === 'initialize') {
        initialize = line;
        session = open(line);
        let answer;
        try {
          answer = await session;
        } catch (error) {
          // server.json named a live process that does not answer there: as with no server.
          cannotRun(`the entity-memory server at ${url} does not answer (${error.code ?? error.message}); start it (entity-memory serve) and the agent's MCP server again`);
        }
        answer.messages.forEach(out);
        return;
      }
      if (message.method === 'notifications/initialized') initialized = line;
      await session;
      let answer = await post(line);
      if (answer.status === 404 && sessionId && initialize) {
        session = reopen();
        await session;
        answer = await post(line);
      }
      answer.messages.forEach(out);
      if (answer.status >= 400 && answer.messages.length === 0) failed(message, new Error(`HTTP ${answer.status}`));
    } catch (error) {
      // Not there: the server may have started again elsewhere (its server.json says where); one more try there.
      const again = CONNECTION_ERRORS.has(error && error.code) && initialize ? readTarget(dataDir) : undefined;
      if (!again) return failed(message, error);
      try {
        point(again);
        session = reopen();
        await session;
        const answer = await post(line);
        answer.messages.forEach(out);
        if (answer.status >= 400 && answer.messages.length === 0) failed(message, new Error(`HTTP ${answer.status}`));
      } catch (retried) {
        failed(message, retried);
      }
    }
  };

  const pending = new Set();
  for await (const line of stdinLines()) {
    if (line.trim() === '') continue;
    const done = forward(line).finally(() => pending.delete(done));
    pending.add(done);
    // The session's opening is answered before anything else is sent.
    if (line.includes('"initialize"')) await done;
  }
  await Promise.all(pending);
  if (sessionId) await post(undefined, 'DELETE').catch(() => undefined);
}

const dataDir = dataDirOf(process.argv.slice(2), process.env);
relay(dataDir, target(dataDir)).then(
  () => process.exit(0),
  (error) => cannotRun(`the MCP relay failed: ${error && error.message ? error.message : String(error)}`),
);
