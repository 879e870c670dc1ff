import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * `npm run codegen`:
 * - schema.graphql, the schema the server serves, printed from src/schema
 *   (a test fails when the committed file is stale);
 * - test/graphql/, typed documents for the operations the tests write with `graphql(...)`;
 * - web/src/gql/, the same for the web UI's operations (the .ts and .tsx files under web/src);
 * - src/client/gql/, the same for the typed client for agent runtimes (src/client/);
 * - src/mcp/gql/, the same for the MCP server's tools and resources (src/mcp/).
 */
/** The client preset as every output of typed documents uses it: plain types, no fragment masking. */
const typedDocuments = {
  preset: 'client',
  config: {
    scalars: { DateTime: 'string', JSON: 'unknown' },
    enumsAsTypes: true,
    useTypeImports: true,
  },
  presetConfig: { fragmentMasking: false },
} as const;

const config: CodegenConfig = {
  schema: './src/schema/index.ts',
  ignoreNoDocuments: true,
  // ESM imports with .js extensions, as NodeNext resolution requires.
  emitLegacyCommonJSImports: false,
  generates: {
    './schema.graphql': {
      plugins: ['schema-ast'],
      config: { includeDirectives: false, sort: false },
    },
    './test/graphql/': {
      documents: ['test/**/*.ts', '!test/graphql/**'],
      ...typedDocuments,
    },
    './web/src/gql/': {
      documents: ['web/src/**/*.{ts,tsx}', '!web/src/gql/**'],
      ...typedDocuments,
    },
    './src/client/gql/': {
      documents: ['src/client/**/*.ts', '!src/client/gql/**'],
      ...typedDocuments,
    },
    './src/mcp/gql/': {
      documents: ['src/mcp/**/*.ts', '!src/mcp/gql/**'],
      ...typedDocuments,
    },
  },
};

export default config;
