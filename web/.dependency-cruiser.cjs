/**
 * The layers of the web UI (web/src) and the one direction their imports go (issue 24),
 * after bulletproof-react:
 *
 *   lib/ (client, router, token, Link), gql/ (generated)  <-  features/<name>/  <-  app/ (the shell), main.tsx
 *
 * app/ composes: it alone puts one feature's piece inside another's (the session page's
 * branches slot). A feature imports lib/, gql/ and itself, never app/ nor another feature; a
 * piece two features need moves to lib/. lib/ imports no feature and not app/.
 * Type-only imports count (tsPreCompilationDeps). A config of its own, not a block of the
 * root one, because web/src resolves with web/tsconfig.json (Bundler resolution, .tsx, JSX)
 * where src/ uses the root tsconfig (NodeNext). Paths are relative to the repository root:
 * checked in npm test by test/architecture/web-layers.test.ts; by hand, from the root:
 * npx depcruise web/src --config web/.dependency-cruiser.cjs
 */

/** One regular expression matching any of the given paths (already escaped where they need it). */
const any = (...paths) => paths.join('|');
const { join } = require('node:path');

const SHELL = any('^web/src/app/', '^web/src/main\\.tsx$');
const FEATURES = '^web/src/features/';
const LIB = '^web/src/lib/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'web-features-below-app',
      comment: 'A feature never imports the shell (web/src/app/, main.tsx): what it needs from there belongs in web/src/lib/.',
      severity: 'error',
      from: { path: FEATURES },
      to: { path: SHELL },
    },
    {
      name: 'web-features-apart',
      comment: 'A feature never imports another feature: app/ composes them (a slot, a prop), or the shared piece moves to web/src/lib/.',
      severity: 'error',
      from: { path: '^web/src/features/([^/]+)/' },
      to: { path: FEATURES, pathNot: '^web/src/features/$1/' },
    },
    {
      name: 'web-lib-below-features',
      comment: 'web/src/lib/ is shared by every feature and the shell, so it imports neither.',
      severity: 'error',
      from: { path: LIB },
      to: { path: any(FEATURES, SHELL) },
    },
    {
      name: 'web-no-circular',
      comment: 'No import cycles in web/src, type-only imports included.',
      severity: 'error',
      from: { path: '^web/src/' },
      to: { circular: true },
    },
    {
      name: 'web-resolvable',
      comment: 'An import of web/src that cannot be resolved would escape every rule above.',
      severity: 'error',
      from: { path: '^web/src/' },
      // A package of types only (no JavaScript to resolve); the generated web/src/gql/ imports its types.
      to: { couldNotResolve: true, pathNot: '^@graphql-typed-document-node/core$' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    tsPreCompilationDeps: true,
    // Absolute: given 'web/tsconfig.json', TypeScript looks for its `include` in the wrong folder and finds no input.
    tsConfig: { fileName: join(__dirname, 'tsconfig.json') },
    // As Vite resolves: extensionless imports of .ts/.tsx, packages through their exports map for the browser.
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'browser', 'default'],
      mainFields: ['module', 'browser', 'main'],
    },
  },
};
