/**
 * An ImportTarget that hands each SessionImport to a running server's `importSession`
 * mutation over HTTP: what the command line's `import` uses while a server holds the data dir
 * (only the lock holder may write to it). Plain fetch, no GraphQL client: one mutation, one
 * answer.
 */
import type { ImportTarget, SessionImport, SessionImportOutcome } from './target.js';

export interface HttpTargetOptions {
  /** The server's base URL, e.g. http://127.0.0.1:4000 (`/graphql` is appended). */
  url: string;
  /** Sent as `Authorization: Bearer <token>` when given. */
  token?: string | undefined;
  /** Where the token came from, named in the error when the server refuses it. */
  tokenHint?: string;
}

/** The server could not be reached, refused the request, or answered with errors; the message says which, in one line. */
export class ImportHttpError extends Error {}

const MUTATION = `mutation ImportSession($input: ImportSessionInput!) {
  importSession(input: $input) {
    sessionId
    created
    messagesAdded
    messagesUpdated
    turnsAdded
    branchesCreated
    currentBranch
    problems { line message }
  }
}`;

interface GraphQLAnswer {
  data?: { importSession?: SessionImportOutcome | null } | null;
  errors?: { message: string; extensions?: { code?: string } }[];
}

/** The mutation's input: SessionImport as it is (the input type takes its fields). */
export function importSessionInput(input: SessionImport): Record<string, unknown> {
  return { ...input };
}

/** One POST to the server's /graphql; the answer parsed, or an ImportHttpError saying why there is none. */
async function post(options: HttpTargetOptions, query: string, variables: Record<string, unknown>): Promise<{ status: number; text: string; answer: GraphQLAnswer }> {
  const endpoint = `${options.url.replace(/\/+$/, '')}/graphql`;
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(options.token !== undefined ? { authorization: `Bearer ${options.token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ImportHttpError(`could not reach the server at ${endpoint} (${cause?.code ?? cause?.message ?? (error as Error).message})`);
  }
  const text = await response.text();
  if (response.status === 401) {
    const how = options.token === undefined ? 'none was sent' : `the one sent${options.tokenHint ? ` (from ${options.tokenHint})` : ''} was refused`;
    throw new ImportHttpError(`the server at ${endpoint} wants its token (${how}); set ENTITY_MEMORY_TOKEN to the token it was started with`);
  }
  try {
    return { status: response.status, text, answer: JSON.parse(text) as GraphQLAnswer };
  } catch {
    throw new ImportHttpError(`the server at ${endpoint} answered HTTP ${response.status} with no GraphQL result: ${oneLine(text)}`);
  }
}

/**
 * Asks the server something trivial, so that a server that cannot be reached or refuses the token
 * is one error before any file is read, not one per file.
 */
export async function checkHttpTarget(options: HttpTargetOptions): Promise<void> {
  const { answer } = await post(options, 'query ImportCheck { __typename }', {});
  if (answer.errors?.length) throw new ImportHttpError(`the server at ${options.url} refused a first query: ${answer.errors[0]!.message}`);
}

export function httpImportTarget(options: HttpTargetOptions): ImportTarget {
  const endpoint = `${options.url.replace(/\/+$/, '')}/graphql`;
  return {
    async importSession(input: SessionImport): Promise<SessionImportOutcome> {
      const { status: responseStatus, text, answer } = await post(options, MUTATION, { input: importSessionInput(input) });
      const response = { status: responseStatus };
      if (answer.errors?.length) {
        const first = answer.errors[0]!;
        const more = answer.errors.length > 1 ? ` (and ${answer.errors.length - 1} more)` : '';
        const code = first.extensions?.code ? ` [${first.extensions.code}]` : '';
        throw new ImportHttpError(`session ${input.session.id ?? '?'}: the server refused the import${code}: ${first.message}${more}`);
      }
      const outcome = answer.data?.importSession;
      if (!outcome) throw new ImportHttpError(`the server at ${endpoint} answered HTTP ${response.status} without a result: ${oneLine(text)}`);
      return outcome;
    },
  };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat || '(empty)';
}
