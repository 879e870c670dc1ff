import { defineConfig } from 'prisma/config';

// Only `prisma generate` reads this file; the server opens its database through
// a driver adapter (src/db) and applies migrations itself (src/db/index.ts, on src/db/schema-engine.ts).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
