/**
 * The scripted model (scripted-model.ts) speaking the OpenAI Responses API, for the real Codex
 * CLI: Codex sends `POST /v1/responses` (stream: true) to the provider of its config.toml, and
 * each answer is the next step of the same kind of script, picked as Claude Code's is: the latest
 * user message that matches a turn picks the turn, the number of tool outputs after it picks the
 * step. A file step is Codex's `apply_patch` (a freeform patch, or its JSON form when the tool is
 * declared so); a command is `exec_command`. The answer is streamed as the API does (server-sent
 * events: created, output item added and done, completed).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fill, type JsonSchema } from './scripted-gemini.js';
import { pickStep, type ModelRequest, type Script, type ScriptedModel, type Step } from './scripted-model.js';

interface InputItem {
  type?: string;
  role?: string;
  content?: string | { type?: string; text?: string }[];
}

interface ResponsesBody {
  input?: InputItem[];
  tools?: { type?: string; name?: string }[];
  text?: { format?: { schema?: JsonSchema } };
}

type OutputItem =
  | { type: 'message'; id: string; role: 'assistant'; status: 'completed'; content: { type: 'output_text'; text: string; annotations: [] }[] }
  | { type: 'custom_tool_call'; id: string; call_id: string; name: string; input: string; status: 'completed' }
  | { type: 'function_call'; id: string; call_id: string; name: string; arguments: string; status: 'completed' };

/** The conversation as pickStep reads it: messages' texts, and a `tool_result` per tool output. */
function messagesOf(body: ResponsesBody): { role: string; content: { type: string; text?: string }[] }[] {
  return (body.input ?? []).flatMap((item) => {
    if (item.type === 'message' || (item.role && !item.type)) {
      const content = typeof item.content === 'string' ? [{ text: item.content }] : (item.content ?? []);
      return [{ role: item.role ?? 'user', content: content.map((c) => ({ type: 'text', text: c.text ?? '' })) }];
    }
    return /_output$/.test(item.type ?? '') ? [{ role: 'user', content: [{ type: 'tool_result' }] }] : [];
  });
}

/** Lines of a patch hunk: each line of `text` with `sign` in front. */
function lines(sign: string, text: string): string {
  return text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => sign + line)
    .join('\n');
}

/** An apply_patch patch for a write (a new file) or an edit (paths relative to the repo). */
function patchOf(step: Step): string | undefined {
  if ('write' in step) return `*** Begin Patch\n*** Add File: ${step.write}\n${lines('+', step.content)}\n*** End Patch\n`;
  if ('edit' in step) return `*** Begin Patch\n*** Update File: ${step.edit}\n@@\n${lines('-', step.old)}\n${lines('+', step.new)}\n*** End Patch\n`;
  return undefined;
}

function itemOf(step: Step, body: ResponsesBody, callId: string, n: number): OutputItem {
  const patch = patchOf(step);
  if (patch !== undefined) {
    const declared = (body.tools ?? []).find((t) => t.name === 'apply_patch');
    if (declared?.type === 'function') return { type: 'function_call', id: `fc_${callId}`, call_id: callId, name: 'apply_patch', arguments: JSON.stringify({ input: patch }), status: 'completed' };
    return { type: 'custom_tool_call', id: `ctc_${callId}`, call_id: callId, name: 'apply_patch', input: patch, status: 'completed' };
  }
  if ('bash' in step) return { type: 'function_call', id: `fc_${callId}`, call_id: callId, name: 'exec_command', arguments: JSON.stringify({ cmd: step.bash }), status: 'completed' };
  // apply_patch with a patch of the test's own (`input: () => ({ patch })`); any other tool with its arguments.
  if ('tool' in step && step.tool === 'apply_patch') return { type: 'custom_tool_call', id: `ctc_${callId}`, call_id: callId, name: 'apply_patch', input: String(step.input().patch), status: 'completed' };
  if ('tool' in step) return { type: 'function_call', id: `fc_${callId}`, call_id: callId, name: step.tool, arguments: JSON.stringify(step.input()), status: 'completed' };
  if ('text' in step) return message(step.text, n);
  throw new Error(`the Codex script has no tool for ${JSON.stringify(step)}`);
}

function message(text: string, n: number): OutputItem {
  return { type: 'message', id: `msg_scripted_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

function sse(res: ServerResponse, type: string, data: object): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function answer(res: ServerResponse, id: string, ...items: OutputItem[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  sse(res, 'response.created', { response: { id } });
  items.forEach((item, index) => {
    sse(res, 'response.output_item.added', { output_index: index, item });
    if (item.type === 'message') sse(res, 'response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: item.content[0]!.text });
    sse(res, 'response.output_item.done', { output_index: index, item });
  });
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  sse(res, 'response.completed', { response: { id, usage } });
  res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts the model on a free port of 127.0.0.1 (the caller closes it: a test with onCleanup); its
 * `url` ends in `/v1`, for a provider's `base_url`.
 */
export async function startScriptedCodex(script: Script): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  // Call ids unique across servers: a session resumed by another run keeps its earlier ids.
  const prefix = randomBytes(4).toString('hex');
  let count = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const n = ++count;
    if (req.method !== 'POST' || path !== '/v1/responses') {
      requests.push({ method: req.method ?? '?', path, kind: 'unknown' });
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not scripted","type":"not_found"}}');
      return;
    }
    const raw = await readBody(req);
    const body = JSON.parse(raw) as ResponsesBody;
    const id = `resp_scripted_${prefix}_${n}`;
    if ((body.tools ?? []).length === 0) {
      const schema = body.text?.format?.schema;
      requests.push({ method: 'POST', path, kind: 'side', answer: 'text' });
      answer(res, id, message(schema ? JSON.stringify(fill(schema)) : 'Scripted session', n));
      return;
    }
    const picked = pickStep(script, messagesOf(body));
    const step: Step = picked?.value ?? { text: 'Done.' };
    if (step.hold) await step.hold.arrive();
    const item = itemOf(step, body, `call_scripted_${prefix}_${n}`, n);
    requests.push({
      method: 'POST',
      path,
      kind: 'step',
      turn: picked?.turn ?? -1,
      step: picked?.step ?? -1,
      body: raw,
      ...(item.type === 'message' ? { answer: 'text' } : { answer: item.name, toolUseId: item.call_id }),
    });
    answer(res, id, ...(step.say !== undefined && item.type !== 'message' ? [message(step.say, n), item] : [item]));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      requests.push({ method: req.method ?? '?', path: req.url ?? '', kind: 'unknown' });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error), type: 'server_error' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, close };
}
