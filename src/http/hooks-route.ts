/**
 * `POST /hooks/<agent>`: an agent's hook event (the JSON its hook received), from the hook
 * command (bin/entity-memory-hook.cjs) or a Claude Code `"type": "http"` hook. Behind the same
 * gate as /graphql (Host, Origin, token, JSON body). Answers once the event is recorded
 * (durable): 200 `{"outcome"}` (recorded, duplicate, or skipped with why), 200 `{"ignored"}` for
 * an event entity-memory does not record; 400 for a body that is not an event, 404 for an
 * unknown agent, 413 over the size limit, 503 while the server starts or cannot record now (the
 * hook command then keeps the event in its spool). With `?context=1`, a SessionStart's answer also
 * holds `context`: the project's recent sessions for the agent (src/services/hooks/session-context.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import { HOOK_AGENTS, isHookAgent } from '../hooks/events.js';
import type { Logger } from '../logger.js';
import { readBody } from './read-body.js';

/** Largest event read: the hook command cuts a tool's output to stay well under it. */
export const MAX_HOOK_BODY_BYTES = 16 * 1024 * 1024;

export function isHooksPath(path: string): boolean {
  return path.startsWith('/hooks/');
}

function answer(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  // A length, not chunks: the hook script reads the answer off a plain socket.
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function refuse(res: ServerResponse, status: number, code: string, message: string): void {
  answer(res, status, { errors: [{ message, extensions: { code } }] });
}

function wantsContext(req: IncomingMessage): boolean {
  const query = (req.url ?? '').split('?')[1] ?? '';
  return new URLSearchParams(query).get('context') === '1';
}

export async function handleHookRequest(req: IncomingMessage, res: ServerResponse, path: string, app: App | undefined, logger: Logger): Promise<void> {
  const agent = path.slice('/hooks/'.length);
  if (!isHookAgent(agent)) return refuse(res, 404, 'NOT_FOUND', `No hooks for ${JSON.stringify(agent.slice(0, 40))}: use /hooks/${HOOK_AGENTS.join(', /hooks/')}.`);
  if (req.method !== 'POST') return refuse(res, 405, 'BAD_REQUEST', 'Send a hook event with POST.');
  if (!app) {
    res.setHeader('retry-after', '1');
    return refuse(res, 503, 'UNAVAILABLE', 'The server is starting; try again in a moment.');
  }
  const text = await readBody(req, MAX_HOOK_BODY_BYTES);
  if (text === null) return refuse(res, 413, 'REQUEST_ENTITY_TOO_LARGE', `A hook event is at most ${MAX_HOOK_BODY_BYTES} bytes.`);
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return refuse(res, 400, 'BAD_USER_INPUT', 'The body is not JSON: send the event your agent gave its hook, unchanged.');
  }
  try {
    const result = await app.hooks.receive(agent, payload);
    if ('invalid' in result) return refuse(res, 400, 'BAD_USER_INPUT', `Not a ${agent} hook event: ${result.invalid}.`);
    // `?context=1` (a SessionStart hook installed with --context): the project's recent sessions, for the agent.
    if (wantsContext(req) && 'outcome' in result) {
      const context = await app.hooks.sessionStartContext(agent, payload).catch((error: unknown) => {
        logger.warn({ err: error, agent }, 'could not put together the session-start context; the agent starts without it');
        return '';
      });
      if (context !== '') return answer(res, 200, { ...result, context });
    }
    return answer(res, 200, result);
  } catch (error) {
    logger.error({ err: error, agent }, 'could not record a hook event; the hook keeps it in its spool');
    return refuse(res, 503, 'UNAVAILABLE', 'The event could not be recorded now; the hook keeps it and it is recorded later.');
  }
}
