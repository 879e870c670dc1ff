/**
 * A scripted Anthropic Messages API for the real Claude Code CLI: Claude Code sends its requests
 * here (ANTHROPIC_BASE_URL), and each answer is the next step of a script, streamed as the API
 * streams (server-sent events). The CLI's own tool loop runs for real: its tools write the files,
 * its hooks fire, its transcript is written.
 *
 * A script is a list of turns, each picked by a regular expression on a user message's text, with
 * its steps in order. Which step answers a request: the latest user message that matches a turn
 * picks the turn, and the number of tool results after it picks the step. So a step is answered
 * once its predecessors' tool calls have run, whatever Claude Code sends in between, and a
 * subagent (whose requests carry its own prompt) plays its own turn. Past the last step the answer
 * is that step's text (or "Done.").
 *
 * Requests without tools (Claude Code's side calls: a session title, a topic check) get a short
 * answer and advance nothing. A step may hold its answer until the test lets it go (`Hold`), so
 * a test can change the repo while the agent's turn is in flight.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, join } from 'node:path';

/**
 * A point in a script where the answer waits: `reached` resolves once the CLI asks for that step,
 * which is answered after `release()`.
 */
export class Hold {
  readonly reached: Promise<void>;
  private readonly released: Promise<void>;
  private reach!: () => void;
  release!: () => void;

  constructor() {
    this.reached = new Promise((resolve) => (this.reach = resolve));
    this.released = new Promise((resolve) => (this.release = resolve));
  }

  /** The model has the request: says so, and waits for the test. */
  arrive(): Promise<void> {
    this.reach();
    return this.released;
  }
}

/** Paths are relative to the repo the CLI runs in (Claude Code's file tools want absolute ones; they are made so). */
export type Step = (
  | { write: string; content: string }
  | { edit: string; old: string; new: string; replaceAll?: boolean }
  /** Claude Code's MultiEdit tool (which 2.1.197 no longer offers: it answers "No such tool available"). */
  | { multiEdit: string; edits: { old: string; new: string }[] }
  | { bash: string; description?: string }
  /** The Agent tool (Task on CLIs that call it so), general-purpose; its prompt should match a turn of its own. */
  | { subagent: string; description?: string }
  /** Any tool by the name the CLI offers it under (an MCP tool: mcp__<server>__<tool>); `input` read when the step is answered. */
  | { tool: string; input: () => Record<string, unknown> }
  /** Plain text: ends the turn. */
  | { text: string }
) & {
  hold?: Hold;
  /** Codex only (scripted-codex.ts): a message the model writes before the step's call, in the same response. */
  say?: string;
};

export interface ScriptTurn {
  match: RegExp;
  steps: Step[];
}

export interface Script {
  turns: ScriptTurn[];
}

/** One request the CLI made, for assertions and for reading a failure. */
export interface ModelRequest {
  method: string;
  path: string;
  /** `step` (answered from the script), `side` (no tools), `probe`, `count` or `unknown` (answered 404). */
  kind: 'step' | 'side' | 'probe' | 'count' | 'unknown';
  turn?: number;
  step?: number;
  /** The tool called, or `text`. */
  answer?: string;
  /** The tool call's id (`tool_use_id` in the CLI's hooks). */
  toolUseId?: string;
  /** The tools the CLI offered the model in this request (steps only). */
  tools?: string[];
  /** The request's body as sent (steps only): what the model was given. */
  body?: string;
}

export interface ScriptedModel {
  /** For ANTHROPIC_BASE_URL. */
  url: string;
  requests: ModelRequest[];
  close(): Promise<void>;
}

interface ContentBlock {
  type: string;
  text?: string;
}

interface MessagesBody {
  model?: string;
  stream?: boolean;
  tools?: { name: string }[];
  messages?: { role: string; content: string | ContentBlock[] }[];
  system?: unknown;
}

interface Picked {
  turn: number;
  step: number;
  value: Step | undefined;
}

