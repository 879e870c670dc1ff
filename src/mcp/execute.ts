/**
 * Runs one of the MCP server's GraphQL operations (src/mcp/operations.ts) in this process, as
 * the API would run it: the same schema, resolvers, budgets (a request of its own:
 * src/request-context.ts) and error masking (src/yoga.ts), without an HTTP round trip.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { execute, GraphQLError } from 'graphql';
import { currentRequestId, withRequest } from '../request-context.js';
import { schema } from '../schema/index.js';
import type { Deps } from '../services/deps.js';
import { maskError } from '../yoga.js';

/** A refusal a model can act on: the API's message and `extensions.code`. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export type Run = <R, V extends Record<string, unknown>>(document: TypedDocumentNode<R, V>, variables: V) => Promise<R>;

/** `run(document, variables)`: the operation's data, or a ToolError with the API's first error. */
export function createRun(deps: Deps): Run {
  const mask = maskError(deps.logger, deps.faults);
  return (document, variables) =>
    withRequest(undefined, async () => {
      const result = await execute({ schema, document, variableValues: variables, contextValue: { deps, requestId: currentRequestId() ?? 'none' } });
      const first = result.errors?.[0];
      if (first) {
        const masked = mask(first);
        const extensions = masked instanceof GraphQLError ? (masked.extensions as Record<string, unknown>) : {};
        throw new ToolError(masked.message, typeof extensions.code === 'string' ? extensions.code : 'INTERNAL_SERVER_ERROR', extensions);
      }
      return result.data as NonNullable<typeof result.data> as never;
    });
}
