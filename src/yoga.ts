/**
 * The GraphQL handler: schema, context, error masking and query limits. It
 * never listens; src/server.ts owns sockets, tests call `yoga.fetch`.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { GraphQLError, Kind, type DocumentNode } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Context } from './context.js';
import { AppError, ForbiddenError } from './errors.js';
import { classifyFault, FAULT_RETRY_AFTER_SECONDS, type FaultBoard } from './faults.js';
import { useBodyLimit } from './http/body-limit.js';
import { GRAPHIQL_OPTIONS, renderGraphiQLWithToken } from './http/graphiql.js';
import { originAllowed, type BoundaryConfig } from './http/origin.js';
import type { Logger } from './logger.js';
import { currentRequestId } from './request-context.js';
import type { Deps } from './services/deps.js';
import { schema } from './schema/index.js';
import { useSharedEvents } from './schema/shared-events.js';

export type Yoga = YogaServerInstance<Record<string, unknown>, Context>;

/**
 * Expected errors keep their message and get `extensions.code`; anything else
 * is logged with the request id and reaches the client as
 * INTERNAL_SERVER_ERROR with that id, so a user can report it.
 */
export function maskError(logger: Logger, faults?: FaultBoard) {
  return (error: unknown): Error => {
    const graphqlError = error instanceof GraphQLError ? error : undefined;
    // Yoga and the executor may wrap an error more than once.
    let original: unknown = error;
    while (original instanceof GraphQLError && original.originalError) original = original.originalError;
    if (original instanceof AppError) {
      return new GraphQLError(original.message, {
        nodes: graphqlError?.nodes,
        path: graphqlError?.path,
        extensions: { ...original.details, code: original.code },
      });
    }
    if (graphqlError && original instanceof GraphQLError && !graphqlError.path) {
      // Raised before execution (variables that do not fit the schema): the request was wrong.
      return new GraphQLError(graphqlError.message, {
        nodes: graphqlError.nodes,
        extensions: { ...graphqlError.extensions, code: 'BAD_USER_INPUT' },
      });
    }
    const requestId = currentRequestId();
    // The machine's fault, not a bug: say what is wrong and that trying again later is worth it.
    const fault = classifyFault(original ?? error);
    if (fault) {
      faults?.note(fault.reason);
      logger.warn({ err: original ?? error, requestId, reason: fault.reason, path: graphqlError?.path }, 'a GraphQL operation met a fault of the machine');
      return new GraphQLError(fault.message, {
        nodes: graphqlError?.nodes,
        path: graphqlError?.path,
        extensions: { code: 'INTERNAL_SERVER_ERROR', reason: fault.reason, retryAfter: FAULT_RETRY_AFTER_SECONDS, requestId },
      });
    }
    logger.error({ err: original ?? error, requestId, path: graphqlError?.path }, 'unexpected error in a GraphQL operation');
    return new GraphQLError(`Unexpected server error; it was logged with request id ${requestId ?? 'unknown'}.`, {
      nodes: graphqlError?.nodes,
      path: graphqlError?.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId },
    });
  };
}

/** A mutation that succeeded: the database and the disk take writes again, so /health stops naming their faults. */
function useFaultRecovery(faults: FaultBoard | undefined): Plugin {
  return {
    onExecute: ({ args }) => ({
      onExecuteDone: ({ result }) => {
        const mutation = (args.document as DocumentNode).definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'mutation');
        if (mutation && 'data' in result && !result.errors?.length) faults?.clearWriteFaults();
      },
    }),
  };
}

/**
 * Requests that fail validation or parsing are the client's mistake: give them
 * the contract's BAD_USER_INPUT (yoga would say GRAPHQL_VALIDATION_FAILED).
 */
function useUserInputCodes(): Plugin {
  const recode = (error: Error) => {
    if (!(error instanceof GraphQLError)) return;
    const extensions = error.extensions as Record<string, unknown>;
    (error as { extensions: Record<string, unknown> }).extensions = { ...extensions, code: 'BAD_USER_INPUT' };
  };
  return {
    onValidate: () => ({ valid, result }) => {
      if (!valid) result.forEach(recode);
    },
    onParse: () => ({ result }) => {
      if (result instanceof GraphQLError) recode(result);
    },
  };
}