/** The turn and step that answer a conversation (see the file's comment). */
export function pickStep(script: Script, messages: NonNullable<MessagesBody['messages']>): Picked | null {
  const blocks = messages.map((m) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content));
  for (let at = messages.length - 1; at >= 0; at--) {
    if (messages[at]!.role !== 'user') continue;
    const text = blocks[at]!.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('\n');
    const turn = script.turns.findIndex((t) => t.match.test(text));
    if (turn < 0) continue;
    const step = blocks.slice(at).reduce((n, content) => n + content.filter((b) => b.type === 'tool_result').length, 0);
    const steps = script.turns[turn]!.steps;
    if (step < steps.length) return { turn, step, value: steps[step] };
    const last = steps.at(-1);
    return { turn, step, value: last && 'text' in last ? last : undefined };
  }
  return null;
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function toolUse(step: Step, cwd: string, tools: string[], id: string): Block {
  const path = (p: string) => (isAbsolute(p) ? p : join(cwd, p));
  if ('write' in step) return { type: 'tool_use', id, name: 'Write', input: { file_path: path(step.write), content: step.content } };
  if ('edit' in step) {
    return { type: 'tool_use', id, name: 'Edit', input: { file_path: path(step.edit), old_string: step.old, new_string: step.new, replace_all: step.replaceAll ?? false } };
  }
  if ('multiEdit' in step) {
    const edits = step.edits.map((e) => ({ old_string: e.old, new_string: e.new }));
    return { type: 'tool_use', id, name: 'MultiEdit', input: { file_path: path(step.multiEdit), edits } };
  }
  if ('tool' in step) return { type: 'tool_use', id, name: step.tool, input: step.input() };
  if ('bash' in step) return { type: 'tool_use', id, name: 'Bash', input: { command: step.bash, description: step.description ?? 'scripted command' } };
  if ('subagent' in step) {
    const name = tools.includes('Agent') ? 'Agent' : 'Task';
    return { type: 'tool_use', id, name, input: { description: step.description ?? 'scripted subagent', prompt: step.subagent, subagent_type: 'general-purpose' } };
  }
  return { type: 'text', text: step.text };
}

/** A side call's answer: JSON where a title is asked for, else a word. */
function sideAnswer(body: MessagesBody): string {
  const system = JSON.stringify(body.system ?? '');
  if (/isNewTopic/.test(system)) return '{"isNewTopic": false, "title": null}';
  if (/title/i.test(system)) return '{"title": "Scripted session"}';
  return 'ok';
}

function sse(res: ServerResponse, event: string, data: object): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
}

/** Writes a message the way the Messages API does: one JSON body, or its stream of events. */
function answer(res: ServerResponse, body: MessagesBody, id: string, content: Block[]): void {
  const stopReason = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id, type: 'message', role: 'assistant', model: body.model ?? 'claude-scripted', stop_sequence: null };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${id}` });
    res.end(JSON.stringify({ ...message, content, stop_reason: stopReason, usage }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${id}` });
  sse(res, 'message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', { index, content_block: { type: 'text', text: '' } });
      sse(res, 'content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      sse(res, 'content_block_start', { index, content_block: { ...block, input: {} } });
      sse(res, 'content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    }
    sse(res, 'content_block_stop', { index });
  });
  sse(res, 'message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
  sse(res, 'message_stop', {});
  res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts the model on a free port of 127.0.0.1 (the caller closes it: a test with onCleanup).
 * @param cwd the repo the CLI runs in: a step's relative paths are made absolute against it.
 */
export async function startScriptedModel(script: Script, cwd: string): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  // Tool call ids unique across servers: a session resumed by another run keeps its earlier ids.
  const prefix = randomBytes(4).toString('hex');
  let count = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const n = ++count;
    if (req.method === 'HEAD' || (req.method === 'GET' && path === '/')) {
      requests.push({ method: req.method, path, kind: 'probe' });
      res.writeHead(200).end();
      return;
    }
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      await readBody(req);
      requests.push({ method: req.method, path, kind: 'count' });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens": 10}');
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/messages') {
      requests.push({ method: req.method ?? '?', path, kind: 'unknown' });
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"not scripted"}}');
      return;
    }
    const text = await readBody(req);
    const body = JSON.parse(text) as MessagesBody;
    const tools = (body.tools ?? []).map((t) => t.name);
    const id = `msg_scripted_${prefix}_${n}`;
    if (tools.length === 0) {
      requests.push({ method: 'POST', path, kind: 'side', answer: 'text' });
      answer(res, body, id, [{ type: 'text', text: sideAnswer(body) }]);
      return;
    }
    const picked = pickStep(script, body.messages ?? []);
    const step: Step = picked?.value ?? { text: 'Done.' };
    if (step.hold) await step.hold.arrive();
    const block = toolUse(step, cwd, tools, `toolu_scripted_${prefix}_${n}`);
    requests.push({
      method: 'POST',
      path,
      kind: 'step',
      turn: picked?.turn ?? -1,
      step: picked?.step ?? -1,
      tools,
      body: text,
      ...(block.type === 'text' ? { answer: 'text' } : { answer: block.name, toolUseId: block.id }),
    });
    answer(res, body, id, [block]);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      requests.push({ method: req.method ?? '?', path: req.url ?? '', kind: 'unknown' });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close };
}
