/**
 * What a query may cost, counted by `@pothos/plugin-complexity` from the
 * query's shape before any resolver runs (no SQL, no git).
 *
 * A field's cost is its own work plus its selection's cost times its
 * multiplier: `first:` for a connection (50 when omitted), 10 for other lists.
 * One git process is worth `GIT_PROCESS_COST`, so that the largest query
 * allowed needs about as many git processes as a request may start
 * (src/request-context.ts): the cost limit refuses before work what the
 * runtime budget would stop half-way.
 */
import { complexityFromQuery, ComplexityErrorKind } from '@pothos/plugin-complexity';
import { getNamedType, isListType, isNonNullType, Kind, type DocumentNode, type GraphQLField, type GraphQLResolveInfo, type GraphQLOutputType } from 'graphql';
import { BadUserInputError } from '../errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../services/page.js';

/** The most a request may cost: 10,000. */
export const MAX_COST = 10_000;

/**
 * Cost of each git process a field may start: 150, so that `MAX_COST` buys
 * about `REQUEST_GIT_PROCESSES` (64) of them and little else.
 */
export const GIT_PROCESS_COST = 150;

/**
 * Cost of a commit read with others asked for in the same tick, which share
 * one git process (a page of turns' commits, every branch's head, each
 * commit's patches): a tenth of a process, 15.
 */
export const SHARED_GIT_COST = GIT_PROCESS_COST / 10;

/** Cost of each SQL query a field runs of its own (Prisma relations loaded with their parent cost 1): 5. */
export const QUERY_COST = 5;

/** Multiplier of a list without `first:` (the items a list usually holds): 10. */
export const LIST_MULTIPLIER = 10;

/** How many items a connection asks for (`first:`, or `last:` paging backward), as a multiplier. */
export function pageMultiplier(first: number | null | undefined, last?: number | null): number {
  const size = first ?? last;
  return size == null ? DEFAULT_PAGE_SIZE : Math.max(0, size);
}

/** Cost of a connection: `own` for its queries, its selection counted `first:` (or `last:`) times. */
export function connectionCost(own: number) {
  return (args: { first?: number | null; last?: number | null }) => ({ field: own, multiplier: pageMultiplier(args.first, args.last) });
}

/** Cost of a list field: `own` for its work, its selection counted `multiplier` times. */
export function listCost(own: number, multiplier = LIST_MULTIPLIER) {
  return { field: own, multiplier };
}

/** The description every `first:` argument carries. */
export const FIRST_ARG_DESCRIPTION = `How many items: ${DEFAULT_PAGE_SIZE} when omitted, at most ${MAX_PAGE_SIZE}. The query's cost counts the selection this many times.`;

function isList(type: GraphQLOutputType): boolean {
  return isListType(isNonNullType(type) ? type.ofType : type);
}

/**
 * Return types whose every field costs git work, whichever file defines the
 * field: a project's working tree (`git status`) and the outcome of a turn's
 * project commit (`git log` of that commit).
 */
const GIT_BACKED_TYPES: Record<string, number> = {
  WorkingTreeStatus: GIT_PROCESS_COST,
  ProjectCommitOutcome: GIT_PROCESS_COST,
};

/**
 * The cost of a field that does not set its own: connections (found by their
 * `first` argument) cost their queries plus `first` times their selection, a
 * connection's `totalCount` is counted in the connection's own cost, lists
 * multiply by 10, everything else costs 1.
 */
export function defaultFieldCost(args: Record<string, unknown>, _ctx: unknown, field: Pick<GraphQLField<unknown, never>, 'name' | 'type' | 'args'>) {
  const named = getNamedType(field.type).name;
  if (named.endsWith('Connection') && field.args.some((arg) => arg.name === 'first')) {
    // The page and its count: two git processes for commits, two queries for rows.
    const own = named === 'CommitConnection' ? 2 * GIT_PROCESS_COST : 2 * QUERY_COST;
    return { field: own, multiplier: pageMultiplier(args.first as number | null | undefined, args.last as number | null | undefined) };
  }
  if (field.name === 'totalCount') return 0;
  const git = GIT_BACKED_TYPES[named];
  if (git !== undefined) return git;
  return isList(field.type) ? { field: 1, multiplier: LIST_MULTIPLIER } : 1;
}

/** The error a request over `MAX_COST` gets, with both numbers, before anything runs. */
export function costError(_kind: ComplexityErrorKind, result: { complexity: number; maxComplexity?: number }): BadUserInputError {
  const max = result.maxComplexity ?? MAX_COST;
  return new BadUserInputError(
    `This query costs ${result.complexity}, more than the ${max} one request may cost: ` +
      `ask for fewer items with first: (lists count their selection first: times, ${DEFAULT_PAGE_SIZE} when omitted) and page with after:, ` +
      `and leave git-backed fields (diff, files, file, patch, head, branches, messages of a commit) out of long lists.`,
    { cost: result.complexity, maxCost: max },
  );
}

/**
 * Refuses a subscription over `MAX_COST` when it is set up (the plugin checks
 * root fields only when they resolve, which for a subscription is each event).
 * @throws BadUserInputError with the numbers.
 */
export function assertSubscriptionCost(ctx: object, info: GraphQLResolveInfo): void {
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [info.operation, ...Object.values(info.fragments)] };
  const { complexity } = complexityFromQuery(document, { schema: info.schema, ctx, variables: info.variableValues });
  if (complexity > MAX_COST) throw costError(ComplexityErrorKind.Complexity, { complexity, maxComplexity: MAX_COST });
}