export function createYogaHandler(deps: Deps): Yoga {
  const armor = EnvelopArmorPlugin({
    maxDepth: { n: 15 },
    maxAliases: { n: 15 },
    maxDirectives: { n: 10 },
    maxTokens: { n: 1000 },
    // The cost is counted by @pothos/plugin-complexity (src/schema/cost.ts), which reads first:.
    costLimit: { enabled: false },
    // Suggestions ("did you mean …") help people writing queries; the schema is public anyway.
    blockFieldSuggestion: { enabled: false },
  });
  return createYoga<Record<string, unknown>, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: GRAPHIQL_OPTIONS,
    renderGraphiQL: renderGraphiQLWithToken,
    cors: (request) => corsFor(deps.config, request),
    landingPage: false,
    logging: {
      debug: (...args) => deps.logger.debug(yogaLog(args), 'yoga'),
      info: (...args) => deps.logger.info(yogaLog(args), 'yoga'),
      warn: (...args) => deps.logger.warn(yogaLog(args), 'yoga'),
      // Operation errors are logged by maskError, once, with the request id.
      error: (...args) => deps.logger.debug(yogaLog(args), 'yoga'),
    },
    maskedErrors: { maskError: maskError(deps.logger, deps.faults) },
    context: () => ({ deps, requestId: currentRequestId() ?? 'none' }),
    // The same limit, counted only for bodies without a Content-Length (src/http/body-limit.ts).
    maxRequestBodySize: false,
    // Each subscription event is executed once for all the subscriptions that asked the same.
    plugins: [armor, useUserInputCodes(), useCsrfRefusal(), useSharedEvents(), useBodyLimit(), useFaultRecovery(deps.faults)],
  });
}

/**
 * A GET without a JSON content type must carry this header (any value). Browsers cannot add it
 * across sites without a preflight, which the CORS policy below refuses, so a link or an
 * <img> cannot run a query. POSTs are JSON-only (src/http/gate.ts) and always preflighted.
 */
export const CSRF_HEADER = 'x-graphql-yoga-csrf';

/**
 * yoga's CSRF prevention, with a refusal that says what to add, coded FORBIDDEN (the plugin's
 * own error would be recoded BAD_USER_INPUT by maskError, like any pre-execution error).
 */
function useCsrfRefusal(): Plugin {
  const csrf = useCSRFPrevention({ requestHeaders: [CSRF_HEADER] });
  return {
    onRequestParse(payload) {
      try {
        return csrf.onRequestParse?.(payload);
      } catch {
        throw new ForbiddenError(
          `A GET request must carry the ${CSRF_HEADER} header (any value) or content-type: application/json, so that a web page cannot send it across sites; or use POST with JSON.`,
          { http: { status: 403 } },
        );
      }
    },
  };
}

/**
 * CORS headers only for an allowed origin (src/http/origin.ts), echoed exactly, without
 * credentials (the token travels in a header, not a cookie). Any other origin, and requests
 * without one, get no Access-Control-* header at all; server.ts has refused foreign origins
 * before yoga runs, this keeps yoga.fetch honest too.
 */
function corsFor(config: BoundaryConfig, request: Request) {
  const origin = request.headers.get('origin') ?? undefined;
  if (origin === undefined || !originAllowed(config, origin, request.headers.get('host') ?? undefined)) return false;
  return {
    origin: [origin],
    credentials: false,
    methods: ['GET', 'POST'],
    allowedHeaders: ['accept', 'authorization', 'content-type', 'x-request-id', CSRF_HEADER],
    maxAge: 600,
  };
}

function yogaLog(args: unknown[]): Record<string, unknown> {
  const err = args.find((arg) => arg instanceof Error);
  return { requestId: currentRequestId(), args: args.filter((arg) => !(arg instanceof Error)), ...(err ? { err } : {}) };
}
