/**
 * An ImportTarget that hands each SessionImport to a running server's `importSession` mutation
 * through the typed client (src/client/): what the command line's `import` uses while a server
 * holds the data dir (only the lock holder may write to it). Its failures are the client's
 * EntityMemoryError, said again in one line for the person running the import.
 */
import { createClient, EntityMemoryError, type ImportSessionInput } from '../client/index.js';
import type { ImportTarget, SessionImport, SessionImportOutcome } from './target.js';

export interface HttpTargetOptions {
  /** The server's base URL, e.g. http://127.0.0.1:4000 (`/graphql` is appended). */
  url: string;
  /** Sent as `Authorization: Bearer <token>` when given. */
  token?: string | undefined;
  /** Where the token came from, named in the error when the server refuses it. */
  tokenHint?: string;
}

/**
 * The client an import sends with: no retries (a failed file is reported, and imported again by
 * the next run) and no time limit (a long transcript takes as long as it takes).
 */
function importClient(options: HttpTargetOptions) {
  return createClient({ url: `${options.url.replace(/\/+$/, '')}/graphql`, token: options.token, retries: 0, timeoutMs: 0 });
}

/**
 * Asks the server something trivial, so that a server that cannot be reached or refuses the token
 * is one error before any file is read, not one per file.
 * @throws EntityMemoryError saying in one line why the server cannot take the import.
 */
export async function checkHttpTarget(options: HttpTargetOptions): Promise<void> {
  const client = importClient(options);
  try {
    await client.ping();
  } catch (error) {
    const said = unreachable(error, options, client.endpoint);
    if (said || !(error instanceof EntityMemoryError)) throw said ?? error;
    // An answer with neither data nor errors still says the server is there and took the token.
    if (error.body !== undefined) return;
    throw new EntityMemoryError(error.code, `the server at ${options.url} refused a first query: ${error.message}`, { cause: error });
  }
}

/** The target: each import one `importSession` mutation; rejects with an EntityMemoryError in one line. */
export function httpImportTarget(options: HttpTargetOptions): ImportTarget {
  const client = importClient(options);
  return {
    async importSession(input: SessionImport): Promise<SessionImportOutcome> {
      try {
        return await client.importSession(importSessionInput(input));
      } catch (error) {
        const said = unreachable(error, options, client.endpoint);
        if (said || !(error instanceof EntityMemoryError)) throw said ?? error;
        // JSON, but neither data nor errors.
        if (error.body !== undefined) {
          throw new EntityMemoryError(error.code, `the server at ${client.endpoint} answered HTTP ${error.status} without a result: ${oneLine(error.body)}`, { cause: error });
        }
        const more = error.errors.length > 1 ? ` (and ${error.errors.length - 1} more)` : '';
        const code = error.extensions.code ? ` [${String(error.extensions.code)}]` : '';
        throw new EntityMemoryError(error.code, `session ${input.session.id ?? '?'}: the server refused the import${code}: ${error.message}${more}`, { cause: error });
      }
    },
  };
}

/** The mutation's input: SessionImport as it is, its session id set (SessionImport says it must be). */
function importSessionInput(input: SessionImport): ImportSessionInput {
  const { id } = input.session;
  if (id === null) throw new EntityMemoryError('BAD_USER_INPUT', 'session ?: an import needs the session id (SessionImport.session.id)');
  return { ...input, session: { ...input.session, id } };
}

/**
 * The one-line error for a server that could not be reached, wants its token, or answered with no
 * GraphQL result; undefined for an answer that was GraphQL.
 */
function unreachable(error: unknown, options: HttpTargetOptions, endpoint: string): EntityMemoryError | undefined {
  if (!(error instanceof EntityMemoryError)) return undefined;
  if (error.code === 'NETWORK_ERROR') {
    const cause = (error.cause as { cause?: { code?: string; message?: string } } | undefined)?.cause;
    return new EntityMemoryError(error.code, `could not reach the server at ${endpoint} (${cause?.code ?? cause?.message ?? (error.cause as Error).message})`, { cause: error });
  }
  if (error.status === 401) {
    const how = options.token === undefined ? 'none was sent' : `the one sent${options.tokenHint ? ` (from ${options.tokenHint})` : ''} was refused`;
    return new EntityMemoryError(error.code, `the server at ${endpoint} wants its token (${how}); set ENTITY_MEMORY_TOKEN to the token it was started with`, { status: 401, cause: error });
  }
  // The body did not parse as JSON (the client keeps why as the cause).
  if (error.body !== undefined && error.cause !== undefined) {
    return new EntityMemoryError(error.code, `the server at ${endpoint} answered HTTP ${error.status} with no GraphQL result: ${oneLine(error.body)}`, { cause: error });
  }
  return undefined;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat || '(empty)';
}
