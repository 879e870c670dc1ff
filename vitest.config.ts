import { createRequire } from 'node:module';
import { configDefaults, defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) builds; Node, and so yoga,
    // loads the CJS one. Give our own code the same file, or `instanceof
    // GraphQLError` sees two classes.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    // web/src: the UI's component tests (jsdom, chosen per file with `// @vitest-environment jsdom`).
    include: ['test/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    // test/scale-out: several servers on one PostgreSQL, one Redis and one sessions folder. They
    // run in the PostgreSQL pass (npm run test:postgresql, test/helpers/database.ts), which needs
    // both services; SQLite is one server per data dir.
    // test/server/package.test.ts: the packed package installed and served on its own embedded
    // database, the same in both passes: it runs in the SQLite pass only (it takes two minutes).
    exclude: [
      ...configDefaults.exclude,
      ...(process.env.ENTITY_MEMORY_TEST_DATABASE === 'postgresql' ? ['test/server/package.test.ts'] : ['test/scale-out/**']),
    ],
    setupFiles: ['test/helpers/environment.ts', 'test/helpers/leftovers.ts', 'test/helpers/dom-waits.ts'],
    // Builds web/dist and dist/ first when their sources changed (scripts/build-web.mjs,
    // scripts/build-server.mjs): the tests that spawn the bin run the compiled server.
    globalSetup: ['test/helpers/web-build-setup.ts', 'test/helpers/server-build-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits until what it polls holds, for as long as a loaded machine may need (its
    // default second is a guess of time); one that holds returns at once.
    expect: { poll: { timeout: 30_000 } },
    // Each file starts real servers and git processes; two cores run two files at a time.
    pool: 'forks',
    maxWorkers: 2,
  },
});
