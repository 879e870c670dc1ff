/**
 * Issue 26 item 6: the queries we ship never hit our own cost limit. Every operation of the web
 * UI and of the client library (their generated documents) and every GraphQL block of the
 * README is priced against the schema as the server prices it: a list without a size counts its
 * default page, and a required Int variable (a page size) is given the largest page the UI asks for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type GraphQLInputType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { MAX_COST } from '../../src/schema/cost.js';
import { schema } from '../../src/schema/index.js';
import * as web from '../../web/src/gql/graphql.js';
import * as client from '../../src/client/gql/graphql.js';
import { WINDOW } from '../../web/src/features/replay/window.js';

const root = join(import.meta.dirname, '..', '..');

/** The generated documents of a module, one per operation, by name. */
function operations(module: Record<string, unknown>): [string, DocumentNode][] {
  return Object.entries(module)
    .filter((entry): entry is [string, DocumentNode] => entry[0].endsWith('Document') && (entry[1] as DocumentNode)?.kind === Kind.DOCUMENT)
    .filter(([, doc]) => doc.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION));
}

/** The README's ```graphql blocks, each operation on its own with the fragments it needs. */
function readmeOperations(): [string, DocumentNode][] {
  const text = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = [...text.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => parse(m[1]!));
  return blocks.flatMap((doc, b) => {
    const fragments = doc.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
    return doc.definitions
      .filter((d) => d.kind === Kind.OPERATION_DEFINITION)
      .map((op): [string, DocumentNode] => [`README block ${b + 1} ${op.name?.value ?? ''}`, { kind: Kind.DOCUMENT, definitions: [op, ...fragments] }]);
  });
}

/** The largest page any of the UI's lists asks for (the branch graph's log page): what an Int variable is given. */
const LARGEST_UI_PAGE = 200;
/** Operations whose page size is smaller, as the UI sends it. */
const UI_PAGES: Record<string, number> = { ReplayConversation: WINDOW };

/** A value of `type` for a variable the operation requires: required input fields filled, Int the largest page. */
function placeholder(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return placeholder(type.ofType);
  if (isListType(type)) return [];
  if (isEnumType(type)) return type.getValues()[0]!.value;
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields()).filter((field) => isNonNullType(field.type) && field.defaultValue === undefined);
    return Object.fromEntries(fields.map((field) => [field.name, placeholder(field.type)]));
  }
  // An ID is a node id (a commit's, as the project history sends one): its argument is decoded before the cost is counted.
  const nodeId = Buffer.from(`Commit:project:p1:${'a'.repeat(40)}`).toString('base64');
  if (isScalarType(type)) return ({ Int: LARGEST_UI_PAGE, Float: 1, Boolean: false, JSON: {}, ID: nodeId } as Record<string, unknown>)[type.name] ?? 'x';
  return null;
}

function variablesOf(document: DocumentNode): Record<string, unknown> {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION)!;
  const page = UI_PAGES[operation.name?.value ?? ''];
  return Object.fromEntries(
    (operation.variableDefinitions ?? [])
      .filter((v) => v.type.kind === Kind.NON_NULL_TYPE)
      .map((v) => [v.variable.name.value, page !== undefined && ['first', 'last'].includes(v.variable.name.value) ? page : placeholder(typeFromAST(schema, v.type) as GraphQLInputType)]),
  );
}

describe('the queries we ship', () => {
  const all = [...operations(web), ...operations(client), ...readmeOperations()];

  it('are found: the web UI, the client and the README each have some', () => {
    expect(operations(web).length).toBeGreaterThan(10);
    expect(operations(client).length).toBeGreaterThan(5);
    expect(readmeOperations().length).toBeGreaterThan(2);
  });

  it.each(all)('%s is valid and costs at most the limit', (_name, document) => {
    expect(validate(schema, document)).toEqual([]);
    const { complexity } = complexityFromQuery(document, { schema, ctx: {}, variables: variablesOf(document) });
    expect(complexity).toBeLessThanOrEqual(MAX_COST);
  });
});
