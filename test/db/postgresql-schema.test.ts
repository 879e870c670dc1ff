/**
 * PostgreSQL's schema is derived from SQLite's (scripts/prisma-schemas.mjs): the committed file
 * must be what the script writes from prisma/schema.prisma today, and its migrations must cover
 * its models (checked against a real server in the PostgreSQL pass, test/scale-out).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs script without types
import { POSTGRES_SCHEMA, postgresSchema } from '../../scripts/prisma-schemas.mjs';

describe('the PostgreSQL schema', () => {
  it('is prisma/schema.prisma with PostgreSQL as provider and its own client output', () => {
    const derived = (postgresSchema as () => string)();
    expect(readFileSync(POSTGRES_SCHEMA as string, 'utf8')).toBe(derived);
    expect(derived).toMatch(/provider\s*=\s*"postgresql"/);
    expect(derived).toContain('../../src/generated/prisma-postgresql');
    expect(derived).not.toContain('prisma-pothos-types');
    // Every model of SQLite's schema, unchanged.
    const models = (text: string) => text.match(/^model \w+ \{[\s\S]*?^\}/gm) ?? [];
    expect(models(derived)).toEqual(models(readFileSync('prisma/schema.prisma', 'utf8')));
    expect(models(derived).length).toBeGreaterThan(5);
  });
});
