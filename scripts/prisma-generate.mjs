#!/usr/bin/env node
// Runs `prisma generate` on machines that reach only the npm registry.
//
// `prisma generate` never executes the schema-engine binary, it only checks
// that one exists, and downloading it fails without network access. When no
// engine is configured we point PRISMA_SCHEMA_ENGINE_BINARY (a variable Prisma
// documents for custom engine locations) at a placeholder that refuses to run
// with a clear message. Migrations do not need it: the server applies them with
// Prisma's schema engine compiled to WebAssembly (src/db/schema-engine.ts).
//
// A no-op when the clients were generated from the same schema by the same Prisma (a stamp in
// node_modules/.cache/entity-memory): npm start, npm test and npm pack all run it. --force
// generates anyway.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

const dir = join(root, 'node_modules', '.cache', 'entity-memory');
mkdirSync(dir, { recursive: true });
const stampFile = join(dir, 'prisma-generate.stamp');
const stamp = createHash('sha256')
  .update(['prisma/schema.prisma', 'prisma.config.ts', 'scripts/prisma-schemas.mjs', 'scripts/prisma-generate.mjs', 'node_modules/prisma/package.json', 'node_modules/@pothos/plugin-prisma/package.json'].map((file) => readFileSync(join(root, file), 'utf8')).join('\0'))
  .digest('hex');
const outputs = ['src/generated/prisma/client.ts', 'src/generated/prisma-postgresql/client.ts', 'src/generated/pothos-types.ts'];
const fresh = !process.argv.includes('--force') && outputs.every((file) => existsSync(join(root, file))) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp;
if (fresh) process.exit(0);

if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
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
writeFileSync(stampFile, stamp);
