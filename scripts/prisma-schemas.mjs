// The PostgreSQL schema is derived from prisma/schema.prisma, the one schema people edit: the
// same models, enums and indexes, with PostgreSQL as the provider and its client generated beside
// SQLite's. Prisma 7's client is made for one provider (its query compiler and its SQL dialect),
// so a server that can open either database carries two generated clients of the same models.
//
// `node scripts/prisma-schemas.mjs` writes prisma/postgresql/schema.prisma (committed, so that
// migrations for PostgreSQL are made from it like SQLite's) and exits; `--check` exits 1 when the
// committed file differs from what would be written (a test runs it).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SQLITE_SCHEMA = join(ROOT, 'prisma', 'schema.prisma');
export const POSTGRES_SCHEMA = join(ROOT, 'prisma', 'postgresql', 'schema.prisma');

const HEADER = `// Generated from ../schema.prisma by scripts/prisma-schemas.mjs: edit that file, then run
// \`node scripts/prisma-generate.mjs\` (which rewrites this one) and make a migration for each
// provider (\`npm run db:migration -- <name>\`).
`;

/** prisma/postgresql/schema.prisma's text for the current prisma/schema.prisma. */
export function postgresSchema(sqliteText = readFileSync(SQLITE_SCHEMA, 'utf8')) {

  let out = sqliteText;
  // The client generator: its output moves beside SQLite's; the Pothos types generator is SQLite's only
  // (the GraphQL schema is built once, from the SQLite client's types: the models are the same).
  out = out.replace(/generator client \{[^}]*\}/, (block) => {
    if (!/output\s*=\s*"\.\.\/src\/generated\/prisma"/.test(block)) throw new Error('prisma/schema.prisma: the client generator\'s output is not ../src/generated/prisma');
    return block.replace(/output(\s*)=\s*"\.\.\/src\/generated\/prisma"/, 'output$1= "../../src/generated/prisma-postgresql"');
  });
  out = out.replace(/\ngenerator pothos \{[^}]*\}\n\n/, "\n");
  out = out.replace(/datasource db \{[^}]*\}/, (block) => {
    if (!/provider\s*=\s*"sqlite"/.test(block)) throw new Error('prisma/schema.prisma: the datasource is not sqlite');
    return block.replace(/provider(\s*)=\s*"sqlite"/, 'provider$1= "postgresql"');
  });

  return HEADER + out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const wanted = postgresSchema();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(POSTGRES_SCHEMA, 'utf8');
    } catch {}
    if (current !== wanted) {
      console.error('prisma/postgresql/schema.prisma is not derived from prisma/schema.prisma: run node scripts/prisma-generate.mjs');
      process.exit(1);
    }
  } else {
    mkdirSync(dirname(POSTGRES_SCHEMA), { recursive: true });
    writeFileSync(POSTGRES_SCHEMA, wanted);
  }
}
