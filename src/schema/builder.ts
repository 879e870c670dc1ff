/**
 * The Pothos builder: configuration only. Types live in one file per domain.
 */
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import type { Context } from '../context.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { costError, defaultFieldCost, FIRST_ARG_DESCRIPTION, MAX_COST } from './cost.js';
import { decodeNodeId, loadNode } from './node-id.js';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
    ID: { Input: string; Output: string };
  };
  // Fields are non-null unless they say otherwise, as in the contract.
  DefaultFieldNullability: false;
}>({
  defaultFieldNullability: false,
  /**
   * No validation plugin (@pothos/plugin-validation, plugin-zod): input is
   * checked in the services (src/services/sessions/validate.ts,
   * message-draft.ts, the import service's checks), because GraphQL is not
   * their only caller. The command line's import writes through
   * `serviceImportTarget` in process, the benchmarks and some tests call the
   * services directly, and a check kept in the schema would be skipped on
   * those ways in while `importSession` over HTTP and in process must refuse
   * the same input. Some limits are the server's configuration
   * (`--max-content-bytes`, read from `deps` per call), not constants fixed
   * when the schema is built. And a refusal is a BadUserInputError whose
   * `extensions` carry `code: BAD_USER_INPUT` with the `field` it names
   * (`messages[3].content`, `assistant.messageId`) and figures such as
   * `bytes`, `limit` or `rule`, which clients and tests read: the plugin's
   * own errors would have to be mapped back to that.
   */
  plugins: [PrismaPlugin, RelayPlugin, ComplexityPlugin],
  // Checked when the first root field resolves, before any of them runs.
  complexity: {
    fieldComplexity: defaultFieldCost,
    limit: { complexity: MAX_COST },
    complexityError: costError,
  },
  prisma: {
    client: (ctx) => ctx.deps.db,
    dmmf: getDatamodel(),
    // Relation fields fall back to their own queries when a parent was loaded without them.
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesQueryOptions: false,
    decodeGlobalID: decodeNodeId,
    // Pothos fails (INTERNAL) on a type it cannot load by id and on a missing record; such ids name no node.
    nodeQueryOptions: { resolve: (_root, args, _ctx, info, resolveNode) => loadNode(args.id, info, resolveNode) },
    firstArgOptions: { description: FIRST_ARG_DESCRIPTION },
    // A connection's multiplier (first:) already counts its edges; the page info is part of its own cost.
    edgesFieldOptions: { complexity: { field: 0, multiplier: 1 } },
    pageInfoFieldOptions: { complexity: 0 },
    hasNextPageFieldOptions: { complexity: 0 },
    hasPreviousPageFieldOptions: { complexity: 0 },
    startCursorFieldOptions: { complexity: 0 },
    endCursorFieldOptions: { complexity: 0 },
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
