/**
 * The Pothos builder: configuration only. Types live in one file per domain.
 */
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import type { Context } from '../context.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';

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
  plugins: [PrismaPlugin, RelayPlugin],
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
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
