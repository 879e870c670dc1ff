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
 * With `--context` (hooks install --context), a SessionStart's answer from the server holds the
 * project's recent sessions, which it prints for the agent as the agents' hooks take context:
 * `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"…"}}`.
 *
 * It never breaks the agent: it prints nothing else, exits 0 whatever happens, and writes its own
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
  let context = false;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--data-dir') dataDir = rest[++i];
    else if (rest[i].startsWith('--data-dir=')) dataDir = rest[i].slice('--data-dir='.length);
    else if (rest[i] === '--context') context = true;
  }
  return { agent, dataDir, context };
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
 * Resolves with the HTTP status (0 when there was none within the budget) and, when `withBody`,
 * the answer's body. One request on a plain socket (`Connection: close`); without `withBody` only
 * the status line is read: loading node:http would add a fifth to the start-up the agent waits for.
 */
function send(target, path, body, withBody) {
  return new Promise((resolve) => {
    let settled = false;
    const chunks = [];
    let size = 0;
    const url = new URL(target.url);
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) });
    const done = (status, text) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ status, body: text });
    };
    const timer = setTimeout(() => done(0, undefined), BUDGET_MS);
    const lines = [
      `POST ${path} HTTP/1.1`,
      `Host: ${url.host}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ];
    if (target.token) lines.push(`Authorization: Bearer ${target.token}`);
    socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      size += chunk.length;
      const received = Buffer.concat(chunks, size);
      const line = received.indexOf('\r\n');
      if (line < 0 && size < 1024) return;
      const status = /^HTTP\/1\.[01] (\d{3})\b/.exec(received.subarray(0, Math.max(line, 0)).toString('latin1'));
      if (!status) return done(0, undefined);
      if (!withBody) return done(Number(status[1]), undefined);
      // The server answers with a Content-Length (src/http/hooks-route.ts).
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(received.subarray(0, end).toString('latin1'));
      const bodyBytes = received.subarray(end + 4);
      if (length && bodyBytes.length >= Number(length[1])) done(Number(status[1]), bodyBytes.subarray(0, Number(length[1])).toString('utf8'));
    });
    socket.on('error', () => done(0, undefined));
    // Closed before a whole body came: the status, if it came, still says what happened to the event.
    socket.on('close', () => {
      const status = /^HTTP\/1\.[01] (\d{3})\b/.exec(Buffer.concat(chunks, size).subarray(0, 64).toString('latin1'));
      done(status ? Number(status[1]) : 0, undefined);
    });
  });
}

/**
 * The agent's SessionStart context: one JSON line on stdout, in the shape Claude Code, Codex and
 * Gemini CLI all take from a SessionStart hook. Nothing when there is nothing to say.
 */
function giveContext(body) {
  let context;
  try {
    context = JSON.parse(body).context;
  } catch {
    return;
  }
  if (typeof context !== 'string' || context === '') return;
  process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } })}\n`);
}

async function main() {
  const { agent, dataDir, context } = args(process.argv.slice(2));
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
    // --context (hooks install --context): a SessionStart's answer carries the project's recent sessions for the agent.
    const withContext = context && payload !== null && typeof payload === 'object' && payload.hook_event_name === 'SessionStart';
    const { status, body: answer } = await send(target, `/hooks/${agent}${withContext ? '?context=1' : ''}`, body, withContext);
    if (withContext && answer !== undefined) giveContext(answer);
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
