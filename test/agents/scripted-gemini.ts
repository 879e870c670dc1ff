/**
 * The scripted model (scripted-model.ts) speaking the Gemini API, for the real Gemini CLI: the CLI
 * sends its requests here (GOOGLE_GEMINI_BASE_URL), and each answer is the next step of the same
 * kind of script, as Claude Code's is picked: the latest user content that matches a turn picks
 * the turn, the number of function responses after it picks the step.
 *
 * Gemini CLI 0.61.0 asks, once per prompt, a routing model (`…-flash-lite:generateContent`, no
 * tools) for JSON with a `complexity_score`; it is answered with JSON that fills the schema it
 * sends, a score of 1 (a 0 fails the CLI's check, and its fallback costs seconds a prompt). Other
 * requests without tools get a short text. Neither advances the script. A subagent
 * (`invoke_agent`) plays the turn its prompt matches, and ends with `complete_task`. The steps are streamed
 * as `streamGenerateContent?alt=sse` does: one event with the whole candidate.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, join } from 'node:path';
import { pickStep, type ModelRequest, type Script, type ScriptedModel, type Step } from './scripted-model.js';

interface Part {
  text?: string;
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  functionResponse?: unknown;
}

interface GenerateBody {
  contents?: { role?: string; parts?: Part[] }[];
  tools?: { functionDeclarations?: Declaration[] }[];
  generationConfig?: { responseMimeType?: string; responseJsonSchema?: JsonSchema; responseSchema?: JsonSchema };
}

interface Declaration {
  name: string;
  parametersJsonSchema?: JsonSchema;
  parameters?: JsonSchema;
}

export interface JsonSchema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  minimum?: number;
}

/** A value the schema accepts: numbers 1 (or their minimum), strings a word, the first of an enum. */
export function fill(schema: JsonSchema | undefined, key = ''): unknown {
  if (!schema) return null;
  const type = String(schema.type ?? '').toLowerCase();
  if (schema.enum) return key === 'next_speaker' ? 'user' : schema.enum[0];
  if (type === 'object' || schema.properties) return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, fill(v, k)]));
  if (type === 'array') return [];
  if (type === 'boolean') return false;
  if (type === 'number' || type === 'integer') return schema.minimum ?? 1;
  return 'scripted';
}

/** The conversation as pickStep reads it: text blocks, and a `tool_result` per function response. */
function messagesOf(body: GenerateBody): { role: string; content: { type: string; text?: string }[] }[] {
  return (body.contents ?? []).map((c) => ({
    role: c.role === 'model' ? 'assistant' : 'user',
    content: (c.parts ?? []).flatMap((p) => [
      ...(typeof p.text === 'string' ? [{ type: 'text', text: p.text }] : []),
      ...(p.functionResponse ? [{ type: 'tool_result' }] : []),
    ]),
  }));
}

/** complete_task's arguments (how a Gemini subagent ends): its text in every string field. */
function completeTask(declaration: Declaration, text: string): Record<string, unknown> {
  const withText = (schema: JsonSchema, key: string): unknown => {
    const type = String(schema.type ?? '').toLowerCase();
    if (type === 'string' && !schema.enum) return text;
    if (type === 'object' || schema.properties) return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, withText(v, k)]));
    return fill(schema, key);
  };
  const properties = (declaration.parametersJsonSchema ?? declaration.parameters)?.properties ?? {};
  return Object.fromEntries(Object.entries(properties).filter(([key]) => key !== 'wait_for_previous').map(([key, schema]) => [key, withText(schema, key)]));
}

/**
 * The step as a Gemini CLI tool call (write_file, replace, run_shell_command, invoke_agent), or its
 * text; a subagent's text is its complete_task call (a subagent is offered that tool, and must).
 */
function partOf(step: Step, cwd: string, id: string, tools: Declaration[]): Part {
  const path = (p: string) => (isAbsolute(p) ? p : join(cwd, p));
  if ('write' in step) return { functionCall: { id, name: 'write_file', args: { file_path: path(step.write), content: step.content } } };
  if ('edit' in step) {
    const args = { file_path: path(step.edit), old_string: step.old, new_string: step.new, instruction: 'scripted edit', ...(step.replaceAll && { allow_multiple: true }) };
    return { functionCall: { id, name: 'replace', args } };
  }
  if ('bash' in step) return { functionCall: { id, name: 'run_shell_command', args: { command: step.bash, description: step.description ?? 'scripted command' } } };
  if ('subagent' in step) return { functionCall: { id, name: 'invoke_agent', args: { agent_name: 'generalist', prompt: step.subagent } } };
  if ('tool' in step) return { functionCall: { id, name: step.tool, args: step.input() } };
  const complete = tools.find((t) => t.name === 'complete_task');
  if ('text' in step && complete) return { functionCall: { id, name: 'complete_task', args: completeTask(complete, step.text) } };
  if ('text' in step) return { text: step.text };
  throw new Error(`the Gemini script has no tool for ${JSON.stringify(step)}`);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function reply(res: ServerResponse, stream: boolean, model: string, id: string, parts: Part[]): void {
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: model,
    responseId: id,
  };
  if (stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  } else {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk));
  }
}

/**
 * Starts the model on a free port of 127.0.0.1 (the caller closes it: a test with onCleanup).
 * `requests` says `side` for the routing call and other calls without tools.
 * @param cwd the repo the CLI runs in: a step's relative paths are made absolute against it.
 */
export async function startScriptedGemini(script: Script, cwd: string): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  const prefix = randomBytes(4).toString('hex');
  let count = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const n = ++count;
    const call = /^\/v1beta\/models\/([^:/]+):(generateContent|streamGenerateContent|countTokens)$/.exec(path);
    if (req.method !== 'POST' || !call) {
      requests.push({ method: req.method ?? '?', path, kind: 'unknown' });
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404,"message":"not scripted","status":"NOT_FOUND"}}');
      return;
    }
    const [, model, method] = call as unknown as [string, string, string];
    const raw = await readBody(req);
    const body = JSON.parse(raw) as GenerateBody;
    if (method === 'countTokens') {
      requests.push({ method: 'POST', path, kind: 'count' });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"totalTokens": 10}');
      return;
    }
    const stream = method === 'streamGenerateContent';
    const id = `gem_scripted_${prefix}_${n}`;
    const config = body.generationConfig ?? {};
    const tools = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
    if (config.responseMimeType === 'application/json' || config.responseJsonSchema || config.responseSchema || tools.length === 0) {
      const schema = config.responseJsonSchema ?? config.responseSchema;
      requests.push({ method: 'POST', path, kind: 'side', answer: 'text' });
      reply(res, stream, model, id, [{ text: schema || config.responseMimeType === 'application/json' ? JSON.stringify(fill(schema ?? { type: 'object' })) : 'Scripted session' }]);
      return;
    }
    const picked = pickStep(script, messagesOf(body));
    const step: Step = picked?.value ?? { text: 'Done.' };
    if (step.hold) await step.hold.arrive();
    const part = partOf(step, cwd, `call_scripted_${prefix}_${n}`, tools);
    requests.push({
      method: 'POST',
      path,
      kind: 'step',
      turn: picked?.turn ?? -1,
      step: picked?.step ?? -1,
      body: raw,
      ...(part.functionCall ? { answer: part.functionCall.name, toolUseId: part.functionCall.id } : { answer: 'text' }),
    });
    reply(res, stream, model, id, [part]);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      requests.push({ method: req.method ?? '?', path: req.url ?? '', kind: 'unknown' });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 500, message: String(error), status: 'INTERNAL' } }));
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
