#!/usr/bin/env node
/**
 * The command an agent's hook runs (installed by `entity-memory hooks install`):
 *
 *   node bin/entity-memory-hook.cjs <claude-code|codex|gemini> --data-dir DIR
 *
 * Reads the event the agent wrote on stdin and sends it to the server of DIR (`DIR/server.json`,
 * with the token of `DIR/token` when there is one) as `POST /hooks/<agent>`, waiting at most one
 * second. When no server runs there, it does not answer in time, or it cannot record the event
 * now, the event is appended to `DIR/hooks/spool.jsonl` (one line, fsynced), which the server
 * replays when it starts, or within seconds when it runs.
 *
 * It never breaks the agent: it prints nothing, exits 0 whatever happens, and writes its own
 * problems to `DIR/hooks/hook.log` (rotated at 1 MiB). It loads Node's built-in modules only, not
 * the server's code: the agent waits for every hook, and this is one process start. It is
 * CommonJS and speaks HTTP on a plain socket for the same reason: Node's ES module loader and its
 * node:http each add about a fifth to the start-up (`npm run bench -- hooks`).
 */
'use strict';
const { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } = require('node:fs');
const { connect } = require('node:net');
const { join } = require('node:path');

const AGENTS = new Set(['claude-code', 'codex', 'gemini']);
/** What is read of stdin at most; the rest is drained unread. */
const MAX_STDIN_BYTES = 256 * 1024 * 1024;
/** Above this, a tool's output is cut before the event is sent (the server keeps what fits its limit). */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;
const KEPT_OUTPUT_CHARS = 1024 * 1024;
const BUDGET_MS = 1000;
const LOG_ROTATE_BYTES = 1024 * 1024;

function args(argv) {
  const [agent, ...rest] = argv;
  let dataDir;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--data-dir') dataDir = rest[++i];
    else if (rest[i].startsWith('--data-dir=')) dataDir = rest[i].slice('--data-dir='.length);
  }
  return { agent, dataDir };
}

function hooksDir(dataDir) {
  const dir = join(dataDir, 'hooks');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function log(dataDir, message) {
  try {
    const file = join(hooksDir(dataDir), 'hook.log');
    try {
      if (statSync(file).size > LOG_ROTATE_BYTES) renameSync(file, `${file}.1`);
    } catch {
      // No log yet.
    }
    appendLine(file, `${new Date().toISOString()} ${message}\n`, false);
  } catch {
    // Nowhere to say it: the agent must not hear of it either.
  }
}

function appendLine(file, line, durable) {
  const fd = openSync(file, 'a', 0o600);
  try {
    writeSync(fd, line);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function readStdin() {
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    let over = false;
    process.stdin.on('data', (chunk) => {
      if (over) return;
      size += chunk.length;
      if (size > MAX_STDIN_BYTES) over = true;
      else chunks.push(chunk);
    });
    process.stdin.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), over }));
    process.stdin.on('error', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), over: true }));
  });
}

/** The payload, with a large tool output cut so the event stays small. */
function bounded(payload, bytes) {
  if (bytes <= MAX_EVENT_BYTES || payload === null || typeof payload !== 'object') return payload;
  const response = payload.tool_response;
  const text = typeof response === 'string' ? response : JSON.stringify(response ?? null);
  if (text.length <= KEPT_OUTPUT_CHARS) return payload;
  return { ...payload, tool_response: `${text.slice(0, KEPT_OUTPUT_CHARS)}\n[cut by entity-memory's hook: ${text.length} characters in all]` };
}

function server(dataDir) {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'));
    if (typeof info.url !== 'string' || typeof info.pid !== 'number') return undefined;
    process.kill(info.pid, 0);
    let token;
    try {
      token = readFileSync(join(dataDir, 'token'), 'utf8').trim() || undefined;
    } catch {
      token = undefined;
    }
    return { url: info.url, token };
  } catch {
    return undefined;
  }
}

/**
 * Resolves with the HTTP status, or 0 when there was none within the budget. One request on a
 * plain socket (`Connection: close`), and only the status line is read: loading node:http would
 * add a fifth to the start-up the agent waits for.
 */
function send(target, agent, body) {
  return new Promise((resolve) => {
    let settled = false;
    let head = '';
    const url = new URL(target.url);
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) });
    const done = (status) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(() => done(0), BUDGET_MS);
    const lines = [
      `POST /hooks/${agent} HTTP/1.1`,
      `Host: ${url.host}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ];
    if (target.token) lines.push(`Authorization: Bearer ${target.token}`);
    socket.setEncoding('latin1');
    socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`));
    socket.on('data', (chunk) => {
      head += chunk;
      const end = head.indexOf('\r\n');
      if (end < 0 && head.length < 1024) return;
      const status = /^HTTP\/1\.[01] (\d{3})\b/.exec(head);
      done(status ? Number(status[1]) : 0);
    });
    socket.on('error', () => done(0));
    socket.on('close', () => done(0));
  });
}

async function main() {
  const { agent, dataDir } = args(process.argv.slice(2));
  if (!dataDir) return; // Nowhere to log: installed by hand, wrongly.
  if (!AGENTS.has(agent)) return log(dataDir, `unknown agent ${JSON.stringify(agent)}: the hook command names claude-code, codex or gemini`);
  const { text, over } = await readStdin();
  if (over) return log(dataDir, `${agent}: an event of more than ${MAX_STDIN_BYTES} bytes on stdin was not recorded`);
  let payload;
  try {
    payload = JSON.parse(text);
  } catch {
    return log(dataDir, `${agent}: stdin was not JSON (${text.length} characters); nothing recorded`);
  }
  payload = bounded(payload, Buffer.byteLength(text));
  const body = JSON.stringify(payload);
  const target = server(dataDir);
  if (target) {
    const status = await send(target, agent, body);
    if (status >= 200 && status < 300) return;
    // Refused as not an event: keeping it would not change that.
    if (status === 400 || status === 404 || status === 413) return log(dataDir, `${agent}: the server refused an event (HTTP ${status}); see its log`);
    log(dataDir, status === 0 ? `${agent}: no answer from ${target.url} within ${BUDGET_MS} ms; spooled` : `${agent}: HTTP ${status} from ${target.url}; spooled`);
  }
  const line = `${JSON.stringify({ v: 1, agent, receivedAt: new Date().toISOString(), payload })}\n`;
  appendLine(join(hooksDir(dataDir), 'spool.jsonl'), line, true);
}

main()
  .catch((error) => {
    const { dataDir } = args(process.argv.slice(2));
    if (dataDir) log(dataDir, `unexpected: ${error && error.stack ? error.stack : error}`);
  })
  .finally(() => process.exit(0));
