#!/usr/bin/env node
// Runs `prisma generate` on machines that reach only the npm registry.
//
// `prisma generate` never executes the schema-engine binary, it only checks
// that one exists, and downloading it fails without network access. When no
// engine is configured we point PRISMA_SCHEMA_ENGINE_BINARY (a variable Prisma
// documents for custom engine locations) at a placeholder that refuses to run
// with a clear message. Migrations do not need it: the server applies them with
// Prisma's schema engine compiled to WebAssembly (src/db/schema-engine.ts).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { POSTGRES_SCHEMA, postgresSchema } from './prisma-schemas.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = {
  ...process.env,
  // The pothos generator is a bin of @pothos/plugin-prisma; npm puts .bin on PATH only under `npm run`.
  PATH: [join(root, 'node_modules', '.bin'), process.env.PATH].join(delimiter),
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};

if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const dir = join(root, 'node_modules', '.cache', 'entity-memory');
  mkdirSync(dir, { recursive: true });
  const placeholder = join(dir, 'schema-engine-placeholder');
  writeFileSync(
    placeholder,
    '#!/bin/sh\necho "entity-memory: the native Prisma schema engine is not installed; migrations run through npm run db:migration and the server itself" >&2\nexit 1\n',
  );
  chmodSync(placeholder, 0o755);
  env.PRISMA_SCHEMA_ENGINE_BINARY = placeholder;
}

// Both clients: SQLite's (with the Pothos types) and PostgreSQL's, from the schema derived from
// SQLite's (scripts/prisma-schemas.mjs).
mkdirSync(dirname(POSTGRES_SCHEMA), { recursive: true });
writeFileSync(POSTGRES_SCHEMA, postgresSchema());
const prismaCli = join(root, 'node_modules', 'prisma', 'build', 'index.js');
for (const schema of ['prisma/schema.prisma', 'prisma/postgresql/schema.prisma']) {
  const result = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', schema], { cwd: root, env, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
