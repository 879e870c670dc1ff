import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * `npm run codegen`:
 * - schema.graphql, the schema the server serves, printed from src/schema
 *   (a test fails when the committed file is stale);
 * - test/graphql/, typed documents for the operations the tests write with `graphql(...)`.
 */
const config: CodegenConfig = {
  schema: './src/schema/index.ts',
  documents: ['test/**/*.ts', '!test/graphql/**'],
  ignoreNoDocuments: true,
  // ESM imports with .js extensions, as NodeNext resolution requires.
  emitLegacyCommonJSImports: false,
  generates: {
    './schema.graphql': {
      plugins: ['schema-ast'],
      config: { includeDirectives: false, sort: false },
    },
    './test/graphql/': {
      preset: 'client',
      config: {
        scalars: { DateTime: 'string', JSON: 'unknown' },
        enumsAsTypes: true,
        useTypeImports: true,
      },
      presetConfig: { fragmentMasking: false },
    },
  },
};

export default config;
