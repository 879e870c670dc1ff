import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, findBreakingChanges, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';

const root = join(import.meta.dirname, '..', '..');

describe('schema.graphql', () => {
  it('is the schema the server serves (run `npm run codegen` when this fails)', () => {
    const committed = readFileSync(join(root, 'schema.graphql'), 'utf8');
    expect(printSchema(buildSchema(committed))).toBe(printSchema(schema));
  });

  // The contract's copy committed in contract/ (scripts/check-contract.mjs keeps it equal to the team's).
  it('covers all of the public contract: nothing renamed, removed or changed in type', () => {
    const contract = buildSchema(readFileSync(join(root, 'contract', 'schema.graphql'), 'utf8'));
    expect(findBreakingChanges(contract, schema)).toEqual([]);
  });
});
