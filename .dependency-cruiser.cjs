/**
 * The layers of src/ and the one direction their imports go (issue 11),
 * lowest first:
 *
 *   git/  <-  mirror/, projects/  <-  services/  <-  schema/ (+ context.ts)  <-  yoga.ts, app.ts, server.ts, cli.ts, cli/, http/, data-dir-lock.ts
 *
 * Beside them, src/importers/ (leaves, client/ and itself only; used by services/imports/,
 * schema/imports.ts and the command line) and src/client/ (itself only).
 *
 * Shared leaves (errors, faults, ids, logger, locks, config, db/, fs/, redaction/, generated/, pubsub,
 * redis-pubsub, drains, request-context, text) may be imported from anywhere and import no
 * layer but git/. mirror/ and projects/ sit side by side and never import each
 * other; services/ and schema/ see the mirror only through src/mirror/index.ts.
 * A user's repo is written by projects/ alone: only it imports git/project-*.
 * Type-only imports count (tsPreCompilationDeps): a cycle of types is a cycle
 * of design too. Checked in npm test by test/architecture/layers.test.ts; by
 * hand: npx depcruise src
 */

/** One regular expression matching any of the given paths (already escaped where they need it). */
const any = (...paths) => paths.join('|');

const CLI = any('^src/cli\\.ts$', '^src/cli/');
const TOP = any('^src/(yoga|app|server|data-dir-lock)\\.ts$', CLI, '^src/http/');
const SCHEMA = any('^src/schema/', '^src/context\\.ts$');
const SERVICES = '^src/services/';
const MIRROR = '^src/mirror/';
const PROJECTS = '^src/projects/';
const GIT = '^src/git/';
const IMPORTERS = '^src/importers/';
const CLIENT = '^src/client/';
/** The git of a user's repo (every src/git/project-* file: repo, plumbing, porcelain, tree): src/projects/ owns what is written there. */
const USER_REPO_GIT = '^src/git/project-';
const LEAVES = any(
  '^src/(errors|faults|ids|logger|locks|config|pubsub|redis-pubsub|drains|request-context|text)\\.ts$',
  '^src/db/',
  '^src/fs/',
  '^src/redaction/',
  '^src/generated/',
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'git-is-the-bottom',
      comment: 'src/git/ runs git and imports nothing above it (shared leaves only).',
      severity: 'error',
      from: { path: GIT },
      to: { path: any(MIRROR, PROJECTS, SERVICES, SCHEMA, TOP) },
    },
    {
      name: 'mirror-below-services',
      comment: 'src/mirror/ owns the session repos; it imports git/ and leaves, nothing of the API and not projects/.',
      severity: 'error',
      from: { path: MIRROR },
      to: { path: any(PROJECTS, SERVICES, SCHEMA, TOP) },
    },
    {
      name: 'projects-below-services',
      comment: 'src/projects/ owns the user project folders; it imports git/ and leaves, nothing of the API and not mirror/ (shared text goes to a leaf such as src/text.ts).',
      severity: 'error',
      from: { path: PROJECTS },
      to: { path: any(MIRROR, SERVICES, SCHEMA, TOP) },
    },
    {
      name: 'services-never-import-git-project',
      comment: "src/services/ reaches a user's repo only through src/projects/, which owns every commit, snapshot and restore written there (issue 24).",
      severity: 'error',
      from: { path: SERVICES },
      to: { path: USER_REPO_GIT },
    },
    {
      name: 'only-projects-open-a-user-repo',
      comment: "The git of a user's repo is imported by src/projects/ and by itself only: not by the rest of git/ (index.ts re-exports none of it), mirror/, schema/ or the top.",
      severity: 'error',
      from: { path: '^src/', pathNot: any(PROJECTS, SERVICES, USER_REPO_GIT) },
      to: { path: USER_REPO_GIT },
    },
    {
      name: 'services-below-schema',
      comment: 'src/services/ holds the domain rules as plain functions: no GraphQL, no server.',
      severity: 'error',
      from: { path: SERVICES },
      to: { path: any(SCHEMA, TOP) },
    },
    {
      name: 'sessions-base-of-services',
      comment: 'src/services/sessions/ is the base of src/services/: replay, projects and imports build on it, never the other way.',
      severity: 'error',
      from: { path: '^src/services/sessions/' },
      to: { path: '^src/services/(replay|projects|imports)/' },
    },
    {
      name: 'schema-below-app',
      comment: 'src/schema/ is the Pothos schema; the handler, the app and the server are built on it, not the other way.',
      severity: 'error',
      from: { path: SCHEMA },
      to: { path: TOP },
    },
    {
      name: 'api-sees-one-mirror-face',
      comment: 'src/services/ and src/schema/ import src/mirror/index.ts only, never the mirror\'s internals.',
      severity: 'error',
      from: { path: any(SERVICES, SCHEMA) },
      to: { path: MIRROR, pathNot: '^src/mirror/index\\.ts$' },
    },
    {
      name: 'leaves-stay-leaves',
      comment: 'Shared leaf modules are imported from every layer, so they import none but git/.',
      severity: 'error',
      from: { path: LEAVES },
      to: { path: any(MIRROR, PROJECTS, SERVICES, SCHEMA, TOP) },
    },
    {
      name: 'importers-are-leaves',
      comment: 'src/importers/ parses transcripts and hands sessions to an ImportTarget (src/client/ over HTTP): it imports itself, the client and shared leaves only.',
      severity: 'error',
      from: { path: IMPORTERS },
      to: { path: '^src/', pathNot: any(IMPORTERS, CLIENT, LEAVES) },
    },
    {
      name: 'importers-for-imports-only',
      comment: 'src/importers/ is used by the import service, its schema, the command line and live capture (which reads the agents\' transcripts as they grow), nothing else.',
      severity: 'error',
      from: { path: '^src/', pathNot: any(IMPORTERS, '^src/services/imports/', '^src/services/hooks/', '^src/schema/imports\\.ts$', CLI) },
      to: { path: IMPORTERS },
    },
    {
      name: 'hook-events-are-pure',
      comment: 'src/hooks/ reads what the agents send their hooks (events, the paths a tool names): pure, so it imports nothing of src/ outside itself.',
      severity: 'error',
      from: { path: '^src/hooks/(?!install/)' },
      to: { path: '^src/', pathNot: '^src/hooks/' },
    },
    {
      name: 'client-stands-alone',
      comment: 'src/client/ is the typed client runtimes import (entity-memory/client): it runs beside the agent, not in the server, so it imports nothing of src/ outside itself.',
      severity: 'error',
      from: { path: CLIENT },
      to: { path: '^src/', pathNot: CLIENT },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'resolvable',
      comment: 'An import of src/ that cannot be resolved would escape every rule above.',
      severity: 'error',
      from: { path: '^src/' },
      // A package of types only (no JavaScript to resolve); src/client/ imports its types.
      to: { couldNotResolve: true, pathNot: '^@graphql-typed-document-node/core$' },
    },
  ],
  options: {
    // Prisma's generated client has cycles of its own; it is a leaf to us.
    doNotFollow: { path: ['node_modules', '^src/generated/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // NodeNext: imports name './x.js' for './x.ts'.
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
      // As Node resolves packages with an exports map (graphql-ws/use/ws, @prisma/schema-engine-wasm).
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
